// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=ALIGNED --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// tile.warp_specialize: 4 warps of the kernel (default region) plus worker
// partitions of 2 and 1 warps, 7 warps launched. At entry, warps 4.. branch
// to the dispatch; both sides meet at named barrier 1 (224 threads) before
// and after the partitions. Before the start barrier (two barrier.syncs) the
// kernel's thread 0 writes the call's number into the dispatch word (the
// module's scratch_offset): 1 for this call, 0 before it returns; the
// workers wait at the start barrier in a loop, read the word and return on 0. A CTA barrier becomes its partition's: id 0 over
// 128 threads in the default region, id 2 over 64 in worker 0. Worker
// threads count from their partition's first warp (tid - 128, tid - 192),
// and worker 0 recomputes the program id it uses instead of reading the
// default warps' value. No partition_num_regs: no register reallocation, no
// padding (warp-specialize-registers.mlir has them). The warp index is read
// from lane 0 (a shuffle), so ptxas branches on it uniformly.
// CHECK-LABEL: llvm.func @ws
// CHECK-SAME: nvvm.maxntid = array<i32: 224, 1, 1>
// CHECK-DAG: %[[C224:.*]] = llvm.mlir.constant(224 : i32)
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
// CHECK-DAG: %[[C192:.*]] = llvm.mlir.constant(192 : i32)
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32)
// CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-DAG: %[[WORDP:.*]] = llvm.mlir.addressof @global_smem
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LANE0:.*]] = llvm.lshr %[[TID]]
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[LANE0]]
// CHECK: %[[MINE:.*]] = llvm.icmp "ult" %[[WARP]], %[[C4]]
// CHECK: llvm.cond_br %[[MINE]], ^[[KERNEL:bb[0-9]+]], ^[[DISPATCH:bb[0-9]+]]
// CHECK: ^[[KERNEL]]:
// CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [global_smem+[[WORD:[0-9]+]]], $0;", "r,b" %[[C1]], %[[FIRST]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[C0]], %[[C128]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [global_smem+[[WORD]]], $0;", "r,b" %[[C0]], %[[FIRST]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.return
// CHECK: ^[[DISPATCH]]:
// CHECK-NEXT: llvm.br ^[[WAIT:bb[0-9]+]]
// CHECK: ^[[WAIT]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: %[[CALL:.*]] = llvm.load %[[WORDP]] : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[DONE:.*]] = llvm.icmp "eq" %[[CALL]], %[[C0]]
// CHECK-NEXT: llvm.cond_br %[[DONE]], ^[[RET:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK: ^[[RET]]:
// CHECK-NEXT: llvm.return
// CHECK: ^[[NEXT]]:
// CHECK-NEXT: llvm.br ^[[START:bb[0-9]+]]
// CHECK: ^[[START]]:
// CHECK-NEXT: %[[W0:.*]] = llvm.icmp "ult" %[[WARP]], %[[C6]]
// CHECK-NEXT: llvm.cond_br %[[W0]], ^[[WORKER0:bb[0-9]+]], ^[[WORKER1:bb[0-9]+]]
// CHECK: ^[[WORKER0]]:
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[C2]], %[[C64]])
// CHECK: llvm.sub %[[TID]], %[[C128]]
// CHECK: llvm.store
// CHECK: llvm.br ^[[JOIN:bb[0-9]+]]
// CHECK: ^[[WORKER1]]:
// CHECK: llvm.sub %[[TID]], %[[C192]]
// CHECK: llvm.store
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C224]])
// CHECK-NEXT: llvm.br ^[[WAIT]]
// PTX: .maxntid 224, 1, 1
// PTX-NOT: .maxnreg
// PTX-NOT: setmaxnreg
// The partition barrier's two sides reach it at their own instructions: the
// form without .aligned (barrier.sync), never bar.sync, and no reduction
// barrier (bar.red / barrier.red), which synccheck stops as divergent there.
// ALIGNED-NOT: {{bar\.sync[[:space:]]+1, 224|bar(rier)?\.red}}
// PTX-DAG: barrier.sync {{.*}}1, 224;
// PTX-DAG: @%p{{[0-9]+}} st.shared.b32 [global_smem+{{[0-9]+}}], %r{{[0-9]+}};
// PTX-DAG: ld.shared.b32 {{.*}}[global_smem];
// PTX-DAG: bar.sync {{.*}}0, 128;
// PTX-DAG: bar.sync {{.*}}2, 64;
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws(%arg0: !tile.ptr<i32>) {
    %0 = tile.program_id 0
    %c3_i32 = arith.constant 3 : i32
    %1 = arith.muli %0, %c3_i32 : i32
    tile.warp_specialize partition_num_warps = [2, 1] {
      tile.barrier
      tile.warp_yield
    } partitions {
      tile.barrier
      %2 = tile.arange 0, 64 : tensor<64xi32, #blocked>
      %3 = tile.splat %arg0 : tensor<64x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<64x!tile.ptr<i32>, #blocked>, tensor<64xi32, #blocked>
      %5 = tile.splat %1 : tensor<64xi32, #blocked>
      %6 = arith.addi %2, %5 : tensor<64xi32, #blocked>
      tile.store %4, %6 : tensor<64x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }, {
      %2 = tile.arange 0, 32 : tensor<32xi32, #blocked1>
      %c64_i32 = arith.constant 64 : i32
      %3 = tile.addptr %arg0, %c64_i32 : !tile.ptr<i32>, i32
      %4 = tile.splat %3 : tensor<32x!tile.ptr<i32>, #blocked1>
      %5 = tile.addptr %4, %2 : tensor<32x!tile.ptr<i32>, #blocked1>, tensor<32xi32, #blocked1>
      tile.store %5, %2 : tensor<32x!tile.ptr<i32>, #blocked1>
      tile.warp_yield
    }
    return
  }
}

