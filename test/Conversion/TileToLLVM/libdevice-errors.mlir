// REQUIRES: nvidia, amd, libdevice
// RUN: split-file %s %t
// RUN: kiln-opt %t/nosuch.mlir --kiln-to-llvm="target=cuda:sm_90a" | not kiln-translate --target=cuda:sm_90a --emit=ptx - 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: kiln-opt %t/amd.mlir --kiln-to-llvm="target=hip:gfx942" | not kiln-translate --target=hip:gfx942 --emit=amdgcn - 2>&1 | FileCheck %s --check-prefix=AMD

// A function libdevice does not define is an error naming it and the file;
// on AMD targets, which link no device library, a call of a function the
// module only declares is an error naming it (not an undefined symbol at
// link time).
// NOSUCH: error: libdevice '{{.*}}libdevice.10.bc' defines no function '__nv_nosuchf'
// AMD: error: the kernel calls '__nv_erff', which no library linked for AMD targets defines

//--- nosuch.mlir
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @k(%p: !tile.ptr<f32>, %x: f32) {
    %y = tile.extern_elementwise "__nv_nosuchf", %x : (f32) -> f32
    %l = tile.arange 0, 128 : tensor<128xi32, #l>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %l : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #l>
    %ys = tile.splat %y : tensor<128xf32, #l>
    tile.store %pp, %ys : tensor<128x!tile.ptr<f32>, #l>
    return
  }
}

//--- amd.mlir
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 2 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @k(%p: !tile.ptr<f32>, %x: f32) {
    %y = tile.extern_elementwise "__nv_erff", %x : (f32) -> f32
    %l = tile.arange 0, 128 : tensor<128xi32, #l>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %l : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #l>
    %ys = tile.splat %y : tensor<128xf32, #l>
    tile.store %pp, %ys : tensor<128x!tile.ptr<f32>, #l>
    return
  }
}
