// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// An im2col TMA load of a rank-4 (NHWC) tensor: four coordinates and two
// 16-bit offsets, both handed over innermost first (C, W, H, N; W, H). A
// block of 32 f32 channels under a 32-byte swizzle is four boxes of 8
// channels, each at the next channel coordinate and the next 32-pixel x
// 32-byte chunk of the buffer (128 x 32 = 4096 bytes apart).
// The instruction is written out in the PTX ISA's order (the mode before the
// completion mechanism: `.global.im2col.mbarrier::...`, as Triton prints it).
// CHECK-LABEL: llvm.func @nhwc(
// CHECK-SAME: %[[D:[^:]*]]: !llvm.ptr {{.*}}, %[[N:[^:]*]]: i32, %[[H:[^:]*]]: i32, %[[W:[^:]*]]: i32, %[[C:[^:]*]]: i32, %[[R:[^:]*]]: i16, %[[S:[^:]*]]: i16
// CHECK: "@$9 cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5}], [$6], {$7, $8};", "l,l,r,r,r,r,r,h,h,b" %{{.*}}, %[[D]], %[[C]], %[[W]], %[[H]], %[[N]], %{{.*}}, %[[S]], %[[R]], %{{.*}} :
// CHECK-COUNT-3: "@$9 cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5}], [$6], {$7, $8};", "l,l,r,r,r,r,r,h,h,b" %{{.*}}, %[[D]], %{{.*}}, %[[W]], %[[H]], %[[N]], %{{.*}}, %[[S]], %[[R]], %{{.*}} :
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: llvm.return
// PTX-LABEL: .entry nhwc
// PTX-COUNT-4: cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}{{[}]}}], [%r{{[0-9]+}}], {%rs{{[0-9]+}}, %rs{{[0-9]+}}};

// Rank 3 (NWC, one offset) and rank 5 (NDHWC, three), one box each.
// PTX-LABEL: .entry nwc
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}{{[}]}}], [%r{{[0-9]+}}], {%rs{{[0-9]+}}};
// PTX-LABEL: .entry ndhwc
// PTX: cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}{{[}]}}], [%r{{[0-9]+}}], {%rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}};

// Multicast: the offsets come before the ctaMask.
// PTX-LABEL: .entry shared_im2col
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {{.*}}], [%r{{[0-9]+}}], {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, %rs{{[0-9]+}};
#nv32 = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 32, layoutRank = 2, transposed = false>
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @nhwc(%d: !tile.tensordesc<tensor<128x32xf32, #nv32>, im2col = 4>, %n: i32, %h: i32, %w: i32, %c: i32, %r: i16, %s: i16) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<128x32xf32, #nv32, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 16384 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %d[%n, %h, %w, %c] offsets [%r, %s], %bar, %buf : !tile.tensordesc<tensor<128x32xf32, #nv32>, im2col = 4>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x32xf32, #nv32, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
  func.func @nwc(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 3>, %n: i32, %w: i32, %c: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    %o = arith.constant 300 : i16
    tile_nv.async_tma_copy_global_to_local %d[%n, %w, %c] offsets [%o], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 3>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
  func.func @ndhwc(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 5>, %n: i32, %z: i32, %h: i32, %w: i32, %c: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    %o1 = arith.constant 1 : i16
    %o2 = arith.constant 2 : i16
    tile_nv.async_tma_copy_global_to_local %d[%n, %z, %h, %w, %c] offsets [%o1, %o2, %o1], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 5>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
  func.func @shared_im2col(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, %n: i32, %mask: i32, %r: i16) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %d[%n, %n, %n, %n] offsets [%r, %r], %bar, %buf multicast %mask : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
