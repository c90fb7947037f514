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
#l2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh2 = #tile.swizzled_shared<{vec = 1, perPhase = 2, maxPhase = 4, order = [1, 0]}>
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

  // tile_nv.cluster_load / cluster_store: every coordinate given, each
  // dimension's image in the part XORed (no thread part: the coordinates
  // say where), then mapa and ld / st.shared::cluster.
  // CHECK-LABEL: llvm.func @load_from_peers
  // CHECK: nvvm.mapa
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<7> -> i32
  // PTX-LABEL: .entry load_from_peers
  // PTX: mapa.shared::cluster.u32
  // PTX: ld.shared::cluster.{{[bu]}}32
  func.func @load_from_peers(%r: tensor<2x32xi32, #l2>, %c: tensor<2x32xi32, #l2>, %ranks: tensor<2x32xi32, #l2>, %out: tensor<2x32x!tile.ptr<i32>, #l2>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<2x32xi32, #sh2, mutable>
    %g = tile_nv.cluster_load %buf[%r, %c] ranks(%ranks) {keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh2, mutable>, (tensor<2x32xi32, #l2>, tensor<2x32xi32, #l2>), tensor<2x32xi32, #l2> -> tensor<2x32xi32, #l2>
    tile.store %out, %g : tensor<2x32x!tile.ptr<i32>, #l2>
    return
  }

  // CHECK-LABEL: llvm.func @store_to_peers
  // CHECK: nvvm.mapa
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<7>
  // PTX-LABEL: .entry store_to_peers
  // PTX: st.shared::cluster.{{[bu]}}32
  func.func @store_to_peers(%v: tensor<2x32xi32, #l2>, %r: tensor<2x32xi32, #l2>, %c: tensor<2x32xi32, #l2>, %ranks: tensor<2x32xi32, #l2>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<2x32xi32, #sh2, mutable>
    tile_nv.cluster_store %v, %buf[%r, %c] ranks(%ranks) {keep = 1 : i32} : tensor<2x32xi32, #l2>, !tile.memdesc<2x32xi32, #sh2, mutable>, (tensor<2x32xi32, #l2>, tensor<2x32xi32, #l2>), tensor<2x32xi32, #l2>
    return
  }

  // tile_nv.cluster_atomic_rmw: atom (old values used) or red (not used; an
  // add of ones: red.inc) on .shared::cluster, relaxed at cluster scope.
  // PTX-LABEL: .entry atomics_on_peers
  // PTX: atom.shared::cluster.cluster.relaxed.max.s32
  // PTX: red.shared::cluster.cluster.relaxed.inc.u32
  // PTX: red.shared::cluster.cluster.relaxed.xor.b32
  // An old value read only by a dead op (the DSL's reduce of a dropped scalar
  // result): not used, so red too.
  // PTX: red.shared::cluster.cluster.relaxed.or.b32
  func.func @atomics_on_peers(%v: tensor<32xi32, #l>, %idx: tensor<32xi32, #l>, %ranks: tensor<32xi32, #l>, %out: tensor<32x!tile.ptr<i32>, #l>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32xi32, #sh, mutable>
    %old = tile_nv.cluster_atomic_rmw "max" %v, %buf[%idx] ranks(%ranks) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
    tile.store %out, %old : tensor<32x!tile.ptr<i32>, #l>
    %one = arith.constant dense<1> : tensor<32xi32, #l>
    %u = tile_nv.cluster_atomic_rmw "add" %one, %buf[%idx] ranks(%ranks) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
    %x = tile_nv.cluster_atomic_rmw "xor" %v, %buf[%idx] ranks(%ranks) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
    %y = tile_nv.cluster_atomic_rmw "or" %v, %buf[%idx] ranks(%ranks) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
    %dead = tile.reduce %y {axis = 0 : i32} : tensor<32xi32, #l> -> i32 {
    ^bb0(%a: i32, %b: i32):
      %m = arith.ori %a, %b : i32
      tile.reduce_return %m : i32
    }
    return
  }
}
