// RUN: kiln-opt %s --split-input-file --tile-insert-wait-counts --tile-check-async-safety --verify-diagnostics

// tile-check-async-safety through buffers that control flow chooses: a loop
// that swaps its buffers (ping-pong) and an if that picks one. The check
// runs again on a copy in which each is named (rounds of the swap's order,
// the if's block tail in each branch), so a hazard through them is found
// as through a named buffer. The correct kernels (ok_) pass without a word.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // Prefetch into nxt, then read cur once its copy (one group back) landed.
  func.func @ok_ping_pong(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %f0 = arith.constant 0.0 : f32
    %z = "tile.splat"(%f0) : (f32) -> !t
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b, %acc = %z) -> (!m, !m, !t) : i32 {
      %c2 = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g2 = tile.async_commit_group tokens %c2
      %w = tile.async_wait {num = 1 : i32}
      %v = tile.local_load %cur : !m -> !t
      %s = arith.addf %acc, %v : !t
      tile.barrier
      scf.yield %nxt, %cur, %s : !m, !m, !t
    }
    return %r#2 : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // The wait leaves both groups in flight: cur's copy (the previous
  // iteration's into what was nxt then) may still be writing.
  func.func @ping_pong_waits_too_little(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %f0 = arith.constant 0.0 : f32
    %z = "tile.splat"(%f0) : (f32) -> !t
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b, %acc = %z) -> (!m, !m, !t) : i32 {
      // In the second iteration nxt is a, which the first copy may still
      // be writing too.
      // expected-error @+1 {{'tile.async_copy_global_to_local' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
      %c2 = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g2 = tile.async_commit_group tokens %c2
      %w = tile.async_wait {num = 2 : i32}
      // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: no wait covering its commit group comes between them on some path}}
      %v = tile.local_load %cur : !m -> !t
      %s = arith.addf %acc, %v : !t
      tile.barrier
      scf.yield %nxt, %cur, %s : !m, !m, !t
    }
    return %r#2 : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // cur was nxt one iteration back; a wait leaving two groups in flight
  // does not cover that iteration's copy, which the store may overwrite.
  func.func @ping_pong_store_too_early(%p: !p, %n: i32, %x: !t) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b) -> (!m, !m) : i32 {
      // The copy two iterations back, into the same buffer, is not covered
      // either.
      // expected-error @+2 {{'tile.async_copy_global_to_local' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
      // expected-note @+1 {{the async copy}}
      %c2 = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g2 = tile.async_commit_group tokens %c2
      %w = tile.async_wait {num = 2 : i32}
      // expected-error @+1 {{'tile.local_store' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
      tile.local_store %x, %cur : !t -> !m
      scf.yield %nxt, %cur : !m, !m
    }
    return
  }

  func.func @ok_ping_pong_store(%p: !p, %n: i32, %x: !t) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b) -> (!m, !m) : i32 {
      %c2 = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g2 = tile.async_commit_group tokens %c2
      %w = tile.async_wait {num = 1 : i32}
      tile.local_store %x, %cur : !t -> !m
      tile.barrier
      scf.yield %nxt, %cur : !m, !m
    }
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ok_if_chosen(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %s = scf.if %flag -> !m {
      scf.yield %a : !m
    } else {
      scf.yield %b : !m
    }
    %c = tile.async_copy_global_to_local %p, %s : !p -> !m
    %g = tile.async_commit_group tokens %c
    %w = tile.async_wait tokens %g
    %v = tile.local_load %s : !m -> !t
    return %v : !t
  }

  func.func @if_chosen_no_wait(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %s = scf.if %flag -> !m {
      scf.yield %a : !m
    } else {
      scf.yield %b : !m
    }
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %s : !p -> !m
    %g = tile.async_commit_group tokens %c
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
    %v = tile.local_load %s : !m -> !t
    return %v : !t
  }

  // The copy writes a; the if chooses a or b: on the path that chooses a,
  // the read is certain to meet the copy.
  func.func @if_chosen_meets_on_one_path(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    %s = scf.if %flag -> !m {
      scf.yield %a : !m
    } else {
      scf.yield %b : !m
    }
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
    %v = tile.local_load %s : !m -> !t
    return %v : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // The buffers a swapping loop leaves are followed after it too (which
  // one is which depends on the trip count's parity: each is checked).
  func.func @ok_after_the_loop(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b) -> (!m, !m) : i32 {
      %c = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g = tile.async_commit_group tokens %c
      %w = tile.async_wait {num = 0 : i32}
      scf.yield %nxt, %cur : !m, !m
    }
    %c2 = tile.async_copy_global_to_local %p, %r#0 : !p -> !m
    %g2 = tile.async_commit_group tokens %c2
    %w2 = tile.async_wait tokens %g2
    %v = tile.local_load %r#0 : !m -> !t
    return %v : !t
  }

  func.func @after_the_loop_no_wait(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b) -> (!m, !m) : i32 {
      %c = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g = tile.async_commit_group tokens %c
      %w = tile.async_wait {num = 0 : i32}
      scf.yield %nxt, %cur : !m, !m
    }
    // expected-note @+1 {{the async copy}}
    %c2 = tile.async_copy_global_to_local %p, %r#0 : !p -> !m
    %g2 = tile.async_commit_group tokens %c2
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
    %v = tile.local_load %r#0 : !m -> !t
    return %v : !t
  }

  // A constant trip count: the rounds and the one iteration left need no
  // guard, and a read of the buffer the last iteration filled is covered.
  func.func @ok_constant_trips(%p: !p) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c5 = arith.constant 5 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%cur = %a, %nxt = %b) -> (!m, !m) : i32 {
      %c = tile.async_copy_global_to_local %p, %nxt : !p -> !m
      %g = tile.async_commit_group tokens %c
      %w = tile.async_wait {num = 0 : i32}
      scf.yield %nxt, %cur : !m, !m
    }
    %v = tile.local_load %r#0 : !m -> !t
    return %v : !t
  }
}
