// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A per-warp arrival: every warp synchronizes its lanes (bar.warp.sync, which
// orders their shared-memory accesses), then its lane 0 arrives (a predicated
// arrive.expect_tx of 0 bytes), with no CTA barrier before it although the
// threads read shared memory. An elected-warp wait: only warp 0 spins (behind
// a branch on the warp index); the other warps go on.
// CHECK-LABEL: llvm.func @release_and_refill
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid
// CHECK-NEXT: %[[L0:.*]] = llvm.icmp "eq" %[[LANE]]
// CHECK-NEXT: %[[W0:.*]] = llvm.icmp "eq"
// CHECK: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: llvm.inline_asm {{.*}}"@$2 mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;", "r,n,b" %{{.*}}, %{{.*}}, %[[L0]]
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.cond_br %[[W0]]
// CHECK: mbarrier.try_wait.parity.shared.b64
// PTX: bar.warp.sync
// PTX: mbarrier.arrive.expect_tx.shared.b64 _, [%r{{[0-9]+}}], 0;
// PTX: mbarrier.try_wait.parity.shared.b64
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @release_and_refill(%phase: i32, %v: tensor<256xf32, #l>) -> tensor<256xf32, #l> {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    tile_nv.mbarrier_init %bar, 8 : !tile.memdesc<1xi64, #sh, mutable>
    tile.local_store %v, %buf : tensor<256xf32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    tile_nv.mbarrier_arrive %bar, 1 {per_warp} : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase {elected_warp} : !tile.memdesc<1xi64, #sh, mutable>, i32
    return %r : tensor<256xf32, #l>
  }
}
