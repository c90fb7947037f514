// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Two warp_specialize ops in one kernel. The worker warps are launched once
// for both: op A's 1-warp worker and op B's 4-warp worker share warps 4-7
// (one group, padded), so 8 warps (256 threads) run. The group sets the
// larger of the two counts, 80, once. Then it waits at the start barrier
// and reads the dispatch word, where the kernel's thread 0 wrote which op the
// kernel's warps reached (k for op k; 0 before they return): op A's partition (warp 4;
// warps 5-7 are padding) or op B's, the end barrier, and back to waiting;
// on 0 it returns. The kernel's own barrier between the ops is barrier 0 of
// 128 threads.
// CHECK-LABEL: llvm.func @ws_several
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i32)
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
// CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-DAG: %[[WORDP:.*]] = llvm.mlir.addressof @global_smem
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx
// CHECK: %[[MINE:.*]] = llvm.icmp "ult" %[[WARP]], %[[C4]]
// CHECK: llvm.cond_br %[[MINE]], ^[[KERNEL:bb[0-9]+]], ^[[DISPATCH:bb[0-9]+]]
// The kernel's warps: op A, their own barrier, op B, return.
// CHECK: ^[[KERNEL]]:
// Thread 0 names the call in the dispatch word with a predicated store (no
// branch on the thread index ahead of the default region).
// CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [global_smem+[[WORD:[0-9]+]]], $0;", "r,b" %[[C1]], %[[FIRST]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[C0]], %[[C128]])
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [global_smem+[[WORD]]], $0;", "r,b" %[[C2]], %[[FIRST]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [global_smem+[[WORD]]], $0;", "r,b" %[[C0]], %[[FIRST]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.return
// CHECK-NOT: st.shared.b32

// CHECK: ^[[DISPATCH]]:
// CHECK-NEXT: llvm.br ^[[GO:bb[0-9]+]]
// CHECK: ^[[GO]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 80
// CHECK-NEXT: llvm.br ^[[WAIT:bb[0-9]+]]
// CHECK: ^[[WAIT]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: %[[CALL:.*]] = llvm.load %[[WORDP]] : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[DONE:.*]] = llvm.icmp "eq" %[[CALL]], %[[C0]]
// CHECK-NEXT: llvm.cond_br %[[DONE]], ^[[RET:bb[0-9]+]], ^[[NOTDONE:bb[0-9]+]]
// CHECK: ^[[RET]]:
// CHECK-NEXT: llvm.return
// CHECK: ^[[NOTDONE]]:
// CHECK-NEXT: %[[ISA:.*]] = llvm.icmp "eq" %[[CALL]], %[[C1]]
// CHECK-NEXT: llvm.cond_br %[[ISA]], ^[[OPA:bb[0-9]+]], ^[[OPB:bb[0-9]+]]
// CHECK: ^[[OPA]]:
// CHECK-NEXT: %[[W4:.*]] = llvm.icmp "ult" %[[WARP]], %[[C5]]
// CHECK-NEXT: llvm.cond_br %[[W4]], ^[[PARTA:bb[0-9]+]], ^[[PADA:bb[0-9]+]]
// CHECK: ^[[PARTA]]:
// CHECK: llvm.store
// CHECK-NEXT: llvm.br ^[[ENDA:bb[0-9]+]]
// CHECK: ^[[PADA]]:
// CHECK-NEXT: llvm.br ^[[ENDA]]
// CHECK: ^[[ENDA]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.br ^[[WAIT]]
// CHECK: ^[[OPB]]:
// CHECK: llvm.store
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C256]])
// CHECK-NEXT: llvm.br ^[[WAIT]]
// CHECK-NOT: nvvm.setmaxregister
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_several(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [40] {
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 32 : tensor<32xi32, #blocked>
      %3 = tile.splat %arg0 : tensor<32x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<32x!tile.ptr<i32>, #blocked>, tensor<32xi32, #blocked>
      tile.store %4, %2 : tensor<32x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    tile.barrier
    tile.warp_specialize partition_num_warps = [4] partition_num_regs = [80] {
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 128 : tensor<128xi32, #blocked1>
      %c64_i32 = arith.constant 64 : i32
      %3 = tile.addptr %arg0, %c64_i32 : !tile.ptr<i32>, i32
      %4 = tile.splat %3 : tensor<128x!tile.ptr<i32>, #blocked1>
      %5 = tile.addptr %4, %2 : tensor<128x!tile.ptr<i32>, #blocked1>, tensor<128xi32, #blocked1>
      tile.store %5, %2 : tensor<128x!tile.ptr<i32>, #blocked1>
      tile.warp_yield
    }
    return
  }
}
