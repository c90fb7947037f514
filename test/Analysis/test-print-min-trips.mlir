// RUN: kiln-opt %s --test-print-min-trips -verify-diagnostics -o /dev/null

// The trips branch conditions before a loop imply (impliedMinTrips,
// lib/Analysis/LoopGuards.cpp), one remark per combination of the values of
// the scf.if conditions before the loop (the first is the leftmost digit).
// test_min_trips_soundness.py checks such claims on concrete bounds.

// `if 0 < K` and `if 64 < K` before `range(cdiv(K, 64))` (Python's cdiv):
// one trip, and two.
func.func @cdiv(%K: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %a = arith.cmpi slt, %c0, %K : i32
  scf.if %a {
  }
  %b = arith.cmpi slt, %c64, %K : i32
  scf.if %b {
  }
  %s = arith.addi %K, %c64 : i32
  %s1 = arith.subi %s, %c1 : i32
  %n = arith.divsi %s1, %c64 : i32
  // expected-remark @+4 {{min trips 00 -> 0}}
  // expected-remark @+3 {{min trips 01 -> 2}}
  // expected-remark @+2 {{min trips 10 -> 1}}
  // expected-remark @+1 {{min trips 11 -> 2}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  }
  return
}

// `K >= 129` (written the other way round) before arith.ceildivsi(K, 64)
// from 1 with step 2: the bound is at least ceildiv(129, 64) = 3, so the
// trip i = 1 at least.
func.func @ceildivsi_lb_step(%K: i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c129 = arith.constant 129 : i32
  %a = arith.cmpi sge, %K, %c129 : i32
  scf.if %a {
  }
  %n = arith.ceildivsi %K, %c64 : i32
  // expected-remark @+2 {{min trips 0 -> 0}}
  // expected-remark @+1 {{min trips 1 -> 1}}
  scf.for %i = %c1 to %n step %c2 : i32 {
  }
  return
}

// A guard on the bound itself (`lb < ub`, `3 <= n`), and one that says
// nothing about it (`K < 64`).
func.func @bound_itself(%n: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %a = arith.cmpi slt, %c0, %n : i32
  scf.if %a {
  }
  %b = arith.cmpi sle, %c3, %n : i32
  scf.if %b {
  }
  %c = arith.cmpi slt, %K, %c64 : i32
  scf.if %c {
  }
  // expected-remark @+8 {{min trips 000 -> 0}}
  // expected-remark @+7 {{min trips 001 -> 0}}
  // expected-remark @+6 {{min trips 010 -> 3}}
  // expected-remark @+5 {{min trips 011 -> 3}}
  // expected-remark @+4 {{min trips 100 -> 1}}
  // expected-remark @+3 {{min trips 101 -> 1}}
  // expected-remark @+2 {{min trips 110 -> 3}}
  // expected-remark @+1 {{min trips 111 -> 3}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  }
  return
}
