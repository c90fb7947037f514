// REQUIRES: nvidia
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK: #blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: #linear = #tile.linear<{register = {{\[\[}}1], [2]], lane = {{\[\[}}4], [8], [16], [32], [64]], warp = {{\[\[}}128], [256]]}>
// CHECK: #slice = #tile.slice<{dim = 1, parent = #blocked1}>

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#l2t = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
#lin = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}>

module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {

// CHECK-LABEL: func.func public @add
// CHECK: tile.program_id 0
// CHECK: tile.arange 0, 512 : tensor<512xi32, #{{.*}}>
// CHECK: tile.splat %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>
// CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>, tensor<512xi32, #{{.*}}>
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>
// CHECK: tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}>
// CHECK: tile.ptr_cast %{{.*}} : tensor<512x!tile.ptr<f32>, #{{.*}}> -> tensor<512x!tile.ptr<i32>, #{{.*}}>
// CHECK: tile.ptr_cast %{{.*}} : !tile.ptr<f32> -> !tile.ptr<ui32>
func.func public @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id 0
  %np = tile.num_programs 0
  %c512 = arith.constant 512 : i32
  %base = arith.muli %pid, %c512 : i32
  %r = tile.arange 0, 512 : tensor<512xi32, #l>
  %bs = tile.splat %base : tensor<512xi32, #l>
  %offs = arith.addi %bs, %r : tensor<512xi32, #l>
  %ns = tile.splat %n : tensor<512xi32, #l>
  %m = arith.cmpi slt, %offs, %ns : tensor<512xi32, #l>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
  %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
  %zero = arith.constant dense<0.0> : tensor<512xf32, #l>
  %v = tile.load %xp, %m, %zero : tensor<512x!tile.ptr<f32>, #l>
  %w = tile.load %xp : tensor<512x!tile.ptr<f32>, #l>
  %s = arith.addf %v, %w : tensor<512xf32, #l>
  %e = math.exp %s : tensor<512xf32, #l>
  %os = tile.splat %out : tensor<512x!tile.ptr<f32>, #l>
  %op = tile.addptr %os, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
  tile.store %op, %e, %m : tensor<512x!tile.ptr<f32>, #l>
  tile.store %op, %e : tensor<512x!tile.ptr<f32>, #l>
  %p1 = tile.addptr %x, %n : !tile.ptr<f32>, i32
  %ip = tile.ptr_cast %op : tensor<512x!tile.ptr<f32>, #l> -> tensor<512x!tile.ptr<i32>, #l>
  %up = tile.ptr_cast %x : !tile.ptr<f32> -> !tile.ptr<ui32>
  return
}

// CHECK-LABEL: func.func public @shapes
// CHECK: tile.arange -8, 8 : tensor<16xi32, #{{.*}}>
// CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32, #{{.*}}> -> tensor<16x1xi32, #{{.*}}>
// CHECK: tile.broadcast %{{.*}} : tensor<16x1xi32, #{{.*}}> -> tensor<16x32xi32, #{{.*}}>
// CHECK: tile.reshape %{{.*}} : tensor<16x32xi32, #{{.*}}> -> tensor<512xi32, #{{.*}}>
// CHECK: tile.convert_layout %{{.*}} : tensor<512xi32, #{{.*}}> -> tensor<512xi32, #{{.*}}>
// CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x32xi32, #{{.*}}> -> tensor<32x16xi32, #{{.*}}>
func.func public @shapes() {
  %r = tile.arange 0, 16 : tensor<16xi32, #row>
  %neg = tile.arange -8, 8 : tensor<16xi32, #row>
  %c = tile.arange 0, 32 : tensor<32xi32, #col>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
  %rb = tile.broadcast %r2 : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
  %cb = tile.broadcast %c2 : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
  %sum = arith.addi %rb, %cb : tensor<16x32xi32, #l2>
  %flat = tile.reshape %sum : tensor<16x32xi32, #l2> -> tensor<512xi32, #l>
  %lin = tile.convert_layout %flat : tensor<512xi32, #l> -> tensor<512xi32, #lin>
  %t = tile.trans %sum {order = array<i32: 1, 0>} : tensor<16x32xi32, #l2> -> tensor<32x16xi32, #l2t>
  return
}

// CHECK-LABEL: func.func public @reduce
// CHECK: tile.reduce %{{.*}} {axis = 1 : i32} : tensor<16x32xf32, #{{.*}}> -> tensor<16xf32, #{{.*}}>
// CHECK: tile.reduce_return
// CHECK: tile.reduce %{{.*}} {axis = 0 : i32} : tensor<16xf32, #{{.*}}> -> f32
func.func public @reduce(%x: tensor<16x32xf32, #l2>) {
  %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #row> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    tile.reduce_return %c : f32
  }
  %t = tile.reduce %s {axis = 0 : i32} : tensor<16xf32, #row> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce_return %c : f32
  }
  return
}

// Several tensors reduced or scanned together: the region takes two tuples.
// CHECK-LABEL: func.func public @reduce_and_scan_tuples
// CHECK: %{{.*}}:2 = tile.reduce %{{.*}}, %{{.*}} {axis = 1 : i32} : tensor<16x32xf32, #{{.*}}>, tensor<16x32xi32, #{{.*}}> -> tensor<16xf32, #{{.*}}>, tensor<16xi32, #{{.*}}>
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: tile.reduce_return %{{.*}}, %{{.*}} : f32, i32
// CHECK: %{{.*}}:2 = tile.scan %{{.*}}, %{{.*}} {axis = 0 : i32, reverse = true} : tensor<16x32xf32, #{{.*}}>, tensor<16x32xi32, #{{.*}}>
// CHECK: tile.scan_return %{{.*}}, %{{.*}} : f32, i32
func.func public @reduce_and_scan_tuples(%x: tensor<16x32xf32, #l2>, %i: tensor<16x32xi32, #l2>) {
  %v, %k = tile.reduce %x, %i {axis = 1 : i32} : tensor<16x32xf32, #l2>, tensor<16x32xi32, #l2> -> tensor<16xf32, #row>, tensor<16xi32, #row> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %c = arith.select %gt, %b, %a : f32
    %ci = arith.select %gt, %bi, %ai : i32
    tile.reduce_return %c, %ci : f32, i32
  }
  %s, %n = tile.scan %x, %i {axis = 0 : i32, reverse = true} : tensor<16x32xf32, #l2>, tensor<16x32xi32, #l2> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %c = arith.addf %a, %b : f32
    %ci = arith.addi %ai, %bi : i32
    tile.scan_return %c, %ci : f32, i32
  }
  return
}

// CHECK-LABEL: func.func public @histogram
// CHECK: tile.histogram %{{.*}} : tensor<512xi32, #{{.*}}> -> tensor<64xi32, #{{.*}}>
// CHECK: tile.histogram %{{.*}}, %{{.*}} : tensor<512xi64, #{{.*}}>, tensor<512xi1, #{{.*}}> -> tensor<4096xi32, #{{.*}}>
func.func public @histogram(%x: tensor<512xi32, #l>, %y: tensor<512xi64, #l>, %m: tensor<512xi1, #l>) {
  %h = tile.histogram %x : tensor<512xi32, #l> -> tensor<64xi32, #l>
  %g = tile.histogram %y, %m : tensor<512xi64, #l>, tensor<512xi1, #l> -> tensor<4096xi32, #l>
  return
}

// CHECK-LABEL: func.func public @extract_slice
// CHECK: tile.extract_slice %{{.*}} {offsets = array<i64: 0, 32>} : tensor<16x64xi32, #{{.*}}> -> tensor<16x32xi32, #{{.*}}>
func.func public @extract_slice(%x: tensor<16x64xi32, #l2>) {
  %s = tile.extract_slice %x {offsets = array<i64: 0, 32>} : tensor<16x64xi32, #l2> -> tensor<16x32xi32, #l2>
  return
}

// A warp_specialize prints its worker partitions after `partitions`, with
// its warp and register counts in front.
// CHECK-LABEL: func.func public @warp_specialize
// CHECK: tile.warp_specialize partition_num_warps = [1, 2] partition_num_regs = [24, 48] {
// CHECK: tile.program_id 0
// CHECK: tile.warp_yield
// CHECK-NEXT: } partitions {
// CHECK-NEXT: tile.warp_yield
// CHECK-NEXT: }, {
// CHECK-NEXT: tile.warp_yield
// CHECK-NEXT: }
func.func public @warp_specialize() {
  tile.warp_specialize partition_num_warps = [1, 2] partition_num_regs = [24, 48] {
    %p = tile.program_id 0
    tile.warp_yield
  } partitions {
    tile.warp_yield
  }, {
    tile.warp_yield
  }
  return
}

// One in a loop and one in a branch: the worker warps learn at each call which
// one it is.
// CHECK-LABEL: func.func public @warp_specialize_in_control_flow
// CHECK: scf.for
// CHECK: tile.warp_specialize partition_num_warps = [1] {
// CHECK: scf.if
// CHECK: tile.warp_specialize partition_num_warps = [2] {
func.func public @warp_specialize_in_control_flow(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
  }
  scf.if %c {
    tile.warp_specialize partition_num_warps = [2] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
  }
  return
}

// The default partition's yielded values are the op's results.
// CHECK-LABEL: func.func public @warp_specialize_results
// CHECK: %[[R:.*]]:2 = tile.warp_specialize partition_num_warps = [1] -> (i32, f32) {
// CHECK: tile.warp_yield %{{.*}}, %{{.*}} : i32, f32
// CHECK: } partitions {
// CHECK-NEXT: tile.warp_yield
// CHECK: return %[[R]]#0
func.func public @warp_specialize_results(%x: f32) -> i32 {
  %r:2 = tile.warp_specialize partition_num_warps = [1] -> (i32, f32) {
    %p = tile.program_id 0
    tile.warp_yield %p, %x : i32, f32
  } partitions {
    tile.warp_yield
  }
  return %r#0 : i32
}

// CHECK-LABEL: func.func public @dot_fma
// CHECK: tile.dot_fma %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4xf32, #tile.dot_operand<{opIdx = 0, parent = #blocked{{[0-9]*}}}>>, tensor<4x16xf32, #tile.dot_operand<{opIdx = 1, parent = #blocked{{[0-9]*}}}>> -> tensor<8x16xf32, #blocked{{[0-9]*}}>
func.func public @dot_fma(%a: tensor<8x4xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>}>>,
                          %b: tensor<4x16xf32, #tile.dot_operand<{opIdx = 1, parent = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>}>>,
                          %c: tensor<8x16xf32, #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>>) {
  %d = tile.dot_fma %a, %b, %c : tensor<8x4xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>}>>, tensor<4x16xf32, #tile.dot_operand<{opIdx = 1, parent = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>}>> -> tensor<8x16xf32, #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>>
  return
}

// CHECK-LABEL: func.func public @extern_elementwise
// CHECK: tile.extern_elementwise "__nv_powf", %{{.*}}, %{{.*}} : (tensor<128xf32, #blocked{{[0-9]*}}>, tensor<128xf32, #blocked{{[0-9]*}}>) -> tensor<128xf32, #blocked{{[0-9]*}}>
// CHECK: tile.extern_elementwise "__nv_popc", %{{.*}} : (i32) -> i32
func.func public @extern_elementwise(%x: tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, %n: i32) {
  %y = tile.extern_elementwise "__nv_powf", %x, %x : (tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  %c = tile.extern_elementwise "__nv_popc", %n : (i32) -> i32
  return
}
}
