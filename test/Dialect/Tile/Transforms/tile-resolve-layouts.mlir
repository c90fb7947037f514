// RUN: kiln-opt %s -split-input-file --tile-resolve-layouts -verify-diagnostics | FileCheck %s

// Layouts left to the compiler: #tile.auto takes what set_auto_layout fixes,
// forward and backward through elementwise ops, broadcasts, expand_dims,
// reductions and loops; #tile.coalesced comes from the axis analysis of the
// pointers a load or store reads.

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S1:.*]] = #tile.slice<{dim = 1, parent = #[[B]]}>
// CHECK-DAG: #[[S0:.*]] = #tile.slice<{dim = 0, parent = #[[B]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // Backward from the pointers the load reads to both aranges; the
  // set_auto_layout goes away.
  // CHECK-LABEL: func.func @pointer_tile
  // CHECK: tile.arange 0, 32 : tensor<32xi32, #[[S1]]>
  // CHECK: arith.constant dense<64> : tensor<32x1xi32, #[[B]]>
  // CHECK: tile.arange 0, 64 : tensor<64xi32, #[[S0]]>
  // CHECK-NOT: set_auto_layout
  // CHECK-NOT: #tile.auto
  // CHECK: tile.load %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[B]]>
  func.func @pointer_tile(%base: !tile.ptr<f32>) -> f32 {
    %m = tile.arange 0, 32 : tensor<32xi32, #tile.auto>
    %m1 = tile.expand_dims %m {axis = 1 : i32} : tensor<32xi32, #tile.auto> -> tensor<32x1xi32, #tile.auto>
    %c64 = arith.constant dense<64> : tensor<32x1xi32, #tile.auto>
    %row = arith.muli %m1, %c64 : tensor<32x1xi32, #tile.auto>
    %n = tile.arange 0, 64 : tensor<64xi32, #tile.auto>
    %n1 = tile.expand_dims %n {axis = 0 : i32} : tensor<64xi32, #tile.auto> -> tensor<1x64xi32, #tile.auto>
    %rb = tile.broadcast %row : tensor<32x1xi32, #tile.auto> -> tensor<32x64xi32, #tile.auto>
    %nb = tile.broadcast %n1 : tensor<1x64xi32, #tile.auto> -> tensor<32x64xi32, #tile.auto>
    %off = arith.addi %rb, %nb : tensor<32x64xi32, #tile.auto>
    %p0 = tile.splat %base : tensor<32x64x!tile.ptr<f32>, #tile.auto>
    %p = tile.addptr %p0, %off : tensor<32x64x!tile.ptr<f32>, #tile.auto>, tensor<32x64xi32, #tile.auto>
    %q = tile.set_auto_layout %p : tensor<32x64x!tile.ptr<f32>, #tile.auto> -> tensor<32x64x!tile.ptr<f32>, #b>
    %v = tile.load %q : tensor<32x64x!tile.ptr<f32>, #b>
    // Forward: a reduction of the loaded tile keeps its slice layout.
    %r = "tile.reduce"(%v) ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tile.reduce_return %s : f32
    }) {axis = 1 : i32} : (tensor<32x64xf32, #b>) -> tensor<32xf32, #tile.slice<{dim = 1, parent = #b}>>
    %t = "tile.reduce"(%r) ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tile.reduce_return %s : f32
    }) {axis = 0 : i32} : (tensor<32xf32, #tile.slice<{dim = 1, parent = #b}>>) -> f32
    return %t : f32
  }

  // A value a loop carries takes its layout from the body's use, for the
  // init, the body argument, the yield and the result alike.
  // CHECK-LABEL: func.func @loop_carried
  // CHECK: arith.constant dense<0.000000e+00> : tensor<32x64xf32, #[[B]]>
  // CHECK: scf.for {{.*}} -> (tensor<32x64xf32, #[[B]]>)
  // CHECK: arith.addf {{.*}} : tensor<32x64xf32, #[[B]]>
  // CHECK-NOT: #tile.auto
  func.func @loop_carried(%p: tensor<32x64x!tile.ptr<f32>, #b>, %n: index) {
    %zero = arith.constant dense<0.0> : tensor<32x64xf32, #tile.auto>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<32x64xf32, #tile.auto>) {
      %s = arith.addf %a, %a : tensor<32x64xf32, #tile.auto>
      scf.yield %s : tensor<32x64xf32, #tile.auto>
    }
    %fixed = tile.set_auto_layout %acc : tensor<32x64xf32, #tile.auto> -> tensor<32x64xf32, #b>
    tile.store %p, %fixed : tensor<32x64x!tile.ptr<f32>, #b>
    return
  }
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // One auto value wanted in two layouts: the first set_auto_layout wins,
  // the second becomes a convert_layout, and Kiln says so (Gluon reports
  // conflicting encodings).
  // CHECK-LABEL: func.func @two_layouts
  // CHECK: %[[X:.*]] = arith.constant dense<1.000000e+00> : tensor<32x64xf32, #[[B:.*]]>
  // CHECK: tile.store %{{.*}}, %[[X]]
  // CHECK: %[[Y:.*]] = tile.convert_layout %[[X]] : tensor<32x64xf32, #[[B]]> -> tensor<32x64xf32, #[[C:.*]]>
  // CHECK: tile.store %{{.*}}, %[[Y]]
  func.func @two_layouts(%p: tensor<32x64x!tile.ptr<f32>, #b>, %q: tensor<32x64x!tile.ptr<f32>, #c>) {
    %x = arith.constant dense<1.0> : tensor<32x64xf32, #tile.auto>
    %xb = tile.set_auto_layout %x : tensor<32x64xf32, #tile.auto> -> tensor<32x64xf32, #b>
    tile.store %p, %xb : tensor<32x64x!tile.ptr<f32>, #b>
    // expected-remark @+1 {{set_auto_layout becomes a convert_layout from #tile.blocked<{sizePerThread = [1, 4]}}
    %xc = tile.set_auto_layout %x : tensor<32x64xf32, #tile.auto> -> tensor<32x64xf32, #c>
    tile.store %q, %xc : tensor<32x64x!tile.ptr<f32>, #c>
    return
  }
}

// -----

module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // Nothing fixes the layout of %r.
  func.func @unreached(%base: !tile.ptr<i32>) {
    // expected-error @+1 {{cannot infer the layout of 'tensor<64xi32, #tile.auto>': no kl.set_auto_layout or fixed-layout operand reaches it}}
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.auto>
    return
  }
}

// -----

#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // A 1-D layout cannot be the source of expand_dims.
  func.func @bad_expand(%base: !tile.ptr<i32>) {
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.auto>
    // expected-note @+1 {{the layout comes from here}}
    %f = tile.set_auto_layout %r : tensor<64xi32, #tile.auto> -> tensor<64xi32, #b1>
    // expected-error @+1 {{expand_dims along axis 0 needs a source layout #tile.slice<{dim = 0, ...}>, but the layout inferred for its source is #tile.blocked}}
    %e = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #tile.auto> -> tensor<1x64xi32, #tile.auto>
    return
  }
}

// -----

// Coalesced: the contiguous dimension fastest, 16-byte accesses where the
// pointers allow (divisibility 16 bytes), lanes then warps along that order.
// CHECK-DAG: #[[C1:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[C2:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[C3:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[C4:.*]] = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @coalesced_1d
  // CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[C1]]>
  func.func @coalesced_1d(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #tile.coalesced>
    %p0 = tile.splat %base : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    %p = tile.addptr %p0, %r : tensor<1024x!tile.ptr<f32>, #tile.coalesced>, tensor<1024xi32, #tile.coalesced>
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    return
  }

  // CHECK-LABEL: func.func @coalesced_2d
  // CHECK: tile.store %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[C2]]>
  func.func @coalesced_2d(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %v: f32) {
    %m = tile.arange 0, 64 : tensor<64xi32, #tile.coalesced>
    %m1 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xi32, #tile.coalesced> -> tensor<64x1xi32, #tile.coalesced>
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #tile.coalesced>
    %row = arith.muli %m1, %c64 : tensor<64x1xi32, #tile.coalesced>
    %n = tile.arange 0, 64 : tensor<64xi32, #tile.coalesced>
    %n1 = tile.expand_dims %n {axis = 0 : i32} : tensor<64xi32, #tile.coalesced> -> tensor<1x64xi32, #tile.coalesced>
    %rb = tile.broadcast %row : tensor<64x1xi32, #tile.coalesced> -> tensor<64x64xi32, #tile.coalesced>
    %nb = tile.broadcast %n1 : tensor<1x64xi32, #tile.coalesced> -> tensor<64x64xi32, #tile.coalesced>
    %off = arith.addi %rb, %nb : tensor<64x64xi32, #tile.coalesced>
    %p0 = tile.splat %base : tensor<64x64x!tile.ptr<f32>, #tile.coalesced>
    %p = tile.addptr %p0, %off : tensor<64x64x!tile.ptr<f32>, #tile.coalesced>, tensor<64x64xi32, #tile.coalesced>
    %x = tile.splat %v : tensor<64x64xf32, #tile.coalesced>
    tile.store %p, %x : tensor<64x64x!tile.ptr<f32>, #tile.coalesced>
    return
  }

  // Pointers to pointers: 8-byte elements, 2 per 16-byte access.
  // CHECK-LABEL: func.func @coalesced_pointers
  // CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<!tile.ptr<f32>>, #[[C4]]>
  func.func @coalesced_pointers(%base: !tile.ptr<!tile.ptr<f32>> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #tile.coalesced>
    %p0 = tile.splat %base : tensor<1024x!tile.ptr<!tile.ptr<f32>>, #tile.coalesced>
    %p = tile.addptr %p0, %r : tensor<1024x!tile.ptr<!tile.ptr<f32>>, #tile.coalesced>, tensor<1024xi32, #tile.coalesced>
    %v = tile.load %p : tensor<1024x!tile.ptr<!tile.ptr<f32>>, #tile.coalesced>
    return
  }

  // Unaligned pointers (no divisibility): one element per thread. A
  // set_auto_layout to #tile.coalesced hands the chosen layout on to the
  // automatic source.
  // CHECK-LABEL: func.func @coalesced_from_auto
  // CHECK: tile.arange 0, 128 : tensor<128xi32, #[[C3]]>
  // CHECK-NOT: set_auto_layout
  func.func @coalesced_from_auto(%base: !tile.ptr<f32>) {
    %r = tile.arange 0, 128 : tensor<128xi32, #tile.auto>
    %p0 = tile.splat %base : tensor<128x!tile.ptr<f32>, #tile.auto>
    %p = tile.addptr %p0, %r : tensor<128x!tile.ptr<f32>, #tile.auto>, tensor<128xi32, #tile.auto>
    %q = tile.set_auto_layout %p : tensor<128x!tile.ptr<f32>, #tile.auto> -> tensor<128x!tile.ptr<f32>, #tile.coalesced>
    %v = tile.load %q : tensor<128x!tile.ptr<f32>, #tile.coalesced>
    return
  }
}

// -----

module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // No access decides a coalesced layout.
  func.func @coalesced_unused() {
    // expected-error @+1 {{no load or store reads pointers laid out like 'tensor<64xi32, #tile.coalesced>'}}
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.coalesced>
    return
  }
}

// -----

module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // expected-error @+1 {{function arguments and results need fixed layouts, got 'tensor<64xi32, #tile.auto>'}}
  func.func @auto_argument(%r: tensor<64xi32, #tile.auto>) {
    return
  }
}

// -----

// An offset made coalesced by set_auto_layout: the axis analysis sees through
// it (the values are the arange's, contiguous and aligned), so the coalesced
// layout takes 4 fp32 a thread (16 bytes), as Gluon resolves it.
// CHECK: #[[V4:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @coalesced_through_set_auto_layout
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V4]]>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @coalesced_through_set_auto_layout(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #tile.auto>
    %o = tile.set_auto_layout %r : tensor<1024xi32, #tile.auto> -> tensor<1024xi32, #tile.coalesced>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    %xp = tile.addptr %xs, %o : tensor<1024x!tile.ptr<f32>, #tile.coalesced>, tensor<1024xi32, #tile.coalesced>
    %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    %yp = tile.addptr %ys, %o : tensor<1024x!tile.ptr<f32>, #tile.coalesced>, tensor<1024xi32, #tile.coalesced>
    tile.store %yp, %v : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    return
  }
}

// -----

// A shared-memory load left to the compiler, reshaped, then fixed: the
// reshape's source takes the fixed layout's registers in its own shape (a
// linear layout; Gluon's smem.load(AutoLayout()).reshape(...)).
// CHECK: #[[LIN:linear[0-9]*]] = #tile.linear<{register = {{\[}}[0, 32]], lane = {{\[}}[0, 0], [0, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 8], [0, 16]]}>
// CHECK-LABEL: func.func @auto_load_reshape
// CHECK: tile.local_load {{.*}} -> tensor<1x64xf32, #[[LIN]]>
// CHECK: tile.reshape {{.*}} : tensor<1x64xf32, #[[LIN]]> -> tensor<64xf32, #slice
#acc = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @auto_load_reshape(%buf: !tile.memdesc<1x64xf32, #sh, mutable>) -> tensor<64xf32, #tile.slice<{dim = 1, parent = #acc}>> {
    %v = tile.local_load %buf : !tile.memdesc<1x64xf32, #sh, mutable> -> tensor<1x64xf32, #tile.auto>
    %r = tile.reshape %v : tensor<1x64xf32, #tile.auto> -> tensor<64xf32, #tile.auto>
    %s = tile.set_auto_layout %r : tensor<64xf32, #tile.auto> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #acc}>>
    return %s : tensor<64xf32, #tile.slice<{dim = 1, parent = #acc}>>
  }
}

// -----

// tile.split backward: the halves take the fixed layout, the source that
// layout with the pair as its first register basis (Gluon's), and the
// reshape before it the same registers in the flat shape: each thread loads
// its pair.
// CHECK-DAG: #[[OUT:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[PAIRS:linear[0-9]*]] = #tile.linear<{register = {{\[}}[0, 1]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[}}[32, 0], [64, 0]]}>
// CHECK-DAG: #[[FLAT:linear[0-9]*]] = #tile.linear<{register = {{\[}}[1]], lane = {{\[}}[2], [4], [8], [16], [32]], warp = {{\[}}[64], [128]]}>
// CHECK-LABEL: func.func @split_backward
// CHECK: tile.load {{.*}} : tensor<256x!tile.ptr<i32>, #[[FLAT]]>
// CHECK: tile.split {{.*}} : tensor<128x2xi32, #[[PAIRS]]> -> tensor<128xi32, #[[OUT]]>
#out = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @split_backward(%base: !tile.ptr<i32>) -> tensor<128xi32, #out> {
    %o = tile.arange 0, 256 : tensor<256xi32, #tile.auto>
    %p0 = tile.splat %base : tensor<256x!tile.ptr<i32>, #tile.auto>
    %p = tile.addptr %p0, %o : tensor<256x!tile.ptr<i32>, #tile.auto>, tensor<256xi32, #tile.auto>
    %v = tile.load %p : tensor<256x!tile.ptr<i32>, #tile.auto>
    %pairs = tile.reshape %v : tensor<256xi32, #tile.auto> -> tensor<128x2xi32, #tile.auto>
    %lo, %hi = tile.split %pairs : tensor<128x2xi32, #tile.auto> -> tensor<128xi32, #tile.auto>
    %d = arith.subi %hi, %lo : tensor<128xi32, #tile.auto>
    %r = tile.set_auto_layout %d : tensor<128xi32, #tile.auto> -> tensor<128xi32, #out>
    return %r : tensor<128xi32, #out>
  }
}

// -----

// tile.split forward: a source whose pair sits in registers gives the halves
// its layout without the pair.
// CHECK-DAG: #[[P:.*]] = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[H:linear[0-9]*]] = #tile.linear<{register = [], lane = {{\[}}[1], [2], [4], [8], [16]], warp = {{\[}}[32], [64]]}>
// CHECK-LABEL: func.func @split_forward
// CHECK: tile.split {{.*}} : tensor<128x2xf32, #[[P]]> -> tensor<128xf32, #[[H]]>
#p = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @split_forward(%base: !tile.ptr<f32>) {
    %o2 = tile.arange 0, 256 : tensor<256xi32, #tile.auto>
    %i2 = tile.reshape %o2 : tensor<256xi32, #tile.auto> -> tensor<128x2xi32, #tile.auto>
    %b2 = tile.splat %base : tensor<128x2x!tile.ptr<f32>, #tile.auto>
    %ptrs = tile.addptr %b2, %i2 : tensor<128x2x!tile.ptr<f32>, #tile.auto>, tensor<128x2xi32, #tile.auto>
    %fixed = tile.set_auto_layout %ptrs : tensor<128x2x!tile.ptr<f32>, #tile.auto> -> tensor<128x2x!tile.ptr<f32>, #p>
    %x = tile.load %ptrs : tensor<128x2x!tile.ptr<f32>, #tile.auto>
    %lo, %hi = tile.split %x : tensor<128x2xf32, #tile.auto> -> tensor<128xf32, #tile.auto>
    %s = arith.addf %lo, %hi : tensor<128xf32, #tile.auto>
    %o = tile.arange 0, 128 : tensor<128xi32, #tile.auto>
    %p0 = tile.splat %base : tensor<128x!tile.ptr<f32>, #tile.auto>
    %ptr = tile.addptr %p0, %o : tensor<128x!tile.ptr<f32>, #tile.auto>, tensor<128xi32, #tile.auto>
    tile.store %ptr, %s : tensor<128x!tile.ptr<f32>, #tile.auto>
    return
  }
}

// -----

// tile.join backward: the result takes the flat output's registers in the
// pair shape (the pair in registers), the operands that without the pair.
// CHECK-DAG: #[[JP:linear[0-9]*]] = #tile.linear<{register = {{\[}}[0, 1]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[}}[32, 0], [64, 0]]}>
// CHECK-DAG: #[[JH:linear[0-9]*]] = #tile.linear<{register = [], lane = {{\[}}[1], [2], [4], [8], [16]], warp = {{\[}}[32], [64]]}>
// CHECK-LABEL: func.func @join_backward
// CHECK: tile.join {{.*}} : tensor<128xf32, #[[JH]]> -> tensor<128x2xf32, #[[JP]]>
#flat = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @join_backward(%base: !tile.ptr<f32>) -> tensor<256xf32, #flat> {
    %o = tile.arange 0, 128 : tensor<128xi32, #tile.auto>
    %p0 = tile.splat %base : tensor<128x!tile.ptr<f32>, #tile.auto>
    %p = tile.addptr %p0, %o : tensor<128x!tile.ptr<f32>, #tile.auto>, tensor<128xi32, #tile.auto>
    %v = tile.load %p : tensor<128x!tile.ptr<f32>, #tile.auto>
    %j = tile.join %v, %v : tensor<128xf32, #tile.auto> -> tensor<128x2xf32, #tile.auto>
    %f = tile.reshape %j : tensor<128x2xf32, #tile.auto> -> tensor<256xf32, #tile.auto>
    %r = tile.set_auto_layout %f : tensor<256xf32, #tile.auto> -> tensor<256xf32, #flat>
    return %r : tensor<256xf32, #flat>
  }
}

// -----

// A join whose result is inferred to hold the pair across lanes: an error at
// the join (it moves no data), pointing at the layout's source.
#lanes = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @join_pair_across_lanes(%x: f32) -> tensor<128xf32, #lanes> {
    %v = tile.splat %x : tensor<64xf32, #tile.auto>
    // expected-error @+1 {{join needs both elements of each pair in one thread's registers, but the layout inferred for its result is}}
    %j = tile.join %v, %v : tensor<64xf32, #tile.auto> -> tensor<64x2xf32, #tile.auto>
    %f = tile.reshape %j : tensor<64x2xf32, #tile.auto> -> tensor<128xf32, #tile.auto>
    // expected-note @+1 {{the layout comes from here}}
    %r = tile.set_auto_layout %f : tensor<128xf32, #tile.auto> -> tensor<128xf32, #lanes>
    return %r : tensor<128xf32, #lanes>
  }
}
