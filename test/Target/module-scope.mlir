// Module-scope ops that translation cannot place used to crash kiln-translate
// (an NVVM or ROCDL instruction outside any function), and a function-level
// target_cpu silently built that function for another chip.
// REQUIRES: nvidia, amd
// RUN: split-file %s %t
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/nvvm.mlir 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %t/rocdl.mlir 2>&1 | FileCheck %s --check-prefix=ROCDL
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/cpu.mlir 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/features.mlir 2>&1 | FileCheck %s --check-prefix=FEATURES
// An NVVM or ROCDL instruction inside a global's initializer crashed too.
// RUN: not kiln-translate --target=cuda:sm_90a --emit=ptx %t/nvvm-global.mlir 2>&1 | FileCheck %s --check-prefix=NVVM-GLOBAL
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %t/rocdl-global.mlir 2>&1 | FileCheck %s --check-prefix=ROCDL-GLOBAL

// NVVM: nvvm.mlir:1:1: error: 'nvvm.barrier0' cannot appear at module scope of an LLVM-dialect module; only llvm.func, llvm.mlir.global and other module-level LLVM ops can
// ROCDL: rocdl.mlir:1:1: error: 'rocdl.s.barrier' cannot appear at module scope
// CPU: cpu.mlir:1:1: error: function 'k' sets target_cpu = "gfx942" but the module is compiled for cuda:sm_90a; remove the attribute
// NVVM-GLOBAL: nvvm-global.mlir:2:8: error: 'nvvm.read.ptx.sreg.tid.x' cannot appear in the initializer of llvm.mlir.global 'g': an initializer holds only constant LLVM-dialect ops
// ROCDL-GLOBAL: rocdl-global.mlir:2:8: error: 'rocdl.workitem.id.x' cannot appear in the initializer of llvm.mlir.global 'g'
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
//--- nvvm-global.mlir
llvm.mlir.global internal @g() : i32 {
  %0 = nvvm.read.ptx.sreg.tid.x : i32
  llvm.return %0 : i32
}
//--- rocdl-global.mlir
llvm.mlir.global internal @g() : i32 {
  %0 = rocdl.workitem.id.x : i32
  llvm.return %0 : i32
}
