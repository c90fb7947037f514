// RUN: kiln-opt %s -split-input-file --tile-insert-wait-counts -verify-diagnostics | FileCheck %s
// The independent check: test-wait-count-oracle runs every function on all
// combinations of branches and trip counts 0-3 and compares each count with
// the groups committed after the awaited ones. No count may be too large
// (SOUND), and every computed count is as large as it can be (slack 0; only
// the user's count in @user_count has slack 1).
// RUN: not kiln-opt %s -split-input-file --tile-insert-wait-counts --test-wait-count-oracle 2>&1 | FileCheck %s --check-prefix=SOUND
// RUN: not kiln-opt %s -split-input-file --tile-insert-wait-counts --test-wait-count-oracle 2>&1 | grep -c "remark: oracle: holds on .* slack 0" | FileCheck %s --check-prefix=TIGHT
// RUN: not kiln-opt %s -split-input-file --tile-insert-wait-counts --test-wait-count-oracle 2>&1 | grep -c "remark: oracle: holds on .* slack [1-9]" | FileCheck %s --check-prefix=SLACK
// SOUND: remark: oracle: holds on
// SOUND-NOT: leaves an awaited group in flight
// SOUND-NOT: waits for a copy not yet committed
// TIGHT: {{^}}14{{$}}
// SLACK: {{^}}1{{$}}

// Waits that name tokens get the fewest commit groups closed after the
// tokens' groups on any path; a count given by the user stays.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
module {
  // Straight line: two groups; waiting for the first leaves one in flight,
  // for the second none.
  // CHECK-LABEL: func.func @straight
  // CHECK: tile.async_wait tokens %[[G0:.*]] {num = 1 : i32}
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  func.func @straight(%p: !p, %a: !m, %b: !m) {
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group tokens %c0
    %c1 = tile.async_copy_global_to_local %p, %b : !p -> !m
    %g1 = tile.async_commit_group tokens %c1
    %w0 = tile.async_wait tokens %g0
    %w1 = tile.async_wait tokens %g1
    return
  }

  // A copy's token is the group of the first commit after it.
  // CHECK-LABEL: func.func @copy_token
  // CHECK: tile.async_wait tokens %{{.*}} {num = 2 : i32}
  func.func @copy_token(%p: !p, %a: !m, %b: !m) {
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %g2 = tile.async_commit_group
    %w = tile.async_wait tokens %c0
    return
  }

  // Several tokens: all their groups must retire, so the smallest count.
  // CHECK-LABEL: func.func @two_tokens
  // CHECK: tile.async_wait tokens %{{.*}}, %{{.*}} {num = 1 : i32}
  func.func @two_tokens(%p: !p, %a: !m) {
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %g2 = tile.async_commit_group
    %w = tile.async_wait tokens %g0, %g1
    return
  }

  // The user's count stays, even where the tokens would allow more.
  // CHECK-LABEL: func.func @user_count
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  func.func @user_count(%p: !p, %a: !m) {
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %w = tile.async_wait tokens %g0 {num = 0 : i32}
    return
  }

  // The token of a wait is retired: nothing to keep in flight.
  // CHECK-LABEL: func.func @retired
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  func.func @retired(%p: !p, %a: !m) {
    %g0 = tile.async_commit_group
    %w0 = tile.async_wait tokens %g0
    %g1 = tile.async_commit_group
    %w1 = tile.async_wait tokens %w0
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!r = !tile.memdesc<3x128xf32, #sh, mutable>
module {
  // Double buffering: the group waited for in iteration i was committed one
  // group before the one iteration i just committed, from the prologue or
  // from iteration i - 1 alike: wait_group 1.
  // CHECK-LABEL: func.func @double_buffer
  // CHECK: scf.for
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  func.func @double_buffer(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group tokens %t0
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %g0) -> (!tile.async_token) {
      %t = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait tokens %prev
      scf.yield %g : !tile.async_token
    }
    return
  }

  // Triple buffering: two groups in flight beyond the waited one.
  // CHECK-LABEL: func.func @triple_buffer
  // CHECK: scf.for
  // CHECK: tile.async_wait tokens %{{.*}} {num = 2 : i32}
  func.func @triple_buffer(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%t0 = %g0, %t1 = %g1) -> (!tile.async_token, !tile.async_token) {
      %t = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait tokens %t0
      scf.yield %t1, %g : !tile.async_token, !tile.async_token
    }
    return
  }

  // The same ring, waiting before this iteration's commit: one fewer group.
  // CHECK-LABEL: func.func @triple_wait_first
  // CHECK: scf.for
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  func.func @triple_wait_first(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%t0 = %g0, %t1 = %g1) -> (!tile.async_token, !tile.async_token) {
      %w = tile.async_wait tokens %t0
      %t = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %t
      scf.yield %t1, %g : !tile.async_token, !tile.async_token
    }
    return
  }

  // After the loop: the loop's last group (or, if it ran no iteration, the
  // prologue's) with nothing committed after it.
  // CHECK-LABEL: func.func @after_loop
  // CHECK: scf.yield
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  func.func @after_loop(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %g0 = tile.async_commit_group
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %g0) -> (!tile.async_token) {
      %g = tile.async_commit_group
      scf.yield %g : !tile.async_token
    }
    %w = tile.async_wait tokens %r
    return
  }

  // A loop with an unknown trip count between producer and wait adds no
  // groups; one with 3 iterations of one commit adds 3.
  // CHECK-LABEL: func.func @loops_between
  // CHECK: tile.async_wait tokens %{{.*}} {num = 3 : i32}
  func.func @loops_between(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %g0 = tile.async_commit_group
    scf.for %i = %c0 to %n step %c1 {
      %g = tile.async_commit_group
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %g = tile.async_commit_group
    }
    %w = tile.async_wait tokens %g0
    return
  }

  // Nested loops: the inner ring's wait sees its own loop's groups only
  // (the outer loop may re-enter it with a fresh prologue).
  // CHECK-LABEL: func.func @nested
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  func.func @nested(%p: !p, %a: !m, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %j = %c0 to %n step %c1 {
      %g0 = tile.async_commit_group
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %g0) -> (!tile.async_token) {
        %g = tile.async_commit_group
        %w = tile.async_wait tokens %prev
        scf.yield %g : !tile.async_token
      }
    }
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
module {
  // Uneven branches: two commits on one side, one on the other: 1.
  // CHECK-LABEL: func.func @uneven_if
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  func.func @uneven_if(%c: i1) {
    %g0 = tile.async_commit_group
    scf.if %c {
      %a = tile.async_commit_group
      %b = tile.async_commit_group
    } else {
      %a = tile.async_commit_group
    }
    %w = tile.async_wait tokens %g0
    return
  }

  // No else: the branch may not run.
  // CHECK-LABEL: func.func @if_no_else
  // CHECK: tile.async_wait tokens %{{.*}} {num = 0 : i32}
  func.func @if_no_else(%c: i1) {
    %g0 = tile.async_commit_group
    scf.if %c {
      %a = tile.async_commit_group
    }
    %w = tile.async_wait tokens %g0
    return
  }

  // A token chosen by an if: the smaller count of the two producers.
  // CHECK-LABEL: func.func @if_result
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  func.func @if_result(%c: i1) {
    %g0 = tile.async_commit_group
    %g1 = tile.async_commit_group
    %t = scf.if %c -> (!tile.async_token) {
      scf.yield %g0 : !tile.async_token
    } else {
      %g2 = tile.async_commit_group
      scf.yield %g2 : !tile.async_token
    }
    %g3 = tile.async_commit_group
    %w = tile.async_wait tokens %t
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
module {
  func.func @uncommitted(%p: !p, %a: !m) {
    // expected-note @+1 {{this copy has no commit_group after it before the wait}}
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    // expected-error @+1 {{waits for an async copy that is not committed on every path to it}}
    %w = tile.async_wait tokens %c0
    return
  }
}

// -----

module {
  func.func @from_argument(%t: !tile.async_token) {
    // expected-remark @+1 {{cannot follow every token to its commit group; waiting for all groups (count 0)}}
    %w = tile.async_wait tokens %t
    return
  }
}

// -----

module {
  func.func @nothing() {
    // expected-error @+1 {{has neither a count nor tokens to wait for}}
    %w = tile.async_wait
    return
  }
}
