// REQUIRES: nvidia
// RUN: kiln-translate --target=cuda:sm_90a --emit=llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: kiln-translate --target=cuda:sm_90a --emit=ptx %s | FileCheck %s --check-prefixes=PTX,SM90A
// RUN: kiln-translate --target=cuda:sm_80 --emit=ptx %s | FileCheck %s --check-prefixes=PTX,SM80
// RUN: kiln-translate --target=cuda:sm_90a --emit=ptx -O0 - < %s | FileCheck %s --check-prefixes=PTX,SM90A

// LLVM: target datalayout = "e-
// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: define ptx_kernel void @copy(
// LLVM: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// LLVM: attributes #0 = {{.*}}"target-cpu"="sm_90a" "target-features"="+ptx83"

// sm_90a: PTX 8.3 (tensormap.replace, for device-side TMA descriptors);
// sm_80: 8.0.
// SM90A: .version 8.3
// SM80: .version 8.0
// SM90A: .target sm_90a
// SM80: .target sm_80
// PTX: .address_size 64
// PTX-LABEL: .visible .entry copy(
// PTX: mov.u32 {{.*}}, %tid.x;
// PTX: ld.global.{{[bf]}}32
// PTX: st.global.{{[bf]}}32
llvm.func @copy(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %idx = llvm.zext %tid : i32 to i64
  %src = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %dst = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %v = llvm.load %src : !llvm.ptr<1> -> f32
  llvm.store %v, %dst : f32, !llvm.ptr<1>
  llvm.return
}
