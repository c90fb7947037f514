// REQUIRES: nvidia
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s --check-prefixes=CHECK,NV,SM90
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_80" | FileCheck %s --check-prefixes=CHECK,NV,SM80

// NVIDIA lowering of the tile dialect. The AMD twin of this file, with
// 64-lane layouts, is convert-tile-to-llvm-amd.mlir.

// CHECK-LABEL: llvm.func @ids(
// NV-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// NV: nvvm.read.ptx.sreg.ctaid.x : i32
// NV: nvvm.read.ptx.sreg.ctaid.y : i32
// NV: nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ids(%out: !tile.ptr<i32>) {
    %pid = tile.program_id 0
    %pid1 = tile.program_id 1
    %np = tile.num_programs 2
    %a = arith.addi %pid, %pid1 : i32
    %b = arith.addi %a, %np : i32
    %q = tile.addptr %out, %b : !tile.ptr<i32>, i32
    return
  }
}

// -----

// num-warps=8 (from the module) gives 256 threads per CTA.
// CHECK-LABEL: llvm.func @eight_warps(
// NV-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
module attributes {tile.num_warps = 8 : i32} {
  func.func @eight_warps() {
    return
  }
}

// -----

// arange: register r of lane l, warp w holds start + the XOR of the bases of
// the set bits of (r, l, w); here bases are lane = 4, 8, .., 64 and warp =
// 128, 256, and registers add 1, 2, 3.
// CHECK-LABEL: llvm.func @arange_splat(
// NV: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[WS:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %[[WS]] : i32
// CHECK: %[[WARP:.*]] = llvm.udiv %[[TID]], %[[WS]] : i32
// CHECK: llvm.lshr %[[LANE]]
// CHECK: llvm.mlir.constant(64 : i32) : i32
// CHECK: llvm.lshr %[[WARP]]
// CHECK: llvm.mlir.constant(256 : i32) : i32
// CHECK: %[[R3C:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: llvm.xor %{{.*}}, %[[R3C]] : i32
// CHECK-COUNT-4: llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
// The splat repeats the scalar in all four registers.
// CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[S0:.*]] = llvm.insertvalue %arg0, %[[U]][0]
// CHECK: %[[S1:.*]] = llvm.insertvalue %arg0, %[[S0]][1]
// CHECK: %[[S2:.*]] = llvm.insertvalue %arg0, %[[S1]][2]
// CHECK: %[[S3:.*]] = llvm.insertvalue %arg0, %[[S2]][3]
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @arange_splat(%x: f32) -> (tensor<512xi32, #l>, tensor<512xf32, #l>) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %s = tile.splat %x : tensor<512xf32, #l>
    return %r, %s : tensor<512xi32, #l>, tensor<512xf32, #l>
  }
}

// -----

// Elementwise arith on tensors runs once per register; tile.divisibility on a
// pointer argument becomes llvm.align and, with contiguous offsets, 16-byte
// vector accesses.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK-NOT: llvm.mlir.global
// CHECK: llvm.func @vec_add(%arg0: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg1: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg2: !llvm.ptr<1> {llvm.align = 16 : i64})
// CHECK-NOT: tile.divisibility
// CHECK-COUNT-4: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.fadd
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @vec_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %pid = tile.program_id 0
    %c512 = arith.constant 512 : i32
    %base = arith.muli %pid, %c512 : i32
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %bs = tile.splat %base : tensor<512xi32, #l>
    %offs = arith.addi %bs, %r : tensor<512xi32, #l>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #l>
    %yp = tile.addptr %ys, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %a = tile.load %xp : tensor<512x!tile.ptr<f32>, #l>
    %b = tile.load %yp : tensor<512x!tile.ptr<f32>, #l>
    %s = arith.addf %a, %b : tensor<512xf32, #l>
    %os = tile.splat %out : tensor<512x!tile.ptr<f32>, #l>
    %op = tile.addptr %os, %offs : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    tile.store %op, %s : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// Without tile.divisibility the pointer may be only 4-byte aligned: one
// element per access.
// CHECK-LABEL: llvm.func @unaligned(%arg0: !llvm.ptr<1>)
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<1xf32>
// CHECK-NOT: llvm.load
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @unaligned(%x: !tile.ptr<f32>) -> tensor<512xf32, #l> {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %a = tile.load %xp : tensor<512x!tile.ptr<f32>, #l>
    return %a : tensor<512xf32, #l>
  }
}

// -----

// A mask `offs < n` with n divisible by 16 is constant over each group of 4
// registers, so the masked load and store still vectorize: one branch per
// vector, `other` flows in on the skipped edge.
// CHECK-LABEL: llvm.func @masked_aligned(%arg0: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg1: i32)
// CHECK-COUNT-4: llvm.icmp "slt"
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : vector<4xf32>
// CHECK: %[[O0:.*]] = llvm.insertelement %{{.*}}, %[[ZERO]]
// CHECK: %[[O1:.*]] = llvm.insertelement %{{.*}}, %[[O0]]
// CHECK: %[[O2:.*]] = llvm.insertelement %{{.*}}, %[[O1]]
// CHECK: %[[O3:.*]] = llvm.insertelement %{{.*}}, %[[O2]]
// One predicate for all four lanes: the mask is constant over the vector.
// CHECK: %[[M0:.*]] = llvm.insertelement %[[P:.*]], %{{.*}} : vector<4xi1>
// CHECK: %[[M1:.*]] = llvm.insertelement %[[P]], %[[M0]]
// CHECK: %[[M2:.*]] = llvm.insertelement %[[P]], %[[M1]]
// CHECK: %[[M3:.*]] = llvm.insertelement %[[P]], %[[M2]]
// CHECK: llvm.intr.masked.load %{{.*}}, %[[M3]], %[[O3]] {alignment = 16 : i32} : (!llvm.ptr<1>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 16 : i32} : vector<4xf32>, vector<4xi1> into !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @masked_aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %z = arith.constant dense<0.0> : tensor<512xf32, #l>
    %v = tile.load %xp, %m, %z : tensor<512x!tile.ptr<f32>, #l>
    tile.store %xp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// Without divisibility on n the mask may change at any element: four scalar
// loads and stores, each with its own predicate.
// CHECK-LABEL: llvm.func @masked_scalar(
// CHECK-COUNT-4: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr<1>, vector<1xi1>, vector<1xf32>) -> vector<1xf32>
// CHECK-NOT: vector<4xf32>
// CHECK-COUNT-4: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<1xf32>, vector<1xi1> into !llvm.ptr<1>
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @masked_scalar(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %z = arith.constant dense<0.0> : tensor<512xf32, #l>
    %v = tile.load %xp, %m, %z : tensor<512x!tile.ptr<f32>, #l>
    tile.store %xp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// A conversion that moves data between threads goes through shared memory:
// barrier, store, barrier, load. The scratch buffer is the module's external
// addrspace(3) array @global_smem, laid out with the swizzle whose accesses
// (vectors of up to 16 bytes) and bank conflicts are fewest: a thread's 4
// consecutive floats go in one 16-byte store, and come back one float per
// load.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 2048 : i32
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @cvt_shared(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// NV: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// NV: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// NV-NOT: nvvm.barrier0
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cvt_shared(%x: tensor<512xf32, #l>) -> tensor<512xf32, #m> {
    %y = tile.convert_layout %x : tensor<512xf32, #l> -> tensor<512xf32, #m>
    return %y : tensor<512xf32, #m>
  }
}

// -----

// Layouts that differ only in the order of a thread's registers: a register
// shuffle, no shared memory. An identical layout spelled differently: nothing.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK-NOT: global_smem
// CHECK-LABEL: llvm.func @cvt_permute(
// CHECK-NOT: barrier
// CHECK-NOT: !llvm.ptr<3>
// CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[R2:.*]] = llvm.extractvalue %arg0[2]
// CHECK: %[[R3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[P0:.*]] = llvm.insertvalue %[[R0]], %{{.*}}[0]
// CHECK: %[[P1:.*]] = llvm.insertvalue %[[R2]], %[[P0]][1]
// CHECK: %[[P2:.*]] = llvm.insertvalue %[[R1]], %[[P1]][2]
// CHECK: %[[P3:.*]] = llvm.insertvalue %[[R3]], %[[P2]][3]
// CHECK: llvm.return %[[P3]]
// CHECK-LABEL: llvm.func @cvt_identity(
// CHECK-NEXT: llvm.return %arg0
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#perm = #tile.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}>
#same = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @cvt_permute(%x: tensor<512xf32, #l>) -> tensor<512xf32, #perm> {
    %y = tile.convert_layout %x : tensor<512xf32, #l> -> tensor<512xf32, #perm>
    return %y : tensor<512xf32, #perm>
  }
  func.func @cvt_identity(%x: tensor<512xf32, #l>) -> tensor<512xf32, #same> {
    %y = tile.convert_layout %x : tensor<512xf32, #l> -> tensor<512xf32, #same>
    return %y : tensor<512xf32, #same>
  }
}

// -----

// Reducing along dim 1 of a 16x32 tensor whose dim 1 spans 4 registers and
// 8 lanes (lane bits 0-2): three register combines, then butterfly shuffles
// with lane masks 1, 2, 4. No warp splits the axis, so no shared memory.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK-LABEL: llvm.func @reduce_in_warp(
// CHECK-COUNT-3: llvm.fadd
// NV: %[[M1:.*]] = llvm.mlir.constant(1 : i32) : i32
// NV: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M1]], %{{.*}} : i32 -> i32
// CHECK: llvm.fadd
// NV: %[[M2:.*]] = llvm.mlir.constant(2 : i32) : i32
// NV: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M2]], %{{.*}} : i32 -> i32
// CHECK: llvm.fadd
// NV: %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
// NV: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
// CHECK: llvm.fadd
// NV-NOT: nvvm.shfl.sync
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return %{{.*}} : !llvm.struct<(f32)>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_in_warp(%x: tensor<16x32xf32, #l2>) -> tensor<16xf32, #row> {
    %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<16xf32, #row>
  }
}

// -----

// Reducing along dim 0, which lane bits 3-4 and all 4 warps split: shuffles
// with masks 8 and 16, then each warp's partials go through shared memory
// (4 warps x 32 outputs x 4 bytes) and every thread combines the 4 of its
// column.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 512 : i32
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32
// CHECK-LABEL: llvm.func @reduce_across_warps(
// NV-COUNT-8: nvvm.shfl.sync bfly
// CHECK: llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// NV-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// NV: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.maxnum
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.maxnum
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.maxnum
// CHECK: llvm.return %{{.*}} : !llvm.struct<(f32, f32, f32, f32)>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_across_warps(%x: tensor<16x32xf32, #l2>) -> tensor<32xf32, #col> {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<16x32xf32, #l2> -> tensor<32xf32, #col> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<32xf32, #col>
  }
}

// -----

// Two tensors reduced together across warps: each member is shuffled on its
// own and has its own array of the scratch (the i32 one 512 bytes after the
// f32 one: 4 warps x 32 outputs x 4 bytes).
// CHECK-LABEL: llvm.func @reduce_tuple_across_warps(
// NV-COUNT-2: nvvm.shfl.sync bfly
// CHECK: llvm.getelementptr %{{.*}}[512] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.return %{{.*}} : !llvm.struct<(struct<(f32, f32, f32, f32)>, struct<(i32, i32, i32, i32)>)>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_tuple_across_warps(%x: tensor<16x32xf32, #l2>, %i: tensor<16x32xi32, #l2>) -> (tensor<32xf32, #col>, tensor<32xi32, #col>) {
    %s:2 = tile.reduce %x, %i {axis = 0 : i32} : tensor<16x32xf32, #l2>, tensor<16x32xi32, #l2> -> tensor<32xf32, #col>, tensor<32xi32, #col> {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %b, %a : f32
      %c = arith.select %gt, %b, %a : f32
      %ci = arith.select %gt, %bi, %ai : i32
      tile.reduce_return %c, %ci : f32, i32
    }
    return %s#0, %s#1 : tensor<32xf32, #col>, tensor<32xi32, #col>
  }
}

// -----

// math.exp on f32 is exp2(x * log2(e)); on f16 it goes through f32.
// CHECK-LABEL: llvm.func @exp(
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK: %[[X:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
// CHECK: llvm.intr.exp2(%[[X]]) : (f32) -> f32
// CHECK-NOT: llvm.intr.exp(
// CHECK: %[[EXT:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.fmul %[[EXT]], %{{.*}} : f32
// CHECK: %[[E2:.*]] = llvm.intr.exp2(%{{.*}}) : (f32) -> f32
// CHECK: llvm.fptrunc %[[E2]] : f32 to f16
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @exp(%x: tensor<128xf32, #l>, %h: f16) -> (tensor<128xf32, #l>, f16) {
    %y = math.exp %x : tensor<128xf32, #l>
    %z = math.exp %h : f16
    return %y, %z : tensor<128xf32, #l>, f16
  }
}

// -----

// math.erf (f32) on NVIDIA: libdevice's erff, one call per register (the
// backend links it; AMD targets take MLIR's polynomial approximation,
// convert-tile-to-llvm-amd.mlir).
// CHECK: llvm.func @__nv_erff(f32) -> f32
// CHECK-LABEL: llvm.func @erf(
// CHECK-NOT: math.erf
// CHECK: llvm.call @__nv_erff
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @erf(%x: tensor<128xf32, #l>) -> tensor<128xf32, #l> {
    %y = math.erf %x : tensor<128xf32, #l>
    return %y : tensor<128xf32, #l>
  }
}

// -----

// Atomics: one `atom.<sem>.<scope>` per element, written out (NVPTX drops
// an atomicrmw's ordering and scope); 32 elements over 128 threads are held
// by 4 threads each (warp bits repeat them): only the thread whose warp bits
// are 0 acts, behind a branch. A float max (no such `atom`) stays LLVM's
// relaxed atomicrmw between the fences of its sem.
// CHECK-LABEL: llvm.func @atomics(
// CHECK: llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: llvm.icmp "eq"
// CHECK: llvm.cond_br
// CHECK-NOT: llvm.fence
// CHECK: llvm.inline_asm has_side_effects "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r"
// CHECK-NOT: llvm.fence
// CHECK: llvm.inline_asm has_side_effects "atom.relaxed.cta.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r"
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw fmax %{{.*}}, %{{.*}} syncscope("device") monotonic
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: llvm.inline_asm has_side_effects "atom.acquire.sys.global.exch.b64 $0, [$1], $2;", "=l,l,l"
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @atomics(%p: tensor<32x!tile.ptr<i32>, #l>, %v: tensor<32xi32, #l>,
                     %q: tensor<128x!tile.ptr<i32>, #l>, %w: tensor<128xi32, #l>,
                     %f: tensor<128x!tile.ptr<f32>, #l>, %g: tensor<128xf32, #l>,
                     %h: tensor<128x!tile.ptr<i64>, #l>, %i: tensor<128xi64, #l>) -> tensor<128xi32, #l> {
    %o = tile.atomic_rmw "add", %p, %v {sem = "acq_rel", scope = "gpu"} : tensor<32x!tile.ptr<i32>, #l>
    %c = tile.atomic_cas %q, %w, %w {sem = "relaxed", scope = "cta"} : tensor<128x!tile.ptr<i32>, #l>
    %m = tile.atomic_rmw "fmax", %f, %g {sem = "acq_rel", scope = "gpu"} : tensor<128x!tile.ptr<f32>, #l>
    %x = tile.atomic_rmw "xchg", %h, %i {sem = "acquire", scope = "sys"} : tensor<128x!tile.ptr<i64>, #l>
    return %c : tensor<128xi32, #l>
  }
}

// -----

// The old values of elements several threads hold, used: the acting thread
// also stores each old value to the op's scratch (slot = the element's
// index), and after a barrier every holder loads it. A barrier before the
// atomics lets earlier readers of those bytes finish.
// CHECK-LABEL: llvm.func @atomic_old_broadcast(
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.cond_br
// CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects "atom.relaxed.gpu.global.add.u32 $0, [$1], $2;"
// CHECK-NEXT: llvm.store %[[OLD]], %[[SLOT]] : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @atomic_old_broadcast(%p: tensor<32x!tile.ptr<i32>, #l>, %v: tensor<32xi32, #l>) -> tensor<32xi32, #l> {
    %o = tile.atomic_rmw "add", %p, %v {sem = "relaxed", scope = "gpu"} : tensor<32x!tile.ptr<i32>, #l>
    return %o : tensor<32xi32, #l>
  }
}

// -----

// A scalar atomic as the DSL builds it (a one-element tensor, then a reduce
// to the scalar) whose value the kernel drops: the reduce is dead, so no old
// value passes through shared memory -- no scratch, no barrier, one thread
// acts (kernels that count with `gl.atomic_add(ptr, 1)` as a statement).
// CHECK-LABEL: llvm.func @atomic_old_dropped(
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.cond_br
// CHECK: llvm.inline_asm has_side_effects "atom.release.gpu.global.add.u32 $0, [$1], $2;"
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @atomic_old_dropped(%p: !tile.ptr<i32>) {
    %one = arith.constant dense<1> : tensor<1xi32, #l>
    %ps = tile.splat %p : tensor<1x!tile.ptr<i32>, #l>
    %o = tile.atomic_rmw "add", %ps, %one {sem = "release", scope = "gpu"} : tensor<1x!tile.ptr<i32>, #l>
    %s = tile.reduce %o {axis = 0 : i32} : tensor<1xi32, #l> -> i32 {
    ^bb0(%a: i32, %b: i32):
      tile.reduce_return %a : i32
    }
    return
  }
}

// -----

// A gather along an axis the warps split: the source goes through the op's
// scratch (each element stored by the one thread that holds it, at its
// row-major slot), a barrier, and each output loads the slot of its
// coordinates, the index wrapped to the axis (127).
// CHECK-LABEL: llvm.func @gather_across_warps(
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[C127:.*]] = llvm.mlir.constant(127 : i32) : i32
// CHECK-NEXT: %[[WRAP:.*]] = llvm.and %{{.*}}, %[[C127]] : i32
// CHECK: %[[SLOT:.*]] = llvm.add %{{.*}}, %[[WRAP]] : i32
// CHECK-NEXT: llvm.getelementptr %{{.*}}[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gather_across_warps(%s: tensor<128xf32, #l>, %i: tensor<128xi32, #l>) -> tensor<128xf32, #l> {
    %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<128xi32, #l>) -> tensor<128xf32, #l>
    return %g : tensor<128xf32, #l>
  }
}

// -----

// tile.split picks each half's registers out of the source's: no memory,
// no shuffles; lhs takes registers 0 and 2, rhs 1 and 3 (the pair is the
// first register basis).
// CHECK-LABEL: llvm.func @split_in_registers(
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.shfl.sync
// CHECK-DAG: %[[A:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-DAG: %[[B:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK-DAG: %[[C:.*]] = llvm.extractvalue %{{.*}}[2]
// CHECK-DAG: %[[D:.*]] = llvm.extractvalue %{{.*}}[3]
// CHECK: llvm.insertvalue %[[A]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[C]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[B]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[D]], %{{.*}}[1]
#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#h = #tile.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [[64], [128]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @split_in_registers(%x: tensor<256x2xf32, #p>) -> (tensor<256xf32, #h>, tensor<256xf32, #h>) {
    %l, %r = tile.split %x : tensor<256x2xf32, #p> -> tensor<256xf32, #h>
    return %l, %r : tensor<256xf32, #h>, tensor<256xf32, #h>
  }
}

// -----

// tile.join interleaves the operands' registers: the pair is the result's
// first register basis.
// CHECK-LABEL: llvm.func @join_in_registers(
// CHECK-NOT: llvm.store
// CHECK-DAG: %[[A0:.*]] = llvm.extractvalue %arg0[0]
// CHECK-DAG: %[[A1:.*]] = llvm.extractvalue %arg0[1]
// CHECK-DAG: %[[B0:.*]] = llvm.extractvalue %arg1[0]
// CHECK-DAG: %[[B1:.*]] = llvm.extractvalue %arg1[1]
// CHECK: llvm.insertvalue %[[A0]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[B0]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[A1]], %{{.*}}[2]
// CHECK: llvm.insertvalue %[[B1]], %{{.*}}[3]
#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#h = #tile.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [[64], [128]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @join_in_registers(%a: tensor<256xf32, #h>, %b: tensor<256xf32, #h>) -> tensor<256x2xf32, #p> {
    %j = tile.join %a, %b : tensor<256xf32, #h> -> tensor<256x2xf32, #p>
    return %j : tensor<256x2xf32, #p>
  }
}

// -----

// tile.trans keeps every register: the struct passes through unchanged.
// CHECK-LABEL: llvm.func @trans_in_registers(
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#at = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @trans_in_registers(%x: tensor<16x32xf32, #a>) -> tensor<32x16xf32, #at> {
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #a> -> tensor<32x16xf32, #at>
    return %t : tensor<32x16xf32, #at>
  }
}

// -----

// 16-bit float adds of two adjacent elements a thread (pointers from a
// 16-byte aligned base plus an arange): one packed atom.add.noftz.f16x2
// (sm_60+) / .bf16x2 (sm_90+) per pair; bf16 on sm_80 adds one at a time.
// CHECK-LABEL: llvm.func @packed_fadd(
// CHECK: llvm.inline_asm has_side_effects "atom.relaxed.gpu.global.add.noftz.f16x2 $0, [$1], $2;", "=r,l,r"
// CHECK-NOT: atomicrmw fadd {{.*}} : !llvm.ptr<1>, f16
// SM90: llvm.inline_asm has_side_effects "atom.relaxed.cta.global.add.noftz.bf16x2 $0, [$1], $2;", "=r,l,r"
// SM80-COUNT-2: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("block") monotonic {{.*}} bf16
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @packed_fadd(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %v: tensor<256xf16, #l>,
                         %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: tensor<256xbf16, #l>) {
    %offs = tile.arange 0, 256 : tensor<256xi32, #l>
    %pa = tile.splat %a : tensor<256x!tile.ptr<f16>, #l>
    %qa = tile.addptr %pa, %offs : tensor<256x!tile.ptr<f16>, #l>, tensor<256xi32, #l>
    %o = tile.atomic_rmw "fadd", %qa, %v {sem = "relaxed", scope = "gpu"} : tensor<256x!tile.ptr<f16>, #l>
    %pb = tile.splat %b : tensor<256x!tile.ptr<bf16>, #l>
    %qb = tile.addptr %pb, %offs : tensor<256x!tile.ptr<bf16>, #l>, tensor<256xi32, #l>
    %ob = tile.atomic_rmw "fadd", %qb, %w {sem = "relaxed", scope = "cta"} : tensor<256x!tile.ptr<bf16>, #l>
    return
  }
}

// -----

// tile.assume: llvm.intr.assume of each register (128 i1 over 128 threads:
// one), and of a scalar.
// CHECK-LABEL: llvm.func @assume(
// CHECK: llvm.intr.assume %{{.*}} : i1
// CHECK: llvm.intr.assume %{{.*}} : i1
// CHECK-NOT: llvm.intr.assume
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @assume(%c: tensor<128xi1, #l>, %s: i1) {
    tile.assume %c : tensor<128xi1, #l>
    tile.assume %s : i1
    return
  }
}

// -----

// tile.assert: the AND of the thread's registers; where it is false the
// thread reports on a branch (NVIDIA: __assertfail with the message, the
// op's file and line, the function, char size 1; strings shared).
// NV-DAG: llvm.mlir.global internal constant @kiln_str_{{[0-9]+}}("x must be positive\00")
// NV-DAG: llvm.mlir.global internal constant @kiln_str_{{[0-9]+}}("user.py\00")
// NV-DAG: llvm.mlir.global internal constant @kiln_str_{{[0-9]+}}("assert_\00")
// NV-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// CHECK-LABEL: llvm.func @assert_
// CHECK: llvm.and
// CHECK: llvm.cond_br
// NV: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
// NV: llvm.cond_br
// NV: llvm.call @__assertfail
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @assert_(%c: tensor<256xi1, #l>, %s: i1) {
    tile.assert %c, "x must be positive" : tensor<256xi1, #l> loc("user.py":12:3)
    tile.assert %s, "x must be positive" : i1 loc("user.py":14:3)
    return
  }
}

// -----

// tile.print: per element and operand one vprintf of a format string (a
// module global) and an argument buffer (an alloca in the entry block):
// the program id, the element's coordinates, the value (f32 widened to f64).
// NV-DAG: llvm.mlir.global internal constant @kiln_str_{{[0-9]+}}("pid (%u, %u, %u) idx (%u) x %f\0A\00")
// NV-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @print_(
// NV: llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, f64)>
// NV: llvm.fpext %{{.*}} : f32 to f64
// NV: llvm.call @vprintf(
// NV: llvm.call @vprintf(
// NV-NOT: llvm.call @vprintf(
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @print_(%x: tensor<256xf32, #l>) {
    tile.print " x ", %x {hex = false, isSigned = array<i32: 0>} : tensor<256xf32, #l>
    return
  }
}

// -----

// tile.inline_asm_elementwise: one statement per `pack` registers; 4 i8
// travel as one vector<4xi8>, the 4 i32 results (one output each) come back
// as a struct.
// tile.scan: the thread's registers combined in axis order (reverse: from
// the last, the later partial result first).
// CHECK-LABEL: llvm.func @asm_(
// CHECK: llvm.inline_asm "bfe.u32 $0, $4, 0, 8; bfe.u32 $1, $4, 8, 8; bfe.u32 $2, $4, 16, 8; bfe.u32 $3, $4, 24, 8;", "=r,=r,=r,=r,r" %{{.*}} : (vector<4xi8>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: llvm.inline_asm
// A pointer operand is one address register per element (atomic_load's "l").
// CHECK-LABEL: llvm.func @asm_ptr_(
// CHECK: llvm.inline_asm has_side_effects "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l" %{{.*}} : (!llvm.ptr<1>) -> i32
// CHECK-LABEL: llvm.func @scan_(
// CHECK: %[[X0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[X1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[X2:.*]] = llvm.extractvalue %arg0[2]
// CHECK: %[[X3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[S2:.*]] = llvm.add %[[X3]], %[[X2]] : i32
// CHECK: %[[S1:.*]] = llvm.add %[[S2]], %[[X1]] : i32
// CHECK: %[[S0:.*]] = llvm.add %[[S1]], %[[X0]] : i32
// CHECK: llvm.insertvalue %[[S0]], %{{.*}}[0]
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @asm_(%x: tensor<512xi8, #l>) -> tensor<512xi32, #l> {
    %y = tile.inline_asm_elementwise "bfe.u32 $0, $4, 0, 8; bfe.u32 $1, $4, 8, 8; bfe.u32 $2, $4, 16, 8; bfe.u32 $3, $4, 24, 8;", "=r,=r,=r,=r,r", %x {pack = 4 : i32, pure = true} : (tensor<512xi8, #l>) -> tensor<512xi32, #l>
    return %y : tensor<512xi32, #l>
  }
  func.func @asm_ptr_(%p: tensor<128x!tile.ptr<i32>, #l>) -> tensor<128xi32, #l> {
    %y = tile.inline_asm_elementwise "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l", %p {pack = 1 : i32, pure = false} : (tensor<128x!tile.ptr<i32>, #l>) -> tensor<128xi32, #l>
    return %y : tensor<128xi32, #l>
  }
  func.func @scan_(%x: tensor<4x128xi32, #s>) -> tensor<4x128xi32, #s> {
    %s = tile.scan %x {axis = 0 : i32, reverse = true} : tensor<4x128xi32, #s> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan_return %c : i32
    }
    return %s : tensor<4x128xi32, #s>
  }
}

// -----

// tile.scan across lanes and warps (128 elements, one a thread, 4 warps):
// five doubling steps by shuffles (the source lane: this lane with the
// step's bit cleared and the bits below set; only lanes with the bit set
// take the sum), then two through shared memory, each between barriers:
// the last element of each lower half block is stored, every element loads
// its block's, and those with the step's bit set add it on the left.
// CHECK-LABEL: llvm.func @scan_across
// CHECK-COUNT-5: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.cond_br
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: %[[L0:.*]] = llvm.load
// CHECK: llvm.add %[[L0]], %{{.*}} : i32
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: %[[L1:.*]] = llvm.load
// CHECK: llvm.add %[[L1]], %{{.*}} : i32
// CHECK: nvvm.barrier0
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scan_across(%x: tensor<128xi32, #l>) -> tensor<128xi32, #l> {
    %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<128xi32, #l> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan_return %c : i32
    }
    return %s : tensor<128xi32, #l>
  }
}

// -----

// Shared buffers: the address of the module's shared array plus the
// allocator's offset; a load or store touches the swizzled offset of each
// element, as vectors where consecutive registers are consecutive elements.
// The lowering adds no barriers (tile-insert-barriers does).
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @shared_roundtrip
  func.func @shared_roundtrip(%t: tensor<128xf32, #l>) -> tensor<128xf32, #l> {
    // CHECK: llvm.mlir.addressof @global_smem : !llvm.ptr<3>
    // CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
    // CHECK: %[[OFF:.*]] = llvm.mlir.constant(512 : i32) : i32
    // CHECK: llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    // Four consecutive registers are four consecutive elements: one vector.
    // CHECK-NOT: nvvm.barrier0
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
    // CHECK-NOT: nvvm.barrier0
    // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
    // %a lives until its load at the end, so %b goes after it.
    %a = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    tile.local_store %t, %b : tensor<128xf32, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    %u = tile.local_load %b : !tile.memdesc<128xf32, #sh, mutable> -> tensor<128xf32, #l>
    %v = tile.local_load %a : !tile.memdesc<128xf32, #sh, mutable> -> tensor<128xf32, #l>
    return %u : tensor<128xf32, #l>
  }
}

// -----

// A ring slot is the ring's address plus the index times the slot's bytes.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @ring_slot
  func.func @ring_slot(%i: i32) {
    %r = tile.local_alloc : () -> !tile.memdesc<3x128xf16, #sh, mutable>
    // CHECK: %[[BYTES:.*]] = llvm.mlir.constant(256 : i32) : i32
    // CHECK: %[[OFF:.*]] = llvm.mul %{{.*}}, %[[BYTES]] : i32
    // CHECK: llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %s = tile.memdesc_index %r[%i] : !tile.memdesc<3x128xf16, #sh, mutable> -> !tile.memdesc<128xf16, #sh, mutable, 3x128>
    // CHECK: nvvm.barrier0
    tile.barrier
    return
  }
}

// -----

// A subslice moves the base by its ring offsets (slot 1 of 64x64 f32 is
// 16384 bytes in) and XORs the in-slot offset of its origin into every
// access: row 16, column 32, whose phase 16 % 8 = 0 leaves the column, so
// 16 * 64 + 32 = 1056 elements.
// CHECK-LABEL: llvm.func @subslice
// CHECK: %[[SLOT:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.mlir.constant(1056 : i32) : i32
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @subslice(%t: tensor<16x32xf32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<2x64x64xf32, #sh, mutable>
    %s = tile.memdesc_subslice %b[1, 16, 32] : !tile.memdesc<2x64x64xf32, #sh, mutable> -> !tile.memdesc<1x16x32xf32, #sh, mutable, 2x64x64>
    %c0 = arith.constant 0 : i32
    %s2 = tile.memdesc_index %s[%c0] : !tile.memdesc<1x16x32xf32, #sh, mutable, 2x64x64> -> !tile.memdesc<16x32xf32, #sh, mutable, 2x64x64>
    tile.local_store %t, %s2 : tensor<16x32xf32, #l> -> !tile.memdesc<16x32xf32, #sh, mutable, 2x64x64>
    return
  }
}

// -----

// A register offset is XORed into the per-thread offset only in the bits the
// per-thread part may set (here the lanes' rows move the swizzle phase, so
// bit 4, column 16, is one of them), and its other bits are added (row 8:
// 256 elements), which LLVM folds into the access's immediate offset: the
// register at row 8, column 16 is (thread ^ 16) + 256, sharing thread ^ 16
// with the register at column 16.
// CHECK-LABEL: llvm.func @xor_split
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[X16:.*]] = llvm.xor %[[T:.*]], %[[C16]] : i32
// CHECK: %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: llvm.add %[[T]], %[[C256]] overflow<nsw, nuw> : i32
// CHECK: %[[D16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[Y16:.*]] = llvm.xor %[[T]], %[[D16]] : i32
// CHECK-NEXT: %[[D256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: llvm.add %[[Y16]], %[[D256]] overflow<nsw, nuw> : i32
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @xor_split(%t: tensor<16x32xf32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<16x32xf32, #sh, mutable>
    tile.local_store %t, %b : tensor<16x32xf32, #l> -> !tile.memdesc<16x32xf32, #sh, mutable>
    return
  }
}

// -----

// A padded layout: each address is the linear offset o plus (o >> 5) << 2
// (4 elements after every 32), and a ring slot is 284 padded elements
// (1136 bytes); vectors stay within the 4-element padding.
// CHECK-LABEL: llvm.func @padded
// CHECK: llvm.mlir.constant(1136 : i32) : i32
// CHECK: %[[SHL:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK: llvm.add %{{.*}}, %[[SHL]] : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#pad = #tile.padded_shared<{intervals = [32], paddings = [4], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], shape = [8, 32]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @padded(%t: tensor<8x32xf32, #l>, %i: i32) {
    %r = tile.local_alloc : () -> !tile.memdesc<2x8x32xf32, #pad, mutable>
    %s = tile.memdesc_index %r[%i] : !tile.memdesc<2x8x32xf32, #pad, mutable> -> !tile.memdesc<8x32xf32, #pad, mutable, 2x8x32>
    tile.local_store %t, %s : tensor<8x32xf32, #l> -> !tile.memdesc<8x32xf32, #pad, mutable, 2x8x32>
    return
  }
}

// -----

// dot_fma is thread-local: 2 x 2 accumulator registers per thread, K = 4,
// one fused multiply-add per (register, k); the f16 operands are extended
// to f32 once each (2 x 4 of A and 4 x 2 of B).
// CHECK-LABEL: llvm.func @dot_fma
// CHECK-COUNT-16: llvm.intr.fma
// CHECK-NOT: llvm.intr.fma
// CHECK: llvm.return
#p = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #p}>
#b = #tile.dot_operand<{opIdx = 1, parent = #p}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @dot_fma(%a: tensor<8x4xf16, #a>, %b: tensor<4x16xf16, #b>, %c: tensor<8x16xf32, #p>) -> tensor<8x16xf32, #p> {
    %d = tile.dot_fma %a, %b, %c : tensor<8x4xf16, #a>, tensor<4x16xf16, #b> -> tensor<8x16xf32, #p>
    return %d : tensor<8x16xf32, #p>
  }
}

// -----

// A move in two rounds (tile.scratch_rounds, the allocator's when the tile
// does not fit; given here): each round is barrier, stores, barrier, loads,
// of half the registers (rows 32..63 are round 1: row bit 32 is the
// round bit, a register bit of both layouts), through the chosen scratch
// of half the tile (a thread's four consecutive elements one vector store).
// CHECK-LABEL: llvm.func @rounds
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @rounds(%x: tensor<64x32xf32, #a>) -> tensor<64x32xf32, #b> {
    %y = tile.convert_layout %x {tile.scratch_rounds = 2 : i32} : tensor<64x32xf32, #a> -> tensor<64x32xf32, #b>
    return %y : tensor<64x32xf32, #b>
  }
}

// -----

// A reinterpreted half of a buffer: the subslice's offset (1024 elements of
// i8) becomes a 1024-byte move of the base; the int32 view is then addressed
// from there.
// CHECK-LABEL: llvm.func @reinterpret
// CHECK: %[[OFF:.*]] = llvm.mlir.constant(1024 : i32) : i32
// CHECK: %[[BASE:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[P:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK: llvm.store %{{.*}}, %[[P]] : i32, !llvm.ptr<3>
#s1 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reinterpret(%t: tensor<32xi32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<2048xi8, #s1, mutable>
    %h = tile.memdesc_subslice %b[1024] : !tile.memdesc<2048xi8, #s1, mutable> -> !tile.memdesc<1024xi8, #s1, mutable, 2048>
    %r = tile.memdesc_reinterpret %h : !tile.memdesc<1024xi8, #s1, mutable, 2048> -> !tile.memdesc<32xi32, #s1, mutable>
    tile.local_store %t, %r : tensor<32xi32, #l> -> !tile.memdesc<32xi32, #s1, mutable>
    return
  }
}

// -----

// A slice of whole thread tiles picks registers: 16x64 in a layout whose
// threads span 16x32 holds two 4-register groups per thread; the slice at
// column 32 is the second group (registers 4..7).
// CHECK-LABEL: llvm.func @extract_slice(
// CHECK-NOT: nvvm.shfl
// CHECK-NOT: llvm.store
// CHECK: %[[E4:.*]] = llvm.extractvalue %arg0[4]
// CHECK: %[[E5:.*]] = llvm.extractvalue %arg0[5]
// CHECK: %[[E6:.*]] = llvm.extractvalue %arg0[6]
// CHECK: %[[E7:.*]] = llvm.extractvalue %arg0[7]
// CHECK: llvm.insertvalue %[[E4]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[E5]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[E6]], %{{.*}}[2]
// CHECK: llvm.insertvalue %[[E7]], %{{.*}}[3]
// CHECK: llvm.return
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @extract_slice(%x: tensor<16x64xf32, #l2>) -> tensor<16x32xf32, #l2> {
    %s = tile.extract_slice %x {offsets = array<i64: 0, 32>} : tensor<16x64xf32, #l2> -> tensor<16x32xf32, #l2>
    return %s : tensor<16x32xf32, #l2>
  }
}
