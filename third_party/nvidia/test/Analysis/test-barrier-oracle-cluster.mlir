// RUN: kiln-opt %s -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RING --implicit-check-not=witnessed
// RUN: sed -e 's/{cta_mask = 1 : i32} //' -e 's/mbarrier_init %empty, 2/mbarrier_init %empty, 1/' %s | kiln-opt -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/{cta_mask = 1 : i32} //' -e 's/mbarrier_init %empty, 2/mbarrier_init %empty, 1/' %s | kiln-opt -split-input-file --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONECTA --implicit-check-not=witnessed
// RUN: sed -e 's/mbarrier_init %empty, 2/mbarrier_init %empty, 1/' %s | kiln-opt -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: sed -e 's/tile_nv.cluster_wait//' %s | kiln-opt -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCLUSTERWAIT
// RUN: kiln-opt %s -split-input-file --tile-nv-per-warp-arrivals | kiln-opt -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PERWARP --implicit-check-not=witnessed
// RUN: kiln-opt %s -split-input-file --tile-nv-per-warp-arrivals | sed -e 's/\(mbarrier_init %[0-9a-z_]*\), 8 /\1, 7 /' | kiln-opt -split-input-file --test-barrier-oracle="ctas=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PERWARP7

// test-barrier-oracle with ctas=2: the function is one CTA's program of a
// cluster of two, and both CTAs are played side by side, each with its own
// buffers and barriers. The ring: a TMA copy multicast into both CTAs' slot
// (issued by CTA 0, counted on each CTA's `ready`), read by each CTA's four
// warps, which then release the slot on `empty` in both CTAs (cta_mask = 1:
// the CTAs whose rank differs in bit 0), whose phase counts both CTAs'
// arrivals; the refill waits on it. No execution races or hangs (RING),
// under the three schedules of one CTA and two that run one CTA at a time as
// far ahead of the other as it goes.
//
// Mutations the oracle must see:
//  * LOCAL, each CTA releases only its own `empty` (no cta_mask, a count of
//    one): CTA 0 refills CTA 1's slot while CTA 1's warps may still read it
//    -- a write-after-read at the copy that only the cluster is able to
//    show; played as one CTA (ONECTA), where a multicast lands locally and
//    every CTA is assumed to behave the same, the same kernel looks right;
//  * COUNT, `empty` counts one arrival a phase while both CTAs arrive: its
//    phase completes on the first CTA's release (the structural check of the
//    NVIDIA target reports this count at the init; here the race itself);
//  * PERWARP, the release made every warp's own (tile-nv-per-warp-arrivals:
//    `empty` counts 8, each of a CTA's 4 warps arrives once on both CTAs'
//    barriers): no race or hang; PERWARP7, its count one short: the oracle
//    sees the phase complete early;
//  * NOCLUSTERWAIT, the cluster barrier after the inits gone: a CTA's remote
//    arrival may reach the other's barrier before it is initialized, and
//    is lost (a hang): seen only by the schedules that let one CTA run
//    ahead.

// RING: remark: barrier oracle: 9 executions
// LOCAL: remark: barrier oracle: witnessed (write-after-read)
// LOCAL-NEXT: tile_nv.async_tma_copy_global_to_local
// ONECTA: remark: barrier oracle: 9 executions
// COUNT: remark: barrier oracle: witnessed (write-after-read)
// COUNT-NEXT: tile_nv.async_tma_copy_global_to_local
// PERWARP: remark: barrier oracle: 9 executions
// PERWARP7: remark: barrier oracle: witnessed
// NOCLUSTERWAIT: remark: barrier oracle: witnessed (hang)
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @multicast_ring(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32) -> tensor<16x32xf16, #l> {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %empty, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.fence_mbarrier_init_cluster
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %both = arith.constant 3 : i32
    %z = arith.constant dense<0.0> : tensor<16x32xf16, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %ph = %c0) -> (tensor<16x32xf16, #l>, i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %both : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      %v = tile.local_load %buf : !tile.memdesc<16x32xf16, #nv, mutable> -> tensor<16x32xf16, #l>
      %a = arith.addf %acc, %v : tensor<16x32xf16, #l>
      tile.barrier
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      scf.yield %a, %eph : tensor<16x32xf16, #l>, i32
    }
    return %r#0 : tensor<16x32xf16, #l>
  }
}
