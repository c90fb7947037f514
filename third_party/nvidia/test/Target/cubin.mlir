// REQUIRES: ptxas, nvidia
// RUN: kiln-translate --target=cuda:sm_90a --emit=cubin %s -o %t.sm90a.cubin
// RUN: llvm-readobj --file-headers %t.sm90a.cubin | FileCheck %s
// RUN: kiln-translate --target=cuda:sm_80 --emit=cubin %s -o %t.sm80.cubin
// RUN: llvm-readobj --file-headers %t.sm80.cubin | FileCheck %s

// The PTX also assembles when handed to ptxas directly.
// RUN: kiln-translate --target=cuda:sm_90a --emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.direct.cubin

// CHECK: Class: 64-bit
// CHECK: Type: Executable
// CHECK: Machine: EM_CUDA
llvm.func @copy(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %idx = llvm.zext %tid : i32 to i64
  %src = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %dst = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %v = llvm.load %src : !llvm.ptr<1> -> f32
  llvm.store %v, %dst : f32, !llvm.ptr<1>
  llvm.return
}
