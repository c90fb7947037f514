// RUN: kiln-opt %s -split-input-file --tile-split-cluster -verify-diagnostics | FileCheck %s

// Tensors split among the CTAs of a cluster (#tile.cga) become each CTA's part;
// a split arange adds where the CTA's part starts: the CTA's rank is program_id 0
// modulo the CTA count, each rank bit moves by its basis (in CTA tiles) times the
// part's size. The GPU tests (third_party/nvidia/test/gpu/test_cluster.py, Triton's
// test_mma_shared_inputs with ctas_per_cga) check the results.

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.cga<{bases = [[0, 0], [1, 0]], layout = #b}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S1:.*]] = #tile.slice<{dim = 1, parent = #[[B]]}>
// CHECK-DAG: #[[S0:.*]] = #tile.slice<{dim = 0, parent = #[[B]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // 64 rows split in two by rank bit 1 (bit 0 broadcasts): 32 rows each, the
  // second CTA pair's from row 32. The columns are not split.
  // CHECK-LABEL: func.func @rows
  // CHECK: %[[R:.*]] = tile.arange 0, 32 : tensor<32xi32, #[[S1]]>
  // CHECK: %[[PID:.*]] = tile.program_id 0
  // CHECK: %[[RANK:.*]] = arith.andi %[[PID]], %{{.*}} : i32
  // CHECK: %[[BIT:.*]] = arith.shrui %[[RANK]], %{{.*}} : i32
  // CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c32_i32 : i32
  // CHECK: %[[SPLAT:.*]] = tile.splat %[[OFF]] : tensor<32xi32, #[[S1]]>
  // CHECK: %[[MOVED:.*]] = arith.addi %[[R]], %[[SPLAT]]
  // CHECK: tile.expand_dims %[[MOVED]] {axis = 1 : i32} : tensor<32xi32, #[[S1]]> -> tensor<32x1xi32, #[[B]]>
  // CHECK: tile.arange 0, 16 : tensor<16xi32, #[[S0]]>
  // CHECK-NOT: tile.program_id
  // CHECK: arith.constant dense<16> : tensor<32x1xi32, #[[B]]>
  // CHECK: tile.store {{.*}} : tensor<32x16x!tile.ptr<f32>, #[[B]]>
  func.func @rows(%x: !tile.ptr<f32>) {
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #rows}>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #rows}>> -> tensor<64x1xi32, #rows>
    %c = tile.arange 0, 16 : tensor<16xi32, #tile.slice<{dim = 0, parent = #rows}>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #tile.slice<{dim = 0, parent = #rows}>> -> tensor<1x16xi32, #rows>
    %w = arith.constant dense<16> : tensor<64x1xi32, #rows>
    %rw = arith.muli %r1, %w : tensor<64x1xi32, #rows>
    %rb = tile.broadcast %rw : tensor<64x1xi32, #rows> -> tensor<64x16xi32, #rows>
    %cb = tile.broadcast %c1 : tensor<1x16xi32, #rows> -> tensor<64x16xi32, #rows>
    %off = arith.addi %rb, %cb : tensor<64x16xi32, #rows>
    %p0 = tile.splat %x : tensor<64x16x!tile.ptr<f32>, #rows>
    %p = tile.addptr %p0, %off : tensor<64x16x!tile.ptr<f32>, #rows>, tensor<64x16xi32, #rows>
    %v = tile.load %p : tensor<64x16x!tile.ptr<f32>, #rows>
    tile.store %p, %v : tensor<64x16x!tile.ptr<f32>, #rows>
    return
  }
}

// -----

// A reduction along a split dimension: each CTA reduces its part (32 of the 64
// rows); cluster_peers names the rank bits of the CTAs holding the other parts
// (bit 1 here: bit 0 moves along the columns), whose results the lowering
// combines. The result is every CTA's whole (the slice repeats along bit 1).
// CHECK-LABEL: func.func @sum_split_rows
// CHECK: tile.reduce %{{.*}} {axis = 0 : i32, tile.cluster_peers = 2 : i32} : tensor<32x8xf32, #{{.*}}> -> tensor<8xf32
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.cga<{bases = [[0, 1], [1, 0]], layout = #b}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @sum_split_rows() {
    %t = arith.constant dense<1.0> : tensor<64x16xf32, #rows>
    %s = "tile.reduce"(%t) ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce_return %r : f32
    }) {axis = 0 : i32} : (tensor<64x16xf32, #rows>) -> tensor<16xf32, #tile.slice<{dim = 0, parent = #rows}>>
    return
  }
}

// -----

// Along a dimension the layout does not split: no peers.
// CHECK-LABEL: func.func @sum_unsplit_columns
// CHECK: tile.reduce %{{.*}} {axis = 1 : i32} : tensor<32x16xf32
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.cga<{bases = [[1, 0]], layout = #b}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @sum_unsplit_columns() {
    %t = arith.constant dense<1.0> : tensor<64x16xf32, #rows>
    %s = "tile.reduce"(%t) ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce_return %r : f32
    }) {axis = 1 : i32} : (tensor<64x16xf32, #rows>) -> tensor<64xf32, #tile.slice<{dim = 1, parent = #rows}>>
    return
  }
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.cga<{bases = [[1, 0]], layout = #b}>
#cols = #tile.cga<{bases = [[0, 1]], layout = #b}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @resplit(%t: tensor<64x64xf32, #rows>) {
    // expected-error @+1 {{convert_layout between layouts that split the tensor differently among the CTAs of a cluster ([[1, 0]] -> [[0, 1]]) would move data between CTAs, which Kiln does not do yet}}
    %c = tile.convert_layout %t : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    return
  }
}
