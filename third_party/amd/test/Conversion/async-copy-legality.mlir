// RUN: kiln-opt %s -split-input-file -verify-diagnostics
// RUN: not kiln-opt %s -split-input-file --kiln-to-llvm 2>&1 | FileCheck %s --check-prefix=LOWER

// Direct-to-LDS widths per chip (the target table) and the lane rule, in the
// one legality helper: what verifies on gfx950 (16 bytes per lane, lanes in
// consecutive slots) and on gfx942 (4 bytes), and what the lowering makes of
// the 16-byte copy: one scalar LDS base per wave, one global_load_lds each.

// LOWER-LABEL: llvm.func @lanes_16_bytes_gfx950
// LOWER: rocdl.readfirstlane
// LOWER: rocdl.global.load.lds %{{.*}}, %{{.*}}, 16, 0, 0
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @lanes_16_bytes_gfx950(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %s = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<1024xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b : tensor<1024x!tile.ptr<f32>, #l> -> !tile.memdesc<1024xf32, #sh, mutable>
    return
  }
}

// -----

// gfx942: one float per lane, 4 bytes.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @lanes_4_bytes_gfx942(%p: tensor<256x!tile.ptr<f32>, #l>, %b: !tile.memdesc<256xf32, #sh, mutable>) {
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// gfx950 16 bytes, the lanes' slots in another order inside the window
// (lane bits 0 and 1 swapped, as a swizzle orders a row's vectors): each lane
// takes the pointer of the lane whose element its slot holds (ds_bpermute,
// the 64-bit pointer in two halves) and the slot's address, and the wave's
// base comes from that address as before. (The data each lane moves is
// checked over the assembly by test_amd_swizzled_lds_copies.py.)
// LOWER-LABEL: llvm.func @lanes_permuted_window
// LOWER-COUNT-3: rocdl.ds_bpermute
// LOWER: rocdl.readfirstlane
// LOWER: rocdl.global.load.lds %{{.*}}, %{{.*}}, 16, 0, 0
// LOWER-NOT: rocdl.global.load.lds
// LOWER: llvm.return
#l = #tile.linear<{register = [[1], [2]], lane = [[8], [4], [16], [32], [64], [128]], warp = []}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @lanes_permuted_window(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// gfx950 16 bytes, swizzled, but a warp's lanes reach over 4 rows of 128
// floats (two windows of 64 x 4 floats): no order of the lanes fills one.
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @lanes_two_windows(%p: tensor<4x128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<4x128xf32, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'lanes': a direct-to-LDS load on hip:gfx950 writes lane i of a warp at one base + i x 16 bytes}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<4x128x!tile.ptr<f32>, #l> -> !tile.memdesc<4x128xf32, #sh, mutable>
    return
  }
}

// -----

// gfx950 with 8 floats (32 bytes) per thread: the copy moves at most 16, so
// the lanes would be 32 bytes apart; the width rule says so first.
#l = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @width_32_bytes_gfx950(%p: tensor<512x!tile.ptr<f32>, #l>, %b: !tile.memdesc<512xf32, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'width': direct-to-LDS load on hip:gfx950 moves 4, 16 bytes per lane, but each thread of the layout of 'tensor<512x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>>' holds 32 consecutive bytes (8 x 'f32'), so its lanes cannot write consecutive 16-byte slots: give each thread 16 bytes along the contiguous dimension (size_per_thread 4)}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<512x!tile.ptr<f32>, #l> -> !tile.memdesc<512xf32, #sh, mutable>
    return
  }
}
