// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s

// Layouts of a 32x32 f32 tile over 4 warps: #a holds rows, #b columns (so a
// thread of #b reads what other threads of #a wrote); #bc broadcasts over
// two warps (two threads hold each element).
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // RAW across threads: a barrier between the store and the load.
  // CHECK-LABEL: func.func @raw
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @raw(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }

  // Each thread reads back only what it wrote: no barrier.
  // CHECK-LABEL: func.func @raw_same_thread
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @raw_same_thread(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #a> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %r : tensor<32x32xf32, #a>
  }

  // WAR: the store must wait until every thread has read the old contents.
  // The initializing write of local_alloc and the load are a RAW first.
  // CHECK-LABEL: func.func @war
  // CHECK: tile.local_alloc
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  // CHECK-NOT: tile.barrier
  func.func @war(%t: tensor<32x32xf32, #a>, %u: tensor<32x32xf32, #b>) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc %t : (tensor<32x32xf32, #a>) -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    return %r : tensor<32x32xf32, #b>
  }

  // WAW: two writers in different layouts.
  // CHECK-LABEL: func.func @waw
  // CHECK: tile.local_store %arg0
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store %arg1
  func.func @waw(%t: tensor<32x32xf32, #a>, %u: tensor<32x32xf32, #b>) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %u, %buf : tensor<32x32xf32, #b> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return
  }

  // Two live buffers do not overlap: nothing to order.
  // CHECK-LABEL: func.func @disjoint
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @disjoint(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %x = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %y = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %x : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %y : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    %s = tile.local_load %x : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %r : tensor<32x32xf32, #b>
  }

  // The user's barrier already orders the accesses.
  // CHECK-LABEL: func.func @user_barrier
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @user_barrier(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.barrier
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }
}

// -----

// A broadcast layout puts each element in two threads: not thread-local.
#bc = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @broadcast
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @broadcast(%t: tensor<8x32xf32, #bc>) -> tensor<8x32xf32, #bc> {
    %buf = tile.local_alloc : () -> !tile.memdesc<8x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<8x32xf32, #bc> -> !tile.memdesc<8x32xf32, #sh, mutable>
    %r = tile.local_load %buf : !tile.memdesc<8x32xf32, #sh, mutable> -> tensor<8x32xf32, #bc>
    return %r : tensor<8x32xf32, #bc>
  }
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // An async copy writes when the wait covering it returns; another
  // thread's read needs a barrier after the wait.
  // CHECK-LABEL: func.func @async_raw
  // CHECK: tile.async_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @async_raw(%p: tensor<32x32x!tile.ptr<f32>, #a>) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }

  // The wait orders the issuing thread's own copies: reading back the
  // elements it copied needs no barrier.
  // CHECK-LABEL: func.func @async_same_thread
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @async_same_thread(%p: tensor<32x32x!tile.ptr<f32>, #a>) -> tensor<32x32xf32, #a> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %r : tensor<32x32xf32, #a>
  }

  // A copy that overwrites what was read needs a barrier before it, even
  // in the reading thread's own layout (a copy is not ordered after the
  // thread's earlier reads); the read after the second wait then needs none.
  // CHECK-LABEL: func.func @async_war
  // CHECK: tile.local_load
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.async_copy_global_to_local
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @async_war(%p: tensor<32x32x!tile.ptr<f32>, #a>) -> tensor<32x32xf32, #a> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    %t2 = tile.async_copy_global_to_local %p, %buf : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g2 = tile.async_commit_group tokens %t2
    %w2 = tile.async_wait tokens %g2 {num = 0 : i32}
    %s = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %s : tensor<32x32xf32, #a>
  }

  // Only copies in groups the wait covers have landed: with two groups and
  // wait(1), the first copy's buffer needs the barrier, the second's read
  // is the user's bug, not ordered by a barrier (none is added for it).
  // (Which of the two reads has no copy in flight, and is marked
  // tile.synced_via_wait, is tile-annotate-local-load-alias.mlir's case.)
  // CHECK-LABEL: func.func @async_partial_wait
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load %{{[0-9]+}} : !tile.memdesc
  // CHECK-NEXT: tile.local_load %{{[0-9]+}} : !tile.memdesc
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @async_partial_wait(%p: tensor<32x32x!tile.ptr<f32>, #a>) -> tensor<32x32xf32, #b> {
    %x = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %y = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %t0 = tile.async_copy_global_to_local %p, %x : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g0 = tile.async_commit_group tokens %t0
    %t1 = tile.async_copy_global_to_local %p, %y : tensor<32x32x!tile.ptr<f32>, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %g1 = tile.async_commit_group tokens %t1
    %w = tile.async_wait tokens %g0 {num = 1 : i32}
    %r = tile.local_load %x : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    %s = tile.local_load %y : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }
}

// -----

#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // Loop-carried WAR: iteration i+1's store overwrites what iteration i
  // read in another layout. The barrier goes before the store, in the body.
  // CHECK-LABEL: func.func @loop_war
  // CHECK: scf.for
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  // CHECK-NEXT: {{^ +}}}
  func.func @loop_war(%t: tensor<32x32xf32, #a>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 {
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
      %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    }
    return
  }

  // The same loop with one layout: every thread touches only its own
  // elements, in every iteration; no barrier at all.
  // CHECK-LABEL: func.func @loop_same_thread
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @loop_same_thread(%t: tensor<32x32xf32, #a>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 {
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
      %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    }
    return
  }

  // Loop-carried RAW: the read at the top of the body sees the previous
  // iteration's store (and the one before the loop).
  // CHECK-LABEL: func.func @loop_raw
  // CHECK: tile.local_store
  // CHECK: scf.for
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  // CHECK-NEXT: {{^ +}}}
  func.func @loop_raw(%t: tensor<32x32xf32, #a>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 {
      %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    }
    return
  }

  // A store in one branch makes the read after the if a hazard.
  // CHECK-LABEL: func.func @branch
  // CHECK: scf.if
  // CHECK-NEXT: tile.local_store
  // CHECK-NEXT: {{^ +}}}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @branch(%t: tensor<32x32xf32, #a>, %c: i1) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    scf.if %c {
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    }
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }

  // A barrier in both branches orders the store in the then-branch; the
  // else-branch has nothing to order.
  // CHECK-LABEL: func.func @branch_ordered
  // CHECK: scf.if
  // CHECK-NEXT: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: } else {
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: {{^ +}}}
  // CHECK-NEXT: tile.local_load
  func.func @branch_ordered(%t: tensor<32x32xf32, #a>, %c: i1) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    scf.if %c {
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
      tile.barrier
    } else {
      tile.barrier
    }
    %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r : tensor<32x32xf32, #b>
  }

  // A while loop carries the hazard around its back edge too.
  // CHECK-LABEL: func.func @while_war
  // CHECK: scf.while
  // CHECK: } do {
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @while_war(%t: tensor<32x32xf32, #a>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %i : i32
    } do {
    ^bb0(%j: i32):
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
      %v = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
      %k = arith.addi %j, %c1 : i32
      scf.yield %k : i32
    }
    return
  }
}

// -----

// The Gluon ring: NBUF = 2 slots, the copy and the load in one layout.
// The copy into the slot read in the previous iteration needs a barrier
// before it (WAR); the read after wait(1) reads what the thread copied
// itself and needs none, unlike Triton's barrier after every wait.
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#m = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @ring_same_layout
  // CHECK: scf.for
  // CHECK: tile.memdesc_index
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.async_copy_global_to_local
  // CHECK-NEXT: tile.async_commit_group
  // CHECK-NEXT: tile.async_wait
  // CHECK-NOT: tile.barrier
  // CHECK: scf.yield
  func.func @ring_same_layout(%p: tensor<16x64x!tile.ptr<f16>, #l>, %n: i32) -> tensor<16x64xf16, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<2x16x64xf16, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
    %t0 = tile.async_copy_global_to_local %p, %s0 : tensor<16x64x!tile.ptr<f16>, #l> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
    %g0 = tile.async_commit_group tokens %t0
    %z = arith.constant dense<0.0> : tensor<16x64xf16, #l>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<16x64xf16, #l>) : i32 {
      %ip1 = arith.addi %i, %c1 : i32
      %nx = arith.remsi %ip1, %c2 : i32
      %sn = tile.memdesc_index %ring[%nx] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %t = tile.async_copy_global_to_local %p, %sn : tensor<16x64x!tile.ptr<f16>, #l> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait tokens %g {num = 1 : i32}
      %cu = arith.remsi %i, %c2 : i32
      %sc = tile.memdesc_index %ring[%cu] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %v = tile.local_load %sc : !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64> -> tensor<16x64xf16, #l>
      %a = arith.addf %acc, %v : tensor<16x64xf16, #l>
      scf.yield %a : tensor<16x64xf16, #l>
    }
    return %r : tensor<16x64xf16, #l>
  }

  // With the load in another layout, the read after the wait needs a
  // barrier too.
  // CHECK-LABEL: func.func @ring_other_layout
  // CHECK: scf.for
  // CHECK: tile.barrier
  // CHECK-NEXT: tile.async_copy_global_to_local
  // CHECK: tile.async_wait
  // CHECK: tile.memdesc_index
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @ring_other_layout(%p: tensor<16x64x!tile.ptr<f16>, #l>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<2x16x64xf16, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
    %t0 = tile.async_copy_global_to_local %p, %s0 : tensor<16x64x!tile.ptr<f16>, #l> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
    %g0 = tile.async_commit_group tokens %t0
    scf.for %i = %c0 to %n step %c1 : i32 {
      %ip1 = arith.addi %i, %c1 : i32
      %nx = arith.remsi %ip1, %c2 : i32
      %sn = tile.memdesc_index %ring[%nx] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %t = tile.async_copy_global_to_local %p, %sn : tensor<16x64x!tile.ptr<f16>, #l> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait tokens %g {num = 1 : i32}
      %cu = arith.remsi %i, %c2 : i32
      %sc = tile.memdesc_index %ring[%cu] : !tile.memdesc<2x16x64xf16, #sh, mutable> -> !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64>
      %v = tile.local_load %sc : !tile.memdesc<16x64xf16, #sh, mutable, 2x16x64> -> tensor<16x64xf16, #m>
    }
    return
  }
}

// -----

// Buffers that share bytes after the allocator reused them: the second
// allocation's store must wait for the first's readers (different
// allocations are never thread-local to each other).
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @reused_bytes
  // CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32}
  // CHECK: tile.local_load
  // CHECK-NEXT: tile.local_alloc {tile.scratch_offset = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @reused_bytes(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #a> {
    %x = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %x : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %x : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    %y = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %r, %y : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %s = tile.local_load %y : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %s : tensor<32x32xf32, #a>
  }
}

// -----

// Scratch users bring their own barriers and then read their scratch: a
// later store into the same bytes needs a barrier, an earlier access none.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @scratch_then_store
  // CHECK: tile.local_load
  // CHECK-NEXT: tile.convert_layout
  // CHECK-NEXT: tile.local_alloc
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @scratch_then_store(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #a> {
    %x = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %x : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %r = tile.local_load %x : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    %c = tile.convert_layout %r : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    %y = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %r, %y : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    %s = tile.local_load %y : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #a>
    return %s : tensor<32x32xf32, #a>
  }
}

// -----

// warp_specialize: every warp meets at a barrier before the partitions and
// after them, so nothing before the op needs a barrier inside it and nothing
// inside needs one after it; inside a partition hazards are found as usual
// (the barrier becomes that partition's when lowered).
// CHECK-LABEL: func.func @warp_specialize
// CHECK: tile.local_store
// CHECK-NEXT: tile.warp_specialize
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.warp_yield
// CHECK-NEXT: } partitions {
// CHECK-NEXT: tile.warp_yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.local_load
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @warp_specialize(%t: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
    tile.warp_specialize partition_num_warps = [1] {
      %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
      tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    %r2 = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
    return %r2 : tensor<32x32xf32, #b>
  }
}

// -----

// A warp_specialize that passes its partitions a value through shared memory
// (%iv, a loop's counter) has scratch bytes of its own; its partitions are
// still walked like any other code.
// CHECK-LABEL: func.func @warp_specialize_passing
// CHECK: tile.warp_specialize
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
// CHECK: } partitions {
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @warp_specialize_passing(%t: tensor<32x32xf32, #a>, %p: !tile.ptr<i32>, %n: i32) {
    %buf = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %buf2 = tile.local_alloc : () -> !tile.memdesc<32x32xf32, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %iv = %c0 to %n step %c1 : i32 {
      tile.warp_specialize partition_num_warps = [4] {
        %r = tile.local_load %buf : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
        tile.local_store %t, %buf : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
        tile.warp_yield
      } partitions {
        tile.local_store %t, %buf2 : tensor<32x32xf32, #a> -> !tile.memdesc<32x32xf32, #sh, mutable>
        %r = tile.local_load %buf2 : !tile.memdesc<32x32xf32, #sh, mutable> -> tensor<32x32xf32, #b>
        %kk = tile.splat %iv : tensor<128xi32, #l>
        %pp = tile.splat %p : tensor<128x!tile.ptr<i32>, #l>
        tile.store %pp, %kk : tensor<128x!tile.ptr<i32>, #l>
        tile.warp_yield
      }
    }
    return
  }
}

// -----

// A buffer an scf.if chooses spans the bytes of the buffers it may be: a
// write through it orders against those, not against all of shared memory.
// Reading %c (other bytes) with other threads needs no barrier; reading %p
// (one of the buffers %s may be) does.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
!m = !tile.memdesc<32x32xf32, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @chosen_spans_its_sources
  // CHECK: tile.local_store
  // CHECK-NOT: tile.barrier
  // CHECK: tile.local_load %{{.*}} -> tensor<32x32xf32, #{{.*}}>
  // CHECK: return
  func.func @chosen_spans_its_sources(%flag: i1, %t: tensor<32x32xf32, #a>) -> (tensor<32x32xf32, #b>, tensor<32x32xf32, #a>) {
    %c = tile.local_alloc : () -> !m
    %p = tile.local_alloc : () -> !m
    %q = tile.local_alloc : () -> !m
    %s = scf.if %flag -> !m {
      scf.yield %p : !m
    } else {
      scf.yield %q : !m
    }
    tile.local_store %t, %s : tensor<32x32xf32, #a> -> !m
    %v = tile.local_load %c : !m -> tensor<32x32xf32, #b>
    %w = tile.local_load %s : !m -> tensor<32x32xf32, #a>
    return %v, %w : tensor<32x32xf32, #b>, tensor<32x32xf32, #a>
  }

  // CHECK-LABEL: func.func @chosen_meets_a_source
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load
  func.func @chosen_meets_a_source(%flag: i1, %t: tensor<32x32xf32, #a>) -> (tensor<32x32xf32, #b>, tensor<32x32xf32, #a>) {
    %p = tile.local_alloc : () -> !m
    %q = tile.local_alloc : () -> !m
    %s = scf.if %flag -> !m {
      scf.yield %p : !m
    } else {
      scf.yield %q : !m
    }
    tile.local_store %t, %s : tensor<32x32xf32, #a> -> !m
    %v = tile.local_load %p : !m -> tensor<32x32xf32, #b>
    %w = tile.local_load %s : !m -> tensor<32x32xf32, #a>
    return %v, %w : tensor<32x32xf32, #b>, tensor<32x32xf32, #a>
  }
}
