// REQUIRES: nvidia, amd
// RUN: not kiln-translate --target=cuda:sm_100 --emit=ptx %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not kiln-translate --target=cuda:sm_90a --emit=sass %s 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not kiln-translate --target=hip:gfx942 --emit=ptx %s 2>&1 | FileCheck %s --check-prefix=PTX-ON-HIP
// RUN: not kiln-translate --target=cuda:sm_80 --emit=hsaco %s 2>&1 | FileCheck %s --check-prefix=HSACO-ON-CUDA
// RUN: not kiln-translate --target=cuda:sm_80 --emit=cubin --ptxas-path=%t.missing %s 2>&1 | FileCheck %s --check-prefix=NO-PTXAS

// TARGET: error: unknown target 'cuda:sm_100'; known targets: cuda:sm_80, cuda:sm_90a, hip:gfx908, hip:gfx90a, hip:gfx942, hip:gfx950
// EMIT: error: unknown --emit='sass'; expected one of: llvm, ptx, cubin, amdgcn, hsaco
// PTX-ON-HIP: error: --emit=ptx needs a cuda: target, not hip:gfx942
// HSACO-ON-CUDA: error: --emit=hsaco needs a hip: target, not cuda:sm_80
// NO-PTXAS: error: ptxas '{{.*}}.missing' is not an executable file (from options)
llvm.func @empty() attributes {nvvm.kernel} {
  llvm.return
}
