// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// partition_num_regs under a kernel-wide register cap (maxnreg = 128, as
// Gluon's tutorial 08 launches its warp-specialized kernel): the CTA starts
// with 128 registers per thread, and that is the pool the partitions share.
// 8 kernel warps + 1 worker warp padded to a group = 12 warps (384 threads),
// 128 * 384 = 49152 registers. The worker group drops to 24 (24 * 128 =
// 3072); the kernel's 256 threads take the rest, 46080 / 256 = 180 -> 176.
// Planned from the register file instead (65536 / 384 -> 168 at the start,
// 240 for the kernel's warps), setmaxnreg.inc 240 would wait forever for
// registers the capped CTA never had.
// CHECK: .maxntid 384, 1, 1
// CHECK: .maxnreg 128
// CHECK: setmaxnreg.inc.sync.aligned.u32 176;
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-NOT: setmaxnreg
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32, tile.maxnreg = 128 : i32} {
  func.func public @ws_capped(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [24] {
      tile.barrier
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 32 : tensor<32xi32, #blocked>
      %3 = tile.splat %arg0 : tensor<32x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<32x!tile.ptr<i32>, #blocked>, tensor<32xi32, #blocked>
      tile.store %4, %2 : tensor<32x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}
