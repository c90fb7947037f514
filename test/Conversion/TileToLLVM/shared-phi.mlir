// REQUIRES: nvidia
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" --verify-diagnostics -allow-unregistered-dialect | FileCheck %s

// Shared buffers that control flow chooses or carries: a buffer is an
// address, so a loop's buffer arguments become !llvm.ptr<3> block arguments
// (ping-pong: the two swap each iteration), and an scf.if's buffer result
// one chosen by the branch.
// CHECK-LABEL: llvm.func @pingpong(
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>, !llvm.ptr<3>)
// CHECK: ^bb1(%{{.*}}: i32, %[[CUR:.*]]: !llvm.ptr<3>, %[[NXT:.*]]: !llvm.ptr<3>):
// CHECK: llvm.br ^bb1(%{{.*}}, %[[NXT]], %[[CUR]] : i32, !llvm.ptr<3>, !llvm.ptr<3>)
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @pingpong(%t: tensor<128xf32, #l>, %n: i32) -> tensor<128xf32, #l> {
    %a = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    tile.local_store %t, %a : tensor<128xf32, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a, %nxt = %b) -> (!tile.memdesc<128xf32, #sh, mutable>, !tile.memdesc<128xf32, #sh, mutable>) : i32 {
      %v = tile.local_load %cur : !tile.memdesc<128xf32, #sh, mutable> -> tensor<128xf32, #l>
      tile.barrier
      tile.local_store %v, %nxt : tensor<128xf32, #l> -> !tile.memdesc<128xf32, #sh, mutable>
      tile.barrier
      scf.yield %nxt, %cur : !tile.memdesc<128xf32, #sh, mutable>, !tile.memdesc<128xf32, #sh, mutable>
    }
    %o = tile.local_load %r#0 : !tile.memdesc<128xf32, #sh, mutable> -> tensor<128xf32, #l>
    return %o : tensor<128xf32, #l>
  }
}

// -----

// Subslices of a swizzled tile at different offsets are one XOR apart from
// each other's addressing: a block argument cannot be both.
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @subslices(%t: tensor<16x32xf32, #l>, %c: i1) {
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #sh, mutable>
    %s0 = tile.memdesc_subslice %b[0, 0] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<16x32xf32, #sh, mutable, 64x64>
    %s1 = tile.memdesc_subslice %b[16, 32] : !tile.memdesc<64x64xf32, #sh, mutable> -> !tile.memdesc<16x32xf32, #sh, mutable, 64x64>
    // expected-error @+1 {{the shared-memory buffers chosen here at run time sit at different places within their slots (subslices at offsets of element 1056 and 0): choose between whole buffers or ring slots, or between subslices at the same offsets}}
    %s = scf.if %c -> (!tile.memdesc<16x32xf32, #sh, mutable, 64x64>) {
      scf.yield %s0 : !tile.memdesc<16x32xf32, #sh, mutable, 64x64>
    } else {
      scf.yield %s1 : !tile.memdesc<16x32xf32, #sh, mutable, 64x64>
    }
    tile.local_store %t, %s : tensor<16x32xf32, #l> -> !tile.memdesc<16x32xf32, #sh, mutable, 64x64>
    return
  }
}

// -----

// A buffer reaching a block argument of an op Kiln does not know (here an
// unregistered one) cannot be followed to its sources: an error at the
// argument, not a guess.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unknown_region() {
    %a = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    "test.region"(%a) ({
    // expected-error @+1 {{a shared-memory buffer reaches this block argument along a path Kiln cannot follow (through a region of an op other than if, for and while): pass buffers through if / for / while only}}
    ^bb0(%m: !tile.memdesc<128xf32, #sh, mutable>):
      "test.terminator"() : () -> ()
    }) : (!tile.memdesc<128xf32, #sh, mutable>) -> ()
    return
  }
}
