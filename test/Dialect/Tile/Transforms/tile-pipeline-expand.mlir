// RUN: kiln-opt %s -split-input-file --tile-pipeline-expand -verify-diagnostics | FileCheck %s
// The independent checks, on the expanded loop: the wait-count oracle runs
// the function for trip counts 0-3 and compares each computed count with the
// groups actually committed after the awaited one (sound, slack 0); the
// async-safety check finds no read of a slot a copy may still be writing.
// (`not`: the last case is an error by design.)
// RUN: not kiln-opt %s -split-input-file --tile-pipeline-expand --tile-insert-wait-counts --test-wait-count-oracle 2>&1 | FileCheck %s --check-prefix=ORACLE
// RUN: kiln-opt %s -split-input-file --tile-pipeline-expand --tile-insert-wait-counts --tile-check-async-safety -verify-diagnostics -o /dev/null
// ORACLE: remark: oracle: holds on 4 executions, slack 0
// ORACLE-NOT: leaves an awaited group in flight

// Last step: upstream's scf::pipelineForLoop expands the staged loop. The
// prologue issues iterations 0..2 into constant slots, each predicated on
// n > i through the copy's mask; the kernel loop issues iteration j+3 into
// slot (j+3) % 4, predicated on j < n-3, and reads slot j % 4.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
!ring = !tile.memdesc<4x128xf32, #sh, mutable>
!slot = !tile.memdesc<128xf32, #sh, mutable, 4x128>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @ring
  // CHECK-NOT: tile.stage
  // CHECK: %[[P0:.*]] = arith.cmpi sgt, %[[N:.*]], %c0
  // CHECK: %[[S0:.*]] = tile.memdesc_index %[[RING:.*]][%c0
  // CHECK: %[[M0:.*]] = tile.splat %[[P0]] : tensor<128xi1
  // CHECK: tile.async_copy_global_to_local %{{.*}}, %[[S0]], %[[M0]] {tile.pipeline_part = "prologue"}
  // CHECK: tile.async_commit_group {{.*}}{tile.pipeline_part = "prologue"}
  // CHECK: tile.memdesc_index %[[RING]][%c1
  // CHECK: tile.memdesc_index %[[RING]][%c2
  // CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args({{.*}}) -> ({{.*}}!tile.async_token, !tile.async_token, !tile.async_token)
  // CHECK:   %[[LIVE:.*]] = arith.cmpi slt, %[[J]],
  // CHECK:   %[[NEXT:.*]] = arith.addi %[[J]], %c3
  // CHECK:   %[[NS:.*]] = arith.remsi %[[NEXT]], %c4
  // CHECK:   %[[SLOT:.*]] = tile.memdesc_index %[[RING]][%[[NS]]]
  // CHECK:   %[[M:.*]] = tile.splat %[[LIVE]]
  // CHECK:   tile.async_copy_global_to_local %{{.*}}, %[[SLOT]], %[[M]] {tile.pipeline_part = "kernel"}
  // CHECK:   tile.async_commit_group {{.*}}{tile.pipeline_part = "kernel"}
  // CHECK:   %[[CS:.*]] = arith.remsi %[[J]], %c4
  // CHECK:   tile.async_wait tokens %{{.*}} {tile.pipeline_part = "kernel"}
  // CHECK:   tile.memdesc_index %[[RING]][%[[CS]]]
  // CHECK:   tile.local_load
  // CHECK: }
  // CHECK-NOT: tile.num_stages
  // CHECK: tile.async_wait {num = 0 : i32}
  func.func @ring(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c128 = arith.constant dense<128> : tensor<128xi32, #l>
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !p
    %p0 = tile.addptr %base, %offs : !p, tensor<128xi32, #l>
    %ring = tile.local_alloc : () -> !ring
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (!t, !p) : i32 {
      %s0 = arith.remsi %i, %c4 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : i32
      %s3 = arith.remsi %i, %c4 {tile.cluster = 1 : i32, tile.stage = 3 : i32} : i32
      %slot0 = tile.memdesc_index %ring[%s0] {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !ring -> !slot
      %cp = tile.async_copy_global_to_local %p, %slot0 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p -> !slot
      %g = tile.async_commit_group tokens %cp {tile.cluster = 0 : i32, tile.stage = 0 : i32}
      %w = tile.async_wait tokens %g {tile.cluster = 1 : i32, tile.stage = 3 : i32}
      %slot3 = tile.memdesc_index %ring[%s3] {tile.cluster = 1 : i32, tile.stage = 3 : i32} : !ring -> !slot
      %v = tile.local_load %slot3 {tile.cluster = 1 : i32, tile.stage = 3 : i32} : !slot -> !t
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 3 : i32} : !t
      %next = tile.addptr %p, %c128 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p, tensor<128xi32, #l>
      scf.yield %a, %next : !t, !p
    } {tile.num_stages = 4 : i32}
    %done = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %ring : !ring
    return %r#0 : !t
  }
}

// -----

// A masked copy: the predicate is anded into the operand of the mask's
// and/broadcast tree with the fewest different values a thread holds (here
// the column mask, before its broadcast: one value a thread, which holds two
// rows), not into each element of the mask.
#l2 = #tile.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh2 = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]}>
!p2 = tensor<8x32x!tile.ptr<f32>, #l2>
!ring2 = !tile.memdesc<2x8x32xf32, #sh2, mutable>
!slot2 = !tile.memdesc<8x32xf32, #sh2, mutable, 2x8x32>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @masked
  // CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
  // CHECK:   %[[LIVE:.*]] = arith.cmpi slt, %[[J]],
  // CHECK:   %[[COL:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<1x32xi32
  // CHECK:   %[[LIVES:.*]] = tile.splat %[[LIVE]] : tensor<1x32xi1
  // CHECK:   %[[COLP:.*]] = arith.andi %[[COL]], %[[LIVES]] : tensor<1x32xi1
  // CHECK:   tile.broadcast %[[COLP]]
  // CHECK:   %[[MASK:.*]] = arith.andi
  // CHECK:   tile.async_copy_global_to_local %{{.*}}, %{{.*}}, %[[MASK]] {tile.pipeline_part = "kernel"}
  func.func @masked(%p: !p2, %rows: tensor<8x1xi1, #l2>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !ring2
    %rowm = tile.broadcast %rows : tensor<8x1xi1, #l2> -> tensor<8x32xi1, #l2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %s0 = arith.remsi %i, %c2 {tile.cluster = 0 : i32, tile.stage = 0 : i32} : i32
      %si = tile.splat %i {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<1x32xi32, #l2>
      %sn = tile.splat %n {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<1x32xi32, #l2>
      %col = arith.cmpi slt, %si, %sn {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<1x32xi32, #l2>
      %colm = tile.broadcast %col {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<1x32xi1, #l2> -> tensor<8x32xi1, #l2>
      %mask = arith.andi %rowm, %colm {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<8x32xi1, #l2>
      %slot0 = tile.memdesc_index %ring[%s0] {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !ring2 -> !slot2
      %cp = tile.async_copy_global_to_local %p, %slot0, %mask {tile.cluster = 0 : i32, tile.stage = 0 : i32} : !p2 -> !slot2
      %g = tile.async_commit_group tokens %cp {tile.cluster = 0 : i32, tile.stage = 0 : i32}
      %w = tile.async_wait tokens %g {tile.cluster = 1 : i32, tile.stage = 1 : i32}
      scf.yield
    } {tile.num_stages = 2 : i32}
    %done = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %ring : !ring2
    return
  }
}

// -----

// A loop whose ops are not all staged is an error at the op (replayed or
// hand-written schedules included), not a crash.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unstaged_op(%p: tensor<128x!tile.ptr<f32>, #l>, %n: i32) -> tensor<128xf32, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128xf32, #l>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128xf32, #l>) : i32 {
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128x!tile.ptr<f32>, #l>
      // expected-error @+1 {{'arith.addf' op in a staged loop needs a tile.stage below the loop's tile.num_stages (2)}}
      %a = arith.addf %acc, %v : tensor<128xf32, #l>
      scf.yield %a : tensor<128xf32, #l>
    } {tile.num_stages = 2 : i32}
    return %r : tensor<128xf32, #l>
  }
}

// -----

// A staged loop with a zero step (upstream's expander would divide by it)
// is an error at the loop.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @zero_step(%p: tensor<128x!tile.ptr<f32>, #l>, %n: i32) -> tensor<128xf32, #l> {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<128xf32, #l>
    // expected-error @+1 {{'scf.for' op has tile.stage ops but cannot be pipelined: its step is not a positive constant}}
    %r = scf.for %i = %c0 to %n step %c0 iter_args(%acc = %zero) -> (tensor<128xf32, #l>) : i32 {
      %v = tile.load %p {tile.cluster = 0 : i32, tile.stage = 0 : i32} : tensor<128x!tile.ptr<f32>, #l>
      %a = arith.addf %acc, %v {tile.cluster = 1 : i32, tile.stage = 1 : i32} : tensor<128xf32, #l>
      scf.yield %a : tensor<128xf32, #l>
    } {tile.num_stages = 2 : i32}
    return %r : tensor<128xf32, #l>
  }
}
