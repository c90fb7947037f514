// RUN: kiln-opt %s -split-input-file --tile-pipeline-lower-loads -verify-diagnostics | FileCheck %s

// Second step of software pipelining: loops whose ops carry tile.stage are
// normalized to 0..n step 1, and each stage-0 load becomes an async copy into
// slot j % N of an N-slot ring, read in the last stage after a wait.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // A register use: the ring takes an unswizzled layout and the value comes
  // back by local_load. The loop runs 0..max(ceildiv(n - 0, 128), 0) by 1
  // (the trip count computed in 64 bits: n - lb may overflow 32) and the old
  // induction variable is rebuilt in each stage that reads it.
  // CHECK-LABEL: func.func @stream
  // CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
  // CHECK: %[[TRIPS64:.*]] = arith.maxsi %{{.*}} : i64
  // CHECK: %[[TRIPS:.*]] = arith.trunci %[[TRIPS64]] : i64 to i32
  // CHECK: %[[RING:.*]] = tile.local_alloc : () -> !tile.memdesc<3x128xf32, #[[UNSW:.*]], mutable>
  // CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[TRIPS]] step %{{.*}}
  // CHECK-DAG: %[[S0:.*]] = arith.remsi %[[J]], %{{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK-DAG: %[[S2:.*]] = arith.remsi %[[J]], %{{.*}} {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: %[[IV:.*]] = arith.muli %[[J]], %{{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: %[[SLOT0:.*]] = tile.memdesc_index %[[RING]][%[[S0]]] {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: %[[CP:.*]] = tile.async_copy_global_to_local %{{.*}}, %[[SLOT0]] {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: %[[G:.*]] = tile.async_commit_group tokens %[[CP]] {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: tile.async_wait tokens %[[G]] {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: %[[SLOT2:.*]] = tile.memdesc_index %[[RING]][%[[S2]]] {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: %[[V:.*]] = tile.local_load %[[SLOT2]] {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: arith.addf %{{.*}}, %[[V]]
  // CHECK: tile.async_wait {num = 0 : i32}
  // CHECK: tile.local_dealloc %[[RING]]
  func.func @stream(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !p
    %r = scf.for %i = %c0 to %n step %c128 iter_args(%acc = %zero) -> (!t) : i32 {
      %s = tile.splat %i {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128xi32, #l>
      %o = arith.addi %s, %offs {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128xi32, #l>
      %p = tile.addptr %base, %o {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p, tensor<128xi32, #l>
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 2 : i32} : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // Two loads into local_allocs, read after both copies: one group per
  // iteration, one wait where the first alloc was; the allocs become the
  // slot (each view taken where its alloc was), the ring takes their
  // layout, and a permuted view of the slot gets the ring's allocation shape.
  // CHECK-LABEL: func.func @two_loads
  // CHECK: %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<2x128xf32, #{{.*}}, mutable>
  // CHECK: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<2x8x16xf32, #{{.*}}, mutable>
  // CHECK: scf.for
  // CHECK: %[[CA:.*]] = tile.async_copy_global_to_local
  // CHECK: %[[CB:.*]] = tile.async_copy_global_to_local
  // CHECK: %[[G:.*]] = tile.async_commit_group tokens %[[CA]], %[[CB]]
  // CHECK: tile.async_wait tokens %[[G]]
  // CHECK: %[[SA:.*]] = tile.memdesc_index %[[RA]]
  // CHECK: %[[SB:.*]] = tile.memdesc_index %[[RB]]
  // CHECK: tile.local_load %[[SA]]
  // CHECK: tile.memdesc_permute %[[SB]] {{.*}} -> !tile.memdesc<16x8xf32, #{{.*}}, mutable, 2x16x8>
  func.func @two_loads(%pa: !p, %pb: tensor<8x16x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %va = tile.load %pa {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %vb = tile.load %pb {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<8x16x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
      %ba = tile.local_alloc %va {tile.cluster = 1 : i32, tile.stage = 1 : i32} : (!t) -> !tile.memdesc<128xf32, #sh, mutable>
      %bb = tile.local_alloc %vb {tile.cluster = 1 : i32, tile.stage = 1 : i32} : (tensor<8x16xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>) -> !tile.memdesc<8x16xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable>
      %wa = tile.local_load %ba {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !tile.memdesc<128xf32, #sh, mutable> -> !t
      %tb = tile.memdesc_permute %bb {order = array<i32: 1, 0>, tile.cluster = 1 : i32, tile.stage = 1 : i32} : !tile.memdesc<8x16xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable> -> !tile.memdesc<16x8xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0, 1]}>, mutable>
      %a = arith.addf %acc, %wa {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      scf.yield %a : !t
    } {tile.num_stages = 2 : i32}
    return %r : !t
  }

  // A read between the copies: one group and one wait per load.
  // CHECK-LABEL: func.func @interleaved
  // CHECK: %[[CA:.*]] = tile.async_copy_global_to_local
  // CHECK-NEXT: %[[GA:.*]] = tile.async_commit_group tokens %[[CA]]
  // CHECK: tile.async_wait tokens %[[GA]]
  // CHECK: %[[CB:.*]] = tile.async_copy_global_to_local
  // CHECK-NEXT: %[[GB:.*]] = tile.async_commit_group tokens %[[CB]]
  // CHECK: tile.async_wait tokens %[[GB]]
  func.func @interleaved(%pa: !p, %pb: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %va = tile.load %pa {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %a = arith.addf %acc, %va {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      %vb = tile.load %pb {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %b = arith.addf %a, %vb {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      scf.yield %b : !t
    } {tile.num_stages = 2 : i32}
    return %r : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @bad_stage(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      // expected-error @below {{'arith.addf' op in a staged loop needs tile.stage 0 or 2}}
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @no_num_stages(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-error @+1 {{'scf.for' op has tile.stage ops but no tile.num_stages of at least 2}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      scf.yield %a : !t
    }
    return %r : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @runtime_step(%p: !p, %n: i32, %s: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-error @+1 {{'scf.for' op has tile.stage ops but cannot be pipelined: its step is not a positive constant}}
    %r = scf.for %i = %c0 to %n step %s iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 1 : i32} : !t
      scf.yield %a : !t
    } {tile.num_stages = 2 : i32}
    return %r : !t
  }
}

// -----

// Consumers first (a slot read through a view, as by an asynchronous
// reader): the stager put stage 0's pure ops in cluster 0 and the load in
// cluster 2. The new slot index joins the pure ops; the copy and its commit
// take the load's cluster, after the consumers; the wait joins the last
// stage's cluster.
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>
#shared = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @consumers_first
  // CHECK: arith.remsi {{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: arith.remsi {{.*}} {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: tile.memdesc_index {{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: tile.async_copy_global_to_local {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: tile.async_commit_group {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: tile.async_wait {{.*}} {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  func.func @consumers_first(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: tensor<8x16xi32, #blocked>, %arg2: i32) -> tensor<16x8xf32, #blocked1> {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<16x8xf32, #blocked1>
    %0 = tile.splat %arg0 : tensor<8x16x!tile.ptr<f32>, #blocked>
    %1 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<16x8xf32, #blocked1>)  : i32 {
      %2 = tile.splat %arg3 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<8x16xi32, #blocked>
      %3 = arith.addi %arg1, %2 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<8x16xi32, #blocked>
      %4 = tile.addptr %0, %3 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<8x16x!tile.ptr<f32>, #blocked>, tensor<8x16xi32, #blocked>
      %5 = tile.load %4 {tile.cluster = 2 : i32, tile.stage = 0 : i32} : tensor<8x16x!tile.ptr<f32>, #blocked>
      %6 = tile.local_alloc %5 {tile.cluster = 1 : i32, tile.stage = 2 : i32} : (tensor<8x16xf32, #blocked>) -> !tile.memdesc<8x16xf32, #shared, mutable>
      %7 = tile.memdesc_permute %6 {order = array<i32: 1, 0>, tile.cluster = 1 : i32, tile.stage = 2 : i32} : !tile.memdesc<8x16xf32, #shared, mutable> -> !tile.memdesc<16x8xf32, #shared1, mutable>
      %8 = tile.local_load %7 {tile.cluster = 1 : i32, tile.stage = 2 : i32} : !tile.memdesc<16x8xf32, #shared1, mutable> -> tensor<16x8xf32, #blocked1>
      %9 = arith.addf %arg4, %8 {tile.cluster = 1 : i32, tile.stage = 2 : i32} : tensor<16x8xf32, #blocked1>
      scf.yield %9 : tensor<16x8xf32, #blocked1>
    } {tile.num_stages = 3 : i32}
    return %1 : tensor<16x8xf32, #blocked1>
  }
}

// -----

// The stager's copies-first order with the address arithmetic in a cluster
// of its own (0), the copies in 1, the rest in 2: the wait joins cluster 0,
// so after expansion it comes before the iteration's copies (one barrier an
// iteration; pipeline-one-barrier.mlir runs the passes after this one). The
// slot index the reader takes stays in the last stage's cluster.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @waits_with_the_addresses
  // CHECK: scf.for
  // CHECK: tile.async_copy_global_to_local {{.*}}tile.cluster = 1 : i32, tile.stage = 0 : i32
  // CHECK: tile.async_commit_group {{.*}}tile.cluster = 1 : i32, tile.stage = 0 : i32
  // CHECK: tile.async_wait tokens %{{.*}} {tile.cluster = 0 : i32, tile.stage = 2 : i32}
  // CHECK: tile.memdesc_index {{.*}}tile.cluster = 2 : i32, tile.stage = 2 : i32
  // CHECK: tile.local_load {{.*}}tile.cluster = 2 : i32, tile.stage = 2 : i32
  func.func @waits_with_the_addresses(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !p
    %r = scf.for %i = %c0 to %n step %c128 iter_args(%acc = %zero) -> (!t) : i32 {
      %s = tile.splat %i {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128xi32, #l>
      %o = arith.addi %s, %offs {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128xi32, #l>
      %p = tile.addptr %base, %o {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p, tensor<128xi32, #l>
      %v = tile.load %p {tile.cluster = 1 : i32, tile.stage = 0 : i32} : !p
      %a = arith.addf %acc, %v {tile.cluster = 2 : i32, tile.stage = 2 : i32} : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }
}
