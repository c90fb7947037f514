// RUN: kiln-opt %s --tile-allocate-shared-memory --tile-insert-barriers="target=hip:gfx942" | FileCheck %s --check-prefix=WARP
// RUN: kiln-opt %s --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s

// Where a wait orders the whole warp (AMD: vmcnt belongs to the wave), a
// read after the wait needs no barrier when each warp reads only elements
// its own copies wrote, whichever lane copied them. #lanes reverses the
// lane order inside each warp; #swap exchanges warps 1 and 2. On gfx942
// (WARP prefix) the #lanes read needs no barrier, the #swap read does, and
// the refill after the reads keeps its write-after-read barrier. Without a
// target (CHECK prefix) each read needs one.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#lanes = #tile.linear<{register = [], lane = [[32], [16], [8], [4], [2], [1]], warp = [[64], [128]]}>
#swap = #tile.linear<{register = [], lane = [[1], [2], [4], [8], [16], [32]], warp = [[128], [64]]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: func.func @warp_own_copies
  // CHECK: tile.async_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_load %{{.*}} -> tensor<256xf32, #{{.*}}>
  // WARP-LABEL: func.func @warp_own_copies
  // WARP: tile.async_wait
  // WARP-NEXT: tile.local_load
  // WARP-NEXT: tile.barrier
  // WARP-NEXT: tile.local_load
  // WARP-NEXT: tile.barrier
  // WARP-NEXT: tile.async_copy_global_to_local
  func.func @warp_own_copies(%p: tensor<256x!tile.ptr<f32>, #l>) -> (tensor<256xf32, #lanes>, tensor<256xf32, #swap>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %v = tile.local_load %b : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #lanes>
    %s = tile.local_load %b : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #swap>
    %t2 = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return %v, %s : tensor<256xf32, #lanes>, tensor<256xf32, #swap>
  }
}
