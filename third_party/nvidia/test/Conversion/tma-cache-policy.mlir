// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// An L2 eviction policy on a TMA load and store (Gluon's cache_policy): one
// createpolicy.fractional each (the fraction as an f32 immediate: 0.5 is
// 0f3F000000; the secondary priority named only when it is evict_first),
// its value the copy's .L2::cache_hint operand. Without one, no hint.
// CHECK-LABEL: llvm.func @policies
// CHECK: %[[P:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_last.L2::evict_first.b64 $0, 0f3F000000;", "=l"  : () -> i64
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$5 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [$0], [$1, {$2} ], [$3], $4;", "l,l,r,r,l,b" {{.*}}, %[[P]],
// CHECK: %[[Q:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_first.b64 $0, 0f3F800000;", "=l"  : () -> i64
// The store's instruction is written out (NVVM's op takes no hint with a
// predicate): the elected thread issues it.
// CHECK: llvm.inline_asm has_side_effects "@$4 cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [$0, {$1}], [$2], $3;", "l,r,r,l,b" {{.*}}, %[[Q]],
// CHECK-NOT: createpolicy
// CHECK: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [
// PTX-LABEL: .entry policies
// PTX: createpolicy.fractional.L2::evict_last.L2::evict_first.b64
// PTX: cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint
// PTX: createpolicy.fractional.L2::evict_first.b64
// PTX: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint
// PTX: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [
#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @policies(%in: !tile.tensordesc<tensor<256xf16, #nv1>>, %out: !tile.tensordesc<tensor<256xf16, #nv1>>, %x: i32) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf16, #nv1, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 512 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %in[%x], %bar, %buf {l2_primary = "evict_last", l2_secondary = "evict_first", l2_fraction = 5.000000e-01 : f32} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile_nv.fence_async_shared {cluster = false}
    tile_nv.async_tma_copy_local_to_global %out[%x], %buf {l2_primary = "evict_first"} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.async_tma_copy_local_to_global %out[%x], %buf : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
