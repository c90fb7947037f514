// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=hip:gfx942" -verify-diagnostics | FileCheck %s

// A layout whose warps repeat each other's elements (8 warps over 256
// elements of 64-lane rows: two warps per element, as a block's scales
// loaded by a whole CTA): every wave issues its copy, the repeating ones
// the same bytes to the same slots, so the waits' instruction counts hold
// in every wave (a wave that skipped its copies would take its older ones
// for the newest and leave a wait early). No branch around the copy.
// CHECK-LABEL: llvm.func @buffer_broadcast
// CHECK-NOT: llvm.cond_br
// CHECK: rocdl.raw.ptr.buffer.load.lds
// CHECK-NOT: rocdl.raw.ptr.buffer.load.lds
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_broadcast(%x: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile_amd.buffer_load_to_local %x[%o], %b : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @global_broadcast
// CHECK-NOT: llvm.cond_br
// CHECK: rocdl.global.load.lds
// CHECK-NOT: rocdl.global.load.lds
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @global_broadcast(%p: tensor<256x!tile.ptr<f32>, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// Lanes that repeat others' elements (64 lanes over 32 elements) cannot
// write consecutive slots: still an error.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @lane_broadcast(%x: !tile.ptr<f32>, %o: tensor<32xi32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<32xf32, #sh, mutable>
    // expected-error @+1 {{async copy rule 'lanes'}}
    %t = tile_amd.buffer_load_to_local %x[%o], %b : !tile.ptr<f32>, tensor<32xi32, #l> -> !tile.memdesc<32xf32, #sh, mutable>
    return
  }
}
