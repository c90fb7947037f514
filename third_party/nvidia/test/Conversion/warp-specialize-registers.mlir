// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// partition_num_regs moves registers between warp groups (setmaxnreg). The
// kernel's 4 warps are one group. Workers are placed largest first, each at
// a multiple of min(its warps, 4): worker 1 (4 warps) on warps 4-7, one
// whole group, worker 0 (2 warps) on 8-9, padded to the group 8-11, so 12
// warps are launched (384 threads) and each starts with 65536 / 384 = 170 ->
// 168 registers (.maxnreg). Group 4-7 sets worker 1's 80, group 8-11 worker
// 0's 24. The kernel's warps take the rest, 168 * 384 - (80 + 24) * 128 =
// 51200 registers over 128 threads = 400, capped at 256. Each worker group
// sets its count with one instruction and then waits at the start barrier in
// a loop of its own, which holds only its partitions (ptxas keeps a
// setmaxnreg only where the code after it is that count's alone); warps
// 10-11 are padding and go to the end barrier.
// CHECK-LABEL: llvm.func @ws_regs
// CHECK-SAME: nvvm.maxnreg = 168 : i32
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-DAG: %[[C384:.*]] = llvm.mlir.constant(384 : i32)
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-DAG: %[[C10:.*]] = llvm.mlir.constant(10 : i32)
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx
// CHECK: %[[MINE:.*]] = llvm.icmp "ult" %[[WARP]], %[[C4]]
// CHECK: llvm.cond_br %[[MINE]], ^[[KERNEL:bb[0-9]+]], ^[[DISPATCH:bb[0-9]+]]
// CHECK: ^[[KERNEL]]:
// CHECK-NEXT: nvvm.setmaxregister increase 256
// CHECK: ^[[DISPATCH]]:
// CHECK-NEXT: %[[G0:.*]] = llvm.icmp "ult" %[[WARP]], %[[C8]]
// CHECK-NEXT: llvm.cond_br %[[G0]], ^[[SET0:bb[0-9]+]], ^[[SET1:bb[0-9]+]]
// CHECK: ^[[SET0]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 80
// CHECK-NEXT: llvm.br ^[[WAIT0:bb[0-9]+]]
// CHECK: ^[[WAIT0]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C384]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C384]])
// CHECK-NEXT: llvm.load
// CHECK: ^[[SET1]]:
// CHECK-NEXT: llvm.br ^[[ENTRY1:bb[0-9]+]]
// CHECK-NOT: llvm.icmp "ult" %[[WARP]]
// CHECK: llvm.store
// CHECK: llvm.br ^[[WAIT0]]
// CHECK: ^[[ENTRY1]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 24
// CHECK-NEXT: llvm.br ^[[WAIT1:bb[0-9]+]]
// CHECK: ^[[WAIT1]]:
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C384]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%[[C1]], %[[C384]])
// CHECK-NEXT: llvm.load
// CHECK: %[[W0:.*]] = llvm.icmp "ult" %[[WARP]], %[[C10]]
// CHECK-NEXT: llvm.cond_br %[[W0]]
// CHECK: llvm.store
// CHECK: llvm.br ^[[WAIT1]]
// CHECK-NOT: nvvm.setmaxregister
// PTX: .maxntid 384, 1, 1
// PTX: .maxnreg 168
// PTX: setmaxnreg.inc.sync.aligned.u32 256;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 80;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 24;
// PTX-NOT: setmaxnreg
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_regs(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [2, 4] partition_num_regs = [24, 80] {
      tile.barrier
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 64 : tensor<64xi32, #blocked>
      %3 = tile.splat %arg0 : tensor<64x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<64x!tile.ptr<i32>, #blocked>, tensor<64xi32, #blocked>
      tile.store %4, %2 : tensor<64x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }, {
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
