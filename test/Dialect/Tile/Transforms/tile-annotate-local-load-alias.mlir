// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers --tile-annotate-local-load-alias -verify-diagnostics | FileCheck %s

// Slots of a ring: a view indexed by a constant or (iv + c) % N stays in its
// slot, so a copy in flight into slot (i + 2) % 3 (or (i + 1) % 3, from the
// previous iteration) does not touch slot i % 3. The load after the wait is
// marked tile.synced_via_wait: no copy into its bytes can be in flight
// (the AMD lowering then keeps LLVM from waiting for every copy before it).
// The prologue's constant slots 0 and 1 are compared with i % 3 through
// i = 0 on the first iteration. The write-after-read barrier before the
// copy into the slot read one iteration earlier stays.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: func.func @ring3_synced
  // CHECK: scf.for
  // CHECK: tile.async_wait
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  // CHECK: tile.barrier
  // CHECK-NEXT: tile.async_copy_global_to_local
  func.func @ring3_synced(%p: tensor<256x!tile.ptr<f32>, #l>, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<3x256xf32, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %t0 = tile.async_copy_global_to_local %p, %s0 : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %t1 = tile.async_copy_global_to_local %p, %s1 : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %g1 = tile.async_commit_group tokens %t1
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<256xf32, #l>) : i32 {
      %w = tile.async_wait {num = 1 : i32}
      %cu = arith.remsi %i, %c3 : i32
      %sc = tile.memdesc_index %ring[%cu] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %v = tile.local_load %sc : !tile.memdesc<256xf32, #sh, mutable, 3x256> -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      %ip2 = arith.addi %i, %c2 : i32
      %nx = arith.remsi %ip2, %c3 : i32
      %sn = tile.memdesc_index %ring[%nx] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %t = tile.async_copy_global_to_local %p, %sn : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %g = tile.async_commit_group tokens %t
      scf.yield %a : tensor<256xf32, #l>
    }
    return %r : tensor<256xf32, #l>
  }

  // Reading slot (i + 1) % 3 instead, whose copy is still in flight after
  // wait(1): not marked.
  // CHECK-LABEL: func.func @ring3_in_flight
  // CHECK: scf.for
  // CHECK: tile.local_load
  // CHECK-NOT: tile.synced_via_wait
  // CHECK: scf.yield
  func.func @ring3_in_flight(%p: tensor<256x!tile.ptr<f32>, #l>, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<3x256xf32, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %t0 = tile.async_copy_global_to_local %p, %s0 : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %t1 = tile.async_copy_global_to_local %p, %s1 : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
    %g1 = tile.async_commit_group tokens %t1
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<256xf32, #l>) : i32 {
      %w = tile.async_wait {num = 1 : i32}
      %ip1 = arith.addi %i, %c1 : i32
      %cu = arith.remsi %ip1, %c3 : i32
      %sc = tile.memdesc_index %ring[%cu] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %v = tile.local_load %sc : !tile.memdesc<256xf32, #sh, mutable, 3x256> -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      %ip2 = arith.addi %i, %c2 : i32
      %nx = arith.remsi %ip2, %c3 : i32
      %sn = tile.memdesc_index %ring[%nx] : !tile.memdesc<3x256xf32, #sh, mutable> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %t = tile.async_copy_global_to_local %p, %sn : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable, 3x256>
      %g = tile.async_commit_group tokens %t
      scf.yield %a : tensor<256xf32, #l>
    }
    return %r : tensor<256xf32, #l>
  }
}

// -----

// load_shared_relaxed asserts the read is ordered by a wait: the mark stays,
// and when the dataflow finds a copy into those bytes still in flight (here
// the wait leaves the last group, which writes the buffer read), a warning
// names the copy.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: func.func @relaxed_in_flight
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  func.func @relaxed_in_flight(%p: tensor<256x!tile.ptr<f32>, #l>) -> tensor<256xf32, #l> {
    %a = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-note @+1 {{the copy}}
    %t = tile.async_copy_global_to_local %p, %a : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait {num = 1 : i32}
    // expected-warning @+1 {{this relaxed shared-memory load reads bytes an async copy may still be writing}}
    %v = tile.local_load %a {tile.synced_via_wait} : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    return %v : tensor<256xf32, #l>
  }

  // A plain load after the wait that covers the copy: marked.
  // CHECK-LABEL: func.func @plain_covered
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  func.func @plain_covered(%p: tensor<256x!tile.ptr<f32>, #l>) -> tensor<256xf32, #l> {
    %a = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %a : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait {num = 0 : i32}
    %v = tile.local_load %a : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    return %v : tensor<256xf32, #l>
  }

  // Two groups and wait(1): the first buffer's copy has landed (marked), the
  // second's may not have (not marked, and no warning: the user did not
  // assert it).
  // CHECK-LABEL: func.func @partial_wait
  // CHECK: tile.local_load %{{[0-9]+}} {tile.synced_via_wait} :
  // CHECK-NEXT: tile.local_load %{{[0-9]+}} : !tile.memdesc
  func.func @partial_wait(%p: tensor<256x!tile.ptr<f32>, #l>) -> tensor<256xf32, #l> {
    %x = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %y = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t0 = tile.async_copy_global_to_local %p, %x : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g0 = tile.async_commit_group tokens %t0
    %t1 = tile.async_copy_global_to_local %p, %y : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g1 = tile.async_commit_group tokens %t1
    %w = tile.async_wait {num = 1 : i32}
    %r = tile.local_load %x : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    %s = tile.local_load %y : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    %u = arith.addf %r, %s : tensor<256xf32, #l>
    return %u : tensor<256xf32, #l>
  }
}

// -----

// The ring written as Gluon users write it: the loop starts at N - 1 = 2,
// copies into slot i % 3, waits with 2 groups in flight and reads slot
// (i - 2) % 3; from i >= 2, i - 2 is never negative, so that is the slot
// (i + 1) mod 3, which no copy in flight writes: marked. A slot counter the
// loop carries ((s + 1) % 3 from 0, the same slot) is marked too. Read from a
// loop starting at 0, (i - 2) % 3 is negative at first: not a known slot,
// not marked, and a remark says why.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!ring = !tile.memdesc<3x256xf32, #sh, mutable>
!slot = !tile.memdesc<256xf32, #sh, mutable, 3x256>
!p = tensor<256x!tile.ptr<f32>, #l>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: func.func @ring3_minus
  // CHECK: scf.for
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  // CHECK: scf.yield
  // CHECK-LABEL: func.func @ring3_unwrapped_counter
  // CHECK: scf.for
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  // CHECK: scf.yield
  // CHECK-LABEL: func.func @ring3_minus_from_zero
  // CHECK: scf.for
  // CHECK: tile.local_load
  // CHECK-NOT: tile.synced_via_wait
  // CHECK: scf.yield
  func.func @ring3_minus(%p: !p, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %ring[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    %g1 = tile.async_commit_group tokens %t1
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %end = arith.addi %n, %c2 : i32
    %r:2 = scf.for %i = %c2 to %end step %c1 iter_args(%acc = %z, %s = %c0) -> (tensor<256xf32, #l>, i32) : i32 {
      %cw = arith.remsi %i, %c3 : i32
      %sw = tile.memdesc_index %ring[%cw] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sw : !p -> !slot
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait {num = 2 : i32}
      %im2 = arith.subi %i, %c2 : i32
      %cr = arith.remsi %im2, %c3 : i32
      %sr = tile.memdesc_index %ring[%cr] : !ring -> !slot
      %v = tile.local_load %sr : !slot -> tensor<256xf32, #l>
      %sc = tile.memdesc_index %ring[%s] : !ring -> !slot
      %u = tile.local_load %sc : !slot -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      %b = arith.addf %a, %u : tensor<256xf32, #l>
      %s1p = arith.addi %s, %c1 : i32
      %sn = arith.remsi %s1p, %c3 : i32
      scf.yield %b, %sn : tensor<256xf32, #l>, i32
    }
    return %r#0 : tensor<256xf32, #l>
  }

  // A counter the loop carries without wrapping (a persistent GEMM's
  // `consumer % 3`, `consumer += 1`) names the same slot as (i - 2) % 3.
  func.func @ring3_unwrapped_counter(%p: !p, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %ring[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    %g1 = tile.async_commit_group tokens %t1
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %end = arith.addi %n, %c2 : i32
    %r:2 = scf.for %i = %c2 to %end step %c1 iter_args(%acc = %z, %s = %c0) -> (tensor<256xf32, #l>, i32) : i32 {
      %cw = arith.remsi %i, %c3 : i32
      %sw = tile.memdesc_index %ring[%cw] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sw : !p -> !slot
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait {num = 2 : i32}
      %cr = arith.remsi %s, %c3 : i32
      %sr = tile.memdesc_index %ring[%cr] : !ring -> !slot
      %v = tile.local_load %sr : !slot -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      %sn = arith.addi %s, %c1 : i32
      scf.yield %a, %sn : tensor<256xf32, #l>, i32
    }
    return %r#0 : tensor<256xf32, #l>
  }

  func.func @ring3_minus_from_zero(%p: !p, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !ring
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<256xf32, #l>) : i32 {
      %cw = arith.remsi %i, %c3 : i32
      %sw = tile.memdesc_index %ring[%cw] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sw : !p -> !slot
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait {num = 2 : i32}
      %im2 = arith.subi %i, %c2 : i32
      %cr = arith.remsi %im2, %c3 : i32
      %sr = tile.memdesc_index %ring[%cr] : !ring -> !slot
      // expected-remark @+1 {{this shared-memory load waits for every async copy in flight (LLVM's conservative wait): the ring slot it reads is not a constant, (iv + c) % N with iv + c never negative in an scf.for of constant lower bound and step, a loop-carried counter s advanced as (s + 1) % N, or (s + c) % N of one, so Kiln cannot prove the copies in flight write other slots}}
      %v = tile.local_load %sr : !slot -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      scf.yield %a : tensor<256xf32, #l>
    }
    return %r : tensor<256xf32, #l>
  }
}

// -----

// A ping-pong ring indexed by a slot counter the loop carries, as aiter's MLA
// decode does: each iteration waits for everything, refills slot s and reads
// slot (s + 1) % 2 while that copy is in flight. (s + 1) % 2 is the counter's
// other slot, so no copy in flight writes it: marked. Reading slot s itself
// there would read the copy in flight (not marked, and tile-insert-barriers
// warns at the relaxed read).
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!ring = !tile.memdesc<2x256xf32, #sh, mutable>
!slot = !tile.memdesc<256xf32, #sh, mutable, 2x256>
!p = tensor<256x!tile.ptr<f32>, #l>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: func.func @ping_pong_counter
  // CHECK: scf.for
  // CHECK: tile.local_load %{{.*}} {tile.synced_via_wait}
  // CHECK: scf.yield
  func.func @ping_pong_counter(%p: !p, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !ring
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %s = %c0) -> (tensor<256xf32, #l>, i32) : i32 {
      %w = tile.async_wait {num = 0 : i32}
      %sw = tile.memdesc_index %ring[%s] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sw : !p -> !slot
      %g = tile.async_commit_group tokens %t
      %s1p = arith.addi %s, %c1 : i32
      %o = arith.remsi %s1p, %c2 : i32
      %so = tile.memdesc_index %ring[%o] : !ring -> !slot
      %v = tile.local_load %so : !slot -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      scf.yield %a, %o : tensor<256xf32, #l>, i32
    }
    return %r#0 : tensor<256xf32, #l>
  }

  // CHECK-LABEL: func.func @ping_pong_counter_same_slot
  // CHECK: scf.for
  // CHECK: tile.local_load
  // CHECK-NOT: tile.synced_via_wait
  // CHECK: scf.yield
  func.func @ping_pong_counter_same_slot(%p: !p, %n: i32) -> tensor<256xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !ring
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %s = %c0) -> (tensor<256xf32, #l>, i32) : i32 {
      %w = tile.async_wait {num = 0 : i32}
      %sw = tile.memdesc_index %ring[%s] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sw : !p -> !slot
      %g = tile.async_commit_group tokens %t
      %s2p = arith.addi %s, %c2 : i32
      %o = arith.remsi %s2p, %c2 : i32
      %so = tile.memdesc_index %ring[%o] : !ring -> !slot
      %v = tile.local_load %so : !slot -> tensor<256xf32, #l>
      %a = arith.addf %acc, %v : tensor<256xf32, #l>
      %s1p = arith.addi %s, %c1 : i32
      %sn = arith.remsi %s1p, %c2 : i32
      scf.yield %a, %sn : tensor<256xf32, #l>, i32
    }
    return %r#0 : tensor<256xf32, #l>
  }
}
