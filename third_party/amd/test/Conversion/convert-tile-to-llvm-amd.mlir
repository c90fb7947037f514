// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=hip:gfx942" | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %s --check-prefixes=CHECK,AMD

// AMD lowering of the tile dialect: the cases of convert-tile-to-llvm.mlir
// with 64-lane layouts.

// The program count comes from the HSA dispatch packet: grid_size.y (u32 at
// byte 16) over workgroup_size.y (u16 at byte 6), rounded up.
// CHECK-LABEL: llvm.func @ids(
// AMD-SAME: attributes {rocdl.flat_work_group_size = "1,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>}
// AMD: %[[PID:.*]] = rocdl.workgroup.id.x : i32
// AMD: %[[PKT:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// AMD: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// AMD: %[[GP:.*]] = llvm.getelementptr %[[PKT]][%[[C16]]] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, i8
// AMD: %[[GRID:.*]] = llvm.load %[[GP]] {{.*}} : !llvm.ptr<4> -> i32
// AMD: %[[C6:.*]] = llvm.mlir.constant(6 : i32) : i32
// AMD: %[[WP:.*]] = llvm.getelementptr %[[PKT]][%[[C6]]] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, i8
// AMD: %[[WG16:.*]] = llvm.load %[[WP]] {{.*}} : !llvm.ptr<4> -> i16
// AMD: %[[WG:.*]] = llvm.zext %[[WG16]] : i16 to i32
// AMD: %[[WGM1:.*]] = llvm.sub %[[WG]], %{{.*}} : i32
// AMD: %[[SUM:.*]] = llvm.add %[[GRID]], %[[WGM1]] : i32
// AMD: %[[NP:.*]] = llvm.udiv %[[SUM]], %[[WG]] : i32
// AMD: llvm.add %[[PID]], %[[NP]] : i32
// CHECK: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK: llvm.return
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @ids(%out: !tile.ptr<i32>) {
    %pid = tile.program_id 0
    %np = tile.num_programs 1
    %a = arith.addi %pid, %np : i32
    %q = tile.addptr %out, %a : !tile.ptr<i32>, i32
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @arange(
// AMD: %[[TID:.*]] = rocdl.workitem.id.x : i32
// CHECK: %[[WS:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: llvm.urem %[[TID]], %[[WS]] : i32
// CHECK: llvm.udiv %[[TID]], %[[WS]] : i32
// CHECK: llvm.mlir.constant(128 : i32) : i32
// CHECK: llvm.mlir.constant(512 : i32) : i32
// CHECK-COUNT-4: llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @arange() -> tensor<1024xi32, #l> {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    return %r : tensor<1024xi32, #l>
  }
}

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK: llvm.func @vec_add(%arg0: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg1: !llvm.ptr<1> {llvm.align = 16 : i64}, %arg2: !llvm.ptr<1> {llvm.align = 16 : i64})
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.fadd
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.cond_br
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @vec_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %pid = tile.program_id 0
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %bs = tile.splat %base : tensor<1024xi32, #l>
    %offs = arith.addi %bs, %r : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>, #l>
    %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %a = tile.load %xp : tensor<1024x!tile.ptr<f32>, #l>
    %b = tile.load %yp : tensor<1024x!tile.ptr<f32>, #l>
    %s = arith.addf %a, %b : tensor<1024xf32, #l>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>, #l>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    tile.store %op, %s : tensor<1024x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @masked_aligned(
// CHECK: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 16 : i32} : (!llvm.ptr<1>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.intr.masked.load
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @masked_aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) -> tensor<1024xf32, #l> {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %ns = tile.splat %n : tensor<1024xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %v = tile.load %xp, %m : tensor<1024x!tile.ptr<f32>, #l>
    return %v : tensor<1024xf32, #l>
  }
}

// -----

// CHECK-LABEL: llvm.func @masked_scalar(
// CHECK-COUNT-4: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr<1>, vector<1xi1>, vector<1xf32>) -> vector<1xf32>
// CHECK-NOT: vector<4xf32>
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @masked_scalar(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<1024xf32, #l> {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %ns = tile.splat %n : tensor<1024xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %v = tile.load %xp, %m : tensor<1024x!tile.ptr<f32>, #l>
    return %v : tensor<1024xf32, #l>
  }
}

// -----

// The barrier orders LDS only: s_waitcnt lgkmcnt(0) (49279 = 0xC07F: vmcnt
// and expcnt at their maxima) and s_barrier between wavefront-scope fences,
// which emit nothing but keep LLVM from moving memory accesses across it
// (HIP's workgroup fences would also retire every direct-to-LDS copy).
// The scratch is laid out for both sides (64-lane waves, the target's
// banks): a thread's four elements go in as one 16-byte store and come back
// one by one.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 4096 : i32
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @cvt_shared(
// CHECK: llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// AMD: llvm.fence syncscope("wavefront") release
// AMD-NEXT: rocdl.s.waitcnt 49279
// AMD-NEXT: rocdl.s.barrier
// AMD-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-NOT: llvm.store
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// AMD-NEXT: llvm.fence syncscope("wavefront") release
// AMD-NEXT: rocdl.s.waitcnt 49279
// AMD-NEXT: rocdl.s.barrier
// AMD-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// AMD-NOT: rocdl.s.barrier
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @cvt_shared(%x: tensor<1024xf32, #l>) -> tensor<1024xf32, #m> {
    %y = tile.convert_layout %x : tensor<1024xf32, #l> -> tensor<1024xf32, #m>
    return %y : tensor<1024xf32, #m>
  }
}

// -----

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
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#perm = #tile.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64], [128]], warp = [[256], [512]]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @cvt_permute(%x: tensor<1024xf32, #l>) -> tensor<1024xf32, #perm> {
    %y = tile.convert_layout %x : tensor<1024xf32, #l> -> tensor<1024xf32, #perm>
    return %y : tensor<1024xf32, #perm>
  }
}

// -----

// Dim 1 spans 4 registers and lane bits 0-2: ds_bpermute reads lane ^ 1, ^ 2
// and ^ 4 (byte address = lane * 4).
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK-LABEL: llvm.func @reduce_in_warp(
// CHECK-COUNT-3: llvm.fadd
// AMD: %[[TID:.*]] = rocdl.workitem.id.x : i32
// AMD: %[[LANE:.*]] = llvm.urem %[[TID]], %{{.*}} : i32
// AMD: %[[M1:.*]] = llvm.mlir.constant(1 : i32) : i32
// AMD: %[[SRC1:.*]] = llvm.xor %[[LANE]], %[[M1]] : i32
// AMD: %[[FOUR:.*]] = llvm.mlir.constant(2 : i32) : i32
// AMD: %[[ADDR1:.*]] = llvm.shl %[[SRC1]], %[[FOUR]] : i32
// AMD: rocdl.ds_bpermute %[[ADDR1]], %{{.*}} : (i32, i32) -> i32
// CHECK: llvm.fadd
// AMD: %[[M2:.*]] = llvm.mlir.constant(2 : i32) : i32
// AMD: llvm.xor %[[LANE]], %[[M2]] : i32
// AMD: rocdl.ds_bpermute
// CHECK: llvm.fadd
// AMD: %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
// AMD: llvm.xor %[[LANE]], %[[M4]] : i32
// AMD: rocdl.ds_bpermute
// CHECK: llvm.fadd
// AMD-NOT: rocdl.ds_bpermute
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return %{{.*}} : !llvm.struct<(f32)>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @reduce_in_warp(%x: tensor<32x32xf32, #l2>) -> tensor<32xf32, #row> {
    %s = tile.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #l2> -> tensor<32xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<32xf32, #row>
  }
}

// -----

// Dim 0 spans lane bits 3-5 and both warp bits: 4 warps x 32 outputs x 4 bytes.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 512 : i32
// CHECK-LABEL: llvm.func @reduce_across_warps(
// AMD-COUNT-12: rocdl.ds_bpermute
// AMD-NOT: rocdl.ds_bpermute
// CHECK: llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// AMD: rocdl.s.barrier
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// AMD: rocdl.s.barrier
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return %{{.*}} : !llvm.struct<(f32, f32, f32, f32)>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @reduce_across_warps(%x: tensor<32x32xf32, #l2>) -> tensor<32xf32, #col> {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<32x32xf32, #l2> -> tensor<32xf32, #col> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return %s : tensor<32xf32, #col>
  }
}

// -----

// CHECK-LABEL: llvm.func @exp(
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK: %[[X:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
// AMD: llvm.intr.exp2(%[[X]]) : (f32) -> f32
// CHECK-NOT: llvm.intr.exp(
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @exp(%x: tensor<256xf32, #l>) -> tensor<256xf32, #l> {
    %y = math.exp %x : tensor<256xf32, #l>
    return %y : tensor<256xf32, #l>
  }
}

// -----

// tile.assert for gfx9 traps where a thread's registers hold a false element
// (no report: device printf needs the ROCm device libraries).
// CHECK-LABEL: llvm.func @assert_
// CHECK: llvm.and
// CHECK: llvm.cond_br
// CHECK: llvm.intr.trap
// CHECK-NOT: __assertfail
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @assert_(%c: tensor<512xi1, #l>) {
    tile.assert %c, "x must be positive" : tensor<512xi1, #l>
    return
  }
}

// -----

// 16-bit float adds of two adjacent elements a lane: one vector atomicrmw
// fadd per pair (global_atomic_pk_add_f16 / _bf16 on CDNA3 and CDNA4).
// CHECK-LABEL: llvm.func @packed_fadd(
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic {{.*}} vector<2xf16>
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic {{.*}} vector<2xbf16>
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @packed_fadd(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %v: tensor<512xf16, #l>,
                         %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: tensor<512xbf16, #l>) {
    %offs = tile.arange 0, 512 : tensor<512xi32, #l>
    %pa = tile.splat %a : tensor<512x!tile.ptr<f16>, #l>
    %qa = tile.addptr %pa, %offs : tensor<512x!tile.ptr<f16>, #l>, tensor<512xi32, #l>
    %o = tile.atomic_rmw "fadd", %qa, %v {sem = "relaxed", scope = "gpu"} : tensor<512x!tile.ptr<f16>, #l>
    %pb = tile.splat %b : tensor<512x!tile.ptr<bf16>, #l>
    %qb = tile.addptr %pb, %offs : tensor<512x!tile.ptr<bf16>, #l>, tensor<512xi32, #l>
    %ob = tile.atomic_rmw "fadd", %qb, %w {sem = "relaxed", scope = "gpu"} : tensor<512x!tile.ptr<bf16>, #l>
    return
  }
}

// -----

// math.erf (f32) for AMD targets is MLIR's polynomial approximation, per register: no
// math.erf and no library call is left (no device library is linked).
// CHECK-LABEL: llvm.func @erf(
// CHECK-NOT: math.erf
// CHECK-NOT: llvm.call
// CHECK: llvm.intr.fma
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 2 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @erf(%x: tensor<128xf32, #l>) -> tensor<128xf32, #l> {
    %y = math.erf %x : tensor<128xf32, #l>
    return %y : tensor<128xf32, #l>
  }
}

// -----

// An atomic's memory order is the atomicrmw's / cmpxchg's own (the AMDGPU
// backend lowers it), at the agent or workgroup scope; a failed compare
// orders as an acquire at most.
// CHECK-LABEL: llvm.func @ordered_atomics(
// CHECK-NOT: llvm.fence
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") acq_rel
// CHECK: llvm.atomicrmw umax %{{.*}}, %{{.*}} syncscope("workgroup") release
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} acq_rel acquire
// CHECK-NOT: llvm.fence
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @ordered_atomics(%p: tensor<256x!tile.ptr<i32>, #l>, %v: tensor<256xi32, #l>) {
    %a = tile.atomic_rmw "add", %p, %v {sem = "acq_rel", scope = "gpu"} : tensor<256x!tile.ptr<i32>, #l>
    %b = tile.atomic_rmw "umax", %p, %v {sem = "release", scope = "cta"} : tensor<256x!tile.ptr<i32>, #l>
    %c = tile.atomic_cas %p, %v, %v {sem = "acq_rel", scope = "sys"} : tensor<256x!tile.ptr<i32>, #l>
    return
  }
}

// -----

// Gluon's buffer_atomic_* (an atomic_rmw marked tile_amd.buffer on
// splat(base) + offsets): one buffer atomic per element on the base's
// resource, a masked lane's offset out of range (2^31) instead of a branch,
// the sem's fences around it. Unmarked, the same pointers take a global
// atomic.
// CHECK-LABEL: llvm.func @buffer_atomics(
// CHECK: %[[OOB:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.select %{{.*}}, %{{.*}}, %[[OOB]] : i1, i32
// CHECK: llvm.fence syncscope("agent") release
// CHECK-NEXT: llvm.call_intrinsic "llvm.amdgcn.raw.ptr.buffer.atomic.add"(%{{.*}}, %{{.*}}, %[[OFF]], %{{.*}}, %{{.*}}) : (i32, !llvm.ptr<8>, i32, i32, i32) -> i32
// CHECK-NEXT: llvm.fence syncscope("agent") acquire
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.atomicrmw umax %{{.*}}, %{{.*}} syncscope("agent") monotonic
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_atomics(%base: !tile.ptr<i32>, %v: tensor<256xi32, #l>, %m: tensor<256xi1, #l>) -> tensor<256xi32, #l> {
    %offs = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %base : tensor<256x!tile.ptr<i32>, #l>
    %p = tile.addptr %s, %offs : tensor<256x!tile.ptr<i32>, #l>, tensor<256xi32, #l>
    %a = tile.atomic_rmw "add", %p, %v, %m {sem = "acq_rel", scope = "gpu", tile_amd.buffer} : tensor<256x!tile.ptr<i32>, #l>
    %b = tile.atomic_rmw "umax", %p, %v {sem = "relaxed", scope = "gpu"} : tensor<256x!tile.ptr<i32>, #l>
    %c = arith.addi %a, %b : tensor<256xi32, #l>
    return %c : tensor<256xi32, #l>
  }
}

// -----

// 64 elements over 256 threads, old values used: warps 1-3 repeat warp 0's
// elements, so their lanes issue the buffer atomic out of range; the acting
// lanes alone publish the old values (the one branch), and after a barrier
// every holder reads its element's.
// CHECK-LABEL: llvm.func @buffer_atomic_broadcast(
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.raw.ptr.buffer.atomic.smax"
// CHECK-NEXT: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_atomic_broadcast(%base: !tile.ptr<i32>, %v: tensor<64xi32, #l>) -> tensor<64xi32, #l> {
    %offs = tile.arange 0, 64 : tensor<64xi32, #l>
    %s = tile.splat %base : tensor<64x!tile.ptr<i32>, #l>
    %p = tile.addptr %s, %offs : tensor<64x!tile.ptr<i32>, #l>, tensor<64xi32, #l>
    %a = tile.atomic_rmw "max", %p, %v {sem = "relaxed", scope = "cta", tile_amd.buffer} : tensor<64x!tile.ptr<i32>, #l>
    return %a : tensor<64xi32, #l>
  }
}

// -----

// A move in two rounds (tile.scratch_rounds, set where the tile does not fit)
// still goes through the chosen scratch: each round stores the half of the
// elements whose round bit (a register bit of both layouts) has its value and
// reads them back in 16-byte vectors, through a scratch of half the tile.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 16384 : i32
// CHECK-LABEL: llvm.func @cvt_rounds(
// AMD: rocdl.s.barrier
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// AMD: rocdl.s.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// AMD: rocdl.s.barrier
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// AMD: rocdl.s.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: rocdl.s.barrier
// CHECK: llvm.return
#l = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#m = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @cvt_rounds(%x: tensor<128x64xf32, #l>) -> tensor<128x64xf32, #m> {
    %y = tile.convert_layout %x {tile.scratch_rounds = 2 : i32} : tensor<128x64xf32, #l> -> tensor<128x64xf32, #m>
    return %y : tensor<128x64xf32, #m>
  }
}
