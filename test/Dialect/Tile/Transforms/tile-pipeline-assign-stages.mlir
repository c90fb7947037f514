// RUN: kiln-opt %s -split-input-file --tile-pipeline-assign-stages -verify-diagnostics | FileCheck %s

// First step of software pipelining: the loads of a num_stages loop that
// can become async copies, with the pure ops computing their operands, get
// stage 0; everything else stage N-1. Loops that cannot be pipelined get a
// remark saying why.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // A load used in registers; copies first (addresses cluster 0, the copy 1), the use 2 stages later (2).
  // CHECK-LABEL: func.func @stream
  // CHECK: tile.splat %{{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: arith.addi {{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: tile.addptr {{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: tile.load {{.*}} {tile.cluster = 1 : i32, tile.stage = 0 : i32}
  // CHECK: arith.addf {{.*}} {tile.cluster = 2 : i32, tile.stage = 2 : i32}
  // CHECK: } {tile.num_stages = 3 : i32}
  func.func @stream(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !p
    %r = scf.for %i = %c0 to %n step %c128 iter_args(%acc = %zero) -> (!t) : i32 {
      %s = tile.splat %i : tensor<128xi32, #l>
      %o = arith.addi %s, %offs : tensor<128xi32, #l>
      %p = tile.addptr %base, %o : !p, tensor<128xi32, #l>
      %v = tile.load %p : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // A load into a local_alloc; its pointers advance around the loop, so the
  // increment joins stage 0. A stage-0 value a later stage also reads
  // (%off) is recomputed for it.
  // CHECK-LABEL: func.func @ring
  // CHECK: %[[OFF:.*]] = arith.addi {{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  // CHECK: %[[OFF2:.*]] = arith.addi {{.*}} {tile.cluster = 2 : i32, tile.stage = 3 : i32}
  // CHECK: tile.load {{.*}} {tile.cluster = 1 : i32, tile.stage = 0 : i32}
  // CHECK: tile.local_alloc {{.*}} {tile.cluster = 2 : i32, tile.stage = 3 : i32}
  // CHECK: tile.local_load {{.*}} {tile.cluster = 2 : i32, tile.stage = 3 : i32}
  // CHECK: tile.store {{.*}}, %[[OFF2]] {{.*}}tile.stage = 3
  // CHECK: tile.addptr %{{.*}}, %{{.*}} {tile.cluster = 0 : i32, tile.stage = 0 : i32}
  func.func @ring(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: tensor<128x!tile.ptr<i32>, #l>, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant dense<128> : tensor<128xi32, #l>
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !p
    %p0 = tile.addptr %base, %offs : !p, tensor<128xi32, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (!t, !p) : i32 {
      %off = arith.addi %offs, %c128 : tensor<128xi32, #l>
      %q = tile.addptr %p, %off : !p, tensor<128xi32, #l>
      %v = tile.load %q : !p
      %buf = tile.local_alloc %v : (!t) -> !tile.memdesc<128xf32, #sh, mutable>
      %w = tile.local_load %buf : !tile.memdesc<128xf32, #sh, mutable> -> !t
      %a = arith.addf %acc, %w : !t
      tile.store %out, %off : tensor<128x!tile.ptr<i32>, #l>
      %next = tile.addptr %p, %c128 : !p, tensor<128xi32, #l>
      scf.yield %a, %next : !t, !p
    } {tile.num_stages = 4 : i32}
    return %r#0 : !t
  }

  // num_stages 1 (or absent) asks for nothing.
  // CHECK-LABEL: func.func @one_stage
  // CHECK-NOT: tile.stage
  func.func @one_stage(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 1 : i32}
    return %r : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @runtime_step
  // CHECK-NOT: tile.stage
  func.func @runtime_step(%p: !p, %n: i32, %s: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-remark @below {{loop not pipelined: its step is not a positive constant}}
    %r = scf.for %i = %c0 to %n step %s iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // A stage is numbered 0 to 64 (the verifier's range): at most 65 stages.
  // CHECK-LABEL: func.func @too_many_stages
  // CHECK-NOT: tile.stage
  func.func @too_many_stages(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-remark @below {{loop not pipelined: num_stages=66 is more than 65, the most Kiln pipelines}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %p : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 66 : i32}
    return %r : !t
  }

  func.func @swap(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-remark @below {{loop not pipelined: loop-carried value #0 is another loop-carried value of the previous iteration (a distance-2 recurrence)}}
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %b = %zero) -> (!t, !t) : i32 {
      %v = tile.load %p : !p
      %s = arith.addf %a, %v : !t
      scf.yield %b, %s : !t, !t
    } {tile.num_stages = 3 : i32}
    return %r#0 : !t
  }

  func.func @outside_yield(%p: !p, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    // expected-remark @below {{loop not pipelined: loop-carried value #0 is a value defined before the loop}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (!t) : i32 {
      %v = tile.load %p : !p
      tile.store %p, %v : !p
      scf.yield %zero : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // The address of the second load depends on the first load: only the
  // first is pipelined.
  // CHECK-LABEL: func.func @chase
  // CHECK: tile.load {{.*}}tile.stage = 0
  // CHECK: tile.load {{.*}}tile.stage = 1
  func.func @chase(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %idx: tensor<128x!tile.ptr<i32>, #l>, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %base = tile.splat %x : !p
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %o = tile.load %idx : tensor<128x!tile.ptr<i32>, #l>
      %p = tile.addptr %base, %o : !p, tensor<128xi32, #l>
      // expected-remark @below {{load not pipelined: its address or mask depends on 'tile.load' in the loop, which is not a pure op}}
      %v = tile.load %p : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 2 : i32}
    return %r : !t
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
!h = tensor<128x!tile.ptr<f16>, #l>
!ht = tensor<128xf16, #l>
!big = tensor<128x128x!tile.ptr<f32>, #l2>
!bigt = tensor<128x128xf32, #l2>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // 2-byte elements at an unknown alignment: one element per copy is
  // narrower than cp.async's 4 bytes.
  func.func @narrow(%x: !tile.ptr<f16>, %n: i32) -> !ht {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !ht
    %offs = tile.arange 0, 128 : tensor<128xi32, #l>
    %base = tile.splat %x : !h
    %p = tile.addptr %base, %offs : !h, tensor<128xi32, #l>
    // expected-remark @below {{loop not pipelined: no load in it can become an asynchronous copy}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!ht) : i32 {
      // expected-remark @below {{load not pipelined: as an asynchronous copy into !tile.memdesc<128xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable, 3x128>: async copy rule 'width': cp.async on cuda:sm_80 moves 4, 8, 16 bytes per thread, but this copy can move only 2 bytes}}
      %v = tile.load %p : !h
      %a = arith.addf %acc, %v : !ht
      scf.yield %a : !ht
    } {tile.num_stages = 3 : i32}
    return %r : !ht
  }

  // 5 x 64 KiB rings do not fit in sm_80's 163 KiB.
  func.func @too_big(%p: !big, %n: i32) -> !bigt {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !bigt
    // expected-remark @below {{loop not pipelined: 5 stages need 327680 bytes of shared memory for the rings (65536 per stage), and cuda:sm_80 has 166912 (0 of them used by the kernel's other buffers); num_stages=2 fits}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!bigt) : i32 {
      %v = tile.load %p : !big
      %a = arith.addf %acc, %v : !bigt
      scf.yield %a : !bigt
    } {tile.num_stages = 5 : i32}
    return %r : !bigt
  }
}

// -----

// A slot read by something other than local_load (here through a view; in
// kernels, an asynchronous reader such as a wgmma) may still be read when
// the next copy is issued: the consumers run first (cluster 1), then all of
// stage 0, its address arithmetic and the load (the copy) (cluster 2), as a
// hand-pipelined wgmma loop orders them.
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#lt = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sht = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
!p = tensor<8x16x!tile.ptr<f32>, #l>
!t = tensor<8x16xf32, #l>
!tt = tensor<16x8xf32, #lt>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @consumers_first
  // CHECK: tile.splat {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: arith.addi {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: tile.addptr {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: tile.load {{.*}} {tile.cluster = 2 : i32, tile.stage = 0 : i32}
  // CHECK: tile.local_alloc {{.*}} {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: tile.memdesc_permute {{.*}}tile.cluster = 1 : i32, tile.stage = 2 : i32}
  // CHECK: tile.local_load {{.*}} {tile.cluster = 1 : i32, tile.stage = 2 : i32}
  func.func @consumers_first(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %offs: tensor<8x16xi32, #l>, %n: i32) -> !tt {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !tt
    %base = tile.splat %x : !p
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tt) : i32 {
      %s = tile.splat %i : tensor<8x16xi32, #l>
      %off = arith.addi %offs, %s : tensor<8x16xi32, #l>
      %q = tile.addptr %base, %off : !p, tensor<8x16xi32, #l>
      %v = tile.load %q : !p
      %buf = tile.local_alloc %v : (!t) -> !tile.memdesc<8x16xf32, #sh, mutable>
      %view = tile.memdesc_permute %buf {order = array<i32: 1, 0>} : !tile.memdesc<8x16xf32, #sh, mutable> -> !tile.memdesc<16x8xf32, #sht, mutable>
      %w = tile.local_load %view : !tile.memdesc<16x8xf32, #sht, mutable> -> !tt
      %a = arith.addf %acc, %w : !tt
      scf.yield %a : !tt
    } {tile.num_stages = 3 : i32}
    return %r : !tt
  }
}

// -----

// Memory dependences. A load issued 2 iterations ahead must not read an
// element a store of the loop writes in the iterations it moves across.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!t = tensor<128xf32, #l>
!i = tensor<128xi32, #l>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // x[i+1] = x[i] + 1: the store of iteration i writes what the load of
  // iteration i+1 reads.
  // CHECK-LABEL: func.func @store_feeds_next_load
  // CHECK-NOT: tile.stage
  func.func @store_feeds_next_load(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %one = arith.constant dense<1.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    // expected-remark @below {{loop not pipelined: no load in it can become an asynchronous copy}}
    scf.for %i = %c0 to %n step %c1 : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %at, %so : !p, !i
      // expected-remark @below {{load not pipelined: the store at}}
      %v = tile.load %q : !p
      %w = arith.addf %v, %one : !t
      %i1 = arith.addi %i, %c1 : i32
      %o1 = arith.muli %i1, %c128 : i32
      %so1 = tile.splat %o1 : !i
      %q1 = tile.addptr %at, %so1 : !p, !i
      tile.store %q1, %w : !p
    } {tile.num_stages = 3 : i32}
    return
  }

  // x[i+2] = x[i] + 1 with 2 stages: the load moves 1 iteration ahead, the
  // store it would have to wait for is 2 back: pipelined.
  // CHECK-LABEL: func.func @store_two_ahead
  // CHECK: tile.load {{.*}}tile.stage = 0
  func.func @store_two_ahead(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c128 = arith.constant 128 : i32
    %one = arith.constant dense<1.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    scf.for %i = %c0 to %n step %c1 : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %at, %so : !p, !i
      %v = tile.load %q : !p
      %w = arith.addf %v, %one : !t
      %i2 = arith.addi %i, %c2 : i32
      %o2 = arith.muli %i2, %c128 : i32
      %so2 = tile.splat %o2 : !i
      %q2 = tile.addptr %at, %so2 : !p, !i
      tile.store %q2, %w : !p
    } {tile.num_stages = 2 : i32}
    return
  }

  // In place (x[i] += 1): the store follows the read of the value in its own
  // iteration, and no other iteration touches x[i]: pipelined.
  // CHECK-LABEL: func.func @in_place
  // CHECK: tile.load {{.*}}tile.stage = 0
  func.func @in_place(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %one = arith.constant dense<1.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    scf.for %i = %c0 to %n step %c1 : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %at, %so : !p, !i
      %v = tile.load %q : !p
      %w = arith.addf %v, %one : !t
      tile.store %q, %w : !p
    } {tile.num_stages = 3 : i32}
    return
  }

  // The store goes through another argument: assumed apart (as Triton and
  // CUDA kernels assume of separate arguments): pipelined.
  // CHECK-LABEL: func.func @other_argument
  // CHECK: tile.load {{.*}}tile.stage = 0
  func.func @other_argument(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %one = arith.constant dense<1.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    %ybase = tile.splat %y : !p
    %yat = tile.addptr %ybase, %offs : !p, !i
    scf.for %i = %c0 to %n step %c1 : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %at, %so : !p, !i
      %v = tile.load %q : !p
      %w = arith.addf %v, %one : !t
      %i1 = arith.addi %i, %c1 : i32
      %o1 = arith.muli %i1, %c128 : i32
      %so1 = tile.splat %o1 : !i
      %q1 = tile.addptr %yat, %so1 : !p, !i
      tile.store %q1, %w : !p
    } {tile.num_stages = 3 : i32}
    return
  }

  // Same argument, a distance in a run-time value: not provable either way.
  // CHECK-LABEL: func.func @unknown_distance
  // CHECK-NOT: tile.stage
  func.func @unknown_distance(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %d: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %one = arith.constant dense<1.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    %sd = tile.splat %d : !i
    %away = tile.addptr %at, %sd : !p, !i
    // expected-remark @below {{loop not pipelined: no load in it can become an asynchronous copy}}
    scf.for %i = %c0 to %n step %c1 : i32 {
      %o = arith.muli %i, %c128 : i32
      %so = tile.splat %o : !i
      %q = tile.addptr %at, %so : !p, !i
      // expected-remark @below {{writes through the same pointer argument and Kiln cannot prove that it never writes an element this load reads up to 2 iterations later (addresses whose distance depends on run-time values); pass the two through separate pointer arguments}}
      %v = tile.load %q : !p
      %w = arith.addf %v, %one : !t
      %q1 = tile.addptr %away, %so : !p, !i
      tile.store %q1, %w : !p
    } {tile.num_stages = 3 : i32}
    return
  }

  // A volatile load is issued where the program has it.
  // CHECK-LABEL: func.func @volatile
  // CHECK-NOT: tile.stage
  func.func @volatile(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    // expected-remark @below {{loop not pipelined: no load in it can become an asynchronous copy}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      // expected-remark @below {{load not pipelined: it is volatile}}
      %v = tile.load %at {isVolatile} : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // A step of 1 from a run-time lower bound: the trip count (up to 2^32 - 1)
  // may not fit the pipelined loop's i32 counter.
  func.func @wide_trip_count(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %lo: i32, %n: i32) -> !t {
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    // expected-remark @below {{loop not pipelined: with a step of 1 and a lower bound that may be negative, its trip count may not fit in 32 bits}}
    %r = scf.for %i = %lo to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %at : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r : !t
  }

  // Two pipelined loops in one function, and a load whose value is used only
  // under a run-time condition: all staged.
  // CHECK-LABEL: func.func @two_loops
  // CHECK: scf.for
  // CHECK: tile.load {{.*}}tile.stage = 0
  // CHECK: scf.for
  // CHECK: tile.load {{.*}}tile.stage = 0
  // CHECK: scf.if
  // CHECK: tile.stage = 2
  func.func @two_loops(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %flag: i1) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !t
    %offs = tile.arange 0, 128 : !i
    %base = tile.splat %x : !p
    %at = tile.addptr %base, %offs : !p, !i
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) : i32 {
      %v = tile.load %at : !p
      %a = arith.addf %acc, %v : !t
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (!t) : i32 {
      %v = tile.load %at : !p
      %a = scf.if %flag -> (!t) {
        %s = arith.addf %acc, %v : !t
        scf.yield %s : !t
      } else {
        scf.yield %acc : !t
      }
      scf.yield %a : !t
    } {tile.num_stages = 3 : i32}
    return %r2 : !t
  }
}
