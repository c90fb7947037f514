// Module-scope ops that translation cannot place used to crash kiln-translate
// (an NVVM or ROCDL instruction outside any function), and a function-level
// target_cpu silently built that function for another chip.
// REQUIRES: nvidia, amd
// RUN: split-file %s %t
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/nvvm.mlir 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %t/rocdl.mlir 2>&1 | FileCheck %s --check-prefix=ROCDL
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/cpu.mlir 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/features.mlir 2>&1 | FileCheck %s --check-prefix=FEATURES

// NVVM: nvvm.mlir:1:1: error: 'nvvm.barrier0' cannot appear at module scope of an LLVM-dialect module; only llvm.func, llvm.mlir.global and other module-level LLVM ops can
// ROCDL: rocdl.mlir:1:1: error: 'rocdl.s.barrier' cannot appear at module scope
// CPU: cpu.mlir:1:1: error: function 'k' sets target_cpu = "gfx942" but the module is compiled for cuda:sm_90a; remove the attribute
// FEATURES: features.mlir:1:1: error: function 'f' sets target_features; features come from the target (cuda:sm_90a)

//--- nvvm.mlir
nvvm.barrier0
//--- rocdl.mlir
rocdl.s.barrier
//--- cpu.mlir
llvm.func @k() attributes {nvvm.kernel, target_cpu = "gfx942"} {
  llvm.return
}
//--- features.mlir
llvm.func @f() attributes {target_features = #llvm.target_features<["+ptx80"]>} {
  llvm.return
}
