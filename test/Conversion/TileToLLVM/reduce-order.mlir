// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// A combine that is not one commutative op (here "take the left one") sees
// its elements in their order along the axis: after each butterfly shuffle
// the lane whose bit is set puts its partner's value on the left (two
// selects on the lane bit), so every lane ends with element 0's value.
// CHECK-LABEL: llvm.func @take_first(
// CHECK: nvvm.shfl.sync bfly
// CHECK: %[[BIT:.*]] = llvm.icmp "ne"
// CHECK: llvm.select %[[BIT]]
// CHECK: llvm.select %[[BIT]]
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.select
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @take_first(%x: tensor<32xi32, #l>) -> i32 {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<32xi32, #l> -> i32 {
    ^bb0(%a: i32, %b: i32):
      tile.reduce_return %a : i32
    }
    return %s : i32
  }
}

// -----

// One commutative op (an add): no selects.
// CHECK-LABEL: llvm.func @sum(
// CHECK-NOT: llvm.select
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @sum(%x: tensor<32xi32, #l>) -> i32 {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<32xi32, #l> -> i32 {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.reduce_return %c : i32
    }
    return %s : i32
  }
}

// -----

// Registers combine by position along the axis, not by register index: a
// linear layout whose register 1 holds position 2 and register 2 position
// 1 combines register 0, then 2, then 1 (here with subtraction, which is not
// commutative: x0 - x1 - x2... in that order).
// CHECK-LABEL: llvm.func @registers_by_position(
// CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[R2:.*]] = llvm.extractvalue %arg0[2]
// CHECK: %[[R3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[S1:.*]] = llvm.sub %[[R0]], %[[R2]]
// CHECK: %[[S2:.*]] = llvm.sub %[[S1]], %[[R1]]
// CHECK: llvm.sub %[[S2]], %[[R3]]
#ll = #tile.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @registers_by_position(%x: tensor<128xi32, #ll>) -> i32 {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<128xi32, #ll> -> i32 {
    ^bb0(%a: i32, %b: i32):
      %c = arith.subi %a, %b : i32
      tile.reduce_return %c : i32
    }
    return %s : i32
  }
}
