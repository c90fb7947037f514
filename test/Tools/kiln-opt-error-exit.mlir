// An error a pass prints is a failed run even when the pass then recovers:
// upstream's loop expander reports a hand-written schedule that reads a value
// before its stage defines it, tile-pipeline-expand then leaves the loop as
// written with a remark. kiln-opt must still exit 1.
// RUN: not kiln-opt %s --tile-pipeline-expand -o /dev/null 2>&1 | FileCheck %s
// CHECK: :[[@LINE+12]]:12: error: operation scheduled before its operands
// CHECK: remark: loop not pipelined: the loop expander refused its schedule
// With the diagnostics verified, the expected error is no failure.
// RUN: kiln-opt %s --tile-pipeline-expand -verify-diagnostics -o /dev/null

module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @f(%n: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{loop not pipelined: the loop expander refused its schedule}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
      // expected-error @below {{operation scheduled before its operands}}
      %a = arith.addi %acc, %c1 {tile.stage = 0 : i32, tile.cluster = 0 : i32} : i32
      %b = arith.addi %a, %i {tile.stage = 1 : i32, tile.cluster = 0 : i32} : i32
      scf.yield %b : i32
    } {tile.num_stages = 2 : i32}
    return %r : i32
  }
}
