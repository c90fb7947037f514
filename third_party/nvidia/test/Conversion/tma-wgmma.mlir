// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Descriptors are 128-byte grid constants. Thread 0 arms the barrier and
// issues both TMA loads (no CTA barrier between them: the copies land at the
// mbarrier wait, for every thread), then the warpgroup issues 2 x 4
// m64n128k16 wgmma (M = 128 on one warpgroup: two 64-row instructions, K = 64:
// four k-steps), commits and waits with the accumulator tied through the
// wait. The epilogue stores to shared memory, fences the async proxy, and a
// CTA barrier precedes the TMA store (two 64-column boxes of the 128-byte
// swizzle), its commit and its read wait.
// CHECK-LABEL: llvm.func @gemm_step
// CHECK-SAME: llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant
// CHECK: mbarrier.init
// CHECK: mbarrier.arrive.expect_tx
// CHECK-NOT: nvvm.barrier0
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT: nvvm.barrier0
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0;", "=f,
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// PTX: .param .align 64 .b8 gemm_step_param_0[128]
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX: cp.async.bulk.wait_group.read 0;
#acc = #tile.linear<{register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]}>
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gemm_step(%ad: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %bd: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %cd: !tile.tensordesc<tensor<128x128xbf16, #nv>>, %m: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 32768 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%m, %c0], %bar, %a : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
    tile_nv.async_tma_copy_global_to_local %bd[%n, %c0], %bar, %b : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !tile.memdesc<128x64xbf16, #nv, mutable> -> !tile.memdesc<64x128xbf16, #nvt, mutable>
    %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z {isAsync} : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x128xbf16, #nvt, mutable> -> tensor<128x128xf32, #acc>
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc>
    %h = arith.truncf %r : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
    %c = tile.local_alloc : () -> !tile.memdesc<128x128xbf16, #nv, mutable>
    tile.local_store %h, %c : tensor<128x128xbf16, #acc> -> !tile.memdesc<128x128xbf16, #nv, mutable>
    tile_nv.fence_async_shared
    tile_nv.async_tma_copy_local_to_global %cd[%m, %n], %c : !tile.tensordesc<tensor<128x128xbf16, #nv>>, !tile.memdesc<128x128xbf16, #nv, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }
}
