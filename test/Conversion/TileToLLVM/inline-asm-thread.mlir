// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s

// tile.inline_asm: one statement per thread. Each tensor operand passes all
// its registers (4 here, in register order), a scalar one, and the results
// take one output each; outputs come first.
// CHECK-LABEL: llvm.func @per_thread(
// CHECK: %[[X0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[X1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[X2:.*]] = llvm.extractvalue %arg0[2]
// CHECK: %[[X3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[A:.*]] = llvm.inline_asm "body", "=&r,=&r,=&r,=&r,=r,r,r,r,r,r" %[[X0]], %[[X1]], %[[X2]], %[[X3]], %arg1 : (i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32, i32)>
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.extractvalue %[[A]][0]
// CHECK: llvm.extractvalue %[[A]][4]
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @per_thread(%x: tensor<512xi32, #l>, %b: i32) -> (tensor<512xi32, #l>, i32) {
    %y, %s = tile.inline_asm "body", "=&r,=&r,=&r,=&r,=r,r,r,r,r,r", %x, %b {pure = true} : (tensor<512xi32, #l>, i32) -> (tensor<512xi32, #l>, i32)
    return %y, %s : tensor<512xi32, #l>, i32
  }
}

// -----

// No results: a side-effecting statement with no outputs; a shared view is
// the 32-bit address of its element 0 (the second half of the buffer: 512
// bytes on); a pointer scalar is passed as it is.
// CHECK-LABEL: llvm.func @no_results(
// CHECK: llvm.inline_asm has_side_effects "bar.sync 0;", ""  : () -> ()
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects "store", "r,l" %[[ADDR]], %arg0 : (i32, !llvm.ptr<1>) -> ()
// CHECK: %[[HALF:.*]] = llvm.getelementptr %{{.*}}[512] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[ADDR2:.*]] = llvm.ptrtoint %[[HALF]] : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects "store", "r,l" %[[ADDR2]], %arg0
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @no_results(%p: !tile.ptr<i32>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<256xi32, #sh, mutable>
    tile.inline_asm "bar.sync 0;", "" {pure = false} : () -> ()
    tile.inline_asm "store", "r,l", %buf, %p {pure = false} : (!tile.memdesc<256xi32, #sh, mutable>, !tile.ptr<i32>) -> ()
    %h = tile.memdesc_subslice %buf[128] : !tile.memdesc<256xi32, #sh, mutable> -> !tile.memdesc<128xi32, #sh, mutable, 256>
    tile.inline_asm "store", "r,l", %h, %p {pure = false} : (!tile.memdesc<128xi32, #sh, mutable, 256>, !tile.ptr<i32>) -> ()
    return
  }
}

// -----

// The constraint string must name every operand: 2 registers + 1 output here.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @count(%x: tensor<256xi32, #l>) -> i32 {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm'}}
    // expected-error @+1 {{'tile.inline_asm' op constraints name 2 operands, but each thread passes 1 outputs and 2 inputs}}
    %s = tile.inline_asm "add.u32 $0, $1, $2;", "=r,r", %x {pure = true} : (tensor<256xi32, #l>) -> i32
    return %s : i32
  }
}
