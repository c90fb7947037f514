// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// tile_nv.cluster_gather: each element's address in this CTA's part (as
// local_gather's), moved to the target CTA's part by mapa and read there
// (ld.shared::cluster). With `keep`, the kept rank bits are this CTA's own
// (%cluster_ctarank).
// CHECK-LABEL: llvm.func @gather_from_peers
// CHECK: nvvm.mapa
// CHECK: llvm.load %{{.*}} : !llvm.ptr<7> -> i32
// PTX-LABEL: .entry gather_from_peers
// PTX: mapa.shared::cluster.u32
// PTX: ld.shared::cluster.{{[bu]}}32
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gather_from_peers(%idx: tensor<32xi32, #l>, %ranks: tensor<32xi32, #l>, %out: tensor<32x!tile.ptr<i32>, #l>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32xi32, #sh, mutable>
    %g = tile_nv.cluster_gather %buf[%idx] ranks(%ranks) {axis = 0 : i32, keep = 0 : i32} : !tile.memdesc<32xi32, #sh, mutable>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
    tile.store %out, %g : tensor<32x!tile.ptr<i32>, #l>
    return
  }

  // CHECK-LABEL: llvm.func @gather_keeping_a_replica_bit
  // CHECK: nvvm.read.ptx.sreg.cluster.ctarank
  // CHECK: llvm.and %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.mapa
  // PTX-LABEL: .entry gather_keeping_a_replica_bit
  // PTX: %cluster_ctarank
  func.func @gather_keeping_a_replica_bit(%idx: tensor<32xi32, #l>, %ranks: tensor<32xi32, #l>, %out: tensor<32x!tile.ptr<i32>, #l>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32xi32, #sh, mutable>
    %g = tile_nv.cluster_gather %buf[%idx] ranks(%ranks) {axis = 0 : i32, keep = 2 : i32} : !tile.memdesc<32xi32, #sh, mutable>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
    tile.store %out, %g : tensor<32x!tile.ptr<i32>, #l>
    return
  }

  // tile_nv.cluster_scatter: the same addresses, stored to (st.shared::cluster).
  // CHECK-LABEL: llvm.func @scatter_to_peers
  // CHECK: nvvm.mapa
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<7>
  // PTX-LABEL: .entry scatter_to_peers
  // PTX: mapa.shared::cluster.u32
  // PTX: st.shared::cluster.{{[bu]}}32
  func.func @scatter_to_peers(%v: tensor<32xi32, #l>, %idx: tensor<32xi32, #l>, %ranks: tensor<32xi32, #l>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32xi32, #sh, mutable>
    tile_nv.cluster_scatter %v, %buf[%idx] ranks(%ranks) {axis = 0 : i32, keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, tensor<32xi32, #l>, tensor<32xi32, #l>
    return
  }
}
