// RUN: kiln-opt %s -split-input-file --tile-pipeline-assign-stages --tile-pipeline-lower-loads --tile-pipeline-expand | FileCheck %s
// The independent checks on the result: the wait-count oracle runs each
// function for trip counts 0-3 of every loop (and both ways of each if) and
// compares the computed counts with the groups committed in that execution;
// the async-safety check finds no read of a slot a copy may still write.
// RUN: kiln-opt %s -split-input-file --tile-pipeline-assign-stages --tile-pipeline-lower-loads --tile-pipeline-expand --tile-insert-wait-counts --test-wait-count-oracle 2>&1 | FileCheck %s --check-prefix=ORACLE
// RUN: kiln-opt %s -split-input-file --tile-pipeline-assign-stages --tile-pipeline-lower-loads --tile-pipeline-expand --tile-insert-wait-counts --tile-insert-barriers --tile-check-async-safety -o /dev/null
// ORACLE-NOT: error
// ORACLE-NOT: leaves an awaited

// Loop nests the pipeliner expands one loop at a time, each keeping its own
// schedule: two loops in a row, and a loop with its own loads around a
// pipelined inner loop (the inner ring's setup, prologue and final wait run
// in the outer loop's last stage).

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
!i = tensor<128xi32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @sequential
  // CHECK-NOT: tile.stage
  // CHECK: tile.async_copy_global_to_local {{.*}}"prologue"
  // CHECK: scf.for
  // CHECK: tile.async_copy_global_to_local {{.*}}"kernel"
  // CHECK: tile.async_wait {num = 0 : i32}
  // CHECK: tile.async_copy_global_to_local {{.*}}"prologue"
  // CHECK: scf.for
  // CHECK: tile.async_copy_global_to_local {{.*}}"kernel"
  // CHECK: tile.async_wait {num = 0 : i32}
  // CHECK-NOT: tile.num_stages
  // ORACLE: remark: oracle: holds
  func.func @sequential(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %xb = tile.splat %x : !p
    %xa = tile.addptr %xb, %offs : !p, !i
    %yb = tile.splat %y : !p
    %ya = tile.addptr %yb, %offs : !p, !i
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %xa : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (!t) : i32 {
      %v = tile.load %ya : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 4 : i32}
    return %r2 : !t
  }

  // CHECK-LABEL: func.func @nested
  // CHECK-NOT: tile.stage
  // CHECK: tile.async_copy_global_to_local {{.*}}"prologue"
  // CHECK: scf.for
  // CHECK:   tile.async_copy_global_to_local {{.*}}"kernel"
  // CHECK:   tile.async_copy_global_to_local {{.*}}"prologue"
  // CHECK:   scf.for
  // CHECK:     tile.async_copy_global_to_local {{.*}}"kernel"
  // CHECK:   tile.async_wait {num = 0 : i32, tile.pipeline_part = "kernel"}
  // CHECK: tile.async_wait {num = 0 : i32}
  // ORACLE: remark: oracle: holds
  func.func @nested(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %m: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %xb = tile.splat %x : !p
    %xa = tile.addptr %xb, %offs : !p, !i
    %yb = tile.splat %y : !p
    %ya = tile.addptr %yb, %offs : !p, !i
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %ya, %so : !p, !i
      %v = tile.load %q : !p
      %a = arith.addf %acc, %v : !t
      %in = scf.for %j = %c0 to %m step %c1 iter_args(%acc2 = %a) -> (!t) : i32 {
        %w = tile.load %xa : !p
        %b = arith.addf %acc2, %w : !t
        scf.yield %b : !t
      } {tile.num_stages = 3 : i32}
      scf.yield %in : !t
    } {tile.num_stages = 2 : i32}
    return %r : !t
  }

  // An inner loop that is not pipelined between the outer loop's wait and its
  // read: the check must not count the inner loop's back edges as iterations
  // of the outer ring (it reported the read as racing with the copy issued
  // in the same outer iteration; the race oracle finds no race).
  // CHECK-LABEL: func.func @inner_loop_between_wait_and_read
  // CHECK: scf.for
  // CHECK: tile.async_wait tokens
  // CHECK: scf.for
  // CHECK: tile.local_load
  // ORACLE: remark: oracle: holds
  func.func @inner_loop_between_wait_and_read(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %lo: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c6 = arith.constant 6 : i32
    %c10 = arith.constant 10 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %xb = tile.splat %x : !p
    %xa = tile.addptr %xb, %offs : !p, !i
    %yb = tile.splat %y : !p
    %ya = tile.addptr %yb, %offs : !p, !i
    %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %in = scf.for %j = %lo to %c10 step %c4 iter_args(%acc2 = %acc) -> (!t) : i32 {
        %w = tile.load %xa : !p
        %b = arith.addf %acc2, %w : !t
        scf.yield %b : !t
      }
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %ya, %so : !p, !i
      %v = tile.load %q : !p
      %a = arith.addf %in, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }
}
