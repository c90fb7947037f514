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
}
