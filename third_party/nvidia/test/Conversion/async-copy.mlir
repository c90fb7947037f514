// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// The PTX these become (cp.async.cg/.ca, commit_group, wait_group) is checked
// in test/Python/test_async_copy_dsl.py.

// Each thread copies its 8 consecutive f16 (16 bytes: .cg), masked lanes
// set ignore-src (the hardware writes zeros; the mask stays a predicate),
// into the swizzled slot; commit and wait lower one to one.
// CHECK-LABEL: llvm.func @copy16
// CHECK: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK: %[[MASK:.*]] = llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK: %[[IGNORE:.*]] = llvm.xor %[[MASK]], %[[TRUE]] : i1
// CHECK: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16, $2;", "l,l,b" %{{.*}}, %{{.*}}, %[[IGNORE]] : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> !llvm.void
// CHECK-NOT: cp.async.cg.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
#l = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @copy16(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %b = tile.splat %x : tensor<256x!tile.ptr<f16>, #l>
    %p = tile.addptr %b, %r : tensor<256x!tile.ptr<f16>, #l>, tensor<256xi32, #l>
    %ns = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf16, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m : tensor<256x!tile.ptr<f16>, #l> -> !tile.memdesc<256xf16, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %v = tile.local_load %buf : !tile.memdesc<256xf16, #sh, mutable> -> tensor<256xf16, #l>
    %yb = tile.splat %y : tensor<256x!tile.ptr<f16>, #l>
    %q = tile.addptr %yb, %r : tensor<256x!tile.ptr<f16>, #l>, tensor<256xi32, #l>
    tile.store %q, %v : tensor<256x!tile.ptr<f16>, #l>
    return
  }
}

// -----

// A swizzle that keeps only 4 f16 together (row r XORs the column by
// (r % 8) * 4) splits each thread's 8 elements into two 8-byte copies (.ca);
// without a mask there is no src-size.
// CHECK-LABEL: llvm.func @copy8
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.shared.global
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @copy8(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 4 : tensor<4xi32, #tile.slice<{dim = 1, parent = #l}>>
    %c = tile.arange 0, 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = #l}>>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<4xi32, #tile.slice<{dim = 1, parent = #l}>> -> tensor<4x1xi32, #l>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %c64 = arith.constant dense<64> : tensor<4x1xi32, #l>
    %rs = arith.muli %r2, %c64 : tensor<4x1xi32, #l>
    %rb = tile.broadcast %rs : tensor<4x1xi32, #l> -> tensor<4x64xi32, #l>
    %cb = tile.broadcast %c2 : tensor<1x64xi32, #l> -> tensor<4x64xi32, #l>
    %o = arith.addi %rb, %cb : tensor<4x64xi32, #l>
    %b = tile.splat %x : tensor<4x64x!tile.ptr<f16>, #l>
    %p = tile.addptr %b, %o : tensor<4x64x!tile.ptr<f16>, #l>, tensor<4x64xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<4x64xf16, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<4x64x!tile.ptr<f16>, #l> -> !tile.memdesc<4x64xf16, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    tile.local_dealloc %buf : !tile.memdesc<4x64xf16, #sh, mutable>
    return
  }
}

// -----

// A layout that broadcasts over lanes 16..31 (64 elements, 2 per thread):
// only lanes 0..15 copy; the others branch around the copy. (A zero-filling
// cp.async of theirs, src-size 0, would write zeros over the owner's data.)
// CHECK-LABEL: llvm.func @copy_broadcast
// CHECK: %[[REDUNDANT:.*]] = llvm.icmp "ne" %{{.*}}, %{{.*}} : i32
// CHECK: %[[ACTIVE:.*]] = llvm.xor %[[REDUNDANT]], %{{.*}} : i1
// CHECK: llvm.cond_br %[[ACTIVE]], ^[[COPY:.*]], ^[[JOIN:.*]]
// CHECK: ^[[COPY]]:
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca :
// CHECK-NEXT: llvm.br ^[[JOIN]]
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: nvvm.cp.async.commit.group
#l = #tile.linear<{register = [[1]], lane = [[2], [4], [8], [16], [0]], warp = []}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @copy_broadcast(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 32 : tensor<32xi32, #l>
    %b = tile.splat %x : tensor<32x!tile.ptr<f32>, #l>
    %p = tile.addptr %b, %r : tensor<32x!tile.ptr<f32>, #l>, tensor<32xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<32xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf : tensor<32x!tile.ptr<f32>, #l> -> !tile.memdesc<32xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    tile.local_dealloc %buf : !tile.memdesc<32xf32, #sh, mutable>
    return
  }
}

