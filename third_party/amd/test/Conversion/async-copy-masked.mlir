// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=hip:gfx942" | FileCheck %s

// Direct-to-LDS loads skip exec-masked lanes, which then write nothing. A
// masked copy therefore branches: lanes whose mask holds issue the copy
// (M0 read before the branch, where every lane is active), the others store
// `other` (zeros when absent) at their own slot, in the LDS-reads alias
// scope, declared not to alias the in-flight copies (no copy of theirs is in
// flight there, so LLVM must not wait for one). The final assembly of such
// copies is judged by the vmcnt checker in Target/vmcnt-check.mlir.

// CHECK-DAG: #[[COPIES:.*]] = #llvm.alias_scope<{{.*}}description = "direct-to-LDS copies">
// CHECK-DAG: #[[READS:.*]] = #llvm.alias_scope<{{.*}}description = "LDS reads after their copies">
// CHECK-LABEL: llvm.func @masked_zero
// CHECK: %[[Z:.*]] = llvm.mlir.zero : f32
// CHECK: rocdl.readfirstlane
// CHECK: llvm.cond_br %{{.*}}, ^[[COPY:.*]], ^[[FILL:.*]]
// CHECK: ^[[COPY]]:
// CHECK: rocdl.global.load.lds %{{.*}}, %{{.*}}, 4, 0, 0 {alias_scopes = [#[[COPIES]]]}
// CHECK: ^[[FILL]]:
// CHECK-NEXT: llvm.store %[[Z]], %{{.*}} {alias_scopes = [#[[READS]]], alignment = 4 : i64, noalias_scopes = [#[[COPIES]]]} : f32, !llvm.ptr<3>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @masked_zero(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %ns = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b, %m : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// `other` per element: the fill is the other tensor's registers. Each
// thread holds two elements (t and t + 256), one 4-byte copy and one branch
// each.
// CHECK-LABEL: llvm.func @masked_other
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK: llvm.cond_br
// CHECK: rocdl.global.load.lds
// CHECK: llvm.store %[[TWO]], %{{.*}} {alias_scopes = [#{{.*}}], alignment = 4 : i64, noalias_scopes = [#{{.*}}]} : f32, !llvm.ptr<3>
// CHECK: llvm.cond_br
// CHECK: rocdl.global.load.lds
// CHECK: llvm.store %[[TWO]]
// CHECK-NOT: rocdl.global.load.lds
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @masked_other(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %s = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
    %two = arith.constant dense<2.0> : tensor<512xf32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<512xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b, %m, %two : tensor<512x!tile.ptr<f32>, #l> -> !tile.memdesc<512xf32, #sh, mutable>
    return
  }
}

// -----

// The buffer form: a zero `other` is handled by the out-of-range offset (no
// branch; the copy is issued by every wave); a non-zero one branches like
// the generic copy.
// CHECK-LABEL: llvm.func @buffer_other
// CHECK-NOT: llvm.cond_br
// CHECK: %[[OFF:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: rocdl.raw.ptr.buffer.load.lds %{{.*}}, %{{.*}}, %{{.*}}, %[[OFF]]
// CHECK: llvm.cond_br %{{.*}}, ^[[COPY:.*]], ^[[FILL:.*]]
// CHECK: ^[[COPY]]:
// CHECK: rocdl.raw.ptr.buffer.load.lds
// CHECK: ^[[FILL]]:
// CHECK: llvm.store %{{.*}}, %{{.*}} {alias_scopes = [#{{.*}}], alignment = 4 : i64, noalias_scopes = [#{{.*}}]} : f32, !llvm.ptr<3>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_other(%x: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %ns = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l>
    %zero = arith.constant dense<0.0> : tensor<256xf32, #l>
    %seven = arith.constant dense<7.0> : tensor<256xf32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %b2 = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t0 = tile_amd.buffer_load_to_local %x[%r], %b, %m : tensor<256xi1, #l> other %zero : tensor<256xf32, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %t1 = tile_amd.buffer_load_to_local %x[%r], %b2, %m : tensor<256xi1, #l> other %seven : tensor<256xf32, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}
