// REQUIRES: rocm-device-libs
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=ASM

// device_print on AMD: ROCm's device printf, as HIP's compiler lowers printf.
// A message is begun, the format appended with its length counting the NUL
// (23 bytes; not the last part: arguments follow), then the four arguments
// as i64 (the program ids zero-extended, the f32 value widened to f64 and
// taken by its bits), seven a call, the last call marked. The format is a constant in
// address space 4, passed by its generic address. The code object then asks
// the runtime for its hostcall buffer.
// CHECK-DAG: llvm.mlir.global internal constant @kiln_str_{{[0-9]+}}("pid (%u, %u, %u) x %f\0A\00") {addr_space = 4 : i32
// CHECK-DAG: llvm.func @__ockl_printf_begin(i64) -> i64
// CHECK-DAG: llvm.func @__ockl_printf_append_string_n(i64, !llvm.ptr, i64, i32) -> i64
// CHECK-DAG: llvm.func @__ockl_printf_append_args(i64, i32, i64, i64, i64, i64, i64, i64, i64, i32) -> i64
// CHECK-LABEL: llvm.func @print
// CHECK-DAG: %[[LEN:.*]] = llvm.mlir.constant(23 : i64) : i64
// CHECK-DAG: %[[NOTLAST:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[LAST:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: llvm.fpext %{{.*}} : f32 to f64
// CHECK: %[[D0:.*]] = llvm.call @__ockl_printf_begin(%{{.*}}) : (i64) -> i64
// CHECK: %[[FMT:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<4> to !llvm.ptr
// CHECK: %[[D1:.*]] = llvm.call @__ockl_printf_append_string_n(%[[D0]], %[[FMT]], %[[LEN]], %[[NOTLAST]])
// CHECK: llvm.bitcast %{{.*}} : f64 to i64
// CHECK: llvm.call @__ockl_printf_append_args(%[[D1]], %[[FOUR]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LAST]])
// ASM: .value_kind: hidden_hostcall_buffer
module attributes {tile.num_warps = 1 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @print(%v: f32) {
    tile.print " x ", %v {hex = false, isSigned = array<i32: 0>} : f32
    return
  }
}
