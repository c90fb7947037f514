// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// TMA reduce-stores: the store's boxes (two 32-column boxes of the 128-byte
// swizzle for 64 f32 columns), each a cp.reduce.async.bulk.tensor of the
// op's kind, issued by the elected thread behind a branch (NVVM's op has no
// predicate) and committed as one bulk group by every thread, as a store is.
// CHECK-LABEL: llvm.func @reduce_kinds
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.cond_br
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<add>
// CHECK: llvm.br
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<min>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<max>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<and>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<or>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{.*}} {redKind = #nvvm.tma_redux_kind<xor>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK: llvm.return
// PTX-COUNT-2: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// PTX: cp.async.bulk.commit_group;
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.and.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.or.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group
// PTX: cp.async.bulk.wait_group 0;
// PTX-NOT: cp.async.bulk.wait_group.read
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#nv32 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#nv16 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nv64 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 64, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_kinds(%f: !tile.tensordesc<tensor<32x64xf32, #nv32>>, %h: !tile.tensordesc<tensor<32x32xf16, #nv16>>, %i: !tile.tensordesc<tensor<32x32xi32, #nv32>>, %l: !tile.tensordesc<tensor<32x16xi64, #nv64>>, %m: i32, %n: i32) {
    %vf = arith.constant dense<1.0> : tensor<32x64xf32, #blk>
    %bf = tile.local_alloc %vf : (tensor<32x64xf32, #blk>) -> !tile.memdesc<32x64xf32, #nv32, mutable>
    %bh = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #nv16, mutable>
    %bi = tile.local_alloc : () -> !tile.memdesc<32x32xi32, #nv32, mutable>
    %bl = tile.local_alloc : () -> !tile.memdesc<32x16xi64, #nv64, mutable>
    tile_nv.fence_async_shared {cluster = false}
    tile_nv.async_tma_reduce add, %f[%m, %n], %bf : !tile.tensordesc<tensor<32x64xf32, #nv32>>, !tile.memdesc<32x64xf32, #nv32, mutable>
    tile_nv.async_tma_reduce min, %h[%m, %n], %bh : !tile.tensordesc<tensor<32x32xf16, #nv16>>, !tile.memdesc<32x32xf16, #nv16, mutable>
    tile_nv.async_tma_reduce max, %h[%m, %n], %bh : !tile.tensordesc<tensor<32x32xf16, #nv16>>, !tile.memdesc<32x32xf16, #nv16, mutable>
    tile_nv.async_tma_reduce and, %i[%m, %n], %bi : !tile.tensordesc<tensor<32x32xi32, #nv32>>, !tile.memdesc<32x32xi32, #nv32, mutable>
    tile_nv.async_tma_reduce or, %i[%m, %n], %bi : !tile.tensordesc<tensor<32x32xi32, #nv32>>, !tile.memdesc<32x32xi32, #nv32, mutable>
    tile_nv.async_tma_reduce xor, %l[%m, %n], %bl : !tile.tensordesc<tensor<32x16xi64, #nv64>>, !tile.memdesc<32x16xi64, #nv64, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
    return
  }
}
