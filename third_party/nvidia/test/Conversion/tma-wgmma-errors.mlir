// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// What the TMA and wgmma lowerings do not support is one diagnostic at the op
// (or the function), before anything is rewritten.

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @acc_blocked(%c: tensor<64x64xf32, #bl>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{the accumulator's layout is not the wgmma (v3) layout: lane bit 0 moves by [0, 8], the instruction's by [0, 2] (use NVMMADistributedLayout(version=[3, 0], ...))}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #bl>
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {tile.num_warps = 2 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @two_warps(%c: tensor<64x64xf32, #bl>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{wgmma runs on warpgroups of 4 warps; the kernel has 2 warps}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #bl>
    return
  }
}

// -----

#nv0 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @a_unswizzled(%c: tensor<64x64xf32, #acc>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv0, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{a's layout #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false> is not one a wgmma descriptor can read (tried K-major, 128-byte swizzle; K-major, 64-byte swizzle; K-major, 32-byte swizzle; K-major, no swizzle; MN-major, 128-byte swizzle; MN-major, 64-byte swizzle; MN-major, 32-byte swizzle; MN-major, no swizzle); use NVMMASharedLayout, or a SharedLinearLayout of wgmma's core matrices}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv0, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return
  }
}

// -----

#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @tma_transposed(%d: !tile.tensordesc<tensor<64x64xbf16, #nvt>>, %c: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{TMA copies of #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true> are not lowered yet (a layout that is not transposed)}}
    tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<64x64xbf16, #nvt>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable>
    return
  }
}

// -----

// A reduce-store is checked as a store is.
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @tma_reduce_transposed(%d: !tile.tensordesc<tensor<64x64xbf16, #nvt>>, %c: i32) {
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{TMA copies of #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true> are not lowered yet (a layout that is not transposed)}}
    tile_nv.async_tma_reduce add, %d[%c, %c], %buf : !tile.tensordesc<tensor<64x64xbf16, #nvt>>, !tile.memdesc<64x64xbf16, #nvt, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // expected-error @+1 {{argument 0: only kernels take tensor descriptors (pass them to helper functions inlined)}}
  func.func private @helper(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>) {
    return
  }
}

// -----

// `a` in registers must be in the wgmma A-fragment layout.
#nvt = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @register_a_blocked(%a: tensor<64x32xbf16, #bl>, %c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #nvt, mutable>
    // expected-error @+1 {{a's layout is not the wgmma register operand's: lane bit 0 moves by [0, 8], the instruction's by [0, 2] (use DotOperandLayout(0, the accumulator's layout, k_width=2))}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : tensor<64x32xbf16, #bl>, !tile.memdesc<32x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}

// -----

// Padding moves rows by amounts a descriptor's strides cannot say.
#pad = #tile.padded_shared<{intervals = [64], paddings = [8], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]], shape = [64, 64]}>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @a_padded(%c: tensor<64x64xf32, #acc>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #pad, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    // expected-error @+1 {{a is in a padded layout, which wgmma descriptors cannot describe}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #pad, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return
  }
}

// -----

// A one-row block of a 64-byte swizzle two chunks wide: each box is 64 bytes,
// and TMA needs 128-byte aligned box addresses.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @boxes_under_128_bytes(%d: !tile.tensordesc<tensor<1x32xf32, #nv>>) {
    %c0 = arith.constant 0 : i32
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<1x32xf32, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 128 : !tile.memdesc<1xi64, #sh, mutable>
    // expected-error @+1 {{this block is 2 TMA boxes (one per swizzle chunk of its rows) of 64 bytes each, and TMA needs each box's shared-memory address 128-byte aligned: use blocks of at least 2 rows, a wider swizzle, or rows one chunk wide}}
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !tile.tensordesc<tensor<1x32xf32, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<1x32xf32, #nv, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}

// -----

// cols ends inside the columns of warpgroup 1 (warps [4, 2]: the second warpgroup takes
// columns 64-127): the instructions' N would differ between the warpgroups.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cols_split_columns(%c: tensor<64x128xf32, #acc>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x128xbf16, #nvt, mutable>
    // expected-error @+1 {{cols = 96 needs every warpgroup to hold all of the accumulator's columns (warps along M only), but a warpgroup bit moves by 64 columns}}
    %d = tile_nv.warpgroup_dot %a, %b, %c {cols = 96 : i32} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x128xbf16, #nvt, mutable> -> tensor<64x128xf32, #acc>
    return
  }
}
