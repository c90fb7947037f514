// RUN: kiln-opt %s --tile-prepare-warp-specialize="target=cuda:sm_90a" --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s --check-prefix=CONVERTED
// RUN: kiln-opt %s --tile-allocate-shared-memory="target=cuda:sm_90a" --tile-prepare-warp-specialize="target=cuda:sm_90a" --convert-tile-to-llvm="target=cuda:sm_90a" --tile-lower-warp-specialize="target=cuda:sm_90a" | FileCheck %s
// RUN: not kiln-opt %s --tile-prepare-warp-specialize="target=cuda:sm_90a" --convert-tile-to-llvm="target=cuda:sm_90a" --tile-lower-warp-specialize="target=cuda:sm_90a" 2>&1 | FileCheck %s --check-prefix=NOWORD

// The last step of warp specialization, as its own pass of the lowering
// stage. convert-tile-to-llvm leaves the op with its regions converted; the
// pass makes one control-flow graph: the kernel's 4 warps go on, warps 4-7
// (the 2-warp worker padded to a group for its registers) set 24 registers
// and run the worker, and all meet at named barrier 1 (256 threads) before
// and after the partitions.
// Without tile-allocate-shared-memory there is no dispatch word (the module's
// scratch_offset) through which the workers learn which call comes next.
// NOWORD: error: 'tile.warp_specialize' op has no dispatch word in shared memory assigned; run tile-allocate-shared-memory first
// CONVERTED: tile.warp_specialize {{.*}}attributes {tile.partitions_prepared, tile.regions_converted}
// CHECK-LABEL: llvm.func @ws
// CHECK-NOT: tile.warp_specialize
// CHECK: llvm.cond_br
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.count"(%{{.*}}, %{{.*}})
// CHECK-NOT: tile.warp_specialize
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @ws(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [2] partition_num_regs = [24] {
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 64 : tensor<64xi32, #blocked>
      %3 = tile.splat %arg0 : tensor<64x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<64x!tile.ptr<i32>, #blocked>, tensor<64xi32, #blocked>
      tile.store %4, %2 : tensor<64x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}
