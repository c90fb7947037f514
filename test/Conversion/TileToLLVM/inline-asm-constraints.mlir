// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s

// An inline asm statement's constraint string is checked against the
// operands and results the lowering gives it (checkInlineAsmConstraints),
// before LLVM sees it: LLVM asserts (or crashes) on a string it rejects.
// The thread form (tile.inline_asm) ties its output to input 0 (the
// accumulator pattern) and compiles:
// CHECK-LABEL: llvm.func @tied
// CHECK: llvm.inline_asm "add.u32 $0, $0, $2;", "=r,0,r"
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @tied(%x: tensor<128xi32, #l>, %y: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    %s = tile.inline_asm "add.u32 $0, $0, $2;", "=r,0,r", %x, %y {pure = true} : (tensor<128xi32, #l>, tensor<128xi32, #l>) -> tensor<128xi32, #l>
    return %s : tensor<128xi32, #l>
  }
}

// -----

// An input tied to an output that does not exist: LLVM cannot parse it.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @tie_to_nothing(%x: tensor<128xi32, #l>, %y: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm'}}
    // expected-error @+1 {{'tile.inline_asm' op constraint string rejected by LLVM: failed to parse constraints (constraints "=r,r,7"; each statement has 1 outputs and 2 inputs, outputs first)}}
    %s = tile.inline_asm "add.u32 $0, $1, $2;", "=r,r,7", %x, %y {pure = true} : (tensor<128xi32, #l>, tensor<128xi32, #l>) -> tensor<128xi32, #l>
    return %s : tensor<128xi32, #l>
  }
}

// -----

// An output after an input.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @output_last(%x: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm'}}
    // expected-error @+1 {{'tile.inline_asm' op constraint string rejected by LLVM: output constraint occurs after input}}
    %s = tile.inline_asm "mov.b32 $0, $1;", "r,=r", %x {pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32, #l>
    return %s : tensor<128xi32, #l>
  }
}

// -----

// An input tied to an output of another size.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @tie_sizes(%x: tensor<128xi32, #l>) -> tensor<128xi64, #l> {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm'}}
    // expected-error @+1 {{'tile.inline_asm' op ties input 0 of type 'i32' to output 0 of type 'i64': a tied input must have its output's size}}
    %s = tile.inline_asm "cvt.u64.u32 $0, $1;", "=l,0", %x {pure = true} : (tensor<128xi32, #l>) -> tensor<128xi64, #l>
    return %s : tensor<128xi64, #l>
  }
}

// -----

// An immediate-only input: the operands are registers.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @immediate(%x: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm_elementwise'}}
    // expected-error @+1 {{'tile.inline_asm_elementwise' op asks for an immediate with input 0's constraint "n", but its operands are registers}}
    %y = tile.inline_asm_elementwise "add.u32 $0, $1, 1;", "=r,n", %x {pack = 1 : i32, pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32, #l>
    return %y : tensor<128xi32, #l>
  }
}

// -----

// The elementwise form with pack 4 of i8: the input is one 32-bit register,
// the outputs four: a string naming one of each is one output short.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @pack_outputs(%x: tensor<512xi8, #l>) -> tensor<512xi32, #l> {
    // expected-error @+2 {{failed to legalize operation 'tile.inline_asm_elementwise'}}
    // expected-error @+1 {{'tile.inline_asm_elementwise' op constraint string rejected by LLVM: inline asm with one output cannot return struct (constraints "=r,r"; each statement has 4 outputs and 1 inputs, outputs first)}}
    %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r", %x {pack = 4 : i32, pure = true} : (tensor<512xi8, #l>) -> tensor<512xi32, #l>
    return %y : tensor<512xi32, #l>
  }
}
