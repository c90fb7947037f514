// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// tile_nv.async_bulk_copy_global_to_local (Gluon's hopper.bulk.async_load):
// the elected thread, where the predicate holds, branches to one
// cp.async.bulk of `bytes` bytes into the slot (a subslice at its offset),
// completing on the barrier; a run-time byte count goes in a register.
// Without a multicast the destination is this CTA's shared memory, PTX 8.6's
// .shared::cta form (the module's PTX version rises to 8.6); with a mask
// only the CTA of lowest rank in the mask issues, into .shared::cluster,
// with the mask as PTX's 16-bit ctaMask.
// CHECK-LABEL: llvm.func @constant_bytes
// CHECK: llvm.cond_br
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, <1>
// CHECK-NOT: nvvm.cp.async.bulk.shared.cluster.global
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK-LABEL: llvm.func @run_time_bytes
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %arg1 : !llvm.ptr<3>, <1>
// CHECK-LABEL: llvm.func @multicast
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: %[[M16:.*]] = llvm.trunc %{{.*}} : i32 to i16
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} multicast_mask = %[[M16]] : !llvm.ptr<7>, <1>
// PTX: .version 8.6
// PTX-LABEL: .entry constant_bytes
// PTX: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [global_smem+4096], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [global_smem+{{[0-9]+}}];
// PTX-LABEL: .entry run_time_bytes
// PTX: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [global_smem], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [global_smem+{{[0-9]+}}];
// PTX-LABEL: .entry multicast
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [global_smem], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [global_smem+{{[0-9]+}}], %rs{{[0-9]+}};
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#row = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<2x1024xf32, #sh, mutable>
!slot = !tile.memdesc<1024xf32, #sh, mutable, 2x1024>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @constant_bytes(%src: !tile.ptr<f32>, %out: !tile.ptr<f32>, %p: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %buf = tile.local_alloc : () -> !buf
    %slot = tile.memdesc_index %buf[%c1] : !buf -> !slot
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096, %p : !bar
    tile_nv.async_bulk_copy_global_to_local %src, %n, %bar, %slot, %p : !tile.ptr<f32>, !bar, !slot
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %slot : !slot -> tensor<1024xf32, #row>
    %r = tile.arange 0, 1024 : tensor<1024xi32, #row>
    %o = tile.splat %out : tensor<1024x!tile.ptr<f32>, #row>
    %ptrs = tile.addptr %o, %r : tensor<1024x!tile.ptr<f32>, #row>, tensor<1024xi32, #row>
    tile.store %ptrs, %v : tensor<1024x!tile.ptr<f32>, #row>
    return
  }
  func.func @run_time_bytes(%src: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %slot = tile.memdesc_index %buf[%c0] : !buf -> !slot
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    tile_nv.async_bulk_copy_global_to_local %src, %n, %bar, %slot : !tile.ptr<f32>, !bar, !slot
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }
  func.func @multicast(%src: !tile.ptr<f32>, %mask: i32) {
    %c0 = arith.constant 0 : i32
    %n = arith.constant 4096 : i32
    %buf = tile.local_alloc : () -> !buf
    %slot = tile.memdesc_index %buf[%c0] : !buf -> !slot
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_expect %bar, 4096 : !bar
    tile_nv.async_bulk_copy_global_to_local %src, %n, %bar, %slot multicast %mask : !tile.ptr<f32>, !bar, !slot
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return
  }
}
