// A kernel must return void. LLVM's NVPTX backend would accept one that does
// not and leave ptxas to fail, so kiln-translate checks it up front.
// REQUIRES: nvidia, amd
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %s 2>&1 | FileCheck %s
// RUN: sed -e 's/rocdl.kernel/nvvm.kernel/' %s | not kiln-translate --target=cuda:sm_90a --emit=ptx - 2>&1 | FileCheck %s

// CHECK: :[[@LINE+2]]:1: error: kernel 'returns_value' must return void
// CHECK-NOT: error
llvm.func @returns_value() -> i32 attributes {rocdl.kernel} {
  %c = llvm.mlir.constant(0 : i32) : i32
  llvm.return %c : i32
}
