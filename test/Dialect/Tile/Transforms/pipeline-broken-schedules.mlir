// RUN: not kiln-opt %s -split-input-file --tile-check-async-safety -o /dev/null 2>&1 | FileCheck %s

// Deliberately broken versions of a ring tile-pipeline-expand made (4 stages,
// copies first; tile-pipeline-expand.mlir has the correct one, which the check
// passes). Its copies carry tile.pipeline_part, so the check treats the ring
// as compiler-made: an access that may touch a slot still in flight is an
// error, not only one that certainly does (translation validation).

// The kernel's wait leaves 4 groups in flight instead of 3: the slot read may still be landing.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_80", tile.threads_per_warp = 32 : i32} {
  func.func @ring(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32) -> tensor<128xf32, #blocked> {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    %cst = arith.constant dense<128> : tensor<128xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32, #blocked>
    %0 = tile.arange 0, 128 : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.local_alloc : () -> !tile.memdesc<4x128xf32, #shared, mutable>
    %c0_i32_1 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %arg1, %c0_i32_1 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %5 = tile.memdesc_index %3[%c0_i32_2] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %6 = tile.splat %4 : tensor<128xi1, #blocked>
    %7 = tile.async_copy_global_to_local %2, %5, %6 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %8 = tile.async_commit_group tokens %7 {tile.pipeline_part = "prologue"}
    %9 = tile.addptr %2, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %10 = arith.cmpi sgt, %arg1, %c1_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %11 = tile.memdesc_index %3[%c1_i32_3] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %12 = tile.splat %10 : tensor<128xi1, #blocked>
    %13 = tile.async_copy_global_to_local %9, %11, %12 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %14 = tile.async_commit_group tokens %13 {tile.pipeline_part = "prologue"}
    %15 = tile.addptr %9, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %c2_i32 = arith.constant 2 : i32
    %16 = arith.cmpi sgt, %arg1, %c2_i32 : i32
    %c2_i32_4 = arith.constant 2 : i32
    %17 = tile.memdesc_index %3[%c2_i32_4] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %18 = tile.splat %16 : tensor<128xi1, #blocked>
    %19 = tile.async_copy_global_to_local %15, %17, %18 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %20 = tile.async_commit_group tokens %19 {tile.pipeline_part = "prologue"}
    %21 = tile.addptr %15, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %22:5 = scf.for %arg2 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg3 = %cst_0, %arg4 = %21, %arg5 = %8, %arg6 = %14, %arg7 = %20) -> (tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token)  : i32 {
      %c3_i32 = arith.constant 3 : i32
      %24 = arith.subi %arg1, %c3_i32 : i32
      %25 = arith.cmpi slt, %arg2, %24 : i32
      %c3_i32_5 = arith.constant 3 : i32
      %26 = arith.addi %arg2, %c3_i32_5 : i32
      %27 = arith.remsi %26, %c4_i32 : i32
      %28 = tile.memdesc_index %3[%27] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %29 = tile.splat %25 : tensor<128xi1, #blocked>
      // CHECK-DAG: error: 'tile.async_copy_global_to_local' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing
      %30 = tile.async_copy_global_to_local %arg4, %28, %29 {tile.pipeline_part = "kernel"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %31 = tile.async_commit_group tokens %30 {tile.pipeline_part = "kernel"}
      %32 = tile.addptr %arg4, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %33 = arith.remsi %arg2, %c4_i32 : i32
      %34 = tile.async_wait tokens %arg5 {num = 4 : i32, tile.pipeline_part = "kernel"}
      %35 = tile.memdesc_index %3[%33] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      // CHECK-DAG: error: 'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing
      %36 = tile.local_load %35 : !tile.memdesc<128xf32, #shared, mutable, 4x128> -> tensor<128xf32, #blocked>
      %37 = arith.addf %arg3, %36 : tensor<128xf32, #blocked>
      scf.yield %37, %32, %arg6, %arg7, %31 : tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token
    }
    %23 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %3 : !tile.memdesc<4x128xf32, #shared, mutable>
    return %22#0 : tensor<128xf32, #blocked>
  }
}


// -----

// One slot short: 3 slots for a prefetch distance of 3, so each iteration's copy refills the slot it is about to read.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_80", tile.threads_per_warp = 32 : i32} {
  func.func @ring(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32) -> tensor<128xf32, #blocked> {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 3 : i32
    %cst = arith.constant dense<128> : tensor<128xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32, #blocked>
    %0 = tile.arange 0, 128 : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.local_alloc : () -> !tile.memdesc<3x128xf32, #shared, mutable>
    %c0_i32_1 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %arg1, %c0_i32_1 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %5 = tile.memdesc_index %3[%c0_i32_2] : !tile.memdesc<3x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %6 = tile.splat %4 : tensor<128xi1, #blocked>
    %7 = tile.async_copy_global_to_local %2, %5, %6 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %8 = tile.async_commit_group tokens %7 {tile.pipeline_part = "prologue"}
    %9 = tile.addptr %2, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %10 = arith.cmpi sgt, %arg1, %c1_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %11 = tile.memdesc_index %3[%c1_i32_3] : !tile.memdesc<3x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %12 = tile.splat %10 : tensor<128xi1, #blocked>
    %13 = tile.async_copy_global_to_local %9, %11, %12 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %14 = tile.async_commit_group tokens %13 {tile.pipeline_part = "prologue"}
    %15 = tile.addptr %9, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %c2_i32 = arith.constant 2 : i32
    %16 = arith.cmpi sgt, %arg1, %c2_i32 : i32
    %c2_i32_4 = arith.constant 2 : i32
    %17 = tile.memdesc_index %3[%c2_i32_4] : !tile.memdesc<3x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %18 = tile.splat %16 : tensor<128xi1, #blocked>
    %19 = tile.async_copy_global_to_local %15, %17, %18 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
    %20 = tile.async_commit_group tokens %19 {tile.pipeline_part = "prologue"}
    %21 = tile.addptr %15, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %22:5 = scf.for %arg2 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg3 = %cst_0, %arg4 = %21, %arg5 = %8, %arg6 = %14, %arg7 = %20) -> (tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token)  : i32 {
      %c3_i32 = arith.constant 3 : i32
      %24 = arith.subi %arg1, %c3_i32 : i32
      %25 = arith.cmpi slt, %arg2, %24 : i32
      %c3_i32_5 = arith.constant 3 : i32
      %26 = arith.addi %arg2, %c3_i32_5 : i32
      %27 = arith.remsi %26, %c4_i32 : i32
      %28 = tile.memdesc_index %3[%27] : !tile.memdesc<3x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
      %29 = tile.splat %25 : tensor<128xi1, #blocked>
      // CHECK-DAG: error: 'tile.async_copy_global_to_local' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing
      %30 = tile.async_copy_global_to_local %arg4, %28, %29 {tile.pipeline_part = "kernel"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
      %31 = tile.async_commit_group tokens %30 {tile.pipeline_part = "kernel"}
      %32 = tile.addptr %arg4, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %33 = arith.remsi %arg2, %c4_i32 : i32
      %34 = tile.async_wait tokens %arg5 {num = 3 : i32, tile.pipeline_part = "kernel"}
      %35 = tile.memdesc_index %3[%33] : !tile.memdesc<3x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 3x128>
      // CHECK-DAG: error: 'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing
      %36 = tile.local_load %35 : !tile.memdesc<128xf32, #shared, mutable, 3x128> -> tensor<128xf32, #blocked>
      %37 = arith.addf %arg3, %36 : tensor<128xf32, #blocked>
      scf.yield %37, %32, %arg6, %arg7, %31 : tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token
    }
    %23 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %3 : !tile.memdesc<3x128xf32, #shared, mutable>
    return %22#0 : tensor<128xf32, #blocked>
  }
}


// -----

// The read's slot is computed from n, not the induction variable: the check cannot tell it apart from the slots in flight, which is an error on a compiler-made ring.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_80", tile.threads_per_warp = 32 : i32} {
  func.func @ring(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32) -> tensor<128xf32, #blocked> {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    %cst = arith.constant dense<128> : tensor<128xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32, #blocked>
    %0 = tile.arange 0, 128 : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.local_alloc : () -> !tile.memdesc<4x128xf32, #shared, mutable>
    %c0_i32_1 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %arg1, %c0_i32_1 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %5 = tile.memdesc_index %3[%c0_i32_2] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %6 = tile.splat %4 : tensor<128xi1, #blocked>
    %7 = tile.async_copy_global_to_local %2, %5, %6 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %8 = tile.async_commit_group tokens %7 {tile.pipeline_part = "prologue"}
    %9 = tile.addptr %2, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %10 = arith.cmpi sgt, %arg1, %c1_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %11 = tile.memdesc_index %3[%c1_i32_3] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %12 = tile.splat %10 : tensor<128xi1, #blocked>
    %13 = tile.async_copy_global_to_local %9, %11, %12 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %14 = tile.async_commit_group tokens %13 {tile.pipeline_part = "prologue"}
    %15 = tile.addptr %9, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %c2_i32 = arith.constant 2 : i32
    %16 = arith.cmpi sgt, %arg1, %c2_i32 : i32
    %c2_i32_4 = arith.constant 2 : i32
    %17 = tile.memdesc_index %3[%c2_i32_4] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %18 = tile.splat %16 : tensor<128xi1, #blocked>
    %19 = tile.async_copy_global_to_local %15, %17, %18 {tile.pipeline_part = "prologue"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %20 = tile.async_commit_group tokens %19 {tile.pipeline_part = "prologue"}
    %21 = tile.addptr %15, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %22:5 = scf.for %arg2 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg3 = %cst_0, %arg4 = %21, %arg5 = %8, %arg6 = %14, %arg7 = %20) -> (tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token)  : i32 {
      %c3_i32 = arith.constant 3 : i32
      %24 = arith.subi %arg1, %c3_i32 : i32
      %25 = arith.cmpi slt, %arg2, %24 : i32
      %c3_i32_5 = arith.constant 3 : i32
      %26 = arith.addi %arg2, %c3_i32_5 : i32
      %27 = arith.remsi %26, %c4_i32 : i32
      %28 = tile.memdesc_index %3[%27] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %29 = tile.splat %25 : tensor<128xi1, #blocked>
      %30 = tile.async_copy_global_to_local %arg4, %28, %29 {tile.pipeline_part = "kernel"} : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %31 = tile.async_commit_group tokens %30 {tile.pipeline_part = "kernel"}
      %32 = tile.addptr %arg4, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %33 = arith.remsi %arg1, %c4_i32 : i32
      %34 = tile.async_wait tokens %arg5 {num = 3 : i32, tile.pipeline_part = "kernel"}
      %35 = tile.memdesc_index %3[%33] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      // CHECK-DAG: error: 'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing
      %36 = tile.local_load %35 : !tile.memdesc<128xf32, #shared, mutable, 4x128> -> tensor<128xf32, #blocked>
      %37 = arith.addf %arg3, %36 : tensor<128xf32, #blocked>
      scf.yield %37, %32, %arg6, %arg7, %31 : tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token
    }
    %23 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %3 : !tile.memdesc<4x128xf32, #shared, mutable>
    return %22#0 : tensor<128xf32, #blocked>
  }
}


// -----

// CHECK-NOT: error:
// The same loop without the pipeliner's tags is a hand-written ring: what the check cannot decide it does not report (no diagnostics expected).
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "cuda:sm_80", tile.threads_per_warp = 32 : i32} {
  func.func @ring(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32) -> tensor<128xf32, #blocked> {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    %cst = arith.constant dense<128> : tensor<128xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32, #blocked>
    %0 = tile.arange 0, 128 : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.local_alloc : () -> !tile.memdesc<4x128xf32, #shared, mutable>
    %c0_i32_1 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %arg1, %c0_i32_1 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %5 = tile.memdesc_index %3[%c0_i32_2] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %6 = tile.splat %4 : tensor<128xi1, #blocked>
    %7 = tile.async_copy_global_to_local %2, %5, %6 : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %8 = tile.async_commit_group tokens %7
    %9 = tile.addptr %2, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %10 = arith.cmpi sgt, %arg1, %c1_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %11 = tile.memdesc_index %3[%c1_i32_3] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %12 = tile.splat %10 : tensor<128xi1, #blocked>
    %13 = tile.async_copy_global_to_local %9, %11, %12 : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %14 = tile.async_commit_group tokens %13
    %15 = tile.addptr %9, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %c2_i32 = arith.constant 2 : i32
    %16 = arith.cmpi sgt, %arg1, %c2_i32 : i32
    %c2_i32_4 = arith.constant 2 : i32
    %17 = tile.memdesc_index %3[%c2_i32_4] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %18 = tile.splat %16 : tensor<128xi1, #blocked>
    %19 = tile.async_copy_global_to_local %15, %17, %18 : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
    %20 = tile.async_commit_group tokens %19
    %21 = tile.addptr %15, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %22:5 = scf.for %arg2 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg3 = %cst_0, %arg4 = %21, %arg5 = %8, %arg6 = %14, %arg7 = %20) -> (tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token)  : i32 {
      %c3_i32 = arith.constant 3 : i32
      %24 = arith.subi %arg1, %c3_i32 : i32
      %25 = arith.cmpi slt, %arg2, %24 : i32
      %c3_i32_5 = arith.constant 3 : i32
      %26 = arith.addi %arg2, %c3_i32_5 : i32
      %27 = arith.remsi %26, %c4_i32 : i32
      %28 = tile.memdesc_index %3[%27] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %29 = tile.splat %25 : tensor<128xi1, #blocked>
      %30 = tile.async_copy_global_to_local %arg4, %28, %29 : tensor<128x!tile.ptr<f32>, #blocked> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %31 = tile.async_commit_group tokens %30
      %32 = tile.addptr %arg4, %cst : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %33 = arith.remsi %arg1, %c4_i32 : i32
      %34 = tile.async_wait tokens %arg5 {num = 3 : i32}
      %35 = tile.memdesc_index %3[%33] : !tile.memdesc<4x128xf32, #shared, mutable> -> !tile.memdesc<128xf32, #shared, mutable, 4x128>
      %36 = tile.local_load %35 : !tile.memdesc<128xf32, #shared, mutable, 4x128> -> tensor<128xf32, #blocked>
      %37 = arith.addf %arg3, %36 : tensor<128xf32, #blocked>
      scf.yield %37, %32, %arg6, %arg7, %31 : tensor<128xf32, #blocked>, tensor<128x!tile.ptr<f32>, #blocked>, !tile.async_token, !tile.async_token, !tile.async_token
    }
    %23 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %3 : !tile.memdesc<4x128xf32, #shared, mutable>
    return %22#0 : tensor<128xf32, #blocked>
  }
}

