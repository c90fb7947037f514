// REQUIRES: nvidia, amd
// RUN: kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kiln-opt %s --convert-tile-to-llvm="target=hip:gfx942" | FileCheck %s --check-prefixes=CHECK,AMD

// f32 division. The DSL's `/` marks its arith.divf `afn` (an approximate quotient is allowed,
// as Triton's fp32 `/`): NVIDIA divides with div.full.f32 (2 ulp), as Triton does; a target
// without a fast division (AMD here) divides rounding to nearest, and the flag is not passed to
// LLVM (which would choose its own approximation). Without the flag (div_rn,
// fdiv(ieee_rounding=True)), or in another type, it is LLVM's IEEE fdiv everywhere.

// CHECK-LABEL: llvm.func @approximate
// NV: llvm.inline_asm "div.full.f32 $0, $1, $2;", "=f,f,f" %{{.*}}, %{{.*}} : (f32, f32) -> f32
// NV-NOT: llvm.fdiv
// AMD: llvm.fdiv %{{.*}}, %{{.*}} : f32
// AMD-NOT: fastmath
func.func @approximate(%a: f32, %b: f32) -> f32 {
  %q = arith.divf %a, %b fastmath<afn> : f32
  return %q : f32
}

// CHECK-LABEL: llvm.func @rounded
// CHECK-NOT: div.full
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
func.func @rounded(%a: f32, %b: f32) -> f32 {
  %q = arith.divf %a, %b : f32
  return %q : f32
}

// CHECK-LABEL: llvm.func @f64_stays_ieee
// CHECK-NOT: div.full
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<afn>} : f64
func.func @f64_stays_ieee(%a: f64, %b: f64) -> f64 {
  %q = arith.divf %a, %b fastmath<afn> : f64
  return %q : f64
}
