// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A descriptor a worker partition makes itself: its own 128-byte slot of the
// kernel's global scratch (the hidden last argument), written by the
// partition's first thread (thread index counted from the partition's start),
// then the partition's own named barrier (not the CTA's barrier 0, which the
// kernel's warps never reach here), then the acquire before its copy.
// CHECK-LABEL: llvm.func @made_by_a_worker
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>)
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// PTX: tensormap.replace.tile.global_address.global.b1024.b64
// PTX: fence.proxy.tensormap::generic.release.gpu;
// PTX-NEXT: }
// PTX-NEXT: // end inline asm
// PTX-NEXT: bar.sync 2, 32;
// PTX: fence.proxy.tensormap::generic.acquire.gpu [[[D:%rd[0-9]+]]], 128;
// PTX: cp.async.bulk.tensor.2d
#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @made_by_a_worker(%p: !tile.ptr<f16>, %m: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !tile.memdesc<16x16xf16, #nv, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [24] {
      tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile.warp_yield
    } partitions {
      %s = arith.extsi %n : i32 to i64
      %one = arith.constant 1 : i64
      %d = tile_nv.make_tensor_descriptor %p[%m, %n], [%s, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
      tile_nv.mbarrier_expect %bar, 512 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !tile.tensordesc<tensor<16x16xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x16xf16, #nv, mutable>
      tile.warp_yield
    }
    return
  }
}
