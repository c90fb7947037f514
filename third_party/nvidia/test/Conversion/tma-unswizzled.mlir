// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// TMA copies of unswizzled (swizzle = 0) NVMMA buffers, the layout Gluon's
// NVMMASharedLayout.get_default_for picks for small boxes: the buffer is
// row-major, so each block is one box (the host encodes the box as the
// block, kiln.nvidia.hopper.tma_box), a one-row box [1, 64] included. The
// row-major view reads back with plain vector loads.
// CHECK-LABEL: llvm.func @unswizzled
// CHECK-COUNT-1: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK-COUNT-1: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
#nv0 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#row = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unswizzled(%rd: !tile.tensordesc<tensor<1x64xbf16, #nv0>>, %bd: !tile.tensordesc<tensor<64x64xbf16, #nv0>>, %od: !tile.tensordesc<tensor<64x64xbf16, #nv0>>, %y: !tile.ptr<bf16>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tile.local_alloc : () -> !tile.memdesc<1x64xbf16, #nv0, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv0, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 128 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %rd[%c0, %c0], %bar, %r : !tile.tensordesc<tensor<1x64xbf16, #nv0>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<1x64xbf16, #nv0, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %bar, %b : !tile.tensordesc<tensor<64x64xbf16, #nv0>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv0, mutable>
    tile_nv.mbarrier_wait %bar, %c1 : !tile.memdesc<1xi64, #sh, mutable>, i32
    %v = tile.local_load %r : !tile.memdesc<1x64xbf16, #nv0, mutable> -> tensor<1x64xbf16, #row>
    %i = tile.arange 0, 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = #row}>>
    %i2 = tile.expand_dims %i {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = #row}>> -> tensor<1x64xi32, #row>
    %p = tile.splat %y : tensor<1x64x!tile.ptr<bf16>, #row>
    %pp = tile.addptr %p, %i2 : tensor<1x64x!tile.ptr<bf16>, #row>, tensor<1x64xi32, #row>
    tile.store %pp, %v : tensor<1x64x!tile.ptr<bf16>, #row>
    tile_nv.async_tma_copy_local_to_global %od[%c0, %c0], %b : !tile.tensordesc<tensor<64x64xbf16, #nv0>>, !tile.memdesc<64x64xbf16, #nv0, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
