// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A run of mbarrier inits (a ring's barriers, one a slot), separated only by
// ops without memory effects (the slots' views), shares one CTA barrier
// after its last init; a run of invalidates shares the one before its first
// (include/kiln/Dialect/Tile/IR/BarrierRuns.h). An op with memory effects
// between two inits (a shared store) ends the run: each part gets its own.

// (The ring's arrival is the 4 warps' own: tile-nv-per-warp-arrivals scales
// its counts by 4.)
// CHECK-LABEL: .entry ring_barriers
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 4;
// CHECK-NOT: bar.sync
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 4;
// CHECK-NOT: bar.sync
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 8;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK: mbarrier.try_wait
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: mbarrier.inval.shared.b64
// CHECK-NOT: bar.sync
// CHECK: mbarrier.inval.shared.b64
// CHECK-NOT: bar.sync
// CHECK: mbarrier.inval.shared.b64
// CHECK-NOT: bar.sync
// CHECK: ret;

// CHECK-LABEL: .entry store_between_inits
// CHECK: mbarrier.init.shared.b64
// CHECK: bar.sync 0;
// CHECK: st.shared
// CHECK: mbarrier.init.shared.b64
// CHECK: bar.sync 0;

// An op with a region between two inits ends the run too (its body could do anything), even
// when the body has no memory effects.
// CHECK-LABEL: region_between_inits(
// CHECK: mbarrier.init.shared.b64
// CHECK: bar.sync 0;
// CHECK: mbarrier.init.shared.b64
// CHECK: bar.sync 0;
// CHECK: ret;
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!ring = !tile.memdesc<3x1xi64, #sh, mutable>
!one = !tile.memdesc<1xi64, #sh, mutable, 3x1>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_barriers(%phase: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !ring
    %b0 = tile.memdesc_index %ring[%c0] : !ring -> !one
    tile_nv.mbarrier_init %b0, 1 : !one
    %b1 = tile.memdesc_index %ring[%c1] : !ring -> !one
    tile_nv.mbarrier_init %b1, 1 : !one
    %b2 = tile.memdesc_index %ring[%c2] : !ring -> !one
    tile_nv.mbarrier_init %b2, 2 : !one
    tile_nv.mbarrier_arrive %b0, 1 : !one
    tile_nv.mbarrier_wait %b0, %phase : !one, i32
    tile_nv.mbarrier_invalidate %b0 : !one
    %v1 = tile.memdesc_index %ring[%c1] : !ring -> !one
    tile_nv.mbarrier_invalidate %v1 : !one
    %v2 = tile.memdesc_index %ring[%c2] : !ring -> !one
    tile_nv.mbarrier_invalidate %v2 : !one
    return
  }
  func.func @store_between_inits(%v: tensor<128xf32, #l>) {
    %a = tile.local_alloc : () -> !bar
    %b = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_init %a, 1 : !bar
    tile.local_store %v, %buf : tensor<128xf32, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_init %b, 1 : !bar
    return
  }
  func.func @region_between_inits(%c: i1) -> i32 {
    %a = tile.local_alloc : () -> !bar
    %b = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %a, 1 : !bar
    %r = scf.if %c -> (i32) {
      %one = arith.constant 1 : i32
      scf.yield %one : i32
    } else {
      %two = arith.constant 2 : i32
      scf.yield %two : i32
    }
    tile_nv.mbarrier_init %b, 1 : !bar
    return %r : i32
  }
}
