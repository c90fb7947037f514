// RUN: kiln-opt %s -split-input-file --test-async-race-oracle -verify-diagnostics

// The oracle itself: on each execution it must see a race exactly where one
// happens, with ring slots evaluated as numbers and trip counts from 0 to 5.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!ring = !tile.memdesc<2x128xf32, #sh, mutable>
!slot = !tile.memdesc<128xf32, #sh, mutable, 2x128>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // Double buffering with wait_group(1): slot k % 2 is read after its copy
  // landed, slot (k + 1) % 2 is in flight: no race.
  // expected-remark @+1 {{oracle: 6 executions}}
  func.func @ring_ok(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %r[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group
    scf.for %k = %c0 to %n step %c1 : i32 {
      %k1 = arith.addi %k, %c1 : i32
      %nx = arith.remsi %k1, %c2 : i32
      %sn = tile.memdesc_index %r[%nx] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sn : !p -> !slot
      %g = tile.async_commit_group
      %w = tile.async_wait {num = 1 : i32}
      %cur = arith.remsi %k, %c2 : i32
      %sc = tile.memdesc_index %r[%cur] : !ring -> !slot
      %v = tile.local_load %sc : !slot -> !t
    }
    return
  }

  // The read of the slot being refilled: a race from the first iteration on.
  // expected-remark @+1 {{oracle: 6 executions}}
  func.func @ring_reads_the_refill(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = tile.local_alloc : () -> !ring
    scf.for %k = %c0 to %n step %c1 : i32 {
      %cur = arith.remsi %k, %c2 : i32
      %sc = tile.memdesc_index %r[%cur] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sc : !p -> !slot
      %g = tile.async_commit_group
      %w = tile.async_wait {num = 1 : i32}
      // expected-remark @+1 {{oracle: race witnessed (copy-race)}}
      %v = tile.local_load %sc : !slot -> !t
    }
    return
  }

  // A constant trip count is one execution. Slot 0 is read before each
  // refill and waited for after it; slot 1's copies are never read: no race.
  // expected-remark @+1 {{oracle: 1 executions}}
  func.func @constant_trips(%p: !p) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = tile.local_alloc : () -> !ring
    scf.for %k = %c0 to %c2 step %c1 : i32 {
      %sc = tile.memdesc_index %r[%c0] : !ring -> !slot
      %v = tile.local_load %sc : !slot -> !t
      %t = tile.async_copy_global_to_local %p, %sc : !p -> !slot
      %g = tile.async_commit_group
      %w = tile.async_wait {num = 0 : i32}
      %s1 = tile.memdesc_index %r[%c1] : !ring -> !slot
      %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    }
    return
  }
}
