// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" | kiln-translate --target=cuda:sm_80 --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// mbarriers on sm_80 (Gluon's ampere.mbarrier): no elect.sync (lane 0 of
// warp 0 is the one thread), no try_wait (waits spin on test_wait.parity),
// no arrive count (two arrivals are two arrive instructions), no
// expect_tx; ptxas for sm_80 accepts the result.
// CHECK-NOT: elect.sync
// CHECK: mbarrier.init.shared.b64
// CHECK: mbarrier.test_wait.parity.shared.b64 complete, [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: mbarrier.arrive.shared.b64 st, [%r{{[0-9]+}}];
// CHECK-NOT: mbarrier.arrive.expect_tx
// CHECK: mbarrier.arrive.shared.b64 st, [%r{{[0-9]+}}];
// CHECK-NEXT: mbarrier.arrive.shared.b64 st, [%r{{[0-9]+}}];
// CHECK: mbarrier.inval.shared.b64
// CHECK-NOT: try_wait
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @mbarrier_sm80(%phase: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
