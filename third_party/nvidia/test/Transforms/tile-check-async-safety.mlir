// RUN: kiln-opt %s --split-input-file --tile-check-async-safety --verify-diagnostics

// tile-check-async-safety on the mistakes that hang or race a TMA + mbarrier
// + wgmma kernel. Each function with an expected error is the correct one
// beside it with one mistake; the correct ones must pass without a word.

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<3x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 3x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, 3x64x64>
!bars = !tile.memdesc<3x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 3x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // A barrier nothing arrives on: the wait never returns.
  func.func @wait_without_arrival(%ad: !desc) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    %b1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    tile_nv.mbarrier_init %b1, 1 : !bar
    %s0 = tile.memdesc_index %a[%c0] : !ring -> !slot
    tile_nv.mbarrier_expect %b0, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %s0 : !desc, !bar, !slot
    tile_nv.mbarrier_wait %b0, %c0 : !bar, i32
    // The copy completes on %b0, but only an arrival can complete a phase.
    // expected-error @+1 {{'tile_nv.mbarrier_wait' waits on a barrier that nothing in this function arrives on (no expect or arrive on it): its phase never completes and the wait never returns}}
    tile_nv.mbarrier_wait %b1, %c0 : !bar, i32
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<3x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 3x64x64>
!bars = !tile.memdesc<3x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 3x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // Straight-line: the expect counts one copy of two (8192 of 16384 bytes).
  func.func @expect_too_few_bytes(%ad: !desc, %bd: !desc) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    %sa = tile.memdesc_index %a[%c0] : !ring -> !slot
    %sb = tile.memdesc_index %b[%c0] : !ring -> !slot
    // expected-error @+1 {{'tile_nv.mbarrier_expect' announces 8192 transaction bytes, but the 2 writes completing on this barrier before its next wait deliver 16384 bytes: the phase completes before all the data lands}}
    tile_nv.mbarrier_expect %b0, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %sa : !desc, !bar, !slot
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %b0, %sb : !desc, !bar, !slot
    tile_nv.mbarrier_wait %b0, %c0 : !bar, i32
    return
  }

  // One copy where the expect counts two: the phase never completes.
  func.func @expect_too_many_bytes(%ad: !desc) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    %sa = tile.memdesc_index %a[%c0] : !ring -> !slot
    // expected-error @+1 {{announces 16384 transaction bytes, but the 1 write completing on this barrier before its next wait deliver 8192 bytes: the phase never completes and the wait hangs}}
    tile_nv.mbarrier_expect %b0, 16384 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %sa : !desc, !bar, !slot
    tile_nv.mbarrier_wait %b0, %c0 : !bar, i32
    return
  }

  // Copies issued before the expect, on a predicate, or through a branch
  // are not decided here: no report.
  func.func @expect_not_decided(%ad: !desc, %p: i1) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    %sa = tile.memdesc_index %a[%c0] : !ring -> !slot
    %c1 = arith.constant 1 : i32
    %sb = tile.memdesc_index %a[%c1] : !ring -> !slot
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %sa : !desc, !bar, !slot
    tile_nv.mbarrier_expect %b0, 16384 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %sb : !desc, !bar, !slot
    tile_nv.mbarrier_wait %b0, %c0 : !bar, i32
    tile_nv.mbarrier_expect %b0, 16384 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %sa, %p : !desc, !bar, !slot
    tile_nv.mbarrier_wait %b0, %c1 : !bar, i32
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<3x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 3x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, 3x64x64>
!bars = !tile.memdesc<3x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 3x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // The pipelined GEMM's main loop as examples/hopper.py writes it
  // (STAGES = 3, wait(1), refill slot (i + 2) % 3): correct, no report.
  func.func @ring_ok(%ad: !desc, %bd: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    %b1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %b1, 1 : !bar
    %b2 = tile.memdesc_index %bars[%c2] : !bars -> !bar
    tile_nv.mbarrier_init %b2, 1 : !bar
    %a0 = tile.memdesc_index %a[%c0] : !ring -> !slot
    %x0 = tile.memdesc_index %b[%c0] : !ring -> !slot
    tile_nv.mbarrier_expect %b0, 16384 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b0, %a0 : !desc, !bar, !slot
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %b0, %x0 : !desc, !bar, !slot
    %a1 = tile.memdesc_index %a[%c1] : !ring -> !slot
    %x1 = tile.memdesc_index %b[%c1] : !ring -> !slot
    tile_nv.mbarrier_expect %b1, 16384 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %b1, %a1 : !desc, !bar, !slot
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %b1, %x1 : !desc, !bar, !slot
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %bw = tile.memdesc_index %bars[%slot] : !bars -> !bar
      tile_nv.mbarrier_wait %bw, %c0 : !bar, i32
      %as = tile.memdesc_index %a[%slot] : !ring -> !slot
      %bs = tile.memdesc_index %b[%slot] : !ring -> !slot
      %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
      %d = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
      %r = tile_nv.warpgroup_dot_wait %d {pendings = 1 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %nx = arith.addi %i, %c2 : i32
      %ns = arith.remsi %nx, %c3 : i32
      %bn = tile.memdesc_index %bars[%ns] : !bars -> !bar
      tile_nv.mbarrier_expect %bn, 16384 : !bar
      %an = tile.memdesc_index %a[%ns] : !ring -> !slot
      %xn = tile.memdesc_index %b[%ns] : !ring -> !slot
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %nx], %bn, %an : !desc, !bar, !slot
      tile_nv.async_tma_copy_global_to_local %bd[%c0, %nx], %bn, %xn : !desc, !bar, !slot
      scf.yield %r : tensor<64x64xf32, #acc>
    }
    %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    return
  }

  // The same loop without warpgroup_mma_wait: the refill of slot (i + 2) % 3
  // overwrites what the dot of step i - 1 may still be reading.
  func.func @ring_refill_without_wait(%ad: !desc, %bd: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %init0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %init0, 1 : !bar
    %init1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %init1, 1 : !bar
    %init2 = tile.memdesc_index %bars[%c2] : !bars -> !bar
    tile_nv.mbarrier_init %init2, 1 : !bar
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %bw = tile.memdesc_index %bars[%slot] : !bars -> !bar
      tile_nv.mbarrier_wait %bw, %c0 : !bar, i32
      %as = tile.memdesc_index %a[%slot] : !ring -> !slot
      %bs = tile.memdesc_index %b[%slot] : !ring -> !slot
      %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
      // expected-note @+1 {{the asynchronous read}}
      %d = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
      %nx = arith.addi %i, %c2 : i32
      %ns = arith.remsi %nx, %c3 : i32
      %bn = tile.memdesc_index %bars[%ns] : !bars -> !bar
      tile_nv.mbarrier_expect %bn, 16384 : !bar
      %an = tile.memdesc_index %a[%ns] : !ring -> !slot
      %xn = tile.memdesc_index %b[%ns] : !ring -> !slot
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes a shared buffer that the asynchronous read of 'tile_nv.warpgroup_dot' may still be reading: no wait on the 'wgmma' counter with at most 1 pending comes between them (the read was issued 1 iteration earlier)}}
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %nx], %bn, %an : !desc, !bar, !slot
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes a shared buffer that the asynchronous read}}
      tile_nv.async_tma_copy_global_to_local %bd[%c0, %nx], %bn, %xn : !desc, !bar, !slot
      scf.yield %d : tensor<64x64xf32, #acc>
    }
    %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    return
  }

  // wait(2) with three slots: two dots stay in flight, and the older one
  // (step i - 1) reads the slot step i + 2 refills.
  func.func @ring_wait_leaves_too_many(%ad: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %init0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %init0, 1 : !bar
    %init1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %init1, 1 : !bar
    %init2 = tile.memdesc_index %bars[%c2] : !bars -> !bar
    tile_nv.mbarrier_init %init2, 1 : !bar
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %bw = tile.memdesc_index %bars[%slot] : !bars -> !bar
      tile_nv.mbarrier_wait %bw, %c0 : !bar, i32
      %as = tile.memdesc_index %a[%slot] : !ring -> !slot
      %bs = tile.memdesc_index %b[%slot] : !ring -> !slot
      %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
      // expected-note @+1 {{the asynchronous read}}
      %d = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
      %r = tile_nv.warpgroup_dot_wait %d {pendings = 2 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      %nx = arith.addi %i, %c2 : i32
      %ns = arith.remsi %nx, %c3 : i32
      %bn = tile.memdesc_index %bars[%ns] : !bars -> !bar
      tile_nv.mbarrier_expect %bn, 8192 : !bar
      %an = tile.memdesc_index %a[%ns] : !ring -> !slot
      // expected-error @+1 {{writes a shared buffer that the asynchronous read of 'tile_nv.warpgroup_dot' may still be reading: no wait on the 'wgmma' counter with at most 1 pending comes between them (the read was issued 1 iteration earlier)}}
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %nx], %bn, %an : !desc, !bar, !slot
      scf.yield %r : tensor<64x64xf32, #acc>
    }
    %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    return
  }

  // The refill's expect counts the A tile only (8192 of 16384 bytes): the
  // next wait on that slot, two iterations on, hangs.
  func.func @ring_expect_counts_one_tile(%ad: !desc, %bd: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %init0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %init0, 1 : !bar
    %init1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %init1, 1 : !bar
    %init2 = tile.memdesc_index %bars[%c2] : !bars -> !bar
    tile_nv.mbarrier_init %init2, 1 : !bar
    scf.for %i = %c0 to %n step %c1 : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %bw = tile.memdesc_index %bars[%slot] : !bars -> !bar
      tile_nv.mbarrier_wait %bw, %c0 : !bar, i32
      %nx = arith.addi %i, %c2 : i32
      %ns = arith.remsi %nx, %c3 : i32
      %bn = tile.memdesc_index %bars[%ns] : !bars -> !bar
      // expected-error @+1 {{announces 8192 transaction bytes, but the 2 writes completing on this barrier before its next wait deliver 16384 bytes}}
      tile_nv.mbarrier_expect %bn, 8192 : !bar
      %an = tile.memdesc_index %a[%ns] : !ring -> !slot
      %xn = tile.memdesc_index %b[%ns] : !ring -> !slot
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %nx], %bn, %an : !desc, !bar, !slot
      tile_nv.async_tma_copy_global_to_local %bd[%c0, %nx], %bn, %xn : !desc, !bar, !slot
    }
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!cdesc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ctile = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // A persistent epilogue: store_wait(0) before the C tile is rewritten.
  func.func @store_source_ok(%cd: !cdesc, %t: tensor<64x64xbf16, #acc>, %lo: i32, %hi: i32, %step: i32) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    scf.for %tile = %lo to %hi step %step : i32 {
      tile_nv.async_tma_store_wait {pendings = 0 : i32}
      tile.local_store %t, %c : tensor<64x64xbf16, #acc> -> !ctile
      tile_nv.fence_async_shared
      tile_nv.async_tma_copy_local_to_global %cd[%tile, %c0], %c : !cdesc, !ctile
    }
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  // Without it, the next tile's local_store races the previous TMA store.
  func.func @store_source_rewritten(%cd: !cdesc, %t: tensor<64x64xbf16, #acc>, %lo: i32, %hi: i32, %step: i32) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    scf.for %tile = %lo to %hi step %step : i32 {
      // expected-error @+1 {{'tile.local_store' writes a shared buffer that the asynchronous read of 'tile_nv.async_tma_copy_local_to_global' may still be reading: no wait on the 'cp.async.bulk' counter with at most 0 pending comes between them (the read was issued 1 iteration earlier)}}
      tile.local_store %t, %c : tensor<64x64xbf16, #acc> -> !ctile
      tile_nv.fence_async_shared
      // expected-note @+1 {{the asynchronous read}}
      tile_nv.async_tma_copy_local_to_global %cd[%tile, %c0], %c : !cdesc, !ctile
    }
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  // store_wait(1) after a second store retires the first: its source may be
  // written; the second's may not.
  func.func @store_wait_counts_groups(%cd: !cdesc, %t: tensor<64x64xbf16, #acc>) {
    %c0 = arith.constant 0 : i32
    %x = tile.local_alloc : () -> !ctile
    %y = tile.local_alloc : () -> !ctile
    tile.local_store %t, %x : tensor<64x64xbf16, #acc> -> !ctile
    tile_nv.fence_async_shared
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %x : !cdesc, !ctile
    tile.local_store %t, %y : tensor<64x64xbf16, #acc> -> !ctile
    tile_nv.fence_async_shared
    // expected-note @+1 {{the asynchronous read}}
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %y : !cdesc, !ctile
    tile_nv.async_tma_store_wait {pendings = 1 : i32}
    tile.local_store %t, %x : tensor<64x64xbf16, #acc> -> !ctile
    // expected-error @+1 {{'tile.local_store' writes a shared buffer that the asynchronous read of 'tile_nv.async_tma_copy_local_to_global' may still be reading: no wait on the 'cp.async.bulk' counter with at most 0 pending comes between them}}
    tile.local_store %t, %y : tensor<64x64xbf16, #acc> -> !ctile
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!cdesc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ctile = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // The threads' stores must be fenced before the TMA store reads them.
  func.func @store_without_fence(%cd: !cdesc, %t: tensor<64x64xbf16, #acc>) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    // expected-note @+1 {{the write}}
    tile.local_store %t, %c : tensor<64x64xbf16, #acc> -> !ctile
    // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' reads shared memory asynchronously (async proxy) that 'tile.local_store' wrote with no fence_async_shared between them: the asynchronous read may not see those writes}}
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !cdesc, !ctile
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  // The kernel ends with the TMA store still reading shared memory.
  func.func @exit_with_store_in_flight(%cd: !cdesc, %t: tensor<64x64xbf16, #acc>) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    tile.local_store %t, %c : tensor<64x64xbf16, #acc> -> !ctile
    tile_nv.fence_async_shared
    // expected-error @+1 {{the kernel can end while this asynchronous read of shared memory is still in flight: no wait on the 'cp.async.bulk' counter leaves it done before the end (add a TMA store_wait(0) before the kernel returns)}}
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !cdesc, !ctile
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
!bufT = !tile.memdesc<64x64xbf16, #nvt, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // Reading the TMA destination before the wait that completes it.
  func.func @read_before_barrier_wait(%ad: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 8192 : !bar
    // expected-note @+1 {{the barrier-completed write}}
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %a : !desc, !bar, !buf
    // expected-error @+1 {{'tile.local_load' reads shared memory that the barrier-completed write of 'tile_nv.async_tma_copy_global_to_local' may still be writing: no wait on the barrier it completes on comes between them}}
    %v = tile.local_load %a : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return %v : tensor<64x64xbf16, #l>
  }

  // wgmma reads operands the threads stored without a fence.
  func.func @wgmma_without_fence(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    tile.local_store %x, %a : tensor<64x64xbf16, #l> -> !buf
    tile.local_store %x, %b : tensor<64x64xbf16, #l> -> !buf
    tile_nv.fence_async_shared
    // expected-note @+1 {{the write}}
    tile.local_store %x, %b : tensor<64x64xbf16, #l> -> !buf
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @+1 {{'tile_nv.warpgroup_dot' reads shared memory asynchronously (async proxy) that 'tile.local_store' wrote with no fence_async_shared between them}}
    %d = tile_nv.warpgroup_dot %a, %bt, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }

  // A buffer initialized from registers (local_alloc with a source) is a
  // store too: wgmma needs the fence after it.
  func.func @wgmma_after_initializing_alloc(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    // expected-note @+1 {{the write}}
    %a = tile.local_alloc %x : (tensor<64x64xbf16, #l>) -> !buf
    %at = tile.memdesc_permute %a {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @+1 {{'tile_nv.warpgroup_dot' reads shared memory asynchronously (async proxy) that 'tile.local_alloc' wrote with no fence_async_shared between them}}
    %d = tile_nv.warpgroup_dot %a, %at, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }

  func.func @ok_wgmma_after_initializing_alloc_and_fence(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc %x : (tensor<64x64xbf16, #l>) -> !buf
    tile_nv.fence_async_shared
    %at = tile.memdesc_permute %a {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %at, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }

  func.func @ok_wgmma_after_fence(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    tile.local_store %x, %a : tensor<64x64xbf16, #l> -> !buf
    tile.local_store %x, %b : tensor<64x64xbf16, #l> -> !buf
    tile_nv.fence_async_shared
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!bars = !tile.memdesc<2x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 2x1>
!one = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // Barrier 1 of the pair is never initialized.
  func.func @never_initialized() {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bars = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %bars[%c0] : !bars -> !bar
    %b1 = tile.memdesc_index %bars[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    tile_nv.mbarrier_arrive %b0, 1 : !bar
    tile_nv.mbarrier_wait %b0, %c0 : !bar, i32
    // expected-error @+1 {{'tile_nv.mbarrier_arrive' uses a barrier that nothing in this function initializes (no mbarrier init on it): its word holds no phase or arrival count, and waits on it hang or return at random}}
    tile_nv.mbarrier_arrive %b1, 1 : !bar
    // expected-error @+1 {{'tile_nv.mbarrier_wait' uses a barrier that nothing in this function initializes}}
    tile_nv.mbarrier_wait %b1, %c0 : !bar, i32
    return
  }

  // The first wait on a fresh barrier at parity 1 returns at once.
  func.func @first_wait_parity_one() {
    %c1 = arith.constant 1 : i32
    %b = tile.local_alloc : () -> !one
    // expected-note @+1 {{the init}}
    tile_nv.mbarrier_init %b, 1 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    // expected-error @+1 {{'tile_nv.mbarrier_wait' is the first wait on this barrier after its init and waits for parity 1: on a fresh barrier phase 0 is in progress and a wait for parity 1 returns at once; the first phase has parity 0}}
    tile_nv.mbarrier_wait %b, %c1 : !one, i32
    return
  }

  // Parity 0 first, then 1: the second phase.
  func.func @ok_parities() {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %b, 1 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    tile_nv.mbarrier_wait %b, %c0 : !one, i32
    tile_nv.mbarrier_arrive %b, 1 : !one
    tile_nv.mbarrier_wait %b, %c1 : !one, i32
    tile_nv.mbarrier_invalidate %b : !one
    return
  }

  // A loop that arrives on its barrier every iteration and waits at a
  // constant parity: from the second iteration the wait returns at once.
  func.func @constant_parity_in_loop(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %b, 1 : !one
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-note @+1 {{the arrival in the loop}}
      tile_nv.mbarrier_arrive %b, 1 : !one
      // expected-error @+1 {{'tile_nv.mbarrier_wait' waits for the constant parity 0 in a loop that arrives on this barrier every iteration: each phase completed flips the parity, so from the second iteration the wait returns at once for a phase already complete (or hangs); carry the phase in the loop and flip it after each wait (phase ^= 1)}}
      tile_nv.mbarrier_wait %b, %c0 : !one, i32
    }
    tile_nv.mbarrier_invalidate %b : !one
    return
  }

  // The same loop with the phase carried and flipped: correct.
  func.func @carried_parity_in_loop(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %b, 1 : !one
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      tile_nv.mbarrier_arrive %b, 1 : !one
      tile_nv.mbarrier_wait %b, %ph : !one, i32
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    tile_nv.mbarrier_invalidate %b : !one
    return
  }

  // Two arrivals expected per phase; one arrives.
  func.func @arrivals_fall_short() {
    %c0 = arith.constant 0 : i32
    %b = tile.local_alloc : () -> !one
    // expected-error @+1 {{'tile_nv.mbarrier_init' sets the barrier up for 2 arrivals per phase, but the arrivals on it in this function bring at most 1 per phase: no phase completes and every wait on it hangs}}
    tile_nv.mbarrier_init %b, 2 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    tile_nv.mbarrier_wait %b, %c0 : !one, i32
    return
  }

  // In a loop that also waits, each arrival counts once a phase.
  func.func @loop_arrivals_fall_short(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = tile.local_alloc : () -> !one
    // expected-error @+1 {{sets the barrier up for 3 arrivals per phase, but the arrivals on it in this function bring at most 2 per phase}}
    tile_nv.mbarrier_init %b, 3 : !one
    scf.for %i = %c0 to %n step %c1 : i32 {
      tile_nv.mbarrier_arrive %b, 2 : !one
      %ph = arith.andi %i, %c1 : i32
      tile_nv.mbarrier_wait %b, %ph : !one, i32
    }
    return
  }

  // A wait after the invalidate.
  func.func @wait_after_invalidate() {
    %c0 = arith.constant 0 : i32
    %b = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %b, 1 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    // expected-note @+1 {{the invalidate}}
    tile_nv.mbarrier_invalidate %b : !one
    // expected-error @+1 {{'tile_nv.mbarrier_wait' uses a barrier after its invalidate, with no init between: its word is ordinary shared memory again}}
    tile_nv.mbarrier_wait %b, %c0 : !one, i32
    return
  }

  func.func @ok_reinit_after_invalidate() {
    %c0 = arith.constant 0 : i32
    %b = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %b, 1 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    tile_nv.mbarrier_wait %b, %c0 : !one, i32
    tile_nv.mbarrier_invalidate %b : !one
    tile_nv.mbarrier_init %b, 1 : !one
    tile_nv.mbarrier_arrive %b, 1 : !one
    tile_nv.mbarrier_wait %b, %c0 : !one, i32
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
!one = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // A barrier reused for a second load and waited at parity 0 again: phase
  // 0 is complete, the second wait returns before the second load lands.
  func.func @same_parity_twice(%ad: !desc) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %bar, 1 : !one
    tile_nv.mbarrier_expect %bar, 8192 : !one
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %a : !desc, !one, !buf
    // expected-note @+1 {{the previous wait}}
    tile_nv.mbarrier_wait %bar, %c0 : !one, i32
    tile_nv.mbarrier_expect %bar, 8192 : !one
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %b : !desc, !one, !buf
    // expected-error @+1 {{'tile_nv.mbarrier_wait' waits for parity 0 again right after a wait for it on this barrier: that phase is complete, so the wait returns at once; the next phase has parity 1}}
    tile_nv.mbarrier_wait %bar, %c0 : !one, i32
    tile_nv.mbarrier_invalidate %bar : !one
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<512x!tile.ptr<f32>, #l>
!m = !tile.memdesc<512xf32, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // cp.async copies tracked by an mbarrier (async_copy.mbarrier_arrive) land
  // at the wait on it, with no commit or wait_group.
  func.func @ok_copy_through_mbarrier(%p: !p) -> tensor<512xf32, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    return %v : tensor<512xf32, #l>
  }

  func.func @read_before_the_mbarrier_wait(%p: !p) -> tensor<512xf32, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    // expected-note @+1 {{the barrier-completed write}}
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    // expected-error @+1 {{'tile.local_load' reads shared memory that the barrier-completed write of 'tile.async_copy_global_to_local' may still be writing: no wait on the barrier it completes on comes between them}}
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return %v : tensor<512xf32, #l>
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!ring = !tile.memdesc<2x32x64xf32, #nv, mutable>
!slot = !tile.memdesc<32x64xf32, #nv, mutable, 2x32x64>
!bars = !tile.memdesc<2x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 2x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // Gluon's warp-specialized producer (tutorial 08): the loader refills a
  // slot after waiting on its "empty" barrier, which the consumer arrives on
  // only after waiting on the slot's "ready" barrier (the one the TMA
  // completes) and reading the slot: the refill cannot overtake the load.
  func.func @handoff_through_empty(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %buf = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %b = tile.memdesc_index %buf[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %v = tile.local_load %b : !slot -> tensor<32x64xf32, #l>
        tile_nv.fence_async_shared
        tile_nv.mbarrier_arrive %e, 1 : !bar
      }
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %b = tile.memdesc_index %buf[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        tile_nv.mbarrier_expect %r, 8192 : !bar
        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %b : !desc, !bar, !slot
      }
      tile.warp_yield
    }
    return
  }

  // The consumer arrives on "empty" before it waits for the data: the
  // loader's wait on "empty" says nothing about the previous load, and the
  // refill races it.
  func.func @handoff_before_the_wait(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %buf = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %b = tile.memdesc_index %buf[%s] : !ring -> !slot
        tile_nv.mbarrier_arrive %e, 1 : !bar
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %v = tile.local_load %b : !slot -> tensor<32x64xf32, #l>
      }
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %b = tile.memdesc_index %buf[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        tile_nv.mbarrier_expect %r, 8192 : !bar
        // expected-error @+2 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that the barrier-completed write of 'tile_nv.async_tma_copy_global_to_local' may still be writing: no wait on the barrier it completes on comes between them (it was issued 2 iterations earlier)}}
        // expected-note @+1 {{the barrier-completed write}}
        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %b : !desc, !bar, !slot
      }
      tile.warp_yield
    }
    return
  }
}

// -----

// A TMA store's bulk group is its issuing threads': a wait after the
// warp_specialize (the kernel's warps) does not cover a worker's store, which
// may still read its buffer when the kernel ends; a wait in the worker does.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
!cdesc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ctile = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @worker_store_waited_by_the_kernel_warps(%cd: !cdesc) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      // expected-error @+1 {{the kernel can end while this asynchronous read of shared memory is still in flight}}
      tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !cdesc, !ctile
      tile.warp_yield
    }
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  func.func @worker_store_waited_in_the_worker(%cd: !cdesc) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !ctile
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !cdesc, !ctile
      tile_nv.async_tma_store_wait {pendings = 0 : i32}
      tile.warp_yield
    }
    return
  }
}

// -----

// Buffers and barriers that control flow chooses (an if) or swaps (a loop):
// the checks follow them to their allocations (the kernel is checked again
// with each named), so the mistakes below are found as on named ones.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
!one = !tile.memdesc<1xi64, #sh, mutable>
!t = tensor<64x64xbf16, #l>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @chosen_barrier_first_wait_parity_one(%flag: i1) {
    %c1 = arith.constant 1 : i32
    %b0 = tile.local_alloc : () -> !one
    %b1 = tile.local_alloc : () -> !one
    // expected-note @+1 {{the init}}
    tile_nv.mbarrier_init %b0, 1 : !one
    tile_nv.mbarrier_init %b1, 1 : !one
    %b = scf.if %flag -> !one {
      scf.yield %b0 : !one
    } else {
      scf.yield %b1 : !one
    }
    tile_nv.mbarrier_arrive %b, 1 : !one
    // expected-error @+1 {{'tile_nv.mbarrier_wait' is the first wait on this barrier after its init and waits for parity 1}}
    tile_nv.mbarrier_wait %b, %c1 : !one, i32
    return
  }

  // TMA ping-pong: tile i + 1 loads into nxt on bar_nxt while tile i is read
  // from cur after a wait on bar_cur; buffers, barriers and phases swap.
  func.func @ok_tma_ping_pong(%d: !desc, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    %ba = tile.local_alloc : () -> !one
    %bb = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %ba, 1 : !one
    tile_nv.mbarrier_init %bb, 1 : !one
    tile_nv.mbarrier_expect %ba, 8192 : !one
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %ba, %a : !desc, !one, !buf
    %zero = arith.constant 0.0 : bf16
    %z = "tile.splat"(%zero) : (bf16) -> !t
    %r:7 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b, %bc = %ba, %bn = %bb, %pc = %c0, %pn = %c0, %acc = %z) -> (!buf, !buf, !one, !one, i32, i32, !t) : i32 {
      %i1 = arith.addi %i, %c1 : i32
      %row = arith.muli %i1, %c64 : i32
      tile_nv.mbarrier_expect %bn, 8192 : !one
      tile_nv.async_tma_copy_global_to_local %d[%row, %c0], %bn, %nxt : !desc, !one, !buf
      tile_nv.mbarrier_wait %bc, %pc : !one, i32
      %v = tile.local_load %cur : !buf -> !t
      %s = arith.addf %acc, %v : !t
      tile.barrier
      %flip = arith.xori %pc, %c1 : i32
      scf.yield %nxt, %cur, %bn, %bc, %pn, %flip, %s : !buf, !buf, !one, !one, i32, i32, !t
    }
    tile_nv.mbarrier_wait %r#2, %r#4 : !one, i32
    return %r#6 : !t
  }

  func.func @tma_ping_pong_reads_the_load_in_flight(%d: !desc, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    %ba = tile.local_alloc : () -> !one
    %bb = tile.local_alloc : () -> !one
    tile_nv.mbarrier_init %ba, 1 : !one
    tile_nv.mbarrier_init %bb, 1 : !one
    tile_nv.mbarrier_expect %ba, 8192 : !one
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %ba, %a : !desc, !one, !buf
    %zero = arith.constant 0.0 : bf16
    %z = "tile.splat"(%zero) : (bf16) -> !t
    %r:7 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b, %bc = %ba, %bn = %bb, %pc = %c0, %pn = %c0, %acc = %z) -> (!buf, !buf, !one, !one, i32, i32, !t) : i32 {
      %i1 = arith.addi %i, %c1 : i32
      %row = arith.muli %i1, %c64 : i32
      tile_nv.mbarrier_expect %bn, 8192 : !one
      // expected-note @+1 {{the barrier-completed write}}
      tile_nv.async_tma_copy_global_to_local %d[%row, %c0], %bn, %nxt : !desc, !one, !buf
      tile_nv.mbarrier_wait %bc, %pc : !one, i32
      // expected-error @+1 {{'tile.local_load' reads shared memory that the barrier-completed write of 'tile_nv.async_tma_copy_global_to_local' may still be writing: no wait on the barrier it completes on comes between them}}
      %v = tile.local_load %nxt : !buf -> !t
      %s = arith.addf %acc, %v : !t
      tile.barrier
      %flip = arith.xori %pc, %c1 : i32
      scf.yield %nxt, %cur, %bn, %bc, %pn, %flip, %s : !buf, !buf, !one, !one, i32, i32, !t
    }
    return %r#6 : !t
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!buf = !tile.memdesc<32x64xf32, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // The producer loads the buffer once (in no loop), with no wait before
  // it; the consumer reads it after waiting on the barrier the load
  // completes on, which the producer signals nowhere else: the load happens
  // before the read.
  func.func @one_load_handed_over(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }

  // The same, with the consumer waiting on another barrier the producer
  // arrives on before it loads: nothing orders the load before the read.
  func.func @wait_on_another_barrier(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    %go = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_init %go, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %go, %c0 : !bar, i32
      // expected-note @+1 {{the other partition's access}}
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_arrive %go, 1 : !bar
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that another warp_specialize partition reads, with no barrier wait before it in this partition}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }
}

// -----

// cp.async.mbarrier.arrive.noinc: every thread's arrival counts (128 here),
// so a barrier set up for 128 completes with no other arrive; set up for
// 129 no phase completes.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<512x!tile.ptr<f32>, #l>
!m = !tile.memdesc<512xf32, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @ok_noinc_arrivals(%p: !p) -> tensor<512xf32, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 128 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar {increment = false} : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    return %v : tensor<512xf32, #l>
  }

  func.func @noinc_arrivals_too_few(%p: !p) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    // expected-error @+1 {{'tile_nv.mbarrier_init' sets the barrier up for 129 arrivals per phase, but the arrivals on it in this function bring at most 128 per phase}}
    tile_nv.mbarrier_init %bar, 129 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar {increment = false} : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }
}

// -----

// Two loads of one slot under predicates never both true (pred k < n, pred
// k >= n) in one iteration: no race. The same pair in a loop with no wait
// between iterations: step k's first load meets step k - 1's second.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!m = !tile.memdesc<64x64xbf16, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @ok_exclusive_sources(%ad: !desc, %bd: !desc, %k: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %s = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %first = arith.cmpi slt, %k, %n : i32
    %second = arith.cmpi sge, %k, %n : i32
    tile_nv.mbarrier_expect %bar, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %s, %first : !desc, !bar, !m
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %bar, %s, %second : !desc, !bar, !m
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }

  func.func @exclusive_sources_across_iterations(%ad: !desc, %bd: !desc, %n: i32, %steps: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    scf.for %k = %c0 to %steps step %c1 : i32 {
      %first = arith.cmpi slt, %k, %n : i32
      %second = arith.cmpi sge, %k, %n : i32
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      // Each load meets the previous iteration's first (k - 1 < n and k >= n
      // both hold at k = n; and its own earlier issue).
      // expected-error @+2 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that the barrier-completed write of 'tile_nv.async_tma_copy_global_to_local' may still be writing}}
      // expected-note @+1 {{the barrier-completed write}}
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %s, %first : !desc, !bar, !m
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that the barrier-completed write of 'tile_nv.async_tma_copy_global_to_local' may still be writing}}
      tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %bar, %s, %second : !desc, !bar, !m
    }
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }
}

// -----

// Bulk copies (hopper.bulk.async_load) complete on a barrier as TMA loads do:
// their bytes count against the expect, and their destination is not to be
// read before the wait. A byte count only the run time knows is not judged.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!buf = !tile.memdesc<1024xf32, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @bulk_expect_matches(%p: !tile.ptr<f32>) -> tensor<1024xf32, #l> {
    %c0 = arith.constant 0 : i32
    %n = arith.constant 4096 : i32
    %a = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %a : !tile.ptr<f32>, !bar, !buf
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %a : !buf -> tensor<1024xf32, #l>
    return %v : tensor<1024xf32, #l>
  }

  func.func @bulk_expect_too_many(%p: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %n = arith.constant 2048 : i32
    %a = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    // expected-error @+1 {{'tile_nv.mbarrier_expect' announces 4096 transaction bytes, but the 1 write completing on this barrier before its next wait deliver 2048 bytes: the phase never completes and the wait hangs}}
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %a : !tile.ptr<f32>, !bar, !buf
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }

  func.func @bulk_run_time_bytes(%p: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %a : !tile.ptr<f32>, !bar, !buf
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }

  func.func @bulk_read_before_wait(%p: !tile.ptr<f32>) -> tensor<1024xf32, #l> {
    %c0 = arith.constant 0 : i32
    %n = arith.constant 4096 : i32
    %a = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    // expected-note @+1 {{the barrier-completed write}}
    tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %a : !tile.ptr<f32>, !bar, !buf
    // expected-error @+1 {{'tile.local_load' reads shared memory that the barrier-completed write of 'tile_nv.async_bulk_copy_global_to_local' may still be writing: no wait on the barrier it completes on comes between them}}
    %v = tile.local_load %a : !buf -> tensor<1024xf32, #l>
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return %v : tensor<1024xf32, #l>
  }
}
