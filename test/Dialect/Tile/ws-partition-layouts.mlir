// REQUIRES: nvidia
// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// A worker partition's values use its own warps, also where a loop or branch
// inside it has been lowered to blocks: the blocks' arguments (a loop-carried
// tensor of the one-warp loader) are checked against the partition's warps,
// the default partition's against the kernel's.
// CHECK-LABEL: func.func public @worker_blocks
// CHECK: ^bb1(%{{.*}}: tensor<32xi32, #{{.*}}>):
#w1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#w4 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @worker_blocks(%c: i1) {
    tile.warp_specialize partition_num_warps = [1] {
      %d = tile.arange 0, 128 : tensor<128xi32, #w4>
      cf.br ^bb1(%d : tensor<128xi32, #w4>)
    ^bb1(%x: tensor<128xi32, #w4>):
      tile.warp_yield
    } partitions {
      %a = tile.arange 0, 32 : tensor<32xi32, #w1>
      cf.cond_br %c, ^bb1(%a : tensor<32xi32, #w1>), ^bb2
    ^bb1(%b: tensor<32xi32, #w1>):
      cf.br ^bb2
    ^bb2:
      tile.warp_yield
    }
    return
  }
}

// -----

// A block of the worker still rejects the kernel's layout.
#w4 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @worker_block_wrong(%c: i1) {
    // expected-error @+1 {{'tile.warp_specialize' op layout #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> has 4 warps but the kernel is compiled for 1 (tile.num_warps)}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      cf.cond_br %c, ^bb1, ^bb2
    ^bb1(%b: tensor<128xi32, #w4>):
      cf.br ^bb2
    ^bb2:
      tile.warp_yield
    }
    return
  }
}
