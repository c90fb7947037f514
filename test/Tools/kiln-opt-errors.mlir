// Bad input to the CLI tools ends in a located error and exit code 1, never a crash.

// Binary garbage and invalid UTF-8.
// REQUIRES: nvidia, amd
// RUN: printf '\x00\xff\xfe garbage \x80' | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: <stdin>:1:{{[0-9]+}}: error:

// A truncated module.
// RUN: printf 'module {\n  func.func @f(' | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error:

// An unknown op of a known dialect.
// RUN: printf 'func.func @f() {\n  tile.bogus\n  return\n}\n' | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=OP
// OP: <stdin>:2:3: error: custom op 'tile.bogus' is unknown

// A huge integer where a layout wants a small one.
// RUN: printf '#l = #tile.blocked<{sizePerThread = [99999999999999999999], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\nfunc.func @f(%%x: tensor<128xf32, #l>) { return }\n' | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: <stdin>:1:{{[0-9]+}}: error:

// Unknown pass, bad pipeline option, unknown target through the pipeline.
// RUN: not kiln-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: Unknown command line argument '--no-such-pass'
// RUN: not kiln-opt %s --kiln-to-llvm="num-warps=four" 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: for the --num-warps option: 'four' value invalid for integer argument
// RUN: not kiln-opt %s --kiln-to-llvm="target=cuda:sm_99" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'cuda:sm_99'; known targets: cuda:sm_80, cuda:sm_90a, hip:gfx908, hip:gfx90a, hip:gfx942, hip:gfx950
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(kiln-to-llvm{target=cuda:sm_90a" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error

module {
  func.func public @k() { return }
}
