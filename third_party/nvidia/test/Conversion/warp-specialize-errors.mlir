// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// A worker partition may not read a tensor only the kernel's warps computed:
// a loop's tensor result has no recomputable definition (a scalar would be
// passed through shared memory).
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_loop_result(%p: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = tile.arange 0, 32 : tensor<32xi32, #blocked>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<32xi32, #blocked>) : i32 {
      %b = arith.addi %a, %a : tensor<32xi32, #blocked>
      scf.yield %b : tensor<32xi32, #blocked>
    }
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      %ps = tile.splat %p : tensor<32x!tile.ptr<i32>, #blocked>
      // expected-error @+1 {{in worker partition 0 uses a value the kernel's warps compute (a loop or branch result) and the partition cannot recompute}}
      tile.store %ps, %s : tensor<32x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}

// -----

// A loaded tensor is not recomputed (it reads memory).
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_loaded(%p: !tile.ptr<i32>) {
    %ps = tile.splat %p : tensor<32x!tile.ptr<i32>, #blocked>
    // expected-note @+1 {{defined here}}
    %v = tile.load %ps : tensor<32x!tile.ptr<i32>, #blocked>
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      %qs = tile.splat %p : tensor<32x!tile.ptr<i32>, #blocked>
      // expected-error @+1 {{uses a value the kernel's warps compute ('tile.load')}}
      tile.store %qs, %v : tensor<32x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}

// -----

// 32 warps of the kernel plus one: over 1024 threads.
module attributes {tile.num_warps = 32 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_too_many_warps() {
    // expected-error @+1 {{launches 33 warps (32 of the kernel's plus the partitions'), over the 1024 threads of a CTA}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}

// -----

// Barrier 0 is the kernel's, 1 every warp's, 2..15 one per worker: 14 at most.
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_fifteen_workers() {
    // expected-error @+1 {{has 15 worker partitions; the 16 named barriers allow at most 14}}
    tile.warp_specialize partition_num_warps = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    return
  }
}

// -----

// Register counts the CTA cannot hold: 16 warps start with 128 registers
// each; three worker groups at 256 would leave the kernel's 4 warps none.
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_too_many_regs() {
    // expected-error @+1 {{partition_num_regs leave the kernel's 4 warps 0 registers per thread, below the 24 a warp group must keep: the 3 worker warp groups ask for 256 256 256 of the 65536 registers of a CTA}}
    tile.warp_specialize partition_num_warps = [4, 4, 4] partition_num_regs = [256, 256, 256] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    return
  }
}

// -----

// Padding to whole warp groups counts toward the 1024 threads: 28 + 1
// workers' warps round up to 32, 36 with the kernel's 4.
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_padded_over() {
    // expected-error @+1 {{launches 36 warps (4 of the kernel's plus the partitions', padded to whole warp groups), over the 1024 threads of a CTA}}
    tile.warp_specialize partition_num_warps = [16, 8, 4, 1] partition_num_regs = [24, 24, 24, 24] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    return
  }
}

// -----

// The worker warps serve every warp_specialize of the kernel, so register
// counts are given by all of them or by none.
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_regs_mixed() {
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [40] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    // expected-error @+1 {{has no partition_num_regs where another warp_specialize of this kernel has them: the worker warps are shared, so either every warp_specialize of a kernel gives register counts or none}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}

// -----

// Two ops' worker groups together ask for more than the CTA has left for
// the kernel's warps: the error names the largest counts of either.
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ws_regs_together() {
    // expected-error @+1 {{partition_num_regs leave the kernel's 4 warps 0 registers per thread, below the 24 a warp group must keep: the 2 worker warp groups ask for 256 256 of the 65536 registers of a CTA (the most any of the kernel's 2 warp_specialize ops asks of each)}}
    tile.warp_specialize partition_num_warps = [4, 4] partition_num_regs = [256, 24] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    tile.warp_specialize partition_num_warps = [4, 4] partition_num_regs = [24, 256] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    return
  }
}
