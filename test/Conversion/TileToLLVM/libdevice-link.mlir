// REQUIRES: nvidia, libdevice
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | env KILN_LIBDEVICE=%t.missing not kiln-translate --target=cuda:sm_90a --emit=ptx - 2>&1 | FileCheck %s --check-prefix=MISSING

// Serializing a module that calls libdevice's functions links the CUDA
// toolkit's bitcode (only those functions, internal) and inlines them: no
// call and no __nv_ symbol is left in the PTX (popc is a popc instruction).
// A libdevice path that does not exist is an error naming it.
// CHECK-NOT: __nv_
// CHECK-NOT: call
// CHECK: popc.b32
// MISSING: error: libdevice '{{.*}}.missing' does not exist
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @linked(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %offs = tile.arange 0, 512 : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %ptrs = tile.addptr %ps, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %x = tile.load %ptrs : tensor<512x!tile.ptr<f32>, #l>
    %y = tile.extern_elementwise "__nv_tanhf", %x : (tensor<512xf32, #l>) -> tensor<512xf32, #l>
    %c = tile.extern_elementwise "__nv_popc", %n : (i32) -> i32
    %cf = arith.sitofp %c : i32 to f32
    %cs = tile.splat %cf : tensor<512xf32, #l>
    %z = arith.addf %y, %cs : tensor<512xf32, #l>
    tile.store %ptrs, %z : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}
