// REQUIRES: ptxas
// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A device-side descriptor: the kernel gets a hidden last pointer argument
// (128 bytes of global scratch per descriptor per CTA, tile.global_scratch);
// thread 0 zero-fills its CTA's slot (linear CTA id x 256 + 128 for the
// second descriptor), sets every field, releases it; after a CTA barrier
// every thread acquires it. Box: one 16-element (32-byte swizzle) chunk x 16
// rows; strides in bytes.
// CHECK: module attributes {{.*}}tile.global_scratch = 256 : i32
// CHECK-LABEL: llvm.func @two_descriptors
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !llvm.ptr<1>)
// CHECK-DAG: llvm.mlir.constant(256 : i64)
// CHECK-DAG: llvm.mlir.constant(128 : i64)
// CHECK: llvm.inline_asm has_side_effects {{.*}}st.global.v4.b32 [$0+112]{{.*}}tensormap.replace.tile.global_address.global.b1024.b64 [$0], $2;{{.*}}tensormap.replace.tile.rank.global.b1024.b32 [$0], 1;{{.*}}tensormap.replace.tile.box_dim.global.b1024.b32 [$0], 0, 16;{{.*}}tensormap.replace.tile.global_stride.global.b1024.b64 [$0], 0, $5;{{.*}}elemtype.global.b1024.b32 [$0], 6;{{.*}}swizzle_mode.global.b1024.b32 [$0], 1;{{.*}}fill_mode.global.b1024.b32 [$0], 0;{{.*}}fence.proxy.tensormap::generic.release.gpu
// CHECK: nvvm.barrier0
// CHECK: fence.proxy.tensormap::generic.acquire.gpu [$0], 128
// CHECK: fill_mode.global.b1024.b32 [$0], 1;
// CHECK: nvvm.barrier0
// CHECK: fence.proxy.tensormap::generic.acquire.gpu [$0], 128
#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @two_descriptors(%p: !tile.ptr<f16>, %m: i32, %n: i32) {
    %s = arith.extsi %n : i32 to i64
    %one = arith.constant 1 : i64
    %d0 = tile_nv.make_tensor_descriptor %p[%m, %n], [%s, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    %d1 = tile_nv.make_tensor_descriptor %p[%m, %n], [%s, %one] {padding = "nan"} : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    return
  }
}

