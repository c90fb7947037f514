// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Gluon's async_copy.mbarrier_arrive: every thread (no elected thread, no
// branch) makes the barrier track its cp.async copies; increment (the
// default) is the plain form, increment = false the .noinc one. The copy is
// never committed or waited with wait_group: the mbarrier wait covers it.
// CHECK-LABEL: llvm.func @copy_then_arrive
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: llvm.cond_br
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// PTX: cp.async.mbarrier.arrive.shared.b64
// PTX: cp.async.mbarrier.arrive.noinc.shared.b64
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<512x!tile.ptr<f32>, #l>
!m = !tile.memdesc<512xf32, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @copy_then_arrive(%p: !p, %q: !p) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar : !bar
    tile_nv.async_copy_mbarrier_arrive %bar {increment = false} : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    tile.store %q, %v : !p
    return
  }
}
