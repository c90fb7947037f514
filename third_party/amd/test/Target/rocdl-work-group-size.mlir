// A kernel's rocdl.reqd_work_group_size (hand-written LLVM dialect) of 0 in
// a dimension, or over the chip's 1024 threads, used to reach LLVM as
// metadata it accepts silently: kiln-translate rejects it at the function.
// REQUIRES: amd
// RUN: split-file %s %t
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %t/zero.mlir 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not kiln-translate --target=hip:gfx950 --emit=amdgcn %t/big.mlir 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: kiln-translate --target=hip:gfx942 --emit=amdgcn %t/ok.mlir | FileCheck %s --check-prefix=OK

// ZERO: zero.mlir:1:1: error: rocdl.reqd_work_group_size of 'k' must be positive in every dimension, got array<i32: 0, 1, 1>
// BIG: big.mlir:1:1: error: rocdl.reqd_work_group_size of 'k' is 2048 threads, over the 1024 of hip:gfx950
// OK: .amdhsa_kernel k

//--- zero.mlir
llvm.func @k() attributes {rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 0, 1, 1>} {
  llvm.return
}
//--- big.mlir
llvm.func @k() attributes {rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 64, 32, 1>} {
  llvm.return
}
//--- ok.mlir
llvm.func @k() attributes {rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>} {
  llvm.return
}
