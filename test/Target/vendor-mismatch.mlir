// LLVM-dialect IR lowered for one vendor, translated for the other.
// REQUIRES: nvidia, amd
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %s 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %S/../../third_party/amd/test/Target/rocdl-kernel.mlir 2>&1 | FileCheck %s --check-prefix=NV-OP
// RUN: not kiln-translate --target=hip:gfx950 --emit=amdgcn %S/../../third_party/nvidia/test/Target/nvvm-kernel.mlir 2>&1 | FileCheck %s --check-prefix=AMD

// NV: vendor-mismatch.mlir:[[@LINE+3]]:1: error: 'rocdl.kernel' is for AMD targets, but cuda:sm_90a is NVIDIA
// NV-OP: rocdl-kernel.mlir:{{[0-9]+}}:10: error: 'rocdl.workitem.id.x' is for AMD targets, but cuda:sm_90a is NVIDIA
// AMD: nvvm-kernel.mlir:{{[0-9]+}}:10: error: 'nvvm.read.ptx.sreg.tid.x' is for NVIDIA targets, but hip:gfx950 is AMD
llvm.func @k() attributes {rocdl.kernel} {
  llvm.return
}
