// RUN: kiln-opt %s -split-input-file --tile-nv-add-global-scratch="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s -split-input-file --tile-nv-add-global-scratch="target=hip:gfx942" | FileCheck %s --check-prefix=AMD

// The NVIDIA backend's pre-lowering pass (added to kiln-to-llvm through
// Backend::addPasses): a kernel that makes two TMA descriptors gets a last
// !tile.ptr<i8> argument, the base of its global scratch, each descriptor a
// 128-byte slot there, and the module the bytes per CTA. A kernel that makes
// none keeps its arguments. On another vendor's target the pass leaves the
// module alone.
// CHECK: module attributes {tile.global_scratch = 256 : i32
// CHECK-LABEL: func.func public @two(
// CHECK-SAME: %{{.*}}: !tile.ptr<f16>, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: !tile.ptr<i8>)
// CHECK: tile_nv.make_tensor_descriptor {{.*}}{tile_nv.scratch_offset = 0 : i64}
// CHECK: tile_nv.make_tensor_descriptor {{.*}}{tile_nv.scratch_offset = 128 : i64}
// CHECK-LABEL: func.func public @none(
// CHECK-SAME: %{{.*}}: !tile.ptr<f16>)
// CHECK-NOT: !tile.ptr<i8>
// AMD-NOT: tile.global_scratch
// AMD-NOT: scratch_offset
// AMD-NOT: !tile.ptr<i8>
#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32} {
  func.func public @two(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
    %a = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    %b = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    return
  }
  func.func public @none(%p: !tile.ptr<f16>) {
    return
  }
}
