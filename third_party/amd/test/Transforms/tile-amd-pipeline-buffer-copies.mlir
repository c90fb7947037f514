// RUN: kiln-opt %s -split-input-file -verify-diagnostics --tile-amd-pipeline-buffer-copies | FileCheck %s
// RUN: kiln-opt %s -split-input-file -verify-diagnostics --tile-amd-pipeline-buffer-copies --tile-insert-wait-counts | FileCheck %s --check-prefix=WAIT
// RUN: kiln-opt %s -split-input-file --tile-insert-wait-counts 2>/dev/null | FileCheck %s --check-prefix=GENERIC

// examples/pipelined.py's row_sum_kernel for gfx950 (3 stages, 16-byte
// direct-to-LDS copies) after tile-pipeline-expand: its copies are masked
// (the row mask, and the predicate of the iterations past the end). As
// generic copies a wave with every lane masked branches around them, so the
// loop's wait may count none of them (instructions = 0, so vmcnt(0): the
// third RUN line). Through a buffer resource the mask moves into the
// address and every wave issues each copy: the wait leaves the 2 x 4 copies
// issued after the awaited group in flight (second RUN line). The base is the kernel's pointer argument,
// the offsets the i32 sums its addptr/broadcast chain added. The offsets
// come from the row stride (an argument), which no analysis bounds: the
// copies convert because %arg0 is marked tile.pointer_range = 32 (a launch
// with a tensor under 2 GiB; the cases after this one show the rule).

// CHECK-LABEL: func.func public @row_sum_kernel
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: tile_amd.buffer_load_to_local %arg0[%{{.*}}], %{{.*}}, %{{.*}} : tensor<16x256xi1, {{.*}}> {tile.pipeline_part = "prologue"}
// CHECK: tile_amd.buffer_load_to_local %arg0[%{{.*}}], %{{.*}}, %{{.*}} : tensor<16x256xi1, {{.*}}> {tile.pipeline_part = "prologue"}
// CHECK: scf.for
// CHECK: tile_amd.buffer_load_to_local %arg0[%{{.*}}], %{{.*}}, %{{.*}} : tensor<16x256xi1, {{.*}}> {tile.pipeline_part = "kernel"}
// CHECK-NOT: tile.async_copy_global_to_local

// WAIT: tile.async_wait tokens %{{.*}} {instructions = 8 : i32, num = 2 : i32, tile.pipeline_part = "kernel"}
// GENERIC: tile.async_wait tokens %{{.*}} {instructions = 0 : i32, num = 2 : i32, tile.pipeline_part = "kernel"}

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#slice1 = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx950", tile.threads_per_warp = 64 : i32} {
  func.func public @row_sum_kernel(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: i32, %arg3: i32, %arg4: i32) {
    %c4_i32 = arith.constant 4 : i32
    %0 = arith.divsi %arg3, %c4_i32 : i32
    %c4_i32_0 = arith.constant 4 : i32
    %1 = arith.muli %0, %c4_i32_0 : i32
    %c4_i32_1 = arith.constant 4 : i32
    %2 = arith.divsi %arg4, %c4_i32_1 : i32
    %c4_i32_2 = arith.constant 4 : i32
    %3 = arith.muli %2, %c4_i32_2 : i32
    %4 = tile.program_id 0
    %c16_i32 = arith.constant 16 : i32
    %5 = arith.muli %4, %c16_i32 : i32
    %6 = tile.arange 0, 16 : tensor<16xi32, #slice>
    %7 = tile.splat %5 : tensor<16xi32, #slice>
    %8 = arith.addi %7, %6 : tensor<16xi32, #slice>
    %9 = tile.arange 0, 256 : tensor<256xi32, #slice1>
    %cst = arith.constant dense<0.000000e+00> : tensor<16x256xf32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %c256_i32 = arith.constant 256 : i32
    %10 = arith.subi %1, %c0_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %11 = arith.subi %c256_i32, %c1_i32 : i32
    %12 = arith.addi %10, %11 : i32
    %c0_i32_3 = arith.constant 0 : i32
    %13 = arith.divsi %12, %c256_i32 : i32
    %14 = arith.maxsi %13, %c0_i32_3 : i32
    %c0_i32_4 = arith.constant 0 : i32
    %c1_i32_5 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %15 = tile.local_alloc : () -> !tile.memdesc<3x16x256xf32, #shared, mutable>
    %c0_i32_6 = arith.constant 0 : i32
    %16 = arith.cmpi sgt, %14, %c0_i32_6 : i32
    %c0_i32_7 = arith.constant 0 : i32
    %c0_i32_8 = arith.constant 0 : i32
    %17 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %18 = tile.splat %arg2 : tensor<16x1xi32, #blocked>
    %19 = arith.cmpi slt, %17, %18 : tensor<16x1xi32, #blocked>
    %20 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
    %21 = tile.splat %c0_i32_8 : tensor<1x256xi32, #blocked>
    %22 = arith.addi %21, %20 : tensor<1x256xi32, #blocked>
    %23 = tile.splat %1 : tensor<1x256xi32, #blocked>
    %24 = arith.cmpi slt, %22, %23 : tensor<1x256xi32, #blocked>
    %25 = tile.broadcast %19 : tensor<16x1xi1, #blocked> -> tensor<16x256xi1, #blocked>
    %26 = tile.broadcast %24 : tensor<1x256xi1, #blocked> -> tensor<16x256xi1, #blocked>
    %27 = arith.andi %25, %26 : tensor<16x256xi1, #blocked>
    %28 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %29 = tile.splat %3 : tensor<16x1xi32, #blocked>
    %30 = arith.muli %28, %29 : tensor<16x1xi32, #blocked>
    %31 = tile.splat %arg0 : tensor<16x1x!tile.ptr<f32>, #blocked>
    %32 = tile.addptr %31, %30 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %33 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
    %34 = tile.splat %c0_i32_8 : tensor<1x256xi32, #blocked>
    %35 = arith.addi %34, %33 : tensor<1x256xi32, #blocked>
    %36 = tile.broadcast %32 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x256x!tile.ptr<f32>, #blocked>
    %37 = tile.broadcast %35 : tensor<1x256xi32, #blocked> -> tensor<16x256xi32, #blocked>
    %38 = tile.addptr %36, %37 : tensor<16x256x!tile.ptr<f32>, #blocked>, tensor<16x256xi32, #blocked>
    %39 = tile.memdesc_index %15[%c0_i32_7] : !tile.memdesc<3x16x256xf32, #shared, mutable> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
    %40 = tile.splat %16 : tensor<16x256xi1, #blocked>
    %41 = arith.andi %27, %40 : tensor<16x256xi1, #blocked>
    %42 = tile.async_copy_global_to_local %38, %39, %41 {tile.pipeline_part = "prologue"} : tensor<16x256x!tile.ptr<f32>, #blocked> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
    %43 = tile.async_commit_group tokens %42 {tile.pipeline_part = "prologue"}
    %44 = arith.cmpi sgt, %14, %c1_i32_5 : i32
    %c1_i32_9 = arith.constant 1 : i32
    %c256_i32_10 = arith.constant 256 : i32
    %45 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %46 = tile.splat %arg2 : tensor<16x1xi32, #blocked>
    %47 = arith.cmpi slt, %45, %46 : tensor<16x1xi32, #blocked>
    %48 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
    %49 = tile.splat %c256_i32_10 : tensor<1x256xi32, #blocked>
    %50 = arith.addi %49, %48 : tensor<1x256xi32, #blocked>
    %51 = tile.splat %1 : tensor<1x256xi32, #blocked>
    %52 = arith.cmpi slt, %50, %51 : tensor<1x256xi32, #blocked>
    %53 = tile.broadcast %47 : tensor<16x1xi1, #blocked> -> tensor<16x256xi1, #blocked>
    %54 = tile.broadcast %52 : tensor<1x256xi1, #blocked> -> tensor<16x256xi1, #blocked>
    %55 = arith.andi %53, %54 : tensor<16x256xi1, #blocked>
    %56 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %57 = tile.splat %3 : tensor<16x1xi32, #blocked>
    %58 = arith.muli %56, %57 : tensor<16x1xi32, #blocked>
    %59 = tile.splat %arg0 : tensor<16x1x!tile.ptr<f32>, #blocked>
    %60 = tile.addptr %59, %58 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %61 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
    %62 = tile.splat %c256_i32_10 : tensor<1x256xi32, #blocked>
    %63 = arith.addi %62, %61 : tensor<1x256xi32, #blocked>
    %64 = tile.broadcast %60 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x256x!tile.ptr<f32>, #blocked>
    %65 = tile.broadcast %63 : tensor<1x256xi32, #blocked> -> tensor<16x256xi32, #blocked>
    %66 = tile.addptr %64, %65 : tensor<16x256x!tile.ptr<f32>, #blocked>, tensor<16x256xi32, #blocked>
    %67 = tile.memdesc_index %15[%c1_i32_9] : !tile.memdesc<3x16x256xf32, #shared, mutable> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
    %68 = tile.splat %44 : tensor<16x256xi1, #blocked>
    %69 = arith.andi %55, %68 : tensor<16x256xi1, #blocked>
    %70 = tile.async_copy_global_to_local %66, %67, %69 {tile.pipeline_part = "prologue"} : tensor<16x256x!tile.ptr<f32>, #blocked> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
    %71 = tile.async_commit_group tokens %70 {tile.pipeline_part = "prologue"}
    %72:3 = scf.for %arg5 = %c0_i32_4 to %14 step %c1_i32_5 iter_args(%arg6 = %cst, %arg7 = %43, %arg8 = %71) -> (tensor<16x256xf32, #blocked>, !tile.async_token, !tile.async_token)  : i32 {
      %c2_i32 = arith.constant 2 : i32
      %79 = arith.subi %14, %c2_i32 : i32
      %80 = arith.cmpi slt, %arg5, %79 : i32
      %c2_i32_11 = arith.constant 2 : i32
      %81 = arith.addi %arg5, %c2_i32_11 : i32
      %82 = arith.remsi %81, %c3_i32 : i32
      %c2_i32_12 = arith.constant 2 : i32
      %83 = arith.addi %arg5, %c2_i32_12 : i32
      %84 = arith.muli %83, %c256_i32 : i32
      %85 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %86 = tile.splat %arg2 : tensor<16x1xi32, #blocked>
      %87 = arith.cmpi slt, %85, %86 : tensor<16x1xi32, #blocked>
      %88 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
      %89 = tile.splat %84 : tensor<1x256xi32, #blocked>
      %90 = arith.addi %89, %88 : tensor<1x256xi32, #blocked>
      %91 = tile.splat %1 : tensor<1x256xi32, #blocked>
      %92 = arith.cmpi slt, %90, %91 : tensor<1x256xi32, #blocked>
      %93 = tile.broadcast %87 : tensor<16x1xi1, #blocked> -> tensor<16x256xi1, #blocked>
      %94 = tile.broadcast %92 : tensor<1x256xi1, #blocked> -> tensor<16x256xi1, #blocked>
      %95 = arith.andi %93, %94 : tensor<16x256xi1, #blocked>
      %96 = tile.expand_dims %8 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %97 = tile.splat %3 : tensor<16x1xi32, #blocked>
      %98 = arith.muli %96, %97 : tensor<16x1xi32, #blocked>
      %99 = tile.splat %arg0 : tensor<16x1x!tile.ptr<f32>, #blocked>
      %100 = tile.addptr %99, %98 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
      %101 = tile.expand_dims %9 {axis = 0 : i32} : tensor<256xi32, #slice1> -> tensor<1x256xi32, #blocked>
      %102 = tile.splat %84 : tensor<1x256xi32, #blocked>
      %103 = arith.addi %102, %101 : tensor<1x256xi32, #blocked>
      %104 = tile.broadcast %100 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x256x!tile.ptr<f32>, #blocked>
      %105 = tile.broadcast %103 : tensor<1x256xi32, #blocked> -> tensor<16x256xi32, #blocked>
      %106 = tile.addptr %104, %105 : tensor<16x256x!tile.ptr<f32>, #blocked>, tensor<16x256xi32, #blocked>
      %107 = tile.memdesc_index %15[%82] : !tile.memdesc<3x16x256xf32, #shared, mutable> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
      %108 = tile.splat %80 : tensor<16x256xi1, #blocked>
      %109 = arith.andi %95, %108 : tensor<16x256xi1, #blocked>
      %110 = tile.async_copy_global_to_local %106, %107, %109 {tile.pipeline_part = "kernel"} : tensor<16x256x!tile.ptr<f32>, #blocked> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
      %111 = tile.async_commit_group tokens %110 {tile.pipeline_part = "kernel"}
      %112 = arith.remsi %arg5, %c3_i32 : i32
      %113 = tile.async_wait tokens %arg7 {tile.pipeline_part = "kernel"}
      %114 = tile.memdesc_index %15[%112] : !tile.memdesc<3x16x256xf32, #shared, mutable> -> !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256>
      %115 = tile.local_load %114 : !tile.memdesc<16x256xf32, #shared, mutable, 3x16x256> -> tensor<16x256xf32, #blocked>
      %116 = arith.addf %arg6, %115 : tensor<16x256xf32, #blocked>
      scf.yield %116, %arg8, %111 : tensor<16x256xf32, #blocked>, !tile.async_token, !tile.async_token
    }
    %73 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %15 : !tile.memdesc<3x16x256xf32, #shared, mutable>
    %74 = tile.splat %arg1 : tensor<16x!tile.ptr<f32>, #slice>
    %75 = tile.addptr %74, %8 : tensor<16x!tile.ptr<f32>, #slice>, tensor<16xi32, #slice>
    %76 = tile.reduce %72#0 {axis = 1 : i32} : tensor<16x256xf32, #blocked> -> tensor<16xf32, #slice> {
    ^bb0(%arg5: f32, %arg6: f32):
      %79 = arith.addf %arg5, %arg6 : f32
      tile.reduce_return %79 : f32
    }
    %77 = tile.splat %arg2 : tensor<16xi32, #slice>
    %78 = arith.cmpi slt, %8, %77 : tensor<16xi32, #slice>
    tile.store %75, %76, %78 : tensor<16x!tile.ptr<f32>, #slice>
    return
  }
}

// -----

// Offsets scaled by a stride argument have no bound, and the base is not
// marked: the copy stays, with a remark.
// CHECK-LABEL: func.func public @stride_argument
// CHECK: tile.async_copy_global_to_local
// CHECK-NOT: tile_amd.buffer_load_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @stride_argument(%arg0: !tile.ptr<f32>, %stride: i32, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %ss = tile.splat %stride : tensor<256xi32, #l>
    %o = arith.muli %r, %ss : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-remark @below {{its offsets depend on a value with no known bound}}
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// The same with the base marked tile.pointer_range = 32: converted.
// CHECK-LABEL: func.func public @stride_argument_in_range
// CHECK: tile_amd.buffer_load_to_local %arg0[
// CHECK-NOT: tile.async_copy_global_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @stride_argument_in_range(%arg0: !tile.ptr<f32> {tile.pointer_range = 32 : i32}, %stride: i32, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %ss = tile.splat %stride : tensor<256xi32, #l>
    %o = arith.muli %r, %ss : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// An arange plus a constant is proven in range: converted without the mark.
// CHECK-LABEL: func.func public @arange_plus_constant
// CHECK: tile_amd.buffer_load_to_local %arg0[
// CHECK-NOT: tile.async_copy_global_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @arange_plus_constant(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %c = arith.constant dense<1024> : tensor<256xi32, #l>
    %o = arith.addi %r, %c : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// arange - 1 reaches -1: the resource would read zeros there, so it stays.
// CHECK-LABEL: func.func public @arange_minus_one
// CHECK: tile.async_copy_global_to_local
// CHECK-NOT: tile_amd.buffer_load_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @arange_minus_one(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %c = arith.constant dense<1> : tensor<256xi32, #l>
    %o = arith.subi %r, %c : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-remark @below {{its offsets may be negative (as low as -1 elements)}}
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// The last f32 the resource holds whole is element (2^31 - 2) / 4 - 1 =
// 536870910: offsets up to it convert ...
// CHECK-LABEL: func.func public @last_f32_in_range
// CHECK: tile_amd.buffer_load_to_local %arg0[
// CHECK-NOT: tile.async_copy_global_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @last_f32_in_range(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %c = arith.constant dense<536870655> : tensor<256xi32, #l>
    %o = arith.addi %r, %c : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// ... one more does not.
// CHECK-LABEL: func.func public @first_f32_out_of_range
// CHECK: tile.async_copy_global_to_local
// CHECK-NOT: tile_amd.buffer_load_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @first_f32_out_of_range(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %c = arith.constant dense<536870656> : tensor<256xi32, #l>
    %o = arith.addi %r, %c : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-remark @below {{its offsets may reach 536870911 elements, past the 536870910 of 2 GiB}}
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// pid * 256 may overflow i32 for the largest grids: not bounded, so a
// kernel indexing by program id needs the marked argument.
// CHECK-LABEL: func.func public @program_id_block
// CHECK: tile.async_copy_global_to_local
// CHECK-NOT: tile_amd.buffer_load_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @program_id_block(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %pid = tile.program_id 0
    %c256 = arith.constant 256 : i32
    %start = arith.muli %pid, %c256 : i32
    %ss = tile.splat %start : tensor<256xi32, #l>
    %o = arith.addi %ss, %r : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-remark @below {{its offsets depend on a value with no known bound}}
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// Terms of an addptr chain add up: [0, 255] + [0, 3840] (a program id
// below 16, by remsi) is in range.
// CHECK-LABEL: func.func public @two_terms
// CHECK: tile_amd.buffer_load_to_local %arg0[
// CHECK-NOT: tile.async_copy_global_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @two_terms(%arg0: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %pid = tile.program_id 0
    %c16 = arith.constant 16 : i32
    %c256 = arith.constant 256 : i32
    %q = arith.remsi %pid, %c16 : i32
    %start = arith.muli %q, %c256 : i32
    %o = tile.splat %start : tensor<256xi32, #l>
    %base0 = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p0 = tile.addptr %base0, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %p = tile.addptr %p0, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// A loop with constant bounds bounds its induction variable (the
// pipeliner's loops usually run to a size argument instead).
// CHECK-LABEL: func.func public @loop_with_constant_bounds
// CHECK: tile_amd.buffer_load_to_local %arg0[
// CHECK-NOT: tile.async_copy_global_to_local
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @loop_with_constant_bounds(%arg0: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c256 = arith.constant 256 : i32
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    scf.for %i = %c0 to %c64 step %c1 : i32 {
    %k = arith.muli %i, %c256 : i32
    %ks = tile.splat %k : tensor<256xi32, #l>
    %o = arith.addi %ks, %r : tensor<256xi32, #l>
    %base = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %base, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %buf, %m {tile.pipeline_part = "kernel"} : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    }
    return
  }
}

// -----

// Pointers carried around the loop and advanced by a constant each
// iteration (`ptrs += 64`, the textbook loop): the kernel's copy reads the
// iter_arg. From a ':range32' base plus i32 offsets, the loop also carries
// those offsets (started at the init's offsets, advanced by the same
// amount) and the copy reads base + them. Each lane copies one f32, and the
// wait after the iteration's copy leaves that one instruction in flight
// (WAIT); as a generic copy it could count none (GENERIC).
// CHECK-LABEL: func.func public @carried_pointers
// CHECK: tile_amd.buffer_load_to_local %arg0[%{{.*}}], {{.*}} {tile.pipeline_part = "prologue"}
// CHECK: %[[START:.*]] = arith.addi %arg1, %{{.*}} : tensor<4x64xi32
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[OFFS:.*]] = %[[START]])
// CHECK: tile_amd.buffer_load_to_local %arg0[%[[OFFS]]], {{.*}} {tile.pipeline_part = "kernel"}
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFFS]], %[[STEP:.*]] : tensor<4x64xi32
// CHECK: scf.yield {{.*}}, %[[NEXT]]
// CHECK-NOT: tile.async_copy_global_to_local
// WAIT-LABEL: func.func public @carried_pointers
// WAIT: tile.async_wait tokens %{{.*}} {instructions = 1 : i32, num = 1 : i32, tile.pipeline_part = "kernel"}
// GENERIC-LABEL: func.func public @carried_pointers
// GENERIC: tile.async_wait tokens %{{.*}} {instructions = 0 : i32, num = 1 : i32, tile.pipeline_part = "kernel"}
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @carried_pointers(%arg0: !tile.ptr<f32> {tile.pointer_range = 32 : i32}, %offs: tensor<4x64xi32, #b>, %m: tensor<4x64xi1, #b>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<2x4x64xf32, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x4x64xf32, #sh, mutable> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<2x4x64xf32, #sh, mutable> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %base = tile.splat %arg0 : tensor<4x64x!tile.ptr<f32>, #b>
    %p0 = tile.addptr %base, %offs : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
    %cp0 = tile.async_copy_global_to_local %p0, %s0, %m {tile.pipeline_part = "prologue"} : tensor<4x64x!tile.ptr<f32>, #b> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %g0 = tile.async_commit_group tokens %cp0 {tile.pipeline_part = "prologue"}
    %step = arith.constant dense<64> : tensor<4x64xi32, #b>
    %p1 = tile.addptr %p0, %step : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p1, %t = %g0) -> (tensor<4x64x!tile.ptr<f32>, #b>, !tile.async_token) : i32 {
      %cp = tile.async_copy_global_to_local %p, %s1, %m {tile.pipeline_part = "kernel"} : tensor<4x64x!tile.ptr<f32>, #b> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
      %g = tile.async_commit_group tokens %cp {tile.pipeline_part = "kernel"}
      %w = tile.async_wait tokens %t {tile.pipeline_part = "kernel"}
      %next = tile.addptr %p, %step : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
      scf.yield %next, %g : tensor<4x64x!tile.ptr<f32>, #b>, !tile.async_token
    }
    %done = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %ring : !tile.memdesc<2x4x64xf32, #sh, mutable>
    return
  }
}

// -----

// The same loop from a base not marked ':range32' (the offsets are an
// argument no analysis bounds), and pointers that are no base plus offsets
// at all: the generic copies stay, each with a remark.
// CHECK-LABEL: func.func public @carried_pointers_unbounded
// CHECK-NOT: tile_amd.buffer_load_to_local
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @carried_pointers_unbounded(%arg0: !tile.ptr<f32>, %offs: tensor<4x64xi32, #b>, %m: tensor<4x64xi1, #b>, %n: i32, %ptrs: tensor<4x64x!tile.ptr<f32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<2x4x64xf32, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x4x64xf32, #sh, mutable> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<2x4x64xf32, #sh, mutable> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %base = tile.splat %arg0 : tensor<4x64x!tile.ptr<f32>, #b>
    %p0 = tile.addptr %base, %offs : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
    // expected-remark @below {{its offsets depend on a value with no known bound}}
    %cp0 = tile.async_copy_global_to_local %p0, %s0, %m {tile.pipeline_part = "prologue"} : tensor<4x64x!tile.ptr<f32>, #b> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
    %g0 = tile.async_commit_group tokens %cp0 {tile.pipeline_part = "prologue"}
    %step = arith.constant dense<64> : tensor<4x64xi32, #b>
    %p1 = tile.addptr %p0, %step : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p1, %t = %g0) -> (tensor<4x64x!tile.ptr<f32>, #b>, !tile.async_token) : i32 {
      // expected-remark @below {{its pointers are carried around the loop from a base not specialized as under 2 GiB}}
      %cp = tile.async_copy_global_to_local %p, %s1, %m {tile.pipeline_part = "kernel"} : tensor<4x64x!tile.ptr<f32>, #b> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
      // expected-remark @below {{its pointers are not one scalar base plus i32 offsets}}
      %cq = tile.async_copy_global_to_local %ptrs, %s0, %m {tile.pipeline_part = "kernel"} : tensor<4x64x!tile.ptr<f32>, #b> -> !tile.memdesc<4x64xf32, #sh, mutable, 2x4x64>
      %g = tile.async_commit_group tokens %cp, %cq {tile.pipeline_part = "kernel"}
      %w = tile.async_wait tokens %t {tile.pipeline_part = "kernel"}
      %next = tile.addptr %p, %step : tensor<4x64x!tile.ptr<f32>, #b>, tensor<4x64xi32, #b>
      scf.yield %next, %g : tensor<4x64x!tile.ptr<f32>, #b>, !tile.async_token
    }
    %done = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %ring : !tile.memdesc<2x4x64xf32, #sh, mutable>
    return
  }
}

// -----

// A masked store in a loop whose waits count instructions (it issues
// direct-to-LDS copies): a wave whose lanes are all masked off would branch
// around a global store, so the wait could count none of it. As a buffer
// store (masked lanes write past the resource's end) every wave issues it.
// Outside such a loop, and with offsets of no known bound on an unmarked
// base, the store stays.
// CHECK-LABEL: func.func public @masked_store_in_ring
// CHECK: scf.for
// CHECK: tile_amd.buffer_store %{{.*}}, %arg1[%{{.*}}], %{{.*}} : tensor<256xi1
// CHECK: }
// CHECK: tile.store
// CHECK: tile.store
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @masked_store_in_ring(%arg0: !tile.ptr<f32> {tile.pointer_range = 32 : i32}, %arg1: !tile.ptr<f32> {tile.pointer_range = 32 : i32}, %arg2: !tile.ptr<f32>, %stride: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %nn = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32, #l>
    %v = arith.constant dense<1.0> : tensor<256xf32, #l>
    %src = tile.splat %arg0 : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %src, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %dst = tile.splat %arg1 : tensor<256x!tile.ptr<f32>, #l>
    %q = tile.addptr %dst, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %buf = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %t = tile_amd.buffer_load_to_local %arg0[%r], %buf, %m : tensor<256xi1, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
      %g = tile.async_commit_group tokens %t
      tile.store %q, %v, %m : tensor<256x!tile.ptr<f32>, #l>
      %w = tile.async_wait tokens %g {num = 0 : i32}
    }
    tile.store %q, %v, %m : tensor<256x!tile.ptr<f32>, #l>
    %ss = tile.splat %stride : tensor<256xi32, #l>
    %o = arith.muli %r, %ss : tensor<256xi32, #l>
    %far0 = tile.splat %arg2 : tensor<256x!tile.ptr<f32>, #l>
    %far = tile.addptr %far0, %o : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile.store %far, %v, %m : tensor<256x!tile.ptr<f32>, #l>
    return
  }
}
