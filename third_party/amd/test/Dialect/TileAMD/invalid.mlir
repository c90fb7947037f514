// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier message of tile_amd's buffer ops.

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @offsets_i64(%p: !tile.ptr<f32>, %o: tensor<256xi64, #l>) {
  // expected-error @+1 {{offsets must be i32 (a buffer resource addresses at most 2^31 bytes), got 'i64'}}
  %v = tile_amd.buffer_load %p[%o] : !tile.ptr<f32>, tensor<256xi64, #l> -> tensor<256xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @result_shape(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
  // expected-error @+1 {{result must have the offsets' shape and layout 256, got 'tensor<512xf32}}
  %v = tile_amd.buffer_load %p[%o] : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<512xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @result_elements(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
  // expected-error @+1 {{result elements must be the pointer's 'f32', got 'f16'}}
  %v = tile_amd.buffer_load %p[%o] : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<256xf16, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @mask_shape(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>, %m: tensor<128xi1, #l>) {
  // expected-error @+1 {{mask must be 'tensor<256xi1}}
  %v = tile_amd.buffer_load %p[%o], %m : tensor<128xi1, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<256xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @other_type(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>, %m: tensor<256xi1, #l>, %z: tensor<256xf16, #l>) {
  // expected-error @+1 {{other must be 'tensor<256xf32}}
  %v = tile_amd.buffer_load %p[%o], %m : tensor<256xi1, #l> other %z : tensor<256xf16, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<256xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @load_cache(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
  // expected-error @+1 {{cache modifier must be one of "", ".ca", ".cg", ".cv", got ".wt"}}
  %v = tile_amd.buffer_load %p[%o] {cache = ".wt"} : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<256xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @store_cache(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>, %v: tensor<256xf32, #l>) {
  // expected-error @+1 {{cache modifier must be one of "", ".wb", ".cg", ".cs", ".wt", got ".ca"}}
  tile_amd.buffer_store %v, %p[%o] {cache = ".ca"} : tensor<256xf32, #l>, !tile.ptr<f32>, tensor<256xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
func.func @store_value(%p: !tile.ptr<f32>, %o: tensor<256xi32, #l>, %v: tensor<256xi32, #l>) {
  // expected-error @+1 {{value elements must be the pointer's 'f32', got 'i32'}}
  tile_amd.buffer_store %v, %p[%o] : tensor<256xi32, #l>, !tile.ptr<f32>, tensor<256xi32, #l>
  return
}

// -----

// The shared legality helper: on gfx942 a wave's lanes write consecutive
// 4-byte slots from one base, which 4 elements per thread do not give; the
// width rule says so before the lane rule.
#l4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @width(%p: !tile.ptr<f32>, %o: tensor<1024xi32, #l4>) {
    %a = tile.local_alloc : () -> !tile.memdesc<1024xf32, #sh, mutable>
    // expected-error @+1 {{async copy rule 'width': direct-to-LDS load on hip:gfx942 moves 4 bytes per lane, but each thread of the layout of}}
    %t = tile_amd.buffer_load_to_local %p[%o], %a : !tile.ptr<f32>, tensor<1024xi32, #l4> -> !tile.memdesc<1024xf32, #sh, mutable>
    return
  }
}

// -----

// ... and 2-byte copies are no direct-to-LDS width at all.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @width(%p: !tile.ptr<f16>, %o: tensor<256xi32, #l>) {
    %a = tile.local_alloc : () -> !tile.memdesc<256xf16, #sh, mutable>
    // expected-error @+1 {{async copy rule 'width'}}
    %t = tile_amd.buffer_load_to_local %p[%o], %a : !tile.ptr<f16>, tensor<256xi32, #l> -> !tile.memdesc<256xf16, #sh, mutable>
    return
  }
}

// -----

// The mfma layouts and tile_amd.mfma.

// expected-error @+1 {{mfma: version must be 1 (CDNA1, gfx908), 2 (CDNA2, gfx90a), 3 (CDNA3, gfx942) or 4 (CDNA4, gfx950), got 5}}
#acc = #tile_amd.mfma<{version = 5, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: instrShape must be [32, 32, k], [16, 16, k], [4, 64, k] or [64, 4, k]}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [8, 8, 4], transposed = true, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: instrShape [64, 4, k] must be transposed (not transposed, use [4, 64, k])}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [64, 4, 64], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: instrShape [4, 64, k] is not transposed (transposed, use [64, 4, k])}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [4, 64, 64], transposed = true, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: instrShape's k must be a power of two, got 6}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 6], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: warpsPerCTA must have 2 entries, or 3 for a batched (rank-3) accumulator}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1, 2, 2], tilesPerWarp = [1, 1, 1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: a batched layout's tilesPerWarp has 1 for the batch dimension, got 2}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 2, 2], tilesPerWarp = [2, 1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: tilesPerWarp must have as many entries as warpsPerCTA}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: warpsPerCTA and tilesPerWarp entries must be powers of two}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [3, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: elementBitWidth must be 32 (f32 or i32 accumulators) or 64 (f64), got 16}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 4], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 16}>
func.func private @f() attributes {l = #acc}

// -----

// expected-error @+1 {{mfma: 64-bit accumulators take instrShape [16, 16, 4] (v_mfma_f64_16x16x4_f64), got [32, 32, 8]}}
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 64}>
func.func private @f() attributes {l = #acc}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 4], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 1}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 1}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @f(%a: tensor<16x4xf64, #a>, %b: tensor<4x16xf64, #b>, %c: tensor<16x16xf64, #acc>) -> tensor<16x16xf64, #acc> {
    // expected-error @+1 {{the accumulator's layout has elementBitWidth = 32 but its elements are 'f64' (64 for f64 accumulators, 32 otherwise)}}
    %d = tile_amd.mfma %a, %b, %c : tensor<16x4xf64, #a>, tensor<4x16xf64, #b> -> tensor<16x16xf64, #acc>
    return %d : tensor<16x16xf64, #acc>
  }
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{dot_op: parent must be a #tile_amd.mfma layout, got #tile.blocked}}
#a = #tile_amd.dot_op<{opIdx = 0, parent = #b, kWidth = 4}>
func.func private @f() attributes {l = #a}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
// expected-error @+1 {{dot_op: opIdx must be 0 (A) or 1 (B), got 2}}
#a = #tile_amd.dot_op<{opIdx = 2, parent = #acc, kWidth = 4}>
func.func private @f() attributes {l = #a}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
// expected-error @+1 {{dot_op: kWidth must be a power of two in [1, 32], got 3}}
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 3}>
func.func private @f() attributes {l = #a}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_rank(%a: tensor<2x64x16xf16, #a>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{a, b and the accumulator must be all 2-D, or all 3-D (batched)}}
  %d = tile_amd.mfma %a, %b, %c : tensor<2x64x16xf16, #a>, tensor<16x64xf16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_layout_rank(%a: tensor<2x64x16xf16, #a>, %b: tensor<2x16x64xf16, #b>, %c: tensor<2x64x64xf32, #acc>) {
  // expected-error @+1 {{the accumulator is 3-D but its layout is 2-D (warpsPerCTA has 2 entries)}}
  %d = tile_amd.mfma %a, %b, %c : tensor<2x64x16xf16, #a>, tensor<2x16x64xf16, #b> -> tensor<2x64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 2, 2], tilesPerWarp = [1, 1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_batch_mismatch(%a: tensor<2x64x16xf16, #a>, %b: tensor<4x16x64xf16, #b>, %c: tensor<2x64x64xf32, #acc>) {
  // expected-error @+1 {{shapes do not multiply: a [2, 64, 16], b [4, 16, 64], accumulator [2, 64, 64]}}
  %d = tile_amd.mfma %a, %b, %c : tensor<2x64x16xf16, #a>, tensor<4x16x64xf16, #b> -> tensor<2x64x64xf32, #acc>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @mfma_acc(%a: tensor<64x16xf16, #l>, %b: tensor<16x64xf16, #l>, %c: tensor<64x64xf32, #l>) {
  // expected-error @+1 {{the accumulator must be in a #tile_amd.mfma layout (Gluon's AMDMFMALayout), got #tile.blocked}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #l>, tensor<16x64xf16, #l> -> tensor<64x64xf32, #l>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_a_layout(%a: tensor<64x16xf16, #b>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{a must be in #tile_amd.dot_op<{opIdx = 0, parent = the accumulator's layout}>, got #tile_amd.dot_op<{opIdx = 1}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #b>, tensor<16x64xf16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_kwidth(%a: tensor<64x16xf16, #a>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{a and b must have the same kWidth, got 8 and 4}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #a>, tensor<16x64xf16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_shapes(%a: tensor<64x16xf16, #a>, %b: tensor<32x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{shapes do not multiply: a [64, 16], b [32, 64], accumulator [64, 64]}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #a>, tensor<32x64xf16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 16], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
func.func @mfma_no_form(%a: tensor<64x16xf16, #a>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{CDNA3 (gfx942) has no 32x32x16 mfma for 'f16' x 'f16' -> 'f32'; its shapes for these types are [32, 32, 8], [16, 16, 16]}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #a>, tensor<16x64xf16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 16], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
func.func @mfma_fp8_gfx942(%a: tensor<64x16xf8E4M3FN, #a>, %b: tensor<16x64xf8E4M3FN, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{CDNA3 (gfx942) has no 32x32x16 mfma for 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' (gfx942's fp8 mfma reads the FNUZ formats float8e4b8 / float8e5b16; gfx950's reads the OCP float8e4nv / float8e5)}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf8E4M3FN, #a>, tensor<16x64xf8E4M3FN, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_types(%a: tensor<64x16xi16, #a>, %b: tensor<16x64xi16, #b>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{CDNA3 (gfx942) has no 32x32x8 mfma for 'i16' x 'i16' -> 'f32' (f32, f16, bf16 and i8 operands into f32 or i32, f64 into f64; fp8: FNUZ on gfx942, OCP on gfx950)}}
  %d = tile_amd.mfma %a, %b, %c : tensor<64x16xi16, #a>, tensor<16x64xi16, #b> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 16], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_k(%a: tensor<32x24xf16, #a>, %b: tensor<24x32xf16, #b>, %c: tensor<32x32xf32, #acc>) {
  // expected-error @+1 {{K = 24 is not a multiple of the instruction's K (16 for instrShape [16, 16, 16]) nor a power of two below it}}
  %d = tile_amd.mfma %a, %b, %c : tensor<32x24xf16, #a>, tensor<24x32xf16, #b> -> tensor<32x32xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [32, 32, 16], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @mfma_chip(%a: tensor<64x16xf16, #a>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #acc>) {
    // expected-error @+1 {{the layout is for CDNA4 (gfx950) (version 4); hip:gfx942 has CDNA version 3}}
    %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf16, #a>, tensor<16x64xf16, #b> -> tensor<64x64xf32, #acc>
    return
  }
}

// -----

// A CDNA2 layout's i8 instruction, which CDNA3 replaced, on gfx942.
#acc = #tile_amd.mfma<{version = 2, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @mfma_replaced(%a: tensor<64x8xi8, #a>, %b: tensor<8x64xi8, #b>, %c: tensor<64x64xi32, #acc>) {
    // expected-error @+1 {{the 32x32x8 mfma for 'i8' x 'i8' (v_mfma_i32_32x32x8i8) is a CDNA2 (gfx90a) instruction that hip:gfx942 does not have; its shapes for these types are [32, 32, 16], [16, 16, 32], [4, 64, 64], [64, 4, 64] (a version 3 layout)}}
    %d = tile_amd.mfma %a, %b, %c : tensor<64x8xi8, #a>, tensor<8x64xi8, #b> -> tensor<64x64xi32, #acc>
    return
  }
}

// -----

// CDNA1 has no f64 mfma.
#acc = #tile_amd.mfma<{version = 1, instrShape = [16, 16, 4], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 64}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 1}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 1}>
func.func @mfma_cdna1_f64(%a: tensor<32x4xf64, #a>, %b: tensor<4x32xf64, #b>, %c: tensor<32x32xf64, #acc>) {
  // expected-error @+1 {{CDNA1 (gfx908) has no 16x16x4 mfma for 'f64' x 'f64' -> 'f64' (f32, f16, bf16 and i8 operands into f32 or i32, f64 into f64; fp8: FNUZ on gfx942, OCP on gfx950)}}
  %d = tile_amd.mfma %a, %b, %c : tensor<32x4xf64, #a>, tensor<4x32xf64, #b> -> tensor<32x32xf64, #acc>
  return
}

// -----

// gfx942's fp8 instruction (a version-3 layout) reads OCP e4m3 on gfx950:
// FNUZ operands would be misread.
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 16], transposed = false, warpsPerCTA = [2, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
module attributes {tile.target = "hip:gfx950"} {
  func.func @mfma_fnuz_on_gfx950(%a: tensor<64x16xf8E4M3FNUZ, #a>, %b: tensor<16x64xf8E4M3FNUZ, #b>, %c: tensor<64x64xf32, #acc>) {
    // expected-error @+1 {{FNUZ fp8 operands ('f8E4M3FNUZ' x 'f8E4M3FNUZ') on hip:gfx950, whose fp8 mfma reads the OCP formats float8e4nv / float8e5: convert the operands to those, or compile for gfx942 (CDNA3), whose fp8 mfma reads float8e4b8 / float8e5b16}}
    %d = tile_amd.mfma %a, %b, %c : tensor<64x16xf8E4M3FNUZ, #a>, tensor<16x64xf8E4M3FNUZ, #b> -> tensor<64x64xf32, #acc>
    return
  }
}

// -----

#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
func.func @mfma_m(%a: tensor<48x8xf16, #a>, %b: tensor<8x32xf16, #b>, %c: tensor<48x32xf32, #acc>) {
  // expected-error @+1 {{M = 48 is not a multiple of the instruction's M (32 for instrShape [32, 32, 8]) nor a power of two below it}}
  %d = tile_amd.mfma %a, %b, %c : tensor<48x8xf16, #a>, tensor<8x32xf16, #b> -> tensor<48x32xf32, #acc>
  return
}

// -----

// tile_amd.mfma_scaled.

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_rank(%a: tensor<2x16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a, b, their scales and the accumulator must be 2-D}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<2x16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_acc(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #s>) {
  // expected-error @+1 {{the accumulator must be in a #tile_amd.mfma layout (Gluon's AMDMFMALayout), got #tile.linear}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #s>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_acc_type(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xi32, #acc>) {
  // expected-error @+1 {{the accumulator must be f32, got 'i32'}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xi32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
#acc2 = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 32], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a2 = #tile_amd.dot_op<{opIdx = 0, parent = #acc2, kWidth = 16}>
#b2 = #tile_amd.dot_op<{opIdx = 1, parent = #acc2, kWidth = 16}>
func.func @ms_version(%a: tensor<16x64xi8, #a2>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b2>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc2>) {
  // expected-error @+1 {{scaled mfma needs a version 4 (CDNA4, gfx950) layout with instrShape [16, 16, 128] or [32, 32, 64], got version 4, instrShape [16, 16, 32]}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a2>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b2>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc2>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_format(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a's format must be e2m1, e4m3 or e5m2, got 'e3m2'}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e3m2", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_dtype(%a: tensor<16x128xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<128x16xf16, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{b holds 'f16', which is not e4m3 data (i8 bytes or f8E4M3FN)}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e4m3"} : tensor<16x128xi8, #a>, tensor<16x4xi8, #s>, tensor<128x16xf16, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_dtype_fp8(%a: tensor<16x128xf8E5M2, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<128x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a holds 'f8E5M2', which is not e4m3 data (i8 bytes or f8E4M3FN)}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e4m3"} : tensor<16x128xf8E5M2, #a>, tensor<16x4xi8, #s>, tensor<128x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_layout(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #a>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{b must be in #tile_amd.dot_op<{opIdx = 1, parent = the accumulator's layout}>, got #tile_amd.dot_op<{opIdx = 0}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #a>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
#a8 = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
func.func @ms_kwidth(%a: tensor<16x64xi8, #a8>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a's kWidth must be 16, or 32 for e4m3 / e5m2 data, got 8 for e2m1}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a8>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

// kWidth 32 is for the one-byte formats only.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 32}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 32}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_kwidth32_e2m1(%a: tensor<16x128xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{b's kWidth must be 16, or 32 for e4m3 / e5m2 data, got 32 for e2m1}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e2m1"} : tensor<16x128xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

// kWidth 32 reorders K: both operands or neither.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 32}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_kwidth_mixed(%a: tensor<16x128xf8E4M3FN, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<128x16xf8E5M2, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a and b must both have kWidth 32 when one does (kWidth 32 reorders the instruction's K, and the two operands must pair the same K values), got 16 and 32}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e5m2"} : tensor<16x128xf8E4M3FN, #a>, tensor<16x4xi8, #s>, tensor<128x16xf8E5M2, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_shapes(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{shapes do not multiply: a [16, 64] (e4m3), b [64, 16] (e2m1), accumulator [16, 16] (e2m1 tensors hold two K values per byte)}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_multiple(%a: tensor<16x32xi8, #a>, %sa: tensor<16x2xi8, #s>, %b: tensor<32x16xi8, #b>, %sb: tensor<16x2xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{K = 64 is not a multiple of the instruction's K (128 for instrShape [16, 16, 128])}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x32xi8, #a>, tensor<16x2xi8, #s>, tensor<32x16xi8, #b>, tensor<16x2xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

// M below the instruction's is allowed when it divides it (the lanes repeat
// the rows); 12 does not.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_small_m(%a: tensor<12x64xi8, #a>, %sa: tensor<12x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<12x16xf32, #acc>) {
  // expected-error @+1 {{M = 12 is not a multiple of the instruction's M (16 for instrShape [16, 16, 128]) nor a power of two below it}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<12x64xi8, #a>, tensor<12x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<12x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_scale_type(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xf32, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a_scale must hold E8M0 bytes (i8), got 'f32'}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xf32, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_scale_shape(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x8xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{b_scale must be 16 x 4 (one scale per 32 K values of each column of b), got [16, 8]}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x8xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
func.func @ms_scale_layout(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
  // expected-error @+1 {{a_scale must have a distributed layout (Gluon's get_mfma_scale_layout), got none}}
  %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @ms_target(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) {
    // expected-error @+1 {{scaled mfma is a CDNA4 instruction; hip:gfx942 does not have it}}
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #s>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
    return
  }
}

// -----

// A warp-pipeline border's priority is s_setprio's 0 to 3, or -1 to leave it.
func.func @warp_pipeline_priority() {
  // expected-error @+1 {{'tile_amd.warp_pipeline_border' op priority 4 is not a wave priority: 0 to 3 (s_setprio), or -1 to leave it}}
  tile_amd.warp_pipeline_border {priority = 4 : i32}
  return
}
