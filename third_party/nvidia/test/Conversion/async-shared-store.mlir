// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// st.async: each thread's vector at the address a shared store would use,
// 16 bytes a store (here 8 consecutive i32 a thread: two v4 stores, the
// second 16 bytes further), each counting its bytes on the barrier, both
// predicated (no thread repeats an element here, so the predicate is true).
// CHECK-LABEL: llvm.func @eight_words
// CHECK-COUNT-2: "@$6 st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r,b"
// CHECK-NOT: st.async
// PTX-LABEL: .entry eight_words
// PTX-COUNT-2: st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}];
#b8 = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @eight_words(%v: tensor<1024xi32, #b8>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<1024xi32, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 4096 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_shared_store %v, %buf, %bar : tensor<1024xi32, #b8>, !tile.memdesc<1024xi32, #sh, mutable>, !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }

// 64 elements in 128 threads: each element in two threads, and the threads
// that only repeat store nothing (the predicate is theirs).
// CHECK-LABEL: llvm.func @repeated
// CHECK: %[[NOT:.*]] = llvm.xor %{{.*}}, %{{.*}} : i1
// CHECK: "@$3 st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r,b" %{{.*}}, %{{.*}}, %{{.*}}, %[[NOT]] :
  func.func @repeated(%v: tensor<64xi32, #b1>) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<64xi32, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 256 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_shared_store %v, %buf, %bar : tensor<64xi32, #b1>, !tile.memdesc<64xi32, #sh, mutable>, !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
