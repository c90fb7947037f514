// RUN: not kiln-opt %s --tile-allocate-shared-memory 2>&1 | FileCheck %s

// Over the limit: the error names the buffers live at the peak, largest
// first, with their locations.
#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @peak(%t: tensor<128xf32, #a>) {
    // CHECK: kernel.py:7:5: error: out of resources: shared memory required 180224 bytes, limit 166912 bytes on cuda:sm_80; live at the peak: 131072 bytes (buffer at kernel.py:7), 49152 bytes (buffer at kernel.py:8)
    %x = tile.local_alloc : () -> !tile.memdesc<32768xf32, #sh, mutable> loc("kernel.py":7:5)
    %y = tile.local_alloc : () -> !tile.memdesc<3x4096xf32, #sh, mutable> loc("kernel.py":8:5)
    tile.local_dealloc %x : !tile.memdesc<32768xf32, #sh, mutable>
    tile.local_dealloc %y : !tile.memdesc<3x4096xf32, #sh, mutable>
    // Not live at the peak: allocated after both ended.
    %z = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable> loc("kernel.py":9:5)
    return
  }
}
