// RUN: kiln-opt %s --tile-nv-per-warp-arrivals | FileCheck %s --check-prefix=IR
// RUN: kiln-opt %s --tile-nv-per-warp-arrivals | kiln-opt --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ORACLE --implicit-check-not=witnessed
// RUN: kiln-opt %s --tile-nv-per-warp-arrivals | sed -e 's/\(mbarrier_init %[0-9a-z_]*\), 4 /\1, 5 /' | kiln-opt --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FIVE
// RUN: kiln-opt %s --tile-nv-per-warp-arrivals | sed -e 's/\(mbarrier_init %[0-9a-z_]*\), 4 /\1, 3 /' | kiln-opt --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=THREE

// tile-nv-per-warp-arrivals judged by the independent barrier oracle (every
// execution and warp schedule, the hardware's mbarrier phases). A two-slot
// TMA ring: the one-warp producer refills a slot once its "empty" barrier
// says the 4 consumer warps have read it; the consumers release a slot with
// a plain arrival, which the pass makes every warp's own (init 4, {per_warp}
// arrivals of 1). The oracle plays every execution without a hang or a race
// (prefix ORACLE). Scaled wrongly, it does not: an init of 5 never completes
// (prefix FIVE, a hang), an init of 3 completes before the fourth warp has
// read the slot, and the refill races with its read (prefix THREE).
// IR: tile_nv.mbarrier_init %{{.*}}, 4 :
// IR: tile_nv.mbarrier_arrive %{{.*}}, 1 {per_warp} :
// ORACLE: remark: barrier oracle: {{[0-9]+}} executions
// FIVE: remark: barrier oracle: witnessed (hang)
// THREE: remark: barrier oracle: witnessed (write-after-read)
#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!bufs = !tile.memdesc<2x32x64xf32, #nv, mutable>
!buf = !tile.memdesc<32x64xf32, #nv, mutable, 2x32x64>
!bars = !tile.memdesc<2x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 2x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @ring(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %bufs = tile.local_alloc : () -> !bufs
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remui %i, %c2 : i32
        %ph = arith.divui %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %b = tile.memdesc_index %bufs[%s] : !bufs -> !buf
        %v = tile.local_load %b : !buf -> tensor<32x64xf32, #l>
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        tile_nv.mbarrier_arrive %e, 1 : !bar
      }
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remui %i, %c2 : i32
        %ph = arith.divui %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %b = tile.memdesc_index %bufs[%s] : !bufs -> !buf
        tile_nv.mbarrier_expect %r, 8192 : !bar
        tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %r, %b : !desc, !bar, !buf
      }
      tile.warp_yield
    }
    return
  }
}
