// REQUIRES: ptxas, nvidia
// RUN: not kiln-translate --target=cuda:sm_90a --emit=cubin %s -o %t.cubin 2>&1 | FileCheck %s

// ptxas rejects a line of the second inline assembly: the error is at that op's location
// (lib/Target/InlineAsmLocation.cpp; NVIDIABackend's ptxas log reading), not at the module,
// and the first, valid, assembly is told apart by its text. The PTX carries no marker.
llvm.func @two_asms(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %a = llvm.inline_asm "shl.b32 $0, $1, 3;", "=r,r" %tid : (i32) -> i32
  // CHECK: inline-asm-error-location.mlir:[[@LINE+1]]:{{[0-9]+}}: error: ptxas failed with exit code {{[0-9]+}} on the inline assembly written here
  %b = llvm.inline_asm "shl.b33 $0, $1, 3;", "=r,r" %a : (i32) -> i32
  // CHECK: Unknown modifier '.b33'
  llvm.store %b, %out : i32, !llvm.ptr<1>
  llvm.return
}
