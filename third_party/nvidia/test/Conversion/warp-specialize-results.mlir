// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The default partition's yielded values are the warp_specialize's results:
// its blocks branch with them to the block after the partitions, whose
// arguments replace the results (a tensor becomes its struct of registers);
// the workers' yields branch with nothing.
// CHECK-LABEL: llvm.func @ws_results
// CHECK: llvm.br ^[[AFTER:bb[0-9]+]](%{{.*}}, %{{.*}} : !llvm.struct<(i32)>, i32)
// CHECK: ^[[AFTER]](%[[T:.*]]: !llvm.struct<(i32)>, %[[S:.*]]: i32):
// CHECK: llvm.extractvalue %[[T]][0]
// CHECK: llvm.add {{.*}}%[[S]]
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @ws_results(%p: !tile.ptr<i32>) {
    %t, %s = tile.warp_specialize partition_num_warps = [1] -> (tensor<128xi32, #l>, i32) {
      %r = tile.arange 0, 128 : tensor<128xi32, #l>
      %pid = tile.program_id 0
      tile.warp_yield %r, %pid : tensor<128xi32, #l>, i32
    } partitions {
      tile.warp_yield
    }
    %ss = tile.splat %s : tensor<128xi32, #l>
    %v = arith.addi %t, %ss : tensor<128xi32, #l>
    %ps = tile.splat %p : tensor<128x!tile.ptr<i32>, #l>
    %pp = tile.addptr %ps, %t : tensor<128x!tile.ptr<i32>, #l>, tensor<128xi32, #l>
    tile.store %pp, %v : tensor<128x!tile.ptr<i32>, #l>
    return
  }
}
