// RUN: not kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" 2>&1 | FileCheck %s --check-prefix=ERR

// The async-copy rules that need the pointer analysis, checked before any
// LLVM is made: one diagnostic at the op each.

// Pointers without a known alignment allow one f16 (2 bytes): the width rule
// at the op, before any LLVM.
// ERR: error: 'tile.async_copy_global_to_local' op async copy rule 'width': cp.async on cuda:sm_90a moves 4, 8, 16 bytes per thread, but this copy can move only 2 bytes (1 x 'f16') at once: the pointers are contiguous and aligned (or the mask is constant) for only 1 element(s)
#l = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unaligned(%x: !tile.ptr<f16>) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %b = tile.splat %x : tensor<256x!tile.ptr<f16>, #l>
    %p = tile.addptr %b, %r : tensor<256x!tile.ptr<f16>, #l>, tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf16, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<256x!tile.ptr<f16>, #l> -> !tile.memdesc<256xf16, #sh, mutable>
    return
  }
}

// -----

// .cv (an AMD direct-to-LDS copy's "bypass every cache") is no cp.async
// modifier.
// ERR: error: 'tile.async_copy_global_to_local' op cache_modifier ".cv" is not one of this target's asynchronous copy modifiers ("", ".ca", ".cg")
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cv(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 128 : tensor<128xi32, #l>
    %b = tile.splat %x : tensor<128x!tile.ptr<f32>, #l>
    %p = tile.addptr %b, %r : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf {cache_modifier = ".cv"} : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    return
  }
}

// -----

// .cg exists only for 16-byte copies.
// ERR: error: 'tile.async_copy_global_to_local' op cache_modifier ".cg" needs 16-byte copies; this copy moves 8 bytes per access
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cg_narrow(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 64 : tensor<64xi32, #l>
    %b = tile.splat %x : tensor<64x!tile.ptr<f32>, #l>
    %p = tile.addptr %b, %r : tensor<64x!tile.ptr<f32>, #l>, tensor<64xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<64xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf {cache_modifier = ".cg"} : tensor<64x!tile.ptr<f32>, #l> -> !tile.memdesc<64xf32, #sh, mutable>
    return
  }
}
