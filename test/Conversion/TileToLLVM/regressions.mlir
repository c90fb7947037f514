// REQUIRES: nvidia
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// x <= n is not constant over an aligned run of x even when n is a multiple
// of 16 (the run's first element can differ), so the masked access must stay
// scalar. x < n may vectorize.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @mask_sle
  // CHECK-NOT: vector<4xf32>
  // CHECK: llvm.return
  func.func public @mask_sle(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi sle, %r, %ns : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp, %m : tensor<512x!tile.ptr<f32>, #l>
    tile.store %pp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
  // n > x is the mirror of x < n.
  // CHECK-LABEL: llvm.func @mask_sgt_mirrored
  // CHECK: llvm.intr.masked.load {{.*}} -> vector<4xf32>
  func.func public @mask_sgt_mirrored(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi sgt, %ns, %r : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp, %m : tensor<512x!tile.ptr<f32>, #l>
    tile.store %pp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// Loading pointers (pointee is a pointer) used to crash the axis analysis.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @load_pointers
  // CHECK: llvm.load {{.*}} -> vector<{{[0-9]+}}x!llvm.ptr<1>>
  func.func public @load_pointers(%p: !tile.ptr<!tile.ptr<f32>> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>
    return
  }
}

// -----

// Only public functions that return nothing are kernels.
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @helper
  // CHECK-NOT: nvvm.kernel
  // CHECK-SAME: {
  func.func public @helper(%x: i32) -> i32 {
    return %x : i32
  }
}

// -----

// Row starts r[:, None] * stride with an unknown stride are only element
// aligned: no vector access (it used to be ld.global.v4 at misaligned
// addresses). A stride known to divide 16 keeps 16-byte vectors.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @rows_unknown_stride
  // CHECK-NOT: vector<4xf32>
  // CHECK: llvm.return
  func.func public @rows_unknown_stride(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 16 : tensor<16xi32, #row>
    %c = tile.arange 0, 32 : tensor<32xi32, #col>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
    %ss = tile.splat %stride : tensor<16x1xi32, #l2>
    %rs = arith.muli %re, %ss : tensor<16x1xi32, #l2>
    %rb = tile.broadcast %rs : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
    %cb = tile.broadcast %ce : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
    %o = arith.addi %rb, %cb : tensor<16x32xi32, #l2>
    %ns = tile.splat %n : tensor<16x32xi32, #l2>
    %m = arith.cmpi slt, %o, %ns : tensor<16x32xi32, #l2>
    %xs = tile.splat %x : tensor<16x32x!tile.ptr<f32>, #l2>
    %xp = tile.addptr %xs, %o : tensor<16x32x!tile.ptr<f32>, #l2>, tensor<16x32xi32, #l2>
    %v = tile.load %xp, %m : tensor<16x32x!tile.ptr<f32>, #l2>
    tile.store %xp, %v, %m : tensor<16x32x!tile.ptr<f32>, #l2>
    return
  }
  // CHECK-LABEL: llvm.func @rows_stride16
  // CHECK: llvm.intr.masked.load {{.*}} -> vector<4xf32>
  // CHECK: llvm.intr.masked.store {{.*}} : vector<4xf32>
  func.func public @rows_stride16(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 16 : tensor<16xi32, #row>
    %c = tile.arange 0, 32 : tensor<32xi32, #col>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
    %ss = tile.splat %stride : tensor<16x1xi32, #l2>
    %rs = arith.muli %re, %ss : tensor<16x1xi32, #l2>
    %rb = tile.broadcast %rs : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
    %cb = tile.broadcast %ce : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
    %o = arith.addi %rb, %cb : tensor<16x32xi32, #l2>
    %ns = tile.splat %n : tensor<16x32xi32, #l2>
    %m = arith.cmpi slt, %o, %ns : tensor<16x32xi32, #l2>
    %xs = tile.splat %x : tensor<16x32x!tile.ptr<f32>, #l2>
    %xp = tile.addptr %xs, %o : tensor<16x32x!tile.ptr<f32>, #l2>, tensor<16x32xi32, #l2>
    %v = tile.load %xp, %m : tensor<16x32x!tile.ptr<f32>, #l2>
    tile.store %xp, %v, %m : tensor<16x32x!tile.ptr<f32>, #l2>
    return
  }
}

// -----

// Odd-width integers live in memory as whole bytes: a <4 x i7> load would
// be bit-packed while the addressing is per byte.
// CHECK-LABEL: llvm.func @odd
// CHECK: llvm.getelementptr {{.*}} i8
// CHECK: llvm.load {{.*}} -> vector<4xi8>
// CHECK: llvm.trunc {{.*}} : i8 to i7
// CHECK: llvm.zext {{.*}} : i3 to i8
// CHECK: llvm.store {{.*}} : vector<4xi8>
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @odd(%p: !tile.ptr<i7> {tile.divisibility = 16 : i32}, %q: !tile.ptr<i3> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<i7>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<i7>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp : tensor<512x!tile.ptr<i7>, #l>
    %w = arith.trunci %v : tensor<512xi7, #l> to tensor<512xi3, #l>
    %qs = tile.splat %q : tensor<512x!tile.ptr<i3>, #l>
    %qp = tile.addptr %qs, %r : tensor<512x!tile.ptr<i3>, #l>, tensor<512xi32, #l>
    tile.store %qp, %w : tensor<512x!tile.ptr<i3>, #l>
    return
  }
}

// -----

// An fp8 constant (folding a bitcast of an integer constant makes one) is its
// bits: LLVM has no fp8 float type. 0.5 in e4m3 is 0x30, in e5m2 0x38.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @fp8_constants
  // CHECK-DAG: llvm.mlir.constant(48 : i8) : i8
  // CHECK-DAG: llvm.mlir.constant(56 : i8) : i8
  func.func public @fp8_constants(%p: !tile.ptr<f8E4M3FN>, %q: !tile.ptr<f8E5M2>) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %c = arith.constant dense<0.5> : tensor<512xf8E4M3FN, #l>
    %d = arith.constant dense<0.5> : tensor<512xf8E5M2, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f8E4M3FN>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f8E4M3FN>, #l>, tensor<512xi32, #l>
    tile.store %pp, %c : tensor<512x!tile.ptr<f8E4M3FN>, #l>
    %qs = tile.splat %q : tensor<512x!tile.ptr<f8E5M2>, #l>
    %qp = tile.addptr %qs, %r : tensor<512x!tile.ptr<f8E5M2>, #l>, tensor<512xi32, #l>
    tile.store %qp, %d : tensor<512x!tile.ptr<f8E5M2>, #l>
    return
  }
}
