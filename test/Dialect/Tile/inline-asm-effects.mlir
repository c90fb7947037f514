// RUN: kiln-opt %s -cse -canonicalize | FileCheck %s

// tile.inline_asm_elementwise with `pure` touches no memory: two equal ones
// are one, and one whose results are unused goes. Without `pure` it may touch
// any memory: both stay, and so does an unused one. (A pure one also does not
// keep the pipeliner from moving loads across it: test_pipeline_dsl.)
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @pure_asm
  // CHECK-COUNT-1: tile.inline_asm_elementwise
  // CHECK-NOT: tile.inline_asm_elementwise
  // CHECK: return
  func.func @pure_asm(%x: tensor<128xf32, #l>) -> (tensor<128xf32, #l>, tensor<128xf32, #l>) {
    %a = tile.inline_asm_elementwise "ex2.approx.ftz.f32 $0, $1;", "=f,f", %x {pack = 1 : i32, pure = true} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    %b = tile.inline_asm_elementwise "ex2.approx.ftz.f32 $0, $1;", "=f,f", %x {pack = 1 : i32, pure = true} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    %unused = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 1 : i32, pure = true} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    return %a, %b : tensor<128xf32, #l>, tensor<128xf32, #l>
  }
  // CHECK-LABEL: func.func @impure_asm
  // CHECK-COUNT-3: tile.inline_asm_elementwise
  // CHECK: return
  func.func @impure_asm(%x: tensor<128xf32, #l>) -> (tensor<128xf32, #l>, tensor<128xf32, #l>) {
    %a = tile.inline_asm_elementwise "ex2.approx.ftz.f32 $0, $1;", "=f,f", %x {pack = 1 : i32, pure = false} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    %b = tile.inline_asm_elementwise "ex2.approx.ftz.f32 $0, $1;", "=f,f", %x {pack = 1 : i32, pure = false} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    %unused = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 1 : i32, pure = false} : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    return %a, %b : tensor<128xf32, #l>, tensor<128xf32, #l>
  }
}
