// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --test-print-linear-layout 2>&1 | FileCheck %s --check-prefix=LINEAR

// Shared-memory layouts and memory descriptors round-trip; a view keeps the
// allocation's shape, printed last. test/Python/test_shared_layout_soundness.py
// checks the linear form against the swizzle formula over random layouts.

// CHECK: #shared = #tile.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>
// CHECK: #shared1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#shared = #tile.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#plain = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#ring = #tile.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 2, order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @descriptors
  // CHECK-SAME: !tile.memdesc<8x8xf16, #shared, mutable>
  // CHECK-SAME: !tile.memdesc<8x8xf16, #shared, mutable, 3x8x8>
  // CHECK-SAME: !tile.memdesc<64xi32, #shared1>
  // CHECK-SAME: !tile.memdesc<3x16x8xf32, #shared2>
  func.func @descriptors(%a: !tile.memdesc<8x8xf16, #shared, mutable>,
                         %b: !tile.memdesc<8x8xf16, #shared, mutable, 3x8x8>,
                         %c: !tile.memdesc<64xi32, #plain>,
                         %d: !tile.memdesc<3x16x8xf32, #ring>) {
    return
  }

  // CHECK-LABEL: func.func @ops
  // CHECK: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<8x8xf16, #shared, mutable>
  // CHECK: tile.local_store %{{.*}}, %[[B]] : tensor<8x8xf16, #blocked> -> !tile.memdesc<8x8xf16, #shared, mutable>
  // CHECK: tile.local_load %[[B]] : !tile.memdesc<8x8xf16, #shared, mutable> -> tensor<8x8xf16, #blocked>
  // CHECK: tile.local_alloc %{{.*}} : (tensor<8x8xf16, #blocked>) -> !tile.memdesc<8x8xf16, #shared>
  // CHECK: tile.local_dealloc %[[B]] : !tile.memdesc<8x8xf16, #shared, mutable>
  func.func @ops(%t: tensor<8x8xf16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
    %b = tile.local_alloc : () -> !tile.memdesc<8x8xf16, #shared, mutable>
    tile.local_store %t, %b : tensor<8x8xf16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> -> !tile.memdesc<8x8xf16, #shared, mutable>
    %u = tile.local_load %b : !tile.memdesc<8x8xf16, #shared, mutable> -> tensor<8x8xf16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
    %c = tile.local_alloc %u : (tensor<8x8xf16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>) -> !tile.memdesc<8x8xf16, #shared>
    tile.local_dealloc %b : !tile.memdesc<8x8xf16, #shared, mutable>
    return
  }

  // CHECK-LABEL: func.func @ring
  // CHECK: tile.memdesc_index %{{.*}}[%{{.*}}] : !tile.memdesc<3x8x8xf16, #shared, mutable> -> !tile.memdesc<8x8xf16, #shared, mutable, 3x8x8>
  func.func @ring(%i: i32) {
    %r = tile.local_alloc : () -> !tile.memdesc<3x8x8xf16, #shared, mutable>
    %s = tile.memdesc_index %r[%i] : !tile.memdesc<3x8x8xf16, #shared, mutable> -> !tile.memdesc<8x8xf16, #shared, mutable, 3x8x8>
    // CHECK: tile.barrier
    tile.barrier
    return
  }
}

// Row bit j flips column bit (vec << j) for the log2(maxPhase) bits after
// log2(perPhase); a ring's leading dimension is not part of the layout.
// LINEAR: remark: shared layout of argument 0 = {register = {{\[\[}}0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]], lane = [], warp = []}
// LINEAR: remark: shared layout of argument 1 = {register = {{\[\[}}0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]], lane = [], warp = []}
// LINEAR: remark: shared layout of argument 2 = {register = {{\[\[}}1], [2], [4], [8], [16], [32]], lane = [], warp = []}
// order = [0, 1]: dimension 0 (16) is the row's length, dimension 1 (8) the rows;
// perPhase = 2 skips row bit 0, maxPhase = 2 makes row bit 1 flip vec = 4.
// LINEAR: remark: shared layout of argument 3 = {register = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [4, 2], [0, 4]], lane = [], warp = []}

// -----

// Views: a subslice (offsets, same layout and allocation), a permutation
// (layout with renamed dimensions) and a reshape of an unswizzled buffer.
// CHECK-LABEL: func.func @views
// CHECK: tile.memdesc_subslice %{{.*}}[1, 16, 32] : !tile.memdesc<2x64x64xf32, #{{.*}}, mutable> -> !tile.memdesc<1x16x32xf32, #{{.*}}, mutable, 2x64x64>
// CHECK: tile.memdesc_permute %{{.*}} {order = array<i32: 0, 2, 1>}
// CHECK: tile.memdesc_reshape %{{.*}} : !tile.memdesc<4x64xf32, #{{.*}}, mutable> -> !tile.memdesc<256xf32, #{{.*}}, mutable>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sht = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#rm = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @views(%b: !tile.memdesc<2x64x64xf32, #sh, mutable>, %q: !tile.memdesc<4x64xf32, #rm, mutable>) {
  %s = tile.memdesc_subslice %b[1, 16, 32] : !tile.memdesc<2x64x64xf32, #sh, mutable> -> !tile.memdesc<1x16x32xf32, #sh, mutable, 2x64x64>
  %p = tile.memdesc_permute %b {order = array<i32: 0, 2, 1>} : !tile.memdesc<2x64x64xf32, #sh, mutable> -> !tile.memdesc<2x64x64xf32, #sht, mutable>
  %f = tile.memdesc_reshape %q : !tile.memdesc<4x64xf32, #rm, mutable> -> !tile.memdesc<256xf32, #rm1, mutable>
  return
}

// A padded layout round-trips; a 2-slot ring of it.
// CHECK-LABEL: func.func @padded
// CHECK-SAME: #tile.padded_shared<{intervals = [32], paddings = [4], offset = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], shape = [8, 32]}>
#pad = #tile.padded_shared<{intervals = [32], paddings = [4], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], shape = [8, 32]}>
func.func @padded(%b: !tile.memdesc<2x8x32xf32, #pad, mutable>) {
  return
}
