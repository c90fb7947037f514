// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A descriptor the kernel's warps make, used by a worker partition (a TMA
// loader): the kernel's warps store its address into the warp_specialize's
// scratch before the call; the worker loads it at its partition's start and
// acquires it for the tensor-map proxy before its copy uses it.
// CHECK-LABEL: llvm.func @descriptor_for_a_worker
// CHECK: fence.proxy.tensormap::generic.acquire.gpu [$0], 128
// CHECK: llvm.store %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr<3>
// CHECK: %[[D:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> !llvm.ptr
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;{{.*}}", "l" %[[D]]
// CHECK: cp.async.bulk.tensor
// PTX: st.shared.b64
// PTX: barrier.sync 1,
// PTX: ld.shared.b64 [[D:%rd[0-9]+]]
// PTX: fence.proxy.tensormap::generic.acquire.gpu [[[D]]], 128;
// PTX: cp.async.bulk.tensor.2d{{.*}}[[[D]],
#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @descriptor_for_a_worker(%p: !tile.ptr<f16>, %m: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %s = arith.extsi %n : i32 to i64
    %one = arith.constant 1 : i64
    %d = tile_nv.make_tensor_descriptor %p[%m, %n], [%s, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x16xf16, #nv, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 512 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !tile.tensordesc<tensor<16x16xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x16xf16, #nv, mutable>
      tile.warp_yield
    }
    return
  }
}
