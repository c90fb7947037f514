// Types with no LLVM equivalent inside LLVM-dialect ops pass the dialect's
// verifier and used to crash the translator (SIGSEGV).
// REQUIRES: nvidia, amd
// RUN: split-file %s %t
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/gep.mlir 2>&1 | FileCheck %s --check-prefix=GEP
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %t/alloca.mlir 2>&1 | FileCheck %s --check-prefix=ALLOCA
// Address spaces past 24 bits used to be truncated (2^24 became generic 0).
// RUN: not kiln-translate --target=cuda:sm_90a --emit=llvm %t/space.mlir 2>&1 | FileCheck %s --check-prefix=SPACE

// GEP: gep.mlir:2:8: error: type f8E5M2 has no LLVM equivalent; LLVM-dialect input may use only LLVM-compatible types
// ALLOCA: alloca.mlir:3:8: error: type tf32 has no LLVM equivalent
// SPACE: space.mlir:1:1: error: address space 16777216 of !llvm.ptr<16777216> is not below 2^24, LLVM's limit

//--- gep.mlir
llvm.func @k(%in: !llvm.ptr<1>) {
  %p = llvm.getelementptr %in[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f8E5M2
  llvm.return
}
//--- alloca.mlir
llvm.func @k() {
  %c = llvm.mlir.constant(1 : i32) : i32
  %p = llvm.alloca %c x tf32 : (i32) -> !llvm.ptr<5>
  llvm.return
}
//--- space.mlir
llvm.func @k(%p: !llvm.ptr<16777216>) {
  llvm.return
}
