// tile.local_gather / local_scatter / local_atomic_rmw: each register's
// address is its register and thread offsets (axis coordinate zero) XOR the
// image of its runtime index -- a mask and shift where the axis's bits map to
// consecutive offset bits, a select per bit where a swizzle mixes them; an
// atomic acts behind its mask, once per element. The GPU test
// (test/gpu/test_shared_index.py) checks the values against torch.
// RUN: kiln-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// CHECK-LABEL: llvm.func @gather(
// CHECK: %[[IMG:.*]] = llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: %[[OFF:.*]] = llvm.xor %{{.*}}, %[[IMG]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.load %[[P]] : !llvm.ptr<3> -> f32

// CHECK-LABEL: llvm.func @gather_swizzled(
// CHECK-COUNT-3: llvm.lshr
// CHECK: llvm.getelementptr
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32

// CHECK-LABEL: llvm.func @scatter(
// CHECK: llvm.trunc %{{.*}} : i64 to i32
// CHECK: llvm.store %{{.*}}, %{{.*}} : i16, !llvm.ptr<3>

// CHECK-LABEL: llvm.func @atomic(
// CHECK: llvm.cond_br
// CHECK: llvm.atomicrmw umax %{{.*}}, %{{.*}} syncscope("block") monotonic
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#sw = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gather(%i: tensor<128xi32, #l>) -> tensor<128xf32, #l> {
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    %t = tile.local_gather %b[%i] {axis = 0 : i32} : !tile.memdesc<128xf32, #sh, mutable>, tensor<128xi32, #l> -> tensor<128xf32, #l>
    return %t : tensor<128xf32, #l>
  }
  func.func @gather_swizzled(%i: tensor<16x8xi32, #m>) -> tensor<16x8xf32, #m> {
    %b = tile.local_alloc : () -> !tile.memdesc<16x8xf32, #sw, mutable>
    %t = tile.local_gather %b[%i] {axis = 1 : i32} : !tile.memdesc<16x8xf32, #sw, mutable>, tensor<16x8xi32, #m> -> tensor<16x8xf32, #m>
    return %t : tensor<16x8xf32, #m>
  }
  func.func @scatter(%v: tensor<128xi16, #l>, %i: tensor<128xi64, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<128xi16, #sh, mutable>
    tile.local_scatter %v, %b[%i] {axis = 0 : i32} : tensor<128xi16, #l>, tensor<128xi64, #l> -> !tile.memdesc<128xi16, #sh, mutable>
    return
  }
  func.func @atomic(%v: tensor<128xi32, #l>, %i: tensor<128xi32, #l>, %m: tensor<128xi1, #l>) -> tensor<128xi32, #l> {
    %b = tile.local_alloc : () -> !tile.memdesc<128xi32, #sh, mutable>
    %o = tile.local_atomic_rmw "umax", %v, %b[%i], %m {axis = 0 : i32} : tensor<128xi32, #l>, tensor<128xi32, #l> -> !tile.memdesc<128xi32, #sh, mutable>
    return %o : tensor<128xi32, #l>
  }
}
