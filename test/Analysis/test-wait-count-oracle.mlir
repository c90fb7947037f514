// RUN: kiln-opt %s -split-input-file --test-wait-count-oracle -verify-diagnostics

// The oracle itself: it must reject a count that lets an awaited group stay
// in flight on some execution, and say how much room a safe count leaves.

func.func @too_large() {
  %g0 = tile.async_commit_group
  %g1 = tile.async_commit_group
  // expected-error @+1 {{oracle: count 2 leaves an awaited group in flight}}
  %w = tile.async_wait tokens %g0 {num = 2 : i32}
  return
}

// -----

func.func @exact_and_slack() {
  %g0 = tile.async_commit_group
  %g1 = tile.async_commit_group
  // expected-remark @+1 {{oracle: holds on 1 executions, slack 0}}
  %w = tile.async_wait tokens %g0 {num = 1 : i32}
  %g2 = tile.async_commit_group
  %g3 = tile.async_commit_group
  // expected-remark @+1 {{oracle: holds on 1 executions, slack 1}}
  %v = tile.async_wait tokens %g2 {num = 0 : i32}
  return
}

// -----

// Only one of the four trip counts 0..3 of the loop breaks the count: the
// one with no iteration.
func.func @one_bad_path(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g0 = tile.async_commit_group
  scf.for %i = %c0 to %n step %c1 {
    %g = tile.async_commit_group
  }
  // expected-error @+1 {{oracle: count 1 leaves an awaited group in flight}}
  %w = tile.async_wait tokens %g0 {num = 1 : i32}
  return
}

// -----

// A branch that may skip the commit.
func.func @one_bad_branch(%c: i1) {
  %g0 = tile.async_commit_group
  scf.if %c {
    %g = tile.async_commit_group
  }
  // expected-error @+1 {{oracle: count 1 leaves an awaited group in flight}}
  %w = tile.async_wait tokens %g0 {num = 1 : i32}
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @uncommitted(%p: tensor<128x!tile.ptr<f32>, #l>, %a: !tile.memdesc<128xf32, #sh, mutable>) {
  %c = tile.async_copy_global_to_local %p, %a : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
  // expected-error @+1 {{oracle: waits for a copy not yet committed}}
  %w = tile.async_wait tokens %c {num = 0 : i32}
  return
}

// -----

func.func @retired_token() {
  %g0 = tile.async_commit_group
  // expected-remark @+1 {{oracle: holds on 1 executions, slack 0}}
  %w0 = tile.async_wait tokens %g0 {num = 0 : i32}
  // expected-remark @+1 {{oracle: nothing to wait for (1 executions)}}
  %w1 = tile.async_wait tokens %w0 {num = 0 : i32}
  return
}
