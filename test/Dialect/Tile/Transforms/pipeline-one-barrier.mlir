// RUN: kiln-opt %s --tile-pipeline-assign-stages --tile-pipeline-lower-loads --tile-pipeline-expand --tile-insert-wait-counts --tile-insert-barriers --tile-check-async-safety | FileCheck %s

// The pipeliner's steps and the ordinary passes after them, on a ring read
// by plain shared-memory loads in another layout than the copies' (so a warp
// reads what other warps copied). Copies first, and the waits sort with the
// address arithmetic, before the copies: the barrier the refill of slot
// (j+2) % 3 needs (every warp read it in iteration j-1) comes after the wait
// and also publishes slot j % 3, so the loop has one barrier, not two. The
// wait leaves the one group issued after the awaited one (N-2) in flight,
// and the async-safety check passes the ring as compiler-made.

#cp = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#rd = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 2 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @stream
  // CHECK: scf.for
  // CHECK-NOT: tile.barrier
  // CHECK: tile.async_wait tokens %{{.*}} {num = 1 : i32
  // CHECK-NOT: tile.async_copy_global_to_local
  // CHECK: tile.barrier
  // CHECK-NOT: tile.barrier
  // CHECK: tile.async_copy_global_to_local
  // CHECK-NOT: tile.barrier
  // CHECK: tile.async_commit_group
  // CHECK-NOT: tile.barrier
  // CHECK: tile.local_load
  // CHECK-NOT: tile.barrier
  // CHECK: scf.yield
  func.func @stream(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<256xf32, #rd> {
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %zero = arith.constant dense<0.0> : tensor<256xf32, #rd>
    %offs = tile.arange 0, 256 : tensor<256xi32, #cp>
    %base = tile.splat %x : tensor<256x!tile.ptr<f32>, #cp>
    %r = scf.for %i = %c0 to %n step %c256 iter_args(%acc = %zero) -> (tensor<256xf32, #rd>) : i32 {
      %s = tile.splat %i : tensor<256xi32, #cp>
      %o = arith.addi %s, %offs : tensor<256xi32, #cp>
      %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #cp>, tensor<256xi32, #cp>
      %v = tile.load %p : tensor<256x!tile.ptr<f32>, #cp>
      %b = tile.local_alloc %v : (tensor<256xf32, #cp>) -> !tile.memdesc<256xf32, #sh, mutable>
      %w = tile.local_load %b : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #rd>
      %a = arith.addf %acc, %w : tensor<256xf32, #rd>
      scf.yield %a : tensor<256xf32, #rd>
    } {tile.num_stages = 3 : i32}
    return %r : tensor<256xf32, #rd>
  }
}
