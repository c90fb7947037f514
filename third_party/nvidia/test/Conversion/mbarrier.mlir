// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// One thread (lane 0 of warp 0, the warp index made uniform by a shuffle
// from lane 0; a pure %laneid test that LLVM hoists out of loops, where
// elect.sync would stay at every use) initializes the mbarrier (a predicated mbarrier.init)
// with no CTA barrier before it (the init writes only the barrier's word,
// which no earlier access touched), a CTA barrier follows (the init's own:
// waits are not shared-memory accesses to tile-insert-barriers), that thread
// arms it with expected bytes (no CTA barrier: arming publishes nothing),
// every thread spins on try_wait.parity (no suspend hint), the elected
// thread arrives after a CTA barrier (every thread has returned from its
// wait before one thread completes the barrier's next phase: a warp still
// polling would otherwise find a later phase of the same parity in
// progress), one arrival as a predicated arrive.expect_tx of 0 bytes (no
// branch), then two behind a branch (no CTA barrier between: no wait since);
// and it invalidates after a CTA barrier (a wait may still be polling it).
// @arrive_after_store: threads wrote shared memory, so a CTA
// barrier orders their writes before the elected thread's release (the
// barrier comes out of control flow: tile-nv-per-warp-arrivals, which
// cannot follow it to all of its arrivals, leaves it one thread's).
// @arrive_per_warp: the same unpredicated: the barrier counts warps (init 4)
// and each warp releases its own writes (bar.warp.sync, then its lane 0).
// CHECK-LABEL: llvm.func @mbarrier_phases
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]]
// CHECK: nvvm.shfl.sync idx %{{.*}}, %[[WARP]]
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid
// CHECK: llvm.icmp "eq" %[[LANE]], %[[ZERO]]
// CHECK: llvm.inline_asm {{.*}}mbarrier.init.shared.b64
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.inline_asm {{.*}}mbarrier.arrive.expect_tx.shared.b64
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred complete;\0AwaitLoop:\0Ambarrier.try_wait.parity.shared.b64 complete, [$0], $1;\0A@!complete bra.uni waitLoop;\0A}", "r,r,~{memory}"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.inline_asm {{.*}}"@$2 mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;", "r,n,b" %{{[0-9]+}}, %[[ZERO]],
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.cond_br
// CHECK: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.mbarrier.inval
// CHECK-LABEL: llvm.func @arrive_after_store
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm {{.*}}mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;
// CHECK-LABEL: llvm.func @arrive_per_warp
// CHECK: mbarrier.init.shared.b64
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// CHECK: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: llvm.inline_asm {{.*}}mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-NOT: elect.sync
// PTX: mbarrier.init.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: mbarrier.try_wait.parity.shared.b64 complete, [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: mbarrier.arrive.expect_tx.shared.b64 _, [%r{{[0-9]+}}], 0;
// PTX: mbarrier.arrive.shared{{.*}}.b64
// PTX: mbarrier.inval.shared.b64
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @mbarrier_phases(%phase: i32, %p: i1) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 0, %p : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
  func.func @arrive_after_store(%phase: i32, %p: i1, %v: tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
    %bar0 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %bar = scf.if %p -> !tile.memdesc<1xi64, #sh, mutable> {
      scf.yield %bar0 : !tile.memdesc<1xi64, #sh, mutable>
    } else {
      scf.yield %bar0 : !tile.memdesc<1xi64, #sh, mutable>
    }
    %buf = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile.local_store %v, %buf : tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
  func.func @arrive_per_warp(%phase: i32, %v: tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile.local_store %v, %buf : tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> !tile.memdesc<128xf32, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}
