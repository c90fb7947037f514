// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A multicast TMA load: the mask's CTAs all run the op; the one of lowest
// rank in the mask (no mask bit below its own rank) issues it, with the
// mask as PTX's 16-bit ctaMask. Without a mask the copy is the plain one.
// CHECK-LABEL: llvm.func @shared_copy
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: %[[BIT:.*]] = llvm.shl %{{.*}}, %[[RANK]]
// CHECK: %[[BELOW:.*]] = llvm.sub %[[BIT]], %{{.*}}
// CHECK: %[[LOWER:.*]] = llvm.and %[[MASK:.*]], %[[BELOW]]
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[LOWER]], %{{.*}}
// CHECK: %[[ISSUE:.*]] = llvm.and %{{.*}}, %[[LEADER]]
// CHECK: %[[M16:.*]] = llvm.trunc %[[MASK]] : i32 to i16
// CHECK: "@$6 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [$0], [$1, {$2,$3} ], [$4], $5;", "l,l,r,r,r,h,b" {{.*}}, %[[M16]], %[[ISSUE]] :
// CHECK-LABEL: llvm.func @own_copy
// CHECK-NOT: ctarank
// CHECK-NOT: multicast
// CHECK: llvm.return
// PTX-LABEL: .entry shared_copy
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {{.*}}], [%r{{[0-9]+}}], %rs{{[0-9]+}};
// PTX-LABEL: .entry own_copy
// PTX-NOT: multicast::cluster

// An arrival on the barrier at the same place in the CTAs whose rank differs
// only in cta_mask's bits (here bits 0 and 1: four CTAs): each address mapped
// to rank (rank & ~3) | k, then an arrive there (release, PTX's default).
// Predicated, not behind a branch (no divergence while a wgmma is in flight).
// The barrier's only arrival is the 4 warps' (tile-nv-per-warp-arrivals):
// counts scaled by 2 (init 16), each warp synchronizes and its lane 0 arrives
// once on each of the four barriers. The leader's arrival stays one thread's.
// CHECK-LABEL: llvm.func @release_everywhere
// CHECK-NOT: llvm.cond_br
// CHECK: mbarrier.init.shared.b64
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[R:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: %[[BASE:.*]] = llvm.and %[[R]], %{{.*}}
// CHECK: nvvm.mapa %{{.*}}, %[[BASE]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: "@$1 mbarrier.arrive.shared::cluster.b64 _, [$0], 1;", "r,b"
// CHECK-COUNT-3: nvvm.mapa
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.return
// PTX-LABEL: .entry release_everywhere
// PTX: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 16;
// PTX: bar.warp.sync
// PTX: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX-COUNT-4: @%p{{[0-9]+}} mbarrier.arrive.shared::cluster.b64 _, [%r{{[0-9]+}}], 1;
// PTX-LABEL: .entry release_from_leader
// PTX: mov.u32 %[[RANK:r[0-9]+]], %cluster_ctarank;
// PTX: and.b32 %r{{[0-9]+}}, %[[RANK]], 3;
// PTX: setp.eq.{{[bs]}}32 %p{{[0-9]+}}, %r{{[0-9]+}}, 0;
// PTX-COUNT-4: @%p{{[0-9]+}} mbarrier.arrive.shared::cluster.b64 _, [%r{{[0-9]+}}], 2;
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @shared_copy(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %m: i32, %n: i32, %mask: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 1024 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %d[%m, %n], %bar, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
  func.func @own_copy(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %m: i32, %n: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 1024 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %d[%m, %n], %bar, %buf : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
  func.func @release_everywhere() {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 8 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 2 {cta_mask = 3 : i32} : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
  // From the leader only (Gluon's from_cta): the same four remote arrivals, predicated on
  // the rank's mask bits being clear; the barrier counts the leader's 2, not 8.
  func.func @release_from_leader() {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 2 {cta_mask = 3 : i32, from_leader} : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
