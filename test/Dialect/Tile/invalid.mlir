// RUN: kiln-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Every verifier and parser message of the tile dialect, one case each.

//===----------------------------------------------------------------------===//
// !tile.ptr
//===----------------------------------------------------------------------===//

// expected-error @+1 {{pointee must be an integer, float or pointer type, got 'vector<4xf32>'}}
func.func @ptr_to_vector(%p: !tile.ptr<vector<4xf32>>) { return }

// -----

// expected-error @+1 {{address space must be in [0, 16777216), got -1}}
func.func @ptr_negative_space(%p: !tile.ptr<f32, -1>) { return }

// -----

// LLVM keeps address spaces in 24 bits; a larger one used to be truncated.
// expected-error @+1 {{address space must be in [0, 16777216), got 16777216}}
func.func @ptr_huge_space(%p: !tile.ptr<f32, 16777216>) { return }

// -----

// expected-error @+1 {{tf32 is a compute format with no memory representation: point to f32 instead}}
func.func @ptr_to_tf32(%p: !tile.ptr<tf32>) { return }

// -----

// expected-error @+1 {{pointee 'f4E2M1FN' is narrower than a byte: store such values packed in an i8 tensor}}
func.func @ptr_to_f4(%p: !tile.ptr<f4E2M1FN>) { return }

// -----

// expected-error @+1 {{pointee integers are at most 64 bits wide, got 'i128'}}
func.func @ptr_to_i128(%p: !tile.ptr<i128>) { return }

// -----

// expected-error @+1 {{'tile.shared' must be a non-negative byte count below 2^31}}
module attributes {tile.shared = -4 : i32} {}

// -----

// expected-error @+1 {{'tile.shared' belongs on a module}}
func.func @shared_on_func() attributes {tile.shared = 16 : i32} { return }

// -----

func.func @scratch_offset_not_int() {
  // expected-error @+1 {{'tile.scratch_offset' must be a non-negative byte count below 2^31}}
  "test.op"() {tile.scratch_offset = "zero"} : () -> ()
  return
}

// -----

func.func @scratch_rounds_elsewhere() {
  // expected-error @+1 {{'tile.scratch_rounds' belongs on tile.convert_layout or tile.reshape}}
  "test.op"() {tile.scratch_rounds = 2 : i32} : () -> ()
  return
}

// -----

// Rows 32 and 64 are the only coordinate bits registers alone hold: at most
// four rounds.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scratch_rounds_too_many(%x: tensor<128x32xf32, #a>) {
    // expected-error @+1 {{'tile.scratch_rounds' must be a power of two between 1 and 4 (the tile's coordinate bits no lane or warp holds)}}
    %y = tile.convert_layout %x {tile.scratch_rounds = 8 : i32} : tensor<128x32xf32, #a> -> tensor<128x32xf32, #b>
    return
  }
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scratch_rounds_not_power_of_two(%x: tensor<128x32xf32, #a>) {
    // expected-error @+1 {{'tile.scratch_rounds' must be a power of two between 1 and 4}}
    %y = tile.convert_layout %x {tile.scratch_rounds = 3 : i32} : tensor<128x32xf32, #a> -> tensor<128x32xf32, #b>
    return
  }
}

//===----------------------------------------------------------------------===//
// Layout parsers: #tile.blocked / #tile.slice / #tile.linear
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expected a dictionary `{key = value, ...}`}}
#l = #tile.blocked<[1]>

// -----

// expected-error @+1 {{missing 'order'}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]}>

// -----

// expected-error @+1 {{unknown key 'foo'}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], foo = 1}>

// -----

// expected-error @+1 {{'sizePerThread' must be an array of integers}}
#l = #tile.blocked<{sizePerThread = 1, threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

// expected-error @+1 {{'threadsPerWarp' must hold non-negative integers}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [-32], warpsPerCTA = [4], order = [0]}>

// -----

// expected-error @+1 {{'dim' must be a non-negative integer}}
#s = #tile.slice<{parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}>

// -----

// expected-error @+1 {{'dim' must be a non-negative integer}}
#s = #tile.slice<{dim = -1, parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}>

// -----

// expected-error @+1 {{missing 'parent'}}
#s = #tile.slice<{dim = 0}>

// -----

// expected-error @+1 {{unknown key 'axis'}}
#s = #tile.slice<{dim = 0, axis = 0, parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}>

// -----

// expected-error @+1 {{'warp' must be an array of bases}}
#x = #tile.linear<{register = [[1]], lane = [[2]]}>

// -----

// expected-error @+1 {{each basis must be an array of integers}}
#x = #tile.linear<{register = [1], lane = [], warp = []}>

// -----

// expected-error @+1 {{basis entries must be integers in [0, 2^30)}}
#x = #tile.linear<{register = [[-1]], lane = [], warp = []}>

// -----

// An entry of 2^30 used to overflow the size computation and hang the parser.
// expected-error @+1 {{basis entries must be integers in [0, 2^30)}}
#x = #tile.linear<{register = [[1073741824]], lane = [], warp = []}>

// -----

// expected-error @+1 {{all bases must have the same non-zero length}}
#x = #tile.linear<{register = [[1], [0, 2]], lane = [], warp = []}>

// -----

// expected-error @+1 {{a linear layout needs at least one basis}}
#x = #tile.linear<{register = [], lane = [], warp = []}>

// -----

// expected-error @+1 {{unknown key 'block'}}
#x = #tile.linear<{register = [[1]], lane = [], warp = [], block = []}>

//===----------------------------------------------------------------------===//
// Layout verifiers
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{blocked layout needs rank >= 1}}
#l = #tile.blocked<{sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []}>

// -----

// expected-error @+1 {{sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same length, got 2, 1, 1, 1}}
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

// expected-error @+1 {{sizePerThread entries must be powers of two, got 0}}
#l = #tile.blocked<{sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

// expected-error @+1 {{threadsPerWarp entries must be powers of two, got 24}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [24], warpsPerCTA = [4], order = [0]}>

// -----

// expected-error @+1 {{warpsPerCTA entries must be powers of two, got 3}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [3], order = [0]}>

// -----

// expected-error @+1 {{order must be a permutation of [0, 2)}}
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 0]}>

// -----

// expected-error @+1 {{order must be a permutation of [0, 1)}}
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [1]}>

// -----

// expected-error @+1 {{slice parent must be a distributed layout, got 1 : i32}}
#s = #tile.slice<{dim = 0, parent = 1 : i32}>

// -----

// expected-error @+1 {{slice dim 1 is out of range for a parent of rank 1}}
#s = #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}>

// -----

// expected-error @+1 {{linear layout {register = [[1], [4]], lane = [], warp = []} is not surjective: its bases do not reach every element of a 8-element tensor}}
#x = #tile.linear<{register = [[1], [4]], lane = [], warp = []}>

//===----------------------------------------------------------------------===//
// Module attributes and layouts against the compile context
// (TileDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // expected-error @+1 {{'func.func' op layout #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> has 32 threads per warp but the kernel is compiled for 64 (tile.threads_per_warp)}}
  func.func @threads_per_warp_mismatch(%x: tensor<128xf32, #l>) { return }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @num_warps_mismatch() {
    // expected-error @+1 {{'tile.arange' op layout #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> has 4 warps but the kernel is compiled for 8 (tile.num_warps)}}
    %r = tile.arange 0, 128 : tensor<128xi32, #l>
    return
  }
}

// -----

// Without tile.threads_per_warp the module means 32.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{has 64 threads per warp but the kernel is compiled for 32 (tile.threads_per_warp)}}
  func.func @threads_per_warp_default(%x: tensor<256xf32, #l>) { return }
}

// -----

module attributes {tile.num_warps = 4 : i32} {
  func.func @no_layout() {
    // expected-error @+1 {{'arith.constant' op tensor 'tensor<128xi32>' needs a layout encoding (e.g. #tile.blocked)}}
    %c = arith.constant dense<0> : tensor<128xi32>
    return
  }
}

// -----

module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{tensor 'tensor<128xf32, "foo">' has no distributed layout}}
  func.func @not_a_layout(%x: tensor<128xf32, "foo">) { return }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{has rank 1 but tensor 'tensor<16x8xf32}}
  func.func @rank_mismatch(%x: tensor<16x8xf32, #l>) { return }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tile.slice<{dim = 0, parent = #l}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{layout #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}> has rank 0 but tensor}}
  func.func @slice_rank_mismatch(%x: tensor<128xf32, #s>) { return }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{'func.func' op tensor shape must be powers of two, got 'tensor<96xf32}}
  func.func @non_pow2_shape(%x: tensor<96xf32, #l>) { return }
}

// -----

// The same bases reach only half of a 256-element tensor.
#x = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0]]}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{does not cover every element of 'tensor<256xf32}}
  func.func @not_surjective_on_shape(%x: tensor<256xf32, #x>) { return }
}

// -----

// 2^12 registers per thread: past Kiln's limit of 2^11 (31 bases used to crash).
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{needs 4096 registers per thread in layout #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>; Kiln's limit is 2048 (use a smaller block or more warps)}}
  func.func @too_many_registers(%x: tensor<524288xf32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) { return }
}

// -----

// expected-error @+1 {{a linear layout has at most 11 register bases (2^11 registers), got 12}}
#x = #tile.linear<{register = [[0], [0], [0], [0], [0], [0], [0], [0], [0], [0], [0], [0]], lane = [[1], [2], [4], [8], [16]], warp = []}>

// -----

// expected-error @+1 {{a linear layout has at most 6 lane bases (2^6 lanes), got 7}}
#x = #tile.linear<{register = [], lane = [[1], [2], [4], [8], [16], [32], [64]], warp = []}>

// -----

// expected-error @+1 {{'builtin.module' op 'tile.num_warps' must be a power of two between 1 and 32}}
module attributes {tile.num_warps = 3 : i32} {}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two between 1 and 32}}
module attributes {tile.num_warps = 64 : i32} {}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two between 1 and 32}}
module attributes {tile.num_warps = 0 : i32} {}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two between 1 and 32}}
module attributes {tile.num_warps = "4"} {}

// -----

// expected-error @+1 {{'builtin.module' op 'tile.threads_per_warp' must be 32 or 64, got 16}}
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 16 : i32} {}

// -----

// expected-error @+1 {{'func.func' op 'tile.num_warps' belongs on a module}}
func.func @num_warps_on_func() attributes {tile.num_warps = 4 : i32} { return }

// -----

// expected-error @+1 {{'builtin.module' op 'tile.target' must be a string}}
module attributes {tile.target = 90 : i32} {}

// -----

// expected-error @+1 {{unknown tile attribute 'tile.foo'}}
module attributes {tile.foo = 1 : i32} {}

// -----

// expected-error @+1 {{unknown tile attribute 'tile.numwarps'}}
func.func @typo() attributes {tile.numwarps = 4 : i32} { return }

// -----

func.func @num_stages_negative(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op 'tile.num_stages' must be a non-negative integer}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.num_stages = -1 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' must be a non-negative integer}}
func.func @num_stages_string() attributes {tile.num_stages = "3"} { return }

// -----

// 'tile.tensordesc' tags tensor descriptor parameters only.
// expected-error @+1 {{'tile.tensordesc' is a unit attribute of !tile.tensordesc arguments}}
func.func @tensordesc_tag_on_i32(%n: i32 {tile.tensordesc}) { return }

// -----

// The pipeliner's schedule attributes.
func.func @stage_outside_loop() {
  // expected-error @+1 {{'tile.stage' belongs on an op of a scf.for body}}
  %c = arith.constant {tile.stage = 0 : i32} 0 : i32
  return
}

// -----

func.func @cluster_negative(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tile.cluster' must be an integer from 0 to 64}}
    %c = arith.constant {tile.cluster = -1 : i32} 0 : i32
  }
  return
}

// -----

func.func @pipeline_part_unknown() {
  // expected-error @+1 {{'tile.pipeline_part' must be "prologue" or "kernel"}}
  %w = tile.async_wait {num = 0 : i32, tile.pipeline_part = "epilogue"}
  return
}

// -----

func.func @unpredicated_not_a_wait() {
  // expected-error @+1 {{'tile.unpredicated' is a unit attribute of barrier waits}}
  %w = tile.async_wait {num = 0 : i32, tile.unpredicated}
  return
}

//===----------------------------------------------------------------------===//
// tile.program_id / tile.num_programs
//===----------------------------------------------------------------------===//

// -----

func.func @program_id_axis3() {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.program_id 3
  return
}

// -----

func.func @num_programs_negative() {
  // expected-error @+1 {{'tile.num_programs' op attribute 'axis' failed to satisfy constraint}}
  %p = tile.num_programs -1
  return
}

//===----------------------------------------------------------------------===//
// tile.arange / tile.splat
//===----------------------------------------------------------------------===//

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @arange_2d() {
  // expected-error @+1 {{'tile.arange' op result must be 1-D, got 'tensor<4x32xi32}}
  %r = tile.arange 0, 128 : tensor<4x32xi32, #l2>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_empty() {
  // expected-error @+1 {{'tile.arange' op end (0) must be greater than start (128)}}
  %r = tile.arange 128, 0 : tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_not_pow2() {
  // expected-error @+1 {{'tile.arange' op range size end - start = 100 must be a power of two}}
  %r = tile.arange 0, 100 : tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_size_mismatch() {
  // expected-error @+1 {{'tile.arange' op result has 128 elements but the range has 64}}
  %r = tile.arange 64, 128 : tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_f32() {
  // expected-error @+1 {{'tile.arange' op result #0 must be ranked tensor of 32-bit signless integer values}}
  %r = tile.arange 0, 128 : tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @splat_type_mismatch(%x: i32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that result element type matches the scalar}}
  %r = "tile.splat"(%x) : (i32) -> tensor<128xf32, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.broadcast / tile.expand_dims / tile.reshape / tile.convert_layout
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_rank(%x: tensor<1xf32, #l>) {
  // expected-error @+1 {{'tile.broadcast' op source rank 1 differs from result rank 2}}
  %b = tile.broadcast %x : tensor<1xf32, #l> -> tensor<16x32xf32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#m2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_layout_mismatch(%x: tensor<1x32xf32, #l2>) {
  // expected-error @+1 {{'tile.broadcast' op layout mismatch in broadcast: #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}> vs #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}}
  %b = tile.broadcast %x : tensor<1x32xf32, #l2> -> tensor<16x32xf32, #m2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_bad_dim(%x: tensor<2x32xf32, #l2>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of size 2 cannot broadcast to 16}}
  %b = tile.broadcast %x : tensor<2x32xf32, #l2> -> tensor<16x32xf32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_element_type(%x: tensor<1x32xf32, #l2>) {
  // expected-error @+1 {{'tile.broadcast' op requires the same element type for all operands and results}}
  %b = tile.broadcast %x : tensor<1x32xf32, #l2> -> tensor<16x32xi32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @expand_dims_axis(%x: tensor<16xi32, #row>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 3 out of range for rank 1}}
  %e = tile.expand_dims %x {axis = 3 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @expand_dims_shape(%x: tensor<16xi32, #row>) {
  // expected-error @+1 {{'tile.expand_dims' op result shape must be the source shape with a 1 inserted at axis 0}}
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @expand_dims_auto_to_fixed(%x: tensor<16xi32, #tile.auto>) {
  // expected-error @+1 {{'tile.expand_dims' op an inferred source layout needs the same inferred result layout, got #tile.auto and #tile.blocked}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xi32, #tile.auto> -> tensor<16x1xi32, #l2>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @set_auto_layout_fixed_source(%x: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.set_auto_layout' op source must have the layout #tile.auto, got 'tensor<128xi32, #tile.blocked}}
  %e = tile.set_auto_layout %x : tensor<128xi32, #l> -> tensor<128xi32, #l>
  return
}

// -----

func.func @set_auto_layout_to_auto(%x: tensor<128xi32, #tile.auto>) {
  // expected-error @+1 {{'tile.set_auto_layout' op result must have a distributed layout or #tile.coalesced, got 'tensor<128xi32, #tile.auto>'}}
  %e = tile.set_auto_layout %x : tensor<128xi32, #tile.auto> -> tensor<128xi32, #tile.auto>
  return
}

// -----

// The source is sliced along dim 0, but the new dimension is 1.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
func.func @expand_dims_wrong_slice_dim(%x: tensor<16xi32, #col>) {
  // expected-error @+1 {{'tile.expand_dims' op source layout must be #tile.slice<{dim = 1, parent = <result layout>}>, got #tile.slice<{dim = 0,}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xi32, #col> -> tensor<16x1xi32, #l2>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @expand_dims_not_slice(%x: tensor<16xi32, #l>) {
  // expected-error @+1 {{'tile.expand_dims' op source layout must be #tile.slice<{dim = 1, parent = <result layout>}>, got #tile.blocked<{sizePerThread = [4]}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xi32, #l> -> tensor<16x1xi32, #l2>
  return
}

// -----

// The slice's parent is not the result layout.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#m2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #m2}>
func.func @expand_dims_wrong_parent(%x: tensor<16xi32, #row>) {
  // expected-error @+1 {{'tile.expand_dims' op source layout must be #tile.slice<{dim = 1, parent = <result layout>}>}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @split_size(%x: tensor<16x4xf32, #a>) {
  // expected-error @+1 {{'tile.split' op needs a last dimension of size 2 (and another dimension), got 'tensor<16x4xf32}}
  %l, %r = tile.split %x : tensor<16x4xf32, #a> -> tensor<16xf32, #a>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.slice<{dim = 1, parent = #a}>
func.func @split_shape(%x: tensor<64x2xf32, #a>) {
  // expected-error @+1 {{'tile.split' op results must be the pair tensor without its last dimension, got 'tensor<32xf32}}
  %l, %r = tile.split %x : tensor<64x2xf32, #a> -> tensor<32xf32, #s>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.slice<{dim = 1, parent = #a}>
func.func @split_across_lanes(%x: tensor<64x2xf32, #a>) {
  // expected-error @+1 {{'tile.split' op needs both elements of each pair in one thread's registers (a register basis one step along the last dimension, no other basis along it)}}
  %l, %r = tile.split %x : tensor<64x2xf32, #a> -> tensor<64xf32, #s>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @split_layout(%x: tensor<256x2xf32, #a>) {
  // expected-error @+1 {{'tile.split' op results must have the pair tensor's layout without the pair (the op moves no data)}}
  %l, %r = tile.split %x : tensor<256x2xf32, #a> -> tensor<256xf32, #b>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @join_layout(%x: tensor<256xf32, #b>) {
  // expected-error @+1 {{'tile.join' op operands must have the pair tensor's layout without the pair (the op moves no data)}}
  %j = tile.join %x, %x : tensor<256xf32, #b> -> tensor<256x2xf32, #a>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_order(%x: tensor<16x32xf32, #a>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of 0..1}}
  %t = tile.trans %x {order = array<i32: 1, 1>} : tensor<16x32xf32, #a> -> tensor<32x16xf32, #a>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_order_size(%x: tensor<16x32xf32, #a>) {
  // expected-error @+1 {{'tile.trans' op order has 3 entries for a rank-2 tensor}}
  %t = tile.trans %x {order = array<i32: 1, 0, 2>} : tensor<16x32xf32, #a> -> tensor<32x16xf32, #a>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_rank(%x: tensor<16x32xf32, #a>) {
  // expected-error @+1 {{'tile.trans' op result must have rank 2}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #a> -> tensor<512xf32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_shape(%x: tensor<16x32xf32, #a>) {
  // expected-error @+1 {{'tile.trans' op result dimension 0 must be source dimension 1 (32), got 16}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #a> -> tensor<16x32xf32, #a>
  return
}

// -----

// The same blocked layout transposed is the source's bases permuted only
// when its parameters are permuted too.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_layout(%x: tensor<16x32xf32, #a>) {
  // expected-error @+1 {{'tile.trans' op the result layout must be the source layout with its dimensions permuted by the order (the op moves no data); use tile.convert_layout for another layout}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #a> -> tensor<32x16xf32, #a>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @reshape_count(%x: tensor<16x16xf32, #l2>) {
  // expected-error-re @+1 {{'tile.reshape' op reshape must keep the element count: 'tensor<16x16xf32, {{.*}}>' has 256, 'tensor<512xf32, {{.*}}>' has 512}}
  %r = tile.reshape %x : tensor<16x16xf32, #l2> -> tensor<512xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_layout_shape(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same shape for all operands and results}}
  %r = tile.convert_layout %x : tensor<128xf32, #l> -> tensor<256xf32, #m>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_layout_element_type(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same element type for all operands and results}}
  %r = tile.convert_layout %x : tensor<128xf32, #l> -> tensor<128xf16, #m>
  return
}

//===----------------------------------------------------------------------===//
// tile.addptr / tile.load / tile.store
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @ptr_cast_shape(%p: tensor<128x!tile.ptr<f32>, #l>) {
  // expected-error @+1 {{'tile.ptr_cast' op result '!tile.ptr<i32>' must have the shape and layout of 'tensor<128x!tile.ptr<f32>}}
  %q = tile.ptr_cast %p : tensor<128x!tile.ptr<f32>, #l> -> !tile.ptr<i32>
  return
}

// -----

func.func @ptr_cast_space(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_cast' op cannot move pointers between address spaces (1 to 3)}}
  %q = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<i32, 3>
  return
}

// -----

func.func @ptr_cast_pointee(%p: !tile.ptr<!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_cast' op pointee types must be numbers, got '!tile.ptr<f32>' and 'f16'}}
  %q = tile.ptr_cast %p : !tile.ptr<!tile.ptr<f32>> -> !tile.ptr<f16>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_scalar_tensor(%p: !tile.ptr<f32>, %o: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.addptr' op pointer and offset must both be scalars or both tensors, got '!tile.ptr<f32>' and 'tensor<128xi32}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_shape(%p: tensor<128x!tile.ptr<f32>, #l>, %o: tensor<256xi32, #l>) {
  // expected-error-re @+1 {{'tile.addptr' op offset 'tensor<256xi32, {{.*}}>' must have the shape and layout of 'tensor<128x!tile.ptr<f32>, {{.*}}>'}}
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_layout(%p: tensor<128x!tile.ptr<f32>, #l>, %o: tensor<128xi32, #m>) {
  // expected-error @+1 {{'tile.addptr' op offset 'tensor<128xi32, #tile.blocked<{sizePerThread = [1],}}
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #m>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_float_offset(%p: tensor<128x!tile.ptr<f32>, #l>, %o: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be signless integer or ranked tensor of signless integer values}}
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>, #l>, tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_result_type(%p: tensor<128x!tile.ptr<f32>, #l>) {
  // expected-error-re @+1 {{'tile.load' op result type 'tensor<128xf16, {{.*}}>' does not match the pointee type 'tensor<128xf32, {{.*}}>' of 'tensor<128x!tile.ptr<f32>, {{.*}}>'}}
  %v = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32>, #l>) -> tensor<128xf16, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_mask_layout(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi1, #m>) {
  // expected-error @+1 {{'tile.load' op mask type 'tensor<128xi1, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' must be 'tensor<128xi1, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'}}
  %v = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xi1, #m>) -> tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_mask_i8(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi8, #l>) {
  // expected-error @+1 {{'tile.load' op operand #1 must be ranked tensor of 1-bit signless integer values}}
  %v = "tile.load"(%p, %m) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xi8, #l>) -> tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_other_without_mask(%p: tensor<128x!tile.ptr<f32>, #l>, %o: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.load' op 'other' needs a mask}}
  %v = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xf32, #l>) -> tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_other_type(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi1, #l>, %o: tensor<128xf16, #l>) {
  // expected-error-re @+1 {{'tile.load' op 'other' type 'tensor<128xf16, {{.*}}>' must match the result type 'tensor<128xf32, {{.*}}>'}}
  %v = "tile.load"(%p, %m, %o) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xi1, #l>, tensor<128xf16, #l>) -> tensor<128xf32, #l>
  return
}

// -----

func.func @load_scalar_pointer(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{custom op 'tile.load' invalid kind of type specified: expected builtin.tensor, but found '!tile.ptr<f32>'}}
  %v = tile.load %p : !tile.ptr<f32>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_no_operands(%p: tensor<128x!tile.ptr<f32>, #l>) {
  // expected-error @+1 {{expected SSA operand}}
  %v = tile.load : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_four_operands(%p: tensor<128x!tile.ptr<f32>, #l>) {
  // expected-error @+1 {{expected ':'}}
  %v = tile.load %p, %p, %p, %p : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_not_pointers(%p: tensor<128xf32, #l>) {
  // expected-error @+1 {{custom op 'tile.load' 'ptr' must be tensor of tile pointers, but got 'tensor<128xf32}}
  %v = tile.load %p : tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-note @+1 {{prior use here}}
func.func @load_mask_parse_type(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi32, #l>) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<128xi1,}}
  %v = tile.load %p, %m : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_value_type(%p: tensor<128x!tile.ptr<f32>, #l>, %v: tensor<128xf16, #l>) {
  // expected-error-re @+1 {{'tile.store' op value type 'tensor<128xf16, {{.*}}>' does not match the pointee type 'tensor<128xf32, {{.*}}>'}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xf16, #l>) -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_mask_shape(%p: tensor<128x!tile.ptr<f32>, #l>, %v: tensor<128xf32, #l>, %m: tensor<64xi1, #l>) {
  // expected-error-re @+1 {{'tile.store' op mask type 'tensor<64xi1, {{.*}}>' must be 'tensor<128xi1, {{.*}}>'}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>, #l>, tensor<128xf32, #l>, tensor<64xi1, #l>) -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_one_operand(%p: tensor<128x!tile.ptr<f32>, #l>) {
  // expected-error @+1 {{expected ','}}
  tile.store %p : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_four_operands(%p: tensor<128x!tile.ptr<f32>, #l>, %v: tensor<128xf32, #l>, %m: tensor<128xi1, #l>) {
  // expected-error @+1 {{expected ':'}}
  tile.store %p, %v, %m, %m : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_not_pointers(%p: tensor<128xi32, #l>, %v: tensor<128xf32, #l>) {
  // expected-error @+1 {{custom op 'tile.store' 'ptr' must be tensor of tile pointers, but got 'tensor<128xi32}}
  tile.store %p, %v : tensor<128xi32, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.reduce / tile.reduce_return
//===----------------------------------------------------------------------===//

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @reduce_axis(%x: tensor<16x32xf32, #l2>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 out of range for rank 2}}
  %s = tile.reduce %x {axis = 2 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #row> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_1d_result(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op reducing a 1-D tensor gives a scalar of type 'f32', got 'f16'}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f16 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

// -----

// The result of reducing axis 1 must be sliced along dim 1, not 0.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
func.func @reduce_result_layout(%x: tensor<16x32xf32, #l2>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<16xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>', got 'tensor<16xf32, #tile.slice<{dim = 0,}}
  %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #col> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @reduce_result_shape(%x: tensor<16x32xf32, #l2>) {
  // expected-error @+1 {{'tile.reduce' op result type must be 'tensor<16xf32}}
  %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #l2> -> tensor<32xf32, #row> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_one_argument(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op combine region must take two 'f32' arguments}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  ^bb0(%a: f32):
    tile.reduce_return %a : f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_argument_type(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op combine region must take two 'f32' arguments}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  ^bb0(%a: f32, %b: f16):
    tile.reduce_return %a : f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_return_type(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op combine region must return 'f32', got 'f16'}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.truncf %a : f32 to f16
    tile.reduce_return %c : f16
  }
  return
}

// -----

func.func @reduce_nothing() {
  // expected-error @+1 {{'tile.reduce' op needs at least one tensor}}
  "tile.reduce"() ({
  ^bb0:
    "tile.reduce_return"() : () -> ()
  }) {axis = 0 : i32} : () -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_tuple_layouts(%x: tensor<128xf32, #l>, %i: tensor<128xi32, #m>) {
  // expected-error @+1 {{'tile.reduce' op tensors must have one shape and layout, got 'tensor<128xf32}}
  %v, %k = tile.reduce %x, %i {axis = 0 : i32} : tensor<128xf32, #l>, tensor<128xi32, #m> -> f32, i32 {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    tile.reduce_return %a, %ai : f32, i32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_tuple_result_count(%x: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.reduce' op has 2 tensor(s) and 1 result(s)}}
  %v = tile.reduce %x, %i {axis = 0 : i32} : tensor<128xf32, #l>, tensor<128xi32, #l> -> f32 {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    tile.reduce_return %a, %ai : f32, i32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_tuple_arguments(%x: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.reduce' op combine region must take two (f32, i32) tuples (a0, .., b0, ..)}}
  %v, %k = tile.reduce %x, %i {axis = 0 : i32} : tensor<128xf32, #l>, tensor<128xi32, #l> -> f32, i32 {
  ^bb0(%a: f32, %b: f32, %ai: i32, %bi: i32):
    tile.reduce_return %a, %ai : f32, i32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @scan_tuple_return(%x: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.scan' op combine region must return (f32, i32), got (f32, f32)}}
  %v, %k = tile.scan %x, %i {axis = 0 : i32, reverse = false} : tensor<128xf32, #l>, tensor<128xi32, #l> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    tile.scan_return %a, %b : f32, f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_wrong_terminator(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op combine region must end with tile.reduce_return}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  ^bb0(%a: f32, %b: f32):
    "test.yield"(%a) : (f32) -> ()
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_no_terminator(%x: tensor<128xf32, #l>) {
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{block with no terminator}}
    %c = arith.addf %a, %b : f32
  }
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_empty_region(%x: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.reduce' op expects a non-empty block}}
  %s = tile.reduce %x {axis = 0 : i32} : tensor<128xf32, #l> -> f32 {
  }
  return
}

// -----

func.func @reduce_return_outside(%a: f32) {
  // expected-error @+1 {{'tile.reduce_return' op expects parent op 'tile.reduce'}}
  tile.reduce_return %a : f32
}

//===----------------------------------------------------------------------===//
// Negative axes are reported as written
//===----------------------------------------------------------------------===//

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @expand_dims_negative_axis(%x: tensor<16xi32, #row>) {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 out of range for rank 1}}
  %e = tile.expand_dims %x {axis = -1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
func.func @reduce_negative_axis(%x: tensor<16x32xf32, #l2>) {
  // expected-error @+1 {{'tile.reduce' op axis -1 out of range for rank 2}}
  %s = tile.reduce %x {axis = -1 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #row> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

//===----------------------------------------------------------------------===//
// Argument attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.divisibility' of argument 0 must be a positive power of two}}
func.func @divisibility_zero(%p: !tile.ptr<f32> {tile.divisibility = 0 : i32}) { return }

// -----

// expected-error @+1 {{'tile.divisibility' of argument 1 must be a positive power of two}}
func.func @divisibility_not_pow2(%a: i32, %p: !tile.ptr<f32> {tile.divisibility = 12 : i32}) { return }

// -----

// expected-error @+1 {{unknown tile argument attribute 'tile.bogus'}}
func.func @unknown_arg_attr(%p: !tile.ptr<f32> {tile.bogus}) { return }

// -----

// expected-error @+1 {{'tile.pointer_range' is 32 (offsets within 2^31 - 2 bytes) on pointer arguments}}
func.func @pointer_range_not_32(%p: !tile.ptr<f32> {tile.pointer_range = 64 : i32}) { return }

// -----

// expected-error @+1 {{'tile.pointer_range' is 32 (offsets within 2^31 - 2 bytes) on pointer arguments}}
func.func @pointer_range_on_integer(%n: i32 {tile.pointer_range = 32 : i32}) { return }

//===----------------------------------------------------------------------===//
// threads_per_warp is checked on its own
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.threads_per_warp' must be 32 or 64}}
module attributes {tile.threads_per_warp = 16 : i32} {}

// -----

module {
  // expected-error @+1 {{'tile.threads_per_warp' belongs on a module}}
  func.func @f() attributes {tile.threads_per_warp = 32 : i32} { return }
}

// -----
// Shared layouts and memory descriptors

// expected-error @+1 {{swizzled_shared: vec must be a power of two, got 3}}
func.func @swizzle_vec(%a: !tile.memdesc<8x8xf16, #tile.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 1, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{swizzled_shared: order must be a permutation of [0, 2)}}
func.func @swizzle_order(%a: !tile.memdesc<8x8xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{memdesc needs a shared layout (e.g. #tile.swizzled_shared), got #tile.blocked}}
func.func @memdesc_distributed(%a: !tile.memdesc<128xf32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{a rank-2 shared layout cannot describe a rank-1 memdesc}}
func.func @memdesc_rank(%a: !tile.memdesc<64xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{the 2 dimensions the shared layout covers must be powers of two, got 48}}
func.func @memdesc_pow2(%a: !tile.memdesc<3x48x64xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{a view cannot be larger than its allocation}}
func.func @memdesc_view(%a: !tile.memdesc<64x64xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable, 2x32x64>) {
  return
}

// -----

// expected-error @+1 {{memdesc elements must be integers, floats or pointers, got 'complex<f32>'}}
func.func @memdesc_elem(%a: !tile.memdesc<64xcomplex<f32>, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @alloc_immutable_uninitialized() {
  // expected-error @+1 {{'tile.local_alloc' op an uninitialized buffer must be mutable}}
  %b = tile.local_alloc : () -> !tile.memdesc<64xf32, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @alloc_view() {
  // expected-error @+1 {{'tile.local_alloc' op result must be a whole allocation, not a view}}
  %b = tile.local_alloc : () -> !tile.memdesc<64xf32, #sh, mutable, 2x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @store_immutable(%t: tensor<64xf32, #l>, %b: !tile.memdesc<64xf32, #sh>) {
  // expected-error @+1 {{'tile.local_store' op stores into an immutable buffer}}
  tile.local_store %t, %b : tensor<64xf32, #l> -> !tile.memdesc<64xf32, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @load_mismatch(%b: !tile.memdesc<64xf32, #sh>) {
  // expected-error @+1 {{'tile.local_load' op tensor 'tensor<64xf16, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>' and shared buffer '!tile.memdesc<64xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>' must have the same shape and element type}}
  %t = tile.local_load %b : !tile.memdesc<64xf32, #sh> -> tensor<64xf16, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @dealloc_view(%b: !tile.memdesc<64xf32, #sh, mutable, 2x64>) {
  // expected-error @+1 {{'tile.local_dealloc' op deallocates a whole allocation, not a view}}
  tile.local_dealloc %b : !tile.memdesc<64xf32, #sh, mutable, 2x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @index_covered(%b: !tile.memdesc<64xf32, #sh, mutable>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op indexes a dimension the shared layout does not cover}}
  %s = tile.memdesc_index %b[%i] : !tile.memdesc<64xf32, #sh, mutable> -> !tile.memdesc<64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @index_result(%b: !tile.memdesc<2x64xf32, #sh, mutable>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op result must be}}
  %s = tile.memdesc_index %b[%i] : !tile.memdesc<2x64xf32, #sh, mutable> -> !tile.memdesc<64xf32, #sh, mutable>
  return
}

// -----

// expected-error @+1 {{unknown key 'swizzle'}}
func.func @swizzle_key(%a: !tile.memdesc<8xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0], swizzle = 1}>>) {
  return
}

// -----

// expected-error @+1 {{'vec' must be a non-negative integer}}
func.func @swizzle_vec_type(%a: !tile.memdesc<8xf16, #tile.swizzled_shared<{vec = "one", perPhase = 1, maxPhase = 1, order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{swizzled_shared: order must not be empty}}
func.func @swizzle_no_order(%a: !tile.memdesc<8xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = []}>>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{memdesc needs rank >= 1}}
func.func @memdesc_scalar(%a: !tile.memdesc<f32, #sh>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{memdesc dimensions must be in [1, 2^24], got 33554432}}
func.func @memdesc_huge_dim(%a: !tile.memdesc<33554432xf32, #sh>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{memdesc holds more than 2^24 elements}}
func.func @memdesc_huge(%a: !tile.memdesc<4096x8192xf32, #sh>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{the allocation shape must have at least the view's rank}}
func.func @memdesc_alloc_rank(%a: !tile.memdesc<2x64xf32, #sh, mutable, 64>) {
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @load_no_layout(%b: !tile.memdesc<64xf32, #sh>) {
  // expected-error @+1 {{needs a layout encoding}}
  %t = tile.local_load %b : !tile.memdesc<64xf32, #sh> -> tensor<64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Async copies: every rule of checkAsyncCopy (AsyncCopy.h)
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_element_type(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf16, #sh, mutable>) {
  // expected-error @+1 {{'tile.async_copy_global_to_local' op async copy rule 'element type': the buffer holds 'f16' but the pointers point to 'f32'}}
  %t = tile.async_copy_global_to_local %p, %b : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf16, #sh, mutable>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_shape(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<256xf32, #sh, mutable>) {
  // expected-error @+1 {{async copy rule 'shape': the buffer '!tile.memdesc<256xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>' and the pointer tensor}}
  %t = tile.async_copy_global_to_local %p, %b : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_immutable(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh>) {
  // expected-error @+1 {{async copy rule 'mutable'}}
  %t = tile.async_copy_global_to_local %p, %b : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_cache(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh, mutable>) {
  // expected-error @+1 {{cache_modifier must be "", ".ca", ".cg" or ".cv", got ".cs"}}
  %t = tile.async_copy_global_to_local %p, %b {cache_modifier = ".cs"} : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_mask(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh, mutable>, %m: tensor<128xi1, #m>) {
  // expected-error @+1 {{mask must be 'tensor<128xi1, #tile.blocked<{sizePerThread = [4]}}
  %t = "tile.async_copy_global_to_local"(%p, %b, %m) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<128x!tile.ptr<f32>, #l>, !tile.memdesc<128xf32, #sh, mutable>, tensor<128xi1, #m>) -> !tile.async_token
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_other_no_mask(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh, mutable>, %o: tensor<128xf32, #l>) {
  // expected-error @+1 {{'other' needs a mask}}
  %t = "tile.async_copy_global_to_local"(%p, %b, %o) {operandSegmentSizes = array<i32: 1, 1, 0, 1>} : (tensor<128x!tile.ptr<f32>, #l>, !tile.memdesc<128xf32, #sh, mutable>, tensor<128xf32, #l>) -> !tile.async_token
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_other_type(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh, mutable>, %m: tensor<128xi1, #l>, %o: tensor<128xi32, #l>) {
  // expected-error @+1 {{'other' must be 'tensor<128xf32, #tile.blocked<{sizePerThread = [4]}}
  %t = "tile.async_copy_global_to_local"(%p, %b, %m, %o) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<128x!tile.ptr<f32>, #l>, !tile.memdesc<128xf32, #sh, mutable>, tensor<128xi1, #l>, tensor<128xi32, #l>) -> !tile.async_token
  return
}

// -----

// The width rule, from the layouts alone: one i8 per thread is 1 byte.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_90a"} {
  func.func @copy_width(%p: tensor<128x!tile.ptr<i8>, #l>, %b: !tile.memdesc<128xi8, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'width': cp.async on cuda:sm_90a moves 4, 8, 16 bytes per thread, but this copy can move only 1 bytes (1 x 'i8') at once: the register layout and the shared layout}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<128x!tile.ptr<i8>, #l> -> !tile.memdesc<128xi8, #sh, mutable>
    return
  }
}

// -----

// AMD's direct-to-LDS loads write lane i at one base + i x width: four
// consecutive floats per lane copied 4 bytes at a time (gfx942's only width)
// leave gaps between the lanes' slots, which the width rule names first.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @copy_lanes_width(%p: tensor<256x!tile.ptr<f32>, #l>, %b: !tile.memdesc<256xf32, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'width': direct-to-LDS load on hip:gfx942 moves 4 bytes per lane, but each thread of the layout of 'tensor<256x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>>' holds 16 consecutive bytes (4 x 'f32'), so its lanes cannot write consecutive 4-byte slots: give each thread 4 bytes along the contiguous dimension (size_per_thread 1)}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// One float per lane, but lane 32 holds element 64 and register 1 element
// 32: a copy's lanes do not fill one window of 64 slots (lanes in another
// order inside one window are lowered: test/Conversion/async-copy.mlir).
#l = #tile.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16], [64]], warp = []}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @copy_lanes(%p: tensor<128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<128xf32, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'lanes': a direct-to-LDS load on hip:gfx942 writes lane i of a warp at one base + i x 4 bytes, but the layout of 'tensor<128x!tile.ptr<f32>, #tile.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16], [64]], warp = []}>>' does not put a warp's elements of one copy in 64 consecutive 4-byte slots of}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    return
  }
}

// -----

// gfx942 copies 4 bytes per lane: a 2-byte element alone is too narrow.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942"} {
  func.func @copy_width_gfx942(%p: tensor<64x!tile.ptr<f16>, #l>, %b: !tile.memdesc<64xf16, #sh, mutable>) {
    // expected-error @+1 {{async copy rule 'width': direct-to-LDS load on hip:gfx942 moves 4 bytes per thread, but this copy can move only 2 bytes (1 x 'f16')}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<64x!tile.ptr<f16>, #l> -> !tile.memdesc<64xf16, #sh, mutable>
    return
  }
}

// -----

// The layout must cover the buffer (not a whole ring at once).
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @copy_address(%p: tensor<2x128x!tile.ptr<f32>, #l>, %b: !tile.memdesc<2x128xf32, #sh, mutable>) {
  // expected-error @+1 {{cannot address}}
  %t = tile.async_copy_global_to_local %p, %b : tensor<2x128x!tile.ptr<f32>, #l> -> !tile.memdesc<2x128xf32, #sh, mutable>
  return
}

// -----

func.func @wait_negative() {
  // expected-error @+1 {{'tile.async_wait' op attribute 'num' failed to satisfy constraint}}
  %w = tile.async_wait {num = -1 : i32}
  return
}

//===----------------------------------------------------------------------===//
// Shared-memory views
//===----------------------------------------------------------------------===//

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @subslice_type(%b: !tile.memdesc<64x64xf32, #sh, mutable>) {
  // expected-error @+1 {{'tile.memdesc_subslice' op result must keep the source's element type, mutability and layout}}
  %s = tile.memdesc_subslice %b[0, 0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<32x64xf16, #sh, mutable, 64x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @subslice_rank(%b: !tile.memdesc<64x64xf32, #sh, mutable>) {
  // expected-error @+1 {{needs one offset per dimension and a result of the source's rank (2)}}
  %s = tile.memdesc_subslice %b[0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable, 64x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @subslice_alloc(%b: !tile.memdesc<64x64xf32, #sh, mutable>) {
  // expected-error @+1 {{result must keep the allocation shape of}}
  %s = tile.memdesc_subslice %b[0, 0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @subslice_outside(%b: !tile.memdesc<64x64xf32, #sh, mutable>) {
  // expected-error @+1 {{slice [64, 96) of dimension 0 is outside [0, 64)}}
  %s = tile.memdesc_subslice %b[64, 0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable, 64x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @subslice_multiple(%b: !tile.memdesc<64x64xf32, #sh, mutable>) {
  // expected-error @+1 {{offset 16 of dimension 0 must be a multiple of the slice's size there (32)}}
  %s = tile.memdesc_subslice %b[16, 0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable, 64x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @permute_order(%b: !tile.memdesc<64x32xf32, #sh, mutable>) {
  // expected-error @+1 {{'tile.memdesc_permute' op order must be a permutation of [0, 2)}}
  %s = tile.memdesc_permute %b {order = array<i32: 1, 1>} : !tile.memdesc<64x32xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @permute_leading(%b: !tile.memdesc<2x64x32xf32, #sh, mutable>) {
  // expected-error @+1 {{cannot move leading dimension 0 (ring slots, not covered by the layout)}}
  %s = tile.memdesc_permute %b {order = array<i32: 1, 0, 2>} : !tile.memdesc<2x64x32xf32, #sh, mutable> -> !tile.memdesc<64x2x32xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @permute_result(%b: !tile.memdesc<64x32xf32, #sh, mutable>) {
  // expected-error @+1 {{result must be the source with dimensions permuted}}
  %s = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !tile.memdesc<64x32xf32, #sh, mutable> -> !tile.memdesc<32x64xf32, #sh, mutable>
  return
}

// -----

#rm = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reshape_view(%b: !tile.memdesc<4x64xf32, #rm, mutable, 8x64>) {
  // expected-error @+1 {{'tile.memdesc_reshape' op reshapes whole allocations only, not a view}}
  %s = tile.memdesc_reshape %b : !tile.memdesc<4x64xf32, #rm, mutable, 8x64> -> !tile.memdesc<256xf32, #rm1, mutable>
  return
}

// -----

#rm = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reshape_result_view(%b: !tile.memdesc<4x64xf32, #rm, mutable>) {
  // expected-error @+1 {{result must be a whole buffer (no allocation shape of its own)}}
  %s = tile.memdesc_reshape %b : !tile.memdesc<4x64xf32, #rm, mutable> -> !tile.memdesc<256xf32, #rm1, mutable, 512>
  return
}

// -----

#rm = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reshape_count(%b: !tile.memdesc<4x64xf32, #rm, mutable>) {
  // expected-error @+1 {{changes the number of elements (256 -> 128)}}
  %s = tile.memdesc_reshape %b : !tile.memdesc<4x64xf32, #rm, mutable> -> !tile.memdesc<128xf32, #rm1, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reshape_swizzled(%b: !tile.memdesc<4x64xf32, #sh, mutable>) {
  // expected-error @+1 {{cannot be seen under another shape (only an unswizzled row-major buffer can)}}
  %s = tile.memdesc_reshape %b : !tile.memdesc<4x64xf32, #sh, mutable> -> !tile.memdesc<256xf32, #rm1, mutable>
  return
}

// -----

#rm = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rm1 = #tile.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reshape_layout(%b: !tile.memdesc<4x64xf32, #rm, mutable>) {
  // expected-error @+1 {{result layout must be #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>}}
  %s = tile.memdesc_reshape %b : !tile.memdesc<4x64xf32, #rm, mutable> -> !tile.memdesc<256xf32, #rm1, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{the 1 allocation dimensions the shared layout covers must be powers of two, got 96}}
func.func @alloc_not_pow2(%b: !tile.memdesc<32xf32, #sh, mutable, 96>) {
  return
}

//===----------------------------------------------------------------------===//
// #tile.padded_shared
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{padded_shared: needs as many paddings as intervals (at least one)}}
func.func @pad_pairs(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4], paddings = [], offset = [[0, 1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: intervals and paddings must be powers of two, got 4:3}}
func.func @pad_pow2(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4], paddings = [3], offset = [[0, 1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: interval 4 appears twice}}
func.func @pad_twice(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4, 4], paddings = [1, 2], offset = [[0, 1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: the offset bases must reach every element of the shape exactly once (3 bases for 8 elements)}}
func.func @pad_bijection(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[0, 1], [0, 1], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: each offset basis must be an array of 2 integers (the shape's rank)}}
func.func @pad_basis_rank(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: basis entries must be integers in [0, 2^24)}}
func.func @pad_basis_entry(%b: !tile.memdesc<2x4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[0, -1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: shape entries must be powers of two up to 2^24}}
func.func @pad_shape(%b: !tile.memdesc<3x4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[0, 1], [0, 2], [1, 0]], shape = [3, 4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: 'shape' must have 1 to 8 dimensions}}
func.func @pad_no_shape(%b: !tile.memdesc<4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [], shape = []}>>) {
  return
}

// -----

// expected-error @+1 {{'offset' must be an array of bases}}
func.func @pad_offset(%b: !tile.memdesc<4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = 3, shape = [4]}>>) {
  return
}

// -----

// expected-error @+1 {{padded_shared: at most 24 offset bases}}
func.func @pad_many(%b: !tile.memdesc<4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1]], shape = [4]}>>) {
  return
}

// -----

// expected-error @+1 {{the padded_shared layout is for a buffer of shape [2, 4], but the allocation's last 2 dimensions differ}}
func.func @pad_buffer_shape(%b: !tile.memdesc<4x4xf32, #tile.padded_shared<{intervals = [4], paddings = [1], offset = [[0, 1], [0, 2], [1, 0]], shape = [2, 4]}>>) {
  return
}

// -----

func.func @synced_not_a_load() {
  // expected-error @+1 {{'tile.synced_via_wait' is a unit attribute of tile.local_load}}
  %g = tile.async_commit_group {tile.synced_via_wait}
  return
}

// -----

// expected-error @+1 {{'tile.llvm_fn_attrs' is a module attribute: a list of ["name", "value"] string pairs (LLVM function attributes)}}
module attributes {tile.llvm_fn_attrs = [["amdgpu-agpr-alloc"]]} {
}

// -----

// expected-error @+1 {{'tile.llvm_fn_attrs' is a module attribute: a list of ["name", "value"] string pairs (LLVM function attributes)}}
module attributes {tile.llvm_fn_attrs = [["", "1"]]} {
}

// -----

func.func @relaxed_checked_not_a_load() {
  // expected-error @+1 {{'tile.relaxed_load_checked' is a unit attribute of tile.local_load}}
  %g = tile.async_commit_group {tile.relaxed_load_checked}
  return
}

// -----

// expected-error @+1 {{tensordesc needs a block with a shared layout (the layout the block has in shared memory), got 'tensor<64x64xf16>'}}
func.func @desc_no_layout(%d: !tile.tensordesc<tensor<64x64xf16>>) {
  return
}

// -----

#s6 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [5, 4, 3, 2, 1, 0]}>
// expected-error @+1 {{tensordesc blocks have rank 1 to 5, got 6}}
func.func @desc_rank(%d: !tile.tensordesc<tensor<2x2x2x2x2x2xf16, #s6>>) {
  return
}

// -----

#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{tensordesc: the block's shared layout has rank 1, the block 2}}
func.func @desc_layout_rank(%d: !tile.tensordesc<tensor<64x64xf16, #s1>>) {
  return
}

// -----

#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{tensordesc elements must be integers or floats}}
func.func @desc_elements(%d: !tile.tensordesc<tensor<64xindex, #s1>>) {
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{tensordesc block dimension 1 must be a power of two in [1, 256], got 512}}
func.func @desc_box(%d: !tile.tensordesc<tensor<8x512xf16, #s2>>) {
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{tensordesc block dimension 0 must be a power of two in [1, 4096], got 8192}}
func.func @desc_rows(%d: !tile.tensordesc<tensor<8192x8xf16, #s2>>) {
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{tensordesc: im2col tensors have rank 3 to 5, got 2}}
func.func @desc_im2col_rank(%d: !tile.tensordesc<tensor<64x64xf16, #s2>, im2col = 2>) {
  return
}

// -----

#s3 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
// expected-error @+1 {{tensordesc: an im2col block is pixels x channels (rank 2), got rank 3}}
func.func @desc_im2col_block_rank(%d: !tile.tensordesc<tensor<4x64x64xf16, #s3>, im2col = 4>) {
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{tensordesc: im2col pixels per column must be a power of two in [1, 1024], got 2048}}
func.func @desc_im2col_pixels(%d: !tile.tensordesc<tensor<2048x8xf16, #s2>, im2col = 4>) {
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{tensordesc: im2col channels per pixel must be a power of two in [1, 256], got 512}}
func.func @desc_im2col_channels(%d: !tile.tensordesc<tensor<8x512xf16, #s2>, im2col = 3>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.warp_specialize
//===----------------------------------------------------------------------===//

func.func @ws_count_mismatch() {
  // expected-error @+1 {{has 1 worker partitions but 2 entries in partition_num_warps}}
  tile.warp_specialize partition_num_warps = [1, 1] {
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_no_workers() {
  // expected-error @+1 {{needs at least one worker partition}}
  "tile.warp_specialize"() ({
    "tile.warp_yield"() : () -> ()
  }) {partitionNumWarps = array<i32>} : () -> ()
  return
}

// -----

func.func @ws_three_warps() {
  // expected-error @+1 {{worker partition 0 has 3 warps; each must be a power of two between 1 and 32}}
  tile.warp_specialize partition_num_warps = [3] {
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_regs_count() {
  // expected-error @+1 {{partition_num_regs has 2 entries for 1 worker partitions}}
  tile.warp_specialize partition_num_warps = [1] partition_num_regs = [24, 24] {
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_regs_value() {
  // expected-error @+1 {{worker partition 0 asks for 20 registers; each count must be a multiple of 8 between 24 and 256}}
  tile.warp_specialize partition_num_warps = [1] partition_num_regs = [20] {
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_worker_yields_values(%x: i32) {
  tile.warp_specialize partition_num_warps = [1] {
    tile.warp_yield
  } partitions {
    // expected-error @+1 {{in worker partition 0 yields values; only the default partition returns values}}
    tile.warp_yield %x : i32
  }
  return
}

// -----

func.func @ws_result_types(%x: i32) {
  %r = tile.warp_specialize partition_num_warps = [1] -> (f32) {
    // expected-error @+1 {{yields 1 value(s) of types ('i32') where the warp_specialize has result types ('f32')}}
    tile.warp_yield %x : i32
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_block_arguments() {
  // expected-error @+1 {{region 1 takes arguments; partitions take none}}
  tile.warp_specialize partition_num_warps = [1] {
    tile.warp_yield
  } partitions {
  ^bb0(%x: i32):
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_nested() {
  tile.warp_specialize partition_num_warps = [1] {
    tile.warp_yield
  } partitions {
    // expected-error @+1 {{cannot be inside another tile.warp_specialize}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    tile.warp_yield
  }
  return
}

// -----

func.func @ws_yield_outside() {
  // expected-error @+1 {{expects parent op 'tile.warp_specialize'}}
  tile.warp_yield
}

// -----

func.func @ws_empty_region() {
  // expected-error @+1 {{region 1 is empty}}
  "tile.warp_specialize"() ({
    "tile.warp_yield"() : () -> ()
  }, {
  }) {partitionNumWarps = array<i32: 1>} : () -> ()
  return
}

// -----

// expected-error @+1 {{'tile.total_num_warps' is a module attribute between 1 and 32}}
module attributes {tile.total_num_warps = 33 : i32} {
}

// -----

// The markers of warp specialization's passes belong on tile.warp_specialize.
func.func @prepared_marker_elsewhere() {
  // expected-error @+1 {{'func.return' op 'tile.partitions_prepared' is a unit attribute of tile.warp_specialize}}
  func.return {tile.partitions_prepared}
}

// -----

func.func @converted_marker_value() {
  // expected-error @+1 {{'tile.warp_specialize' op 'tile.regions_converted' is a unit attribute of tile.warp_specialize}}
  tile.warp_specialize partition_num_warps = [1] attributes {tile.regions_converted = 1 : i32} {
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module {
  // expected-error @+1 {{'tile.local_alloc' op must be inside a function: ops of the tile dialects are a kernel's code, and nothing lowers them at module scope}}
  %b = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @ring_slot_out_of_range() {
  %c2 = arith.constant 2 : i32
  %r = tile.local_alloc : () -> !tile.memdesc<2x64xf32, #sh, mutable>
  // expected-error @+1 {{'tile.memdesc_index' op slot 2 is out of range for a ring of 2 slots (valid: 0 to 1)}}
  %s = tile.memdesc_index %r[%c2] : !tile.memdesc<2x64xf32, #sh, mutable> -> !tile.memdesc<64xf32, #sh, mutable, 2x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @ring_slot_negative() {
  %m1 = arith.constant -1 : i32
  %r = tile.local_alloc : () -> !tile.memdesc<2x64xf32, #sh, mutable>
  // expected-error @+1 {{'tile.memdesc_index' op slot -1 is out of range for a ring of 2 slots (valid: 0 to 1)}}
  %s = tile.memdesc_index %r[%m1] : !tile.memdesc<2x64xf32, #sh, mutable> -> !tile.memdesc<64xf32, #sh, mutable, 2x64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #tile.cga (a layout split among the CTAs of a cluster)
//===----------------------------------------------------------------------===//

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{cga: each basis needs 2 integers (the layout's rank), got [1]}}
func.func @cga_basis_rank(%t: tensor<64x64xf32, #tile.cga<{bases = [[1]], layout = #b}>>) { return }

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{cga: a basis moves along one dimension, got [1, 1]}}
func.func @cga_diagonal(%t: tensor<64x64xf32, #tile.cga<{bases = [[1, 1]], layout = #b}>>) { return }

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{cga: two bases move the same way ([1, 0])}}
func.func @cga_twice(%t: tensor<64x64xf32, #tile.cga<{bases = [[1, 0], [1, 0]], layout = #b}>>) { return }

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{cga: basis entries are powers of two or 0, got [3, 0]}}
func.func @cga_not_pow2(%t: tensor<64x64xf32, #tile.cga<{bases = [[3, 0]], layout = #b}>>) { return }

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{cga: a cluster has at most 16 CTAs (4 bases), got 5 bases}}
func.func @cga_too_many(%t: tensor<64x64xf32, #tile.cga<{bases = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], layout = #b}>>) { return }

// -----

// expected-error @+1 {{cga: 'layout' must be a distributed layout of one CTA, got #tile.auto}}
func.func @cga_of_auto(%t: tensor<64x64xf32, #tile.cga<{bases = [[1, 0]], layout = #tile.auto}>>) { return }

// -----

//===----------------------------------------------------------------------===//
// #tile.shared_linear
//===----------------------------------------------------------------------===//

// expected-error @+1 {{shared_linear: alignment must be a power of two of at least 16 bytes, got 8}}
func.func @shared_linear_alignment(%b: !tile.memdesc<2x2xf32, #tile.shared_linear<{offset = [[0, 1], [1, 0]], shape = [2, 2], alignment = 8}>, mutable>) { return }

// -----

// expected-error @+1 {{shared_linear: the offset bases must reach every element of the shape exactly once (2 bases for 4 elements)}}
func.func @shared_linear_repeats(%b: !tile.memdesc<2x2xf32, #tile.shared_linear<{offset = [[0, 1], [0, 1]], shape = [2, 2], alignment = 16}>, mutable>) { return }

// -----

// expected-error @+1 {{the shared_linear layout is for a buffer of shape [2, 2], but the allocation's last 2 dimensions differ}}
func.func @shared_linear_shape(%b: !tile.memdesc<4x2xf32, #tile.shared_linear<{offset = [[0, 1], [1, 0]], shape = [2, 2], alignment = 16}>, mutable>) { return }

// -----

// expected-error @+1 {{cga: needs 'bases' (an array of integer arrays) and 'layout'}}
func.func @cga_missing_layout(%t: tensor<64xf32, #tile.cga<{bases = [[1]]}>>) { return }

// -----

// expected-error @+1 {{shared_linear: 'alignment' must be a positive integer up to 2^20}}
func.func @shared_linear_alignment_zero(%b: !tile.memdesc<2x2xf32, #tile.shared_linear<{offset = [[0, 1], [1, 0]], shape = [2, 2], alignment = 0}>, mutable>) { return }

//===----------------------------------------------------------------------===//
// #tile.dot_operand and tile.dot_fma
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{a #tile.dot_operand parent must be a #tile.blocked layout (tile.dot_fma's accumulator), got #tile.linear}}
#x = #tile.dot_operand<{opIdx = 0, parent = #tile.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = []}>}>
func.func @f(%a: tensor<32xf32, #x>) { return }

// -----

// expected-error @+1 {{'opIdx' must be 0 (A) or 1 (B)}}
#x = #tile.dot_operand<{opIdx = 2, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>}>

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
#b = #tile.dot_operand<{opIdx = 1, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_shapes(%a: tensor<8x4xf32, #a>, %b: tensor<8x16xf32, #b>, %c: tensor<8x16xf32, #p>) {
    // expected-error @+1 {{shapes do not form a matrix product}}
    %d = tile.dot_fma %a, %b, %c : tensor<8x4xf32, #a>, tensor<8x16xf32, #b> -> tensor<8x16xf32, #p>
    return
  }
}

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
#b = #tile.dot_operand<{opIdx = 1, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_narrowing(%a: tensor<8x4xf32, #a>, %b: tensor<4x16xf32, #b>, %c: tensor<8x16xf16, #p>) {
    // expected-error @+1 {{operands of 'f32' cannot accumulate in 'f16'}}
    %d = tile.dot_fma %a, %b, %c : tensor<8x4xf32, #a>, tensor<4x16xf32, #b> -> tensor<8x16xf16, #p>
    return
  }
}

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
#b = #tile.dot_operand<{opIdx = 1, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_mixed(%a: tensor<8x4xf16, #a>, %b: tensor<4x16xf32, #b>, %c: tensor<8x16xf32, #p>) {
    // expected-error @+1 {{a and b must share an element type, got 'f16' and 'f32'}}
    %d = tile.dot_fma %a, %b, %c : tensor<8x4xf16, #a>, tensor<4x16xf32, #b> -> tensor<8x16xf32, #p>
    return
  }
}

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#c = #tile.cga<{bases = [[1, 0]], layout = #p}>
#a = #tile.cga<{bases = [[1, 0]], layout = #tile.dot_operand<{opIdx = 0, parent = #p}>}>
#b = #tile.cga<{bases = [[1, 0]], layout = #tile.dot_operand<{opIdx = 1, parent = #p}>}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_b_split_along_k(%a: tensor<16x8xf32, #a>, %b: tensor<8x16xf32, #b>, %c: tensor<16x16xf32, #c>) {
    // expected-error @+1 {{b must be split among the cluster's CTAs as the accumulator is, except along K (which every CTA holds whole)}}
    %d = tile.dot_fma %a, %b, %c : tensor<16x8xf32, #a>, tensor<8x16xf32, #b> -> tensor<16x16xf32, #c>
    return
  }
}

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_b_layout(%a: tensor<8x4xf32, #a>, %b: tensor<4x16xf32, #p>, %c: tensor<8x16xf32, #p>) {
    // expected-error @+1 {{b needs the layout #tile.dot_operand<{opIdx = 1, parent = #tile.blocked}}
    %d = tile.dot_fma %a, %b, %c : tensor<8x4xf32, #a>, tensor<4x16xf32, #p> -> tensor<8x16xf32, #p>
    return
  }
}

// -----

#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
#b = #tile.dot_operand<{opIdx = 1, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma_rank(%a: tensor<8x4xf32, #a>, %b: tensor<4x16xf32, #b>, %c: tensor<8x16xf32, #p>) {
    // expected-error @+1 {{failed to verify that all of {c, result} have same type}}
    %d = "tile.dot_fma"(%a, %b, %c) : (tensor<8x4xf32, #a>, tensor<4x16xf32, #b>, tensor<8x16xf32, #p>) -> tensor<8x16xf16, #p>
    return
  }
}

//===----------------------------------------------------------------------===//
// tile.memdesc_reinterpret
//===----------------------------------------------------------------------===//

// -----

#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reinterpret_too_big() {
  %b = tile.local_alloc : () -> !tile.memdesc<2048xi8, #s1, mutable>
  %h = tile.memdesc_subslice %b[1024] : !tile.memdesc<2048xi8, #s1, mutable> -> !tile.memdesc<1024xi8, #s1, mutable, 2048>
  // expected-error @+1 {{the result needs 8192 bytes but the source view holds 1024}}
  %r = tile.memdesc_reinterpret %h : !tile.memdesc<1024xi8, #s1, mutable, 2048> -> !tile.memdesc<2048xi32, #s1, mutable>
  return
}

// -----

// A padded buffer reinterprets only under the same paddings (its bytes are its
// offsets placed by them).
#p1 = #tile.padded_shared<{intervals = [16], paddings = [1], offset = [[1], [2], [4], [8], [16], [32]], shape = [64]}>
#p2 = #tile.padded_shared<{intervals = [16], paddings = [2], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], shape = [4, 16]}>
func.func @reinterpret_padded_other_paddings() {
  %b = tile.local_alloc : () -> !tile.memdesc<64xf32, #p1, mutable>
  // expected-error @+1 {{reinterprets a padded buffer}}
  %r = tile.memdesc_reinterpret %b : !tile.memdesc<64xf32, #p1, mutable> -> !tile.memdesc<4x16xf32, #p2, mutable>
  return
}

// -----

#p1 = #tile.padded_shared<{intervals = [16], paddings = [1], offset = [[1], [2], [4], [8], [16], [32]], shape = [64]}>
#p3 = #tile.padded_shared<{intervals = [16], paddings = [1], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], shape = [8, 16]}>
func.func @reinterpret_padded_too_big() {
  %b = tile.local_alloc : () -> !tile.memdesc<64xf32, #p1, mutable>
  // expected-error @+1 {{the result has 128 elements but the padded source view holds 64}}
  %r = tile.memdesc_reinterpret %b : !tile.memdesc<64xf32, #p1, mutable> -> !tile.memdesc<8x16xf32, #p3, mutable>
  return
}

// -----

#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reinterpret_part_of_a_ring() {
  %b = tile.local_alloc : () -> !tile.memdesc<4x64xi8, #s1, mutable>
  %h = tile.memdesc_subslice %b[0, 0] : !tile.memdesc<4x64xi8, #s1, mutable> -> !tile.memdesc<2x64xi8, #s1, mutable, 4x64>
  // expected-error @+1 {{reinterprets one slot or a whole ring, not a part of a ring}}
  %r = tile.memdesc_reinterpret %h : !tile.memdesc<2x64xi8, #s1, mutable, 4x64> -> !tile.memdesc<32xi32, #s1, mutable>
  return
}

// -----

// A whole ring holds its slots' bytes: 2 x 64 bytes, not 256.
#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reinterpret_whole_ring_too_big() {
  %b = tile.local_alloc : () -> !tile.memdesc<2x64xi8, #s1, mutable>
  // expected-error @+1 {{the result needs 256 bytes but the source view holds 128}}
  %r = tile.memdesc_reinterpret %b : !tile.memdesc<2x64xi8, #s1, mutable> -> !tile.memdesc<64xi32, #s1, mutable>
  return
}

// -----

// Columns 0..15 of a 16 x 32 row-major buffer are not one range.
#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reinterpret_strided() {
  %b = tile.local_alloc : () -> !tile.memdesc<16x32xi8, #s2, mutable>
  %h = tile.memdesc_subslice %b[0, 0] : !tile.memdesc<16x32xi8, #s2, mutable> -> !tile.memdesc<16x16xi8, #s2, mutable, 16x32>
  // expected-error @+1 {{the source view's elements are not one contiguous range}}
  %r = tile.memdesc_reinterpret %h : !tile.memdesc<16x16xi8, #s2, mutable, 16x32> -> !tile.memdesc<64xi32, #s1, mutable>
  return
}

// -----

#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @reinterpret_whole_result() {
  %b = tile.local_alloc : () -> !tile.memdesc<64xi8, #s1, mutable>
  // expected-error @+1 {{result must be a whole buffer}}
  %r = tile.memdesc_reinterpret %b : !tile.memdesc<64xi8, #s1, mutable> -> !tile.memdesc<8xi32, #s1, mutable, 16>
  return
}

// -----

// expected-error @+1 {{'tile.maxnreg' is a module attribute between 16 and 255 (registers per thread)}}
module attributes {tile.maxnreg = 512 : i32} {}

// -----

// expected-error @+1 {{'tile.waves_per_eu' is a module attribute between 1 and 20 (waves per SIMD)}}
module attributes {tile.waves_per_eu = 0 : i32} {}

// -----

// expected-error @+1 {{'tile.fp_fusion' is a boolean module attribute}}
module attributes {tile.fp_fusion = 1 : i32} {}

// -----

func.func @hint_float(%x: f32) {
  // expected-error @+1 {{'tile.hint' op hints integers or pointers, got 'f32'}}
  %h = tile.hint %x {divisibility = array<i64: 16>} : f32
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @hint_rank(%x: tensor<16x32xi32, #l>) {
  // expected-error @+1 {{'tile.hint' op contiguity needs 2 value(s), one per dimension, got 1}}
  %h = tile.hint %x {contiguity = array<i64: 16>} : tensor<16x32xi32, #l>
  return
}

// -----

func.func @hint_pow2(%x: i32) {
  // expected-error @+1 {{'tile.hint' op constancy values must be powers of two, got 12}}
  %h = tile.hint %x {constancy = array<i64: 12>} : i32
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_sem(%p: tensor<128x!tile.ptr<i32>, #l>, %v: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.atomic_rmw' op sem must be relaxed, acquire, release or acq_rel, got 'seq_cst'}}
  %o = tile.atomic_rmw "add", %p, %v {sem = "seq_cst", scope = "gpu"} : tensor<128x!tile.ptr<i32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_scope(%p: tensor<128x!tile.ptr<i32>, #l>, %v: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.atomic_rmw' op scope must be cta, gpu or sys, got 'cluster'}}
  %o = tile.atomic_rmw "add", %p, %v {sem = "relaxed", scope = "cluster"} : tensor<128x!tile.ptr<i32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_kind(%p: tensor<128x!tile.ptr<f32>, #l>, %v: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.atomic_rmw' op no atomic 'and' on 'f32' (add, and, or, xor, max, min, umax, umin on 32- and 64-bit integers; fadd, fmax, fmin on floats; xchg on 32- and 64-bit values)}}
  %o = tile.atomic_rmw "and", %p, %v {sem = "relaxed", scope = "gpu"} : tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_cas_bits(%p: tensor<128x!tile.ptr<i16>, #l>, %v: tensor<128xi16, #l>) {
  // expected-error @+1 {{'tile.atomic_cas' op compare-and-swap needs 32- or 64-bit values, got 'i16'}}
  %o = tile.atomic_cas %p, %v, %v {sem = "relaxed", scope = "gpu"} : tensor<128x!tile.ptr<i16>, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.scan / tile.scan_return
//===----------------------------------------------------------------------===//

// -----

#l2 = #tile.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @scan_axis(%x: tensor<16x128xi32, #l2>) {
  // expected-error @+1 {{'tile.scan' op axis 2 out of range for rank 2}}
  %s = tile.scan %x {axis = 2 : i32, reverse = false} : tensor<16x128xi32, #l2> {
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %b : i32
    tile.scan_return %c : i32
  }
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @scan_args(%x: tensor<16x128xi32, #l2>) {
  // expected-error @+1 {{'tile.scan' op combine region must take two 'i32' arguments}}
  %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<16x128xi32, #l2> {
  ^bb0(%a: i64, %b: i64):
    %c = arith.addi %a, %b : i64
    tile.scan_return %c : i64
  }
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @scan_return_type(%x: tensor<16x128xi32, #l2>) {
  // expected-error @+1 {{'tile.scan' op combine region must return 'i32', got 'i1'}}
  %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<16x128xi32, #l2> {
  ^bb0(%a: i32, %b: i32):
    %c = arith.cmpi slt, %a, %b : i32
    tile.scan_return %c : i1
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.gather
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @gather_rank(%s: tensor<128xf32, #l>, %i: tensor<32x4xi32, #l2>) {
  // expected-error @+1 {{'tile.gather' op src and indices must have the same rank, got 1 and 2}}
  %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<32x4xi32, #l2>) -> tensor<32x4xf32, #l2>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @gather_axis(%s: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.gather' op axis 1 out of range for rank 1}}
  %g = tile.gather %s[%i] {axis = 1 : i32} : (tensor<128xf32, #l>, tensor<128xi32, #l>) -> tensor<128xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @gather_index_type(%s: tensor<128xf32, #l>, %i: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile.gather' op indices must be integers, got 'f32'}}
  %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<128xf32, #l>) -> tensor<128xf32, #l>
  return
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @gather_dims(%s: tensor<32x4xf32, #l2>, %i: tensor<32x8xi32, #l2>) {
  // expected-error @+1 {{'tile.gather' op src and indices must agree on dimension 1 (all but axis 0), got 4 and 8}}
  %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<32x4xf32, #l2>, tensor<32x8xi32, #l2>) -> tensor<32x8xf32, #l2>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @gather_result(%s: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.gather' op result must have the shape and layout of indices and the element type of src, got 'tensor<128xf16}}
  %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<128xi32, #l>) -> tensor<128xf16, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.extern_elementwise
//===----------------------------------------------------------------------===//

// -----

func.func @extern_bad_symbol(%x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op symbol must be a function name, got "a b"}}
  %y = tile.extern_elementwise "a b", %x : (f32) -> f32
  return
}

// -----

func.func @extern_pointer(%x: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op operands and result must be integers or floats, or tensors of them, got '!tile.ptr<f32>'}}
  %y = tile.extern_elementwise "__nv_f", %x : (!tile.ptr<f32>) -> f32
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @extern_mixed(%x: tensor<128xf32, #l>, %s: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op operands and result must be scalars, or tensors of one shape and layout, got 'f32' and 'tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'}}
  %y = tile.extern_elementwise "__nv_powf", %x, %s : (tensor<128xf32, #l>, f32) -> tensor<128xf32, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.inline_asm_elementwise
//===----------------------------------------------------------------------===//

// -----

func.func @asm_no_result() {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op needs at least one result}}
  tile.inline_asm_elementwise "nop;", "" {pack = 1 : i32, pure = true} : () -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_pack(%x: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op pack must be a power of two, got 3}}
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 3 : i32, pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_shape(%x: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op operands and results must have one shape and layout}}
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 1 : i32, pure = true} : (tensor<128xi32, #l>) -> tensor<256xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @asm_divides(%x: tensor<2xi32, #l>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op pack 4 does not divide the 2 elements}}
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 4 : i32, pure = true} : (tensor<2xi32, #l>) -> tensor<2xi32, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.print
//===----------------------------------------------------------------------===//

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @print_signed(%x: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.print' op isSigned has 2 entries for 1 operands}}
  tile.print " x ", %x {hex = false, isSigned = array<i32: 1, 1>} : tensor<128xi32, #l>
  return
}

// -----

func.func @print_type(%x: vector<4xi32>) {
  // expected-error @+1 {{'tile.print' op prints integers, floats and pointers, got 'vector<4xi32>'}}
  tile.print " x ", %x {hex = false, isSigned = array<i32: 1>} : vector<4xi32>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @print_shapes(%x: tensor<128xi32, #l>, %y: tensor<256xi32, #l>) {
  // expected-error @+1 {{'tile.print' op tensor operands must have one shape}}
  tile.print " x ", %x, %y {hex = false, isSigned = array<i32: 1, 1>} : tensor<128xi32, #l>, tensor<256xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_pointer_result(%x: tensor<128xi64, #l>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op results must hold integers or floats, got 'tensor<128x!tile.ptr<f32>}}
  %y = tile.inline_asm_elementwise "mov.b64 $0, $1;", "=l,l", %x {pack = 1 : i32, pure = true} : (tensor<128xi64, #l>) -> tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @scan_wrong_terminator(%x: tensor<512xf32, #l>) {
  // expected-error @+1 {{'tile.scan' op combine region must end with tile.scan_return}}
  %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<512xf32, #l> {
  ^bb0(%a: f32, %b: f32):
    "test.yield"(%a) : (f32) -> ()
  }
  return
}

// -----

// tile.histogram

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @histogram_float(%x: tensor<512xf32, #l>) {
  // expected-error @+1 {{'tile.histogram' op src must be a 1-D tensor of i32 or i64, got 'tensor<512xf32}}
  %h = tile.histogram %x : tensor<512xf32, #l> -> tensor<64xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @histogram_mask_layout(%x: tensor<512xi32, #l>, %k: tensor<512xi1, #m>) {
  // expected-error @+1 {{'tile.histogram' op mask must be an i1 tensor of the source's shape and layout, got 'tensor<512xi1}}
  %h = tile.histogram %x, %k : tensor<512xi32, #l>, tensor<512xi1, #m> -> tensor<64xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @histogram_result_type(%x: tensor<512xi32, #l>) {
  // expected-error @+1 {{'tile.histogram' op result must be a 1-D i32 tensor, got 'tensor<64xi64}}
  %h = tile.histogram %x : tensor<512xi32, #l> -> tensor<64xi64, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @histogram_bins(%x: tensor<512xi32, #l>) {
  // expected-error @+1 {{'tile.histogram' op the number of bins (48) must be a power of two}}
  %h = tile.histogram %x : tensor<512xi32, #l> -> tensor<48xi32, #l>
  return
}

// -----

// tile.extract_slice

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @slice_rank(%x: tensor<16x64xf32, #l>) {
  // expected-error @+1 {{'tile.extract_slice' op result and offsets must have the source's rank 2}}
  %s = tile.extract_slice %x {offsets = array<i64: 0>} : tensor<16x64xf32, #l> -> tensor<16x32xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @slice_type(%x: tensor<16x64xf32, #l>) {
  // expected-error @+1 {{'tile.extract_slice' op result must have the source's element type and layout}}
  %s = tile.extract_slice %x {offsets = array<i64: 0, 0>} : tensor<16x64xf32, #l> -> tensor<16x32xf16, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @slice_bounds(%x: tensor<16x64xf32, #l>) {
  // expected-error @+1 {{'tile.extract_slice' op offset 64 + size 32 exceeds the source's 64 along dimension 1}}
  %s = tile.extract_slice %x {offsets = array<i64: 0, 64>} : tensor<16x64xf32, #l> -> tensor<16x32xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @slice_offset(%x: tensor<16x64xf32, #l>) {
  // expected-error @+1 {{'tile.extract_slice' op offset 16 along dimension 1 must be a multiple of the result's size 32}}
  %s = tile.extract_slice %x {offsets = array<i64: 0, 16>} : tensor<16x64xf32, #l> -> tensor<16x32xf32, #l>
  return
}

// -----

// 8 lanes x 4 elements span 32 columns: a 16-column slice would sit on other lanes.
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @slice_threads(%x: tensor<16x64xf32, #l>) {
  // expected-error @+1 {{places the slice on other threads than the source (its lane bases differ)}}
  %s = tile.extract_slice %x {offsets = array<i64: 0, 16>} : tensor<16x64xf32, #l> -> tensor<16x16xf32, #l>
  return
}

//===----------------------------------------------------------------------===//
// tile.local_gather / tile.local_scatter / tile.local_atomic_rmw
//===----------------------------------------------------------------------===//

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @gather_ring(%b: !tile.memdesc<2x64xf32, #sh>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{needs a buffer its shared layout covers whole}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<2x64xf32, #sh>, tensor<64xi32, #l> -> tensor<64xf32, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @gather_axis(%b: !tile.memdesc<64xf32, #sh>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{axis 1 is out of range for the rank-1 buffer}}
  %t = tile.local_gather %b[%i] {axis = 1 : i32} : !tile.memdesc<64xf32, #sh>, tensor<64xi32, #l> -> tensor<64xf32, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @gather_rank(%b: !tile.memdesc<8x8xf32, #sh>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{must have the buffer's rank 2}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<8x8xf32, #sh>, tensor<64xi32, #l> -> tensor<64xf32, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @gather_no_layout(%b: !tile.memdesc<64xf32, #sh>, %i: tensor<64xi32>) {
  // expected-error @+1 {{need a layout encoding}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<64xf32, #sh>, tensor<64xi32> -> tensor<64xf32>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
func.func @gather_too_wide(%b: !tile.memdesc<16x4xf32, #sh>, %i: tensor<16x8xi32, #l>) {
  // expected-error @+1 {{along dimension 1, which is not the axis}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<16x4xf32, #sh>, tensor<16x8xi32, #l> -> tensor<16x8xf32, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#c = #tile.cga<{bases = [[1]], layout = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>}>
func.func @gather_cluster(%b: !tile.memdesc<64xf32, #sh>, %i: tensor<128xi32, #c>) {
  // expected-error @+1 {{indices split among the CTAs of a cluster are not supported}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<64xf32, #sh>, tensor<128xi32, #c> -> tensor<128xf32, #c>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @gather_result(%b: !tile.memdesc<64xf32, #sh>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{result must have the shape and layout of the indices and the buffer's element type}}
  %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<64xf32, #sh>, tensor<64xi32, #l> -> tensor<64xf16, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#k = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @scatter_values_layout(%v: tensor<64xf32, #k>, %b: !tile.memdesc<64xf32, #sh, mutable>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{must have one shape and layout}}
  tile.local_scatter %v, %b[%i] {axis = 0 : i32} : tensor<64xf32, #k>, tensor<64xi32, #l> -> !tile.memdesc<64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @scatter_values_type(%v: tensor<64xi32, #l>, %b: !tile.memdesc<64xf32, #sh, mutable>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{must have the element type of the buffer}}
  tile.local_scatter %v, %b[%i] {axis = 0 : i32} : tensor<64xi32, #l>, tensor<64xi32, #l> -> !tile.memdesc<64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @scatter_immutable(%v: tensor<64xf32, #l>, %b: !tile.memdesc<64xf32, #sh>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{writes into an immutable buffer}}
  tile.local_scatter %v, %b[%i] {axis = 0 : i32} : tensor<64xf32, #l>, tensor<64xi32, #l> -> !tile.memdesc<64xf32, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @atomic_kind(%v: tensor<64xf32, #l>, %b: !tile.memdesc<64xf32, #sh, mutable>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{kind "max" is not an atomic of 'f32'}}
  %o = tile.local_atomic_rmw "max", %v, %b[%i] {axis = 0 : i32} : tensor<64xf32, #l>, tensor<64xi32, #l> -> !tile.memdesc<64xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @atomic_width(%v: tensor<64xi8, #l>, %b: !tile.memdesc<64xi8, #sh, mutable>, %i: tensor<64xi32, #l>) {
  // expected-error @+1 {{atomics of 'i8' are not supported (16-, 32- or 64-bit elements)}}
  %o = tile.local_atomic_rmw "add", %v, %b[%i] {axis = 0 : i32} : tensor<64xi8, #l>, tensor<64xi32, #l> -> !tile.memdesc<64xi8, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#k = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @atomic_mask(%v: tensor<64xi32, #l>, %b: !tile.memdesc<64xi32, #sh, mutable>, %i: tensor<64xi32, #l>, %m: tensor<64xi1, #k>) {
  // expected-error @+1 {{must have the shape and layout of the indices}}
  %o = "tile.local_atomic_rmw"(%v, %b, %i, %m) {kind = "add", axis = 0 : i32} : (tensor<64xi32, #l>, !tile.memdesc<64xi32, #sh, mutable>, tensor<64xi32, #l>, tensor<64xi1, #k>) -> tensor<64xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cluster_peers_not_a_mask(%x: tensor<512xi32, #l>) {
    // expected-error @+1 {{'tile.reduce' op 'tile.cluster_peers' is a reduce's nonzero mask of the rank bits of a cluster of at most 32 CTAs}}
    %m = "tile.reduce"(%x) ({
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tile.reduce_return %r : i32
    }) {axis = 0 : i32, tile.cluster_peers = 0 : i32} : (tensor<512xi32, #l>) -> i32
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cluster_peers_on_a_scan(%x: tensor<512xi32, #l>) {
    // expected-error @+1 {{'tile.scan' op 'tile.cluster_peers' is a reduce's nonzero mask of the rank bits of a cluster of at most 32 CTAs}}
    %m = "tile.scan"(%x) ({
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tile.scan_return %r : i32
    }) {axis = 0 : i32, reverse = false, tile.cluster_peers = 1 : i32} : (tensor<512xi32, #l>) -> tensor<512xi32, #l>
    return
  }
}

// -----

// A warp_specialize whose partition_num_warps is missing (written as a plain
// attribute, not a property): the module's layout check runs before the op's
// verifier and judges its regions as the kernel's warps -- an error, not a
// crash.
#w1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @ws_without_warp_counts() {
    "tile.warp_specialize"() ({
      "tile.warp_yield"() : () -> ()
    }, {
      // expected-error @+1 {{'tile.arange' op layout #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}> has 1 warps but the kernel is compiled for 4 (tile.num_warps)}}
      %a = tile.arange 0, 32 : tensor<32xi32, #w1>
      cf.br ^bb1(%a : tensor<32xi32, #w1>)
    ^bb1(%b: tensor<32xi32, #w1>):
      "tile.warp_yield"() : () -> ()
    }) {partition_num_warps = array<i32: 1>, partition_num_regs = array<i32: 24>} : () -> ()
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_thread_pure_nothing() {
  // expected-error @+1 {{'tile.inline_asm' op without results must not be pure (it would do nothing)}}
  tile.inline_asm "bar.sync 0;", "" {pure = true} : () -> ()
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @asm_thread_pure_shared(%b: !tile.memdesc<128xi32, #sh, mutable>) {
  // expected-error @+1 {{'tile.inline_asm' op with a shared-memory operand must not be pure}}
  %r = tile.inline_asm "ld.shared.u32 $0, [$1];", "=r,r", %b {pure = true} : (!tile.memdesc<128xi32, #sh, mutable>) -> i32
  return
}

// -----

func.func @asm_thread_no_layout(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm' op tensor operands need a layout}}
  tile.inline_asm "", "r", %x {pure = false} : (tensor<128xi32>) -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_thread_result_layout(%x: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile.inline_asm' op tensor results need a layout}}
  %r = tile.inline_asm "mov.b32 $0, $1;", "=r,r", %x {pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_thread_pointer_result(%x: tensor<128xi64, #l>) {
  // expected-error @+1 {{'tile.inline_asm' op results must hold integers or floats}}
  %r = tile.inline_asm "mov.b64 $0, $1;", "=l,l", %x {pure = true} : (tensor<128xi64, #l>) -> tensor<128x!tile.ptr<f32>, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_thread_scalar_result(%x: tensor<128xi64, #l>) {
  // expected-error @+1 {{'tile.inline_asm' op results must be tensors or scalars of integers or floats}}
  %r = tile.inline_asm "mov.b64 $0, $1;", "=l,l", %x {pure = true} : (tensor<128xi64, #l>) -> !tile.ptr<f32>
  return
}

// -----

func.func @asm_thread_operand(%t: !tile.async_token) {
  // expected-error @+1 {{'tile.inline_asm' op operands must be tensors, scalars or shared views}}
  tile.inline_asm "", "r", %t {pure = false} : (!tile.async_token) -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @asm_thread_operand_elements(%x: tensor<128xindex, #l>) {
  // expected-error @+1 {{'tile.inline_asm' op operands must hold integers, floats or pointers, got 'tensor<128xindex}}
  tile.inline_asm "", "r", %x {pure = false} : (tensor<128xindex, #l>) -> ()
  return
}
