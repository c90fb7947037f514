// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// st.async stores 4, 8 or 16 bytes: a layout giving each thread one i8 is
// refused at the op.
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @bytes(%v: tensor<128xi8, #b1>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<128xi8, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 128 : !tile.memdesc<1xi64, #sh, mutable>
    // expected-error @+1 {{'tile_nv.async_shared_store' op stores 1 consecutive bytes a thread; st.async stores 4, 8 or 16: use layouts that give each thread at least 4 consecutive bytes of the buffer (sizePerThread along its contiguous dimension)}}
    tile_nv.async_shared_store %v, %buf, %bar : tensor<128xi8, #b1>, !tile.memdesc<128xi8, #sh, mutable>, !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
