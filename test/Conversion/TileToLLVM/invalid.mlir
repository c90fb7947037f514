// Errors of convert-tile-to-llvm. Each split is compiled under every RUN
// line; a RUN line's prefix checks only the errors its options cause.

// With no options the pass takes the target and warp count from the module.
// REQUIRES: nvidia, amd
// RUN: kiln-opt %s -split-input-file --convert-scf-to-cf --convert-tile-to-llvm -verify-diagnostics

// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_100" 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a num-warps=8" 2>&1 | FileCheck %s --check-prefix=W8
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a num-warps=3" 2>&1 | FileCheck %s --check-prefix=W3
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx942 num-warps=134217728" 2>&1 | FileCheck %s --check-prefix=WBIG
// RUN: not kiln-opt %s -split-input-file --tile-allocate-shared-memory="target=hip:gfx1100" 2>&1 | FileCheck %s --check-prefix=ALLOC

// A module without any compile context.
// SM100: invalid.mlir:[[@LINE+8]]:1: error: unknown target 'cuda:sm_100'; known targets: cuda:sm_80, cuda:sm_90a, hip:gfx908, hip:gfx90a, hip:gfx942, hip:gfx950
// SM80-NOT: invalid.mlir:[[@LINE+7]]:1: error
// W8-NOT: invalid.mlir:[[@LINE+6]]:1: error
// W3: invalid.mlir:[[@LINE+5]]:1: error: num-warps must be a power of two with at most 1024 threads per CTA on cuda:sm_90a, got 3
// 2^27 warps of 64 lanes used to overflow to 0 threads and pass the check.
// WBIG: invalid.mlir:[[@LINE+3]]:1: error: num-warps must be a power of two with at most 1024 threads per CTA on hip:gfx942, got 134217728
// ALLOC: invalid.mlir:[[@LINE+2]]:1: error: unknown target 'hip:gfx1100'; known targets: cuda:sm_80, cuda:sm_90a, hip:gfx908, hip:gfx90a, hip:gfx942, hip:gfx950
// expected-error @+1 {{no target: pass target=<name> or set tile.target on the module}}
module {
  func.func @no_context() { return }
}

// -----

// The options contradict the module's tile.target / tile.num_warps.
// SM100: invalid.mlir:[[@LINE+4]]:1: error: module was built for "cuda:sm_90a" but the pass options target 'cuda:sm_100'
// SM80: invalid.mlir:[[@LINE+3]]:1: error: module was built for "cuda:sm_90a" but the pass options target 'cuda:sm_80'
// W8: invalid.mlir:[[@LINE+2]]:1: error: module was built for 4 warps but the pass options ask for 8
// W3: invalid.mlir:[[@LINE+1]]:1: error: module was built for 4 warps but the pass options ask for 3
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @context() { return }
}

// -----

// expected-error @+1 {{module has tile.threads_per_warp = 32 but hip:gfx942 has 64-wide warps}}
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @wave32_on_gfx942() { return }
}

// -----

// 32 warps of 64 lanes exceed 1024 threads per workgroup.
// expected-error @+1 {{num-warps must be a power of two with at most 1024 threads per CTA on hip:gfx942, got 32}}
module attributes {tile.target = "hip:gfx942", tile.num_warps = 32 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @too_many_warps() { return }
}

// -----

module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @erf_f16(%x: f16) -> f16 {
    // expected-error @+1 {{'math.erf' op is only supported on f32 (the DSL computes f16 and bf16 in f32), got 'f16'}}
    %y = math.erf %x : f16
    return %y : f16
  }
}

// -----

module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @exp_f64(%x: f64) -> f64 {
    // expected-error @+1 {{'math.exp' op is only supported on f16, bf16 and f32 (no device math library yet), got 'f64'}}
    %y = math.exp %x : f64
    return %y : f64
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @non_splat_constant() -> tensor<4xi32, #l> {
    // Rejected before any rewriting, so this is the only error.
    // expected-error @+1 {{'arith.constant' op only splat tensor constants are supported in kernels}}
    %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #l>
    return %c : tensor<4xi32, #l>
  }
}

// -----

// tile-allocate-shared-memory did not run.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cvt_without_scratch(%x: tensor<512xf32, #l>) -> tensor<512xf32, #m> {
    // expected-error @+2 {{'tile.convert_layout' op needs shared memory but has none assigned; run tile-allocate-shared-memory first}}
    // expected-error @+1 {{failed to legalize operation 'tile.convert_layout'}}
    %y = tile.convert_layout %x : tensor<512xf32, #l> -> tensor<512xf32, #m>
    return %y : tensor<512xf32, #m>
  }
}

// -----

#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_without_scratch(%x: tensor<16x32xf32, #l2>) -> tensor<32xf32, #col> {
    // expected-error @+2 {{'tile.reduce' op needs shared memory but has none assigned; run tile-allocate-shared-memory first}}
    // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
    %s = tile.reduce %x {axis = 0 : i32} : tensor<16x32xf32, #l2> -> tensor<32xf32, #col> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<32xf32, #col>
  }
}

// -----

// The old values of elements several threads hold pass through shared memory.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @atomic_old_without_scratch(%p: tensor<32x!tile.ptr<i32>, #l>, %v: tensor<32xi32, #l>) -> tensor<32xi32, #l> {
    // expected-error @+2 {{'tile.atomic_rmw' op uses the old values of elements several threads hold, which pass through shared memory, but has none assigned; run tile-allocate-shared-memory first}}
    // expected-error @+1 {{failed to legalize operation 'tile.atomic_rmw'}}
    %o = tile.atomic_rmw "add", %p, %v {sem = "relaxed", scope = "gpu"} : tensor<32x!tile.ptr<i32>, #l>
    return %o : tensor<32xi32, #l>
  }
}

// -----

// A scan whose axis reaches across warps passes values through shared memory.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scan_without_scratch(%x: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    // expected-error @+2 {{'tile.scan' op needs shared memory but has none assigned; run tile-allocate-shared-memory first}}
    // expected-error @+1 {{failed to legalize operation 'tile.scan'}}
    %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<128xi32, #l> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan_return %c : i32
    }
    return %s : tensor<128xi32, #l>
  }
}

// -----

// A scan lowers layouts whose bases move along the axis alone (the DSL
// converts others first); here a register basis moves along both dimensions.
#lin = #tile.linear<{register = [[1, 1]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [[0, 0], [0, 0]]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scan_mixed_basis(%x: tensor<2x32xi32, #lin>) -> tensor<2x32xi32, #lin> {
    // expected-error @+2 {{moves along axis 0 and another dimension with one basis; convert the operand to a blocked layout first}}
    // expected-error @+1 {{failed to legalize operation 'tile.scan'}}
    %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<2x32xi32, #lin> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan_return %c : i32
    }
    return %s : tensor<2x32xi32, #lin>
  }
}

// -----

// A gather along an axis the warps split passes the source through shared
// memory.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gather_across_warps(%s: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) -> tensor<128xf32, #l> {
    // expected-error @+2 {{'tile.gather' op gathers across warps through shared memory but has none assigned; run tile-allocate-shared-memory first}}
    // expected-error @+1 {{failed to legalize operation 'tile.gather'}}
    %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<128xi32, #l>) -> tensor<128xf32, #l>
    return %g : tensor<128xf32, #l>
  }
}

// -----

// Lane 0's basis moves along both dimensions: the reduction cannot shuffle
// along axis 1 alone.
#x = #tile.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [0, 2]], warp = [[16, 0], [0, 0]]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_mixed_basis(%x: tensor<32x4xf32, #x>) -> tensor<32xf32, #tile.slice<{dim = 1, parent = #x}>> {
    // expected-error @+2 {{mixes the reduction axis with other dimensions in a lane or warp basis; convert the operand to a blocked layout first}}
    // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
    %s = tile.reduce %x {axis = 1 : i32} : tensor<32x4xf32, #x> -> tensor<32xf32, #tile.slice<{dim = 1, parent = #x}>> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<32xf32, #tile.slice<{dim = 1, parent = #x}>>
  }
}

// -----

// A float type Kiln has no conversion for (fp8 beyond its four formats).
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unknown_fp8(%x: f8E4M3B11FNUZ) -> f32 {
    // expected-error @+1 {{'arith.extf' op converts 'f8E4M3B11FNUZ', which Kiln cannot convert (its fp8 conversions: f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ)}}
    %y = arith.extf %x : f8E4M3B11FNUZ to f32
    return %y : f32
  }
}

// -----

// tf32 has no value representation (it used to reach the type converter and
// fail with "failed to legalize" or, behind a pointer, crash).
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @tf32_values(%a: tensor<512xtf32, #l>) {
    // expected-error @+1 {{'arith.addf' op has tf32 values, which kernels cannot hold: use f32 (tf32 is a precision of dot, not a type)}}
    %b = arith.addf %a, %a : tensor<512xtf32, #l>
    return
  }
}
