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
// 4-byte slots from one base, which 4 elements per thread do not give.
#l4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @width(%p: !tile.ptr<f32>, %o: tensor<1024xi32, #l4>) {
    %a = tile.local_alloc : () -> !tile.memdesc<1024xf32, #sh, mutable>
    // expected-error @+1 {{async copy rule 'lanes': a direct-to-LDS load on hip:gfx942 writes lane i of a warp at one base + i x 4 bytes}}
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
