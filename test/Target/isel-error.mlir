// wgmma does not exist on sm_80: LLVM's instruction selection reports a fatal
// error, which must come back as a diagnostic, not a crash.
// REQUIRES: nvidia
// RUN: not kiln-translate --target=cuda:sm_80 --emit=ptx %s 2>&1 | FileCheck %s

// CHECK: error: LLVM code generation for cuda:sm_80 failed: Cannot select: intrinsic %llvm.nvvm.wgmma.fence
llvm.func @k() attributes {nvvm.kernel} {
  nvvm.wgmma.fence.aligned
  llvm.return
}
