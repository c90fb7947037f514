// Deep nesting used to overflow the parser's stack (SIGSEGV) in both tools.
// REQUIRES: nvidia
// RUN: %python -c "print('func.func @f(%%p: ' + '!tile.ptr<' * 100000 + 'f32' + '>' * 100000 + ') { return }')" > %t.ptr.mlir
// RUN: not kiln-opt %t.ptr.mlir 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: %python -c "print('\"test.op\"() {a = ' + '[' * 100000 + ']' * 100000 + '} : () -> ()')" > %t.brackets.mlir
// RUN: not kiln-opt %t.brackets.mlir -allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=BRACKETS
// RUN: not kiln-translate --target=cuda:sm_90a --emit=llvm %t.brackets.mlir 2>&1 | FileCheck %s --check-prefix=BRACKETS
// RUN: %python -c "n = 5000; print('func.func @f(%%c: i1) {\n' + '  scf.if %%c {\n' * n + '  }\n' * n + '  return\n}')" > %t.if.mlir
// RUN: not kiln-opt %t.if.mlir 2>&1 | FileCheck %s --check-prefix=IF
// Nesting within the limit still works.
// RUN: %python -c "n = 200; print('func.func @f(%%c: i1) {\n' + '  scf.if %%c {\n' * n + '  }\n' * n + '  return\n}')" > %t.ok.mlir
// RUN: kiln-opt %t.ok.mlir -o /dev/null

// PTR: ptr.mlir:1:{{[0-9]+}}: error: input is nested more than 512 levels deep
// BRACKETS: brackets.mlir:1:{{[0-9]+}}: error: input is nested more than 512 levels deep
// IF: if.mlir:{{[0-9]+}}:13: error: input is nested more than 512 levels deep
