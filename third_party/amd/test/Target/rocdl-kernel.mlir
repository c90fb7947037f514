// REQUIRES: amd
// RUN: kiln-translate --target=hip:gfx942 --emit=llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: kiln-translate --target=hip:gfx942 --emit=amdgcn %s | FileCheck %s --check-prefixes=GCN,GFX942
// RUN: kiln-translate --target=hip:gfx950 --emit=amdgcn %s | FileCheck %s --check-prefixes=GCN,GFX950
// RUN: kiln-translate --target=hip:gfx942 --emit=hsaco %s -o %t.gfx942.hsaco
// RUN: llvm-readobj --file-headers %t.gfx942.hsaco | FileCheck %s --check-prefixes=ELF,ELF942
// RUN: kiln-translate --target=hip:gfx950 --emit=hsaco %s -o %t.gfx950.hsaco
// RUN: llvm-readobj --file-headers %t.gfx950.hsaco | FileCheck %s --check-prefixes=ELF,ELF950

// LLVM: target datalayout = "e-
// LLVM: target triple = "amdgcn-amd-amdhsa"
// LLVM: define amdgpu_kernel void @copy(
// LLVM: attributes #0 = {{.*}}"target-cpu"="gfx942"
// LLVM: !{i32 1, !"amdhsa_code_object_version", i32 500}

// GFX942: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// GCN: .amdhsa_code_object_version 5
// GCN-LABEL: copy:
// GCN: global_load_dword
// GCN: global_store_dword
// GCN: .amdhsa_kernel copy

// ELF: Format: elf64-amdgpu
// ELF: Arch: amdgcn
// ELF: OS/ABI: AMDGPU_HSA
// ELF: Type: SharedObject
// ELF: Machine: EM_AMDGPU
// ELF942: EF_AMDGPU_MACH_AMDGCN_GFX942
// ELF950: EF_AMDGPU_MACH_AMDGCN_GFX950
llvm.func @copy(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
  %tid = rocdl.workitem.id.x : i32
  %idx = llvm.zext %tid : i32 to i64
  %src = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %dst = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %v = llvm.load %src : !llvm.ptr<1> -> f32
  llvm.store %v, %dst : f32, !llvm.ptr<1>
  llvm.return
}
