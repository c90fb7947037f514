// RUN: kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The tile_nv dialect is registered with the NVIDIA backend: a module using only
// `tile` round-trips, and an op of tile_nv that does not exist is an error of
// the dialect (not "unregistered dialect").

// CHECK-LABEL: func.func @plain
func.func @plain(%p: !tile.ptr<f32>) {
  return
}

// -----

func.func @unknown() {
  // expected-error @+1 {{unregistered operation 'tile_nv.no_such_op' found in dialect ('tile_nv')}}
  "tile_nv.no_such_op"() : () -> ()
  return
}

// -----

// The mma.sync layouts and op round-trip.
#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @mma_v2
// CHECK: tile_nv.mma_v2 %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16, #tile_nv.dot_op<{opIdx = 0, parent = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>, tensor<32x64xbf16, #tile_nv.dot_op<{opIdx = 1,
func.func @mma_v2(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

// Barriers across a cluster and the mbarrier-init fence round-trip.
// CHECK-LABEL: func.func @cluster_ops
// CHECK: tile_nv.fence_mbarrier_init_cluster
// CHECK: tile_nv.cluster_arrive {relaxed = true}
// CHECK: tile_nv.cluster_arrive
// CHECK: tile_nv.cluster_wait
module attributes {tile.target = "cuda:sm_90a"} {
  func.func @cluster_ops() {
    tile_nv.fence_mbarrier_init_cluster
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_arrive
    tile_nv.cluster_wait
    return
  }
}

// -----

// Named barriers round-trip.
// CHECK-LABEL: func.func @named_barriers
// CHECK: tile_nv.named_barrier_sync 0, 256
// CHECK: tile_nv.named_barrier_arrive 13, 32
func.func @named_barriers() {
  tile_nv.named_barrier_sync 0, 256
  tile_nv.named_barrier_arrive 13, 32
  return
}

// -----

// TMA reduce-stores round-trip with their kind; a store wait prints
// read_only only when it waits for the writes too (read_only = false).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
// CHECK-LABEL: func.func @tma_reduce
// CHECK: tile_nv.async_tma_reduce add, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<32x32xf32, #tile_nv.nvmma_shared
// CHECK: tile_nv.async_tma_reduce xor, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<32x32xi32, #tile_nv.nvmma_shared
// CHECK: tile_nv.async_tma_store_wait {pendings = 1 : i32}
// CHECK: tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
func.func @tma_reduce(%f: !tile.tensordesc<tensor<32x32xf32, #nv>>, %bf: !tile.memdesc<32x32xf32, #nv, mutable>, %i: !tile.tensordesc<tensor<32x32xi32, #nv>>, %bi: !tile.memdesc<32x32xi32, #nv, mutable>, %c: i32) {
  tile_nv.async_tma_reduce add, %f[%c, %c], %bf : !tile.tensordesc<tensor<32x32xf32, #nv>>, !tile.memdesc<32x32xf32, #nv, mutable>
  tile_nv.async_tma_reduce xor, %i[%c, %c], %bi : !tile.tensordesc<tensor<32x32xi32, #nv>>, !tile.memdesc<32x32xi32, #nv, mutable>
  tile_nv.async_tma_store_wait {pendings = 1 : i32, read_only = true}
  tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
  return
}
