// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: not kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// A reduce along a dimension split among the CTAs of a cluster (after
// tile-split-cluster: each CTA's part, cluster_peers naming the rank bits of
// the CTAs with the other parts): the CTA's result is combined across its warps
// as any reduce's, written into its scratch (after the warps' exchange), the
// cluster waits, every peer's result is read through mapa / ld.shared::cluster
// in rank order (the CTA's rank with the peer bits 0, 1, 2, 3 here) and
// combined, and the cluster waits again before the scratch is reused.
// CHECK-LABEL: llvm.func @max_across_ctas
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK-COUNT-4: nvvm.mapa
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// PTX-LABEL: .entry max_across_ctas
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-COUNT-4: ld.shared::cluster.b32
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// SM80: error: 'tile.reduce' op reduces across the CTAs of a cluster, which needs distributed shared memory this target lacks
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @max_across_ctas(%x: tensor<1024xf32, #l>, %out: tensor<1024x!tile.ptr<f32>, #l>) {
    %m = "tile.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.maxnumf %a, %b : f32
      tile.reduce_return %r : f32
    }) {axis = 0 : i32, tile.cluster_peers = 3 : i32} : (tensor<1024xf32, #l>) -> f32
    %v = tile.splat %m : tensor<1024xf32, #l>
    tile.store %out, %v : tensor<1024x!tile.ptr<f32>, #l>
    return
  }

  // Rows split among the CTAs (peer bit 1; bit 0 splits the columns): each
  // column's sum is combined with the CTA of the other rows, ranks
  // (own & 1) | 0 and (own & 1) | 2.
  // CHECK-LABEL: llvm.func @column_sums_across_ctas
  // CHECK: %[[MASK:.*]] = llvm.mlir.constant(-3 : i32)
  // CHECK: nvvm.cluster.arrive
  // CHECK-NEXT: nvvm.cluster.wait
  // CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
  // CHECK-NEXT: llvm.and %[[RANK]], %[[MASK]]
  // CHECK-COUNT-8: nvvm.mapa
  // CHECK: nvvm.cluster.arrive
  // CHECK-NEXT: nvvm.cluster.wait
  // PTX-LABEL: .entry column_sums_across_ctas
  // PTX-COUNT-8: ld.shared::cluster.b32
  func.func @column_sums_across_ctas(%x: tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, %out: tensor<16x!tile.ptr<f32>, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
    %s = "tile.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce_return %r : f32
    }) {axis = 0 : i32, tile.cluster_peers = 2 : i32} : (tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>) -> tensor<16xf32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
    tile.store %out, %s : tensor<16x!tile.ptr<f32>, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
    return
  }
}
