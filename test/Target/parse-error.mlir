// REQUIRES: nvidia
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %s 2>&1 | FileCheck %s
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx - < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: parse-error.mlir:[[@LINE+3]]:3: error: custom op 'llvm.bogus' is unknown
// STDIN: <stdin>:[[@LINE+2]]:3: error: custom op 'llvm.bogus' is unknown
llvm.func @f() {
  llvm.bogus
}
