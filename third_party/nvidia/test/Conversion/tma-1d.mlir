// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// 1-D TMA boxes (Gluon's NVMMASharedLayout.get_default_for of a 1-D block:
// rank 1, no swizzle): the block is one box of contiguous elements, loaded
// and stored with one coordinate, and read back from shared memory in order.
// CHECK-LABEL: llvm.func @one_d
// CHECK-COUNT-1: cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.1d.shared::cluster.global
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK-COUNT-1: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group
// CHECK-NOT: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group
// PTX: cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%{{[a-z0-9]+}}], [%{{[a-z0-9]+}}, {%{{[a-z0-9]+}}} ]
// PTX: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%{{[a-z0-9]+}}, {%{{[a-z0-9]+}}} ]
#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#row = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @one_d(%in: !tile.tensordesc<tensor<256xf16, #nv1>>, %out: !tile.tensordesc<tensor<256xf16, #nv1>>, %x: i32) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf16, #nv1, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 512 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %in[%x], %bar, %buf : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    %v = tile.local_load %buf : !tile.memdesc<256xf16, #nv1, mutable> -> tensor<256xf16, #row>
    %w = arith.addf %v, %v : tensor<256xf16, #row>
    %out_buf = tile.local_alloc %w : (tensor<256xf16, #row>) -> !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.fence_async_shared {cluster = false}
    tile_nv.async_tma_copy_local_to_global %out[%x], %out_buf : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
