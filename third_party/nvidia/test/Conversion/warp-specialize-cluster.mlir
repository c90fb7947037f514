// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s

// The worker warps of warp_specialize never run the kernel's own code: a
// kernel's one cluster barrier before its first warp_specialize (the one
// after mbarrier inits) gets their arrival (relaxed) at the kernel's entry,
// before they branch to the dispatch, and wait on it at the dispatch (a race
// checker does not finish a kernel whose threads arrive and never wait); the
// kernel's warps arrive and wait where the barrier is.
// CHECK-LABEL: llvm.func @init_barrier
// CHECK: %[[MINE:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}}
// CHECK: %[[WORKER:.*]] = llvm.xor %[[MINE]], %{{.*}} : i1
// CHECK: llvm.inline_asm has_side_effects "@$0 barrier.cluster.arrive.relaxed.aligned;", "b" %[[WORKER]]
// CHECK: llvm.cond_br %[[MINE]], ^[[KERNEL:.*]], ^[[DISPATCH:[^ ]*]]
// CHECK: nvvm.cluster.arrive.relaxed
// CHECK: nvvm.cluster.wait
// CHECK: ^[[DISPATCH]]:
// CHECK-NEXT: llvm.inline_asm has_side_effects "barrier.cluster.wait.aligned;", ""
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @init_barrier(%arg0: !tile.ptr<i32>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.fence_mbarrier_init_cluster
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}

// -----

// With register budgets the workers wait after giving their registers back:
// the kernel's warps ask for theirs (setmaxnreg.inc, which waits for the
// workers' decrease) before their own cluster barrier, so a wait before the
// decrease would hang the CTA.
// CHECK-LABEL: llvm.func @init_barrier_with_budgets
// CHECK: llvm.inline_asm has_side_effects "@$0 barrier.cluster.arrive.relaxed.aligned;"
// CHECK: llvm.cond_br
// CHECK: nvvm.setmaxregister increase 240
// CHECK: nvvm.cluster.arrive.relaxed
// CHECK: nvvm.cluster.wait
// CHECK: nvvm.setmaxregister decrease 24
// CHECK-NEXT: llvm.inline_asm has_side_effects "barrier.cluster.wait.aligned;", ""
// CHECK-NOT: barrier.cluster.wait
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @init_barrier_with_budgets(%arg0: !tile.ptr<i32>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.fence_mbarrier_init_cluster
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [24] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}

// -----

// Any other cluster barrier in such a kernel would wait for warps that never
// come: an error at the barrier.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @after_ws(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    // expected-error @+1 {{'tile_nv.cluster_arrive' op in a kernel with warp_specialize: its worker warps wait for their partitions from the kernel's start and never reach this cluster barrier, so the cluster would hang}}
    tile_nv.cluster_arrive {relaxed = false}
    tile_nv.cluster_wait
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @in_partition(%arg0: !tile.ptr<i32>) {
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      // expected-error @+1 {{'tile_nv.cluster_arrive' op in a kernel with warp_specialize}}
      tile_nv.cluster_arrive {relaxed = false}
      tile_nv.cluster_wait
      tile.warp_yield
    }
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @two_before(%arg0: !tile.ptr<i32>) {
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    // expected-error @+1 {{'tile_nv.cluster_arrive' op in a kernel with warp_specialize}}
    tile_nv.cluster_arrive {relaxed = true}
    tile_nv.cluster_wait
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}

// -----

// A reduction across the CTAs of a cluster takes two cluster barriers: in a
// kernel with warp_specialize, an error at the reduce.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @reduce_across_ctas(%x: tensor<512xf32, #l>) {
    tile.warp_specialize partition_num_warps = [1] {
      // expected-error @+1 {{'tile.reduce' op reduces across the CTAs of a cluster, which takes a barrier of every thread of the cluster; in a kernel with warp_specialize the worker warps never reach it, so the cluster would hang}}
      %m = "tile.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %r = arith.maxnumf %a, %b : f32
        tile.reduce_return %r : f32
      }) {axis = 0 : i32, tile.cluster_peers = 1 : i32} : (tensor<512xf32, #l>) -> f32
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}
