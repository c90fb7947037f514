// REQUIRES: nvidia
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s

// tile.extern_elementwise: one call per register the thread holds (4 here),
// one for a scalar, to a function declared once in the module. Serializing
// links libdevice (the CUDA toolkit's bitcode) and inlines it: no call and
// no __nv_ symbol is left in the PTX.
// CHECK-DAG: llvm.func @__nv_powf(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_popc(i32) -> i32
// CHECK-LABEL: llvm.func @calls
// CHECK-COUNT-4: llvm.call @__nv_powf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NOT: llvm.call @__nv_powf
// CHECK: llvm.call @__nv_popc(%{{.*}}) : (i32) -> i32
// PTX-NOT: __nv_
// PTX-NOT: call
// PTX: popc.b32
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @calls(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>, %n: i32) {
    %offs = tile.arange 0, 512 : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %ptrs = tile.addptr %ps, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %x = tile.load %ptrs : tensor<512x!tile.ptr<f32>, #l>
    %y = tile.extern_elementwise "__nv_powf", %x, %x : (tensor<512xf32, #l>, tensor<512xf32, #l>) -> tensor<512xf32, #l>
    tile.store %ptrs, %y : tensor<512x!tile.ptr<f32>, #l>
    %c = tile.extern_elementwise "__nv_popc", %n : (i32) -> i32
    %q1 = tile.addptr %q, %c : !tile.ptr<i32>, i32
    %qs = tile.splat %q1 : tensor<512x!tile.ptr<i32>, #l>
    %qp = tile.addptr %qs, %offs : tensor<512x!tile.ptr<i32>, #l>, tensor<512xi32, #l>
    tile.store %qp, %offs : tensor<512x!tile.ptr<i32>, #l>
    return
  }
}

// -----

// A symbol declared with another signature is an error at the op.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @twice(%x: f32, %n: i32) {
    %a = tile.extern_elementwise "__nv_f", %x : (f32) -> f32
    // expected-error @+2 {{'tile.extern_elementwise' op '__nv_f' is already declared as '!llvm.func<f32 (f32)>', not '!llvm.func<i32 (i32)>'}}
    // expected-error @+1 {{failed to legalize operation 'tile.extern_elementwise'}}
    %b = tile.extern_elementwise "__nv_f", %n : (i32) -> i32
    return
  }
}

// -----

// A symbol that names something else in the module (here a function the
// conversion has already made an llvm.func of another type) is an error at
// the op.
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @__nv_g(%x: f32) {
    return
  }
  func.func @clash(%x: f32) {
    // expected-error @+2 {{'tile.extern_elementwise' op '__nv_g' }}
    // expected-error @+1 {{failed to legalize operation 'tile.extern_elementwise'}}
    %a = tile.extern_elementwise "__nv_g", %x : (f32) -> f32
    return
  }
}
