// REQUIRES: nvidia, amd
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory -verify-diagnostics | FileCheck %s

// A target option that differs from the module's tile.target is an error.
// RUN: not kiln-opt %s -split-input-file --tile-allocate-shared-memory="target=hip:gfx942" 2>&1 | FileCheck %s --check-prefix=OPT

// Every op that stages data through shared memory gets tile.scratch_offset;
// a scratch buffer lives only at its op, so sequential users all start at 0
// and the module's tile.shared is the largest of them.

// 512 x f32 crossing threads: 2048 bytes. Pointers take 8 bytes and i1 one.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 4096 : i32
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32} : tensor<512xf32,
// CHECK: tile.convert_layout %arg1 {tile.scratch_offset = 0 : i32} : tensor<512xi1,
// CHECK: tile.convert_layout %arg2 {tile.scratch_offset = 0 : i32} : tensor<512x!tile.ptr<f16>,
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @largest_wins(%a: tensor<512xf32, #l>, %b: tensor<512xi1, #l>, %c: tensor<512x!tile.ptr<f16>, #l>) {
    %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
    %1 = tile.convert_layout %b : tensor<512xi1, #l> -> tensor<512xi1, #m>
    %2 = tile.convert_layout %c : tensor<512x!tile.ptr<f16>, #l> -> tensor<512x!tile.ptr<f16>, #m>
    return
  }
}

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 2048 : i32
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32}
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @f32_convert(%a: tensor<512xf32, #l>) {
    %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
    return
  }
}

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 512 : i32
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @i1_convert(%b: tensor<512xi1, #l>) {
    %1 = tile.convert_layout %b : tensor<512xi1, #l> -> tensor<512xi1, #m>
    return
  }
}

// -----

// Conversions that leave every element in its thread need no scratch: the
// same layout spelled as #tile.linear, and a permutation of the registers.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK-NOT: tile.scratch_offset
// CHECK: tile.convert_layout %arg0 : tensor<512xf32, #{{.*}}> -> tensor<512xf32, #{{.*}}>
// CHECK: tile.convert_layout %arg0 : tensor<512xf32, #{{.*}}> -> tensor<512xf32, #{{.*}}>
// CHECK: tile.reshape %arg1 : tensor<16x32xf32, #{{.*}}> -> tensor<512xf32, #{{.*}}>
// CHECK-NOT: tile.scratch_offset
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#same = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}>
#perm = #tile.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @no_scratch(%a: tensor<512xf32, #l>, %b: tensor<16x32xf32, #l2>) {
    %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #same>
    %1 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #perm>
    // Row-major flattening of #l2 gives exactly #l.
    %2 = tile.reshape %b : tensor<16x32xf32, #l2> -> tensor<512xf32, #l>
    return
  }
}

// -----

// A reshape whose layouts do not line up moves data like convert_layout.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 2048 : i32
// CHECK: tile.reshape %arg0 {tile.scratch_offset = 0 : i32}
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reshape_moves(%b: tensor<16x32xf32, #l2>) {
    %0 = tile.reshape %b : tensor<16x32xf32, #l2> -> tensor<512xf32, #m>
    return
  }
}

// -----

// Reductions: scratch only when warps split the axis; then
// (warps along the axis) x (outputs) x (element bytes).
// Axis 1 lies within each warp's registers and lanes: none.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 0 : i32
// CHECK: tile.reduce %arg0 {axis = 1 : i32} :
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_in_warp(%x: tensor<16x32xf32, #l2>) {
    %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #l2> -> tensor<16xf32, #tile.slice<{dim = 1, parent = #l2}>> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return
  }
}

// -----

// Axis 0 is split by all 4 warps: 4 x 32 x 4 bytes.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 512 : i32
// CHECK: tile.reduce %arg0 {axis = 0 : i32, tile.scratch_offset = 0 : i32}
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_4_warps(%x: tensor<16x32xf32, #l2>) {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<16x32xf32, #l2> -> tensor<32xf32, #tile.slice<{dim = 0, parent = #l2}>> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return
  }
}

// -----

// A histogram counts in a scratch of one i32 a bin: 4096 x 4 bytes.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 16384 : i32
// CHECK: tile.histogram %arg0 {tile.scratch_offset = 0 : i32}
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @histogram_scratch(%x: tensor<512xi32, #l>) {
    %h = tile.histogram %x : tensor<512xi32, #l> -> tensor<4096xi32, #l>
    return
  }
}

// -----

// Two tensors reduced together: one array each, 2 x 64 outputs of f16 (256
// bytes), then 2 x 64 of i64 from byte 256 (1024 bytes).
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 1280 : i32
// CHECK: tile.reduce %arg0, %arg1 {axis = 0 : i32, tile.scratch_offset = 0 : i32}
#w = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_tuple_2_warps(%x: tensor<32x64xf16, #w>, %i: tensor<32x64xi64, #w>) {
    %s:2 = tile.reduce %x, %i {axis = 0 : i32} : tensor<32x64xf16, #w>, tensor<32x64xi64, #w> -> tensor<64xf16, #tile.slice<{dim = 0, parent = #w}>>, tensor<64xi64, #tile.slice<{dim = 0, parent = #w}>> {
    ^bb0(%a: f16, %ai: i64, %b: f16, %bi: i64):
      %c = arith.addf %a, %b : f16
      %ci = arith.addi %ai, %bi : i64
      tile.reduce_return %c, %ci : f16, i64
    }
    return
  }
}

// -----

// Warps 2 x 2: axis 0 is split by 2 warps: 2 x 64 outputs x 2 bytes (f16).
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 256 : i32
// CHECK: tile.reduce %arg0 {axis = 0 : i32, tile.scratch_offset = 0 : i32}
#w = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_2_warps_f16(%x: tensor<32x64xf16, #w>) {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<32x64xf16, #w> -> tensor<64xf16, #tile.slice<{dim = 0, parent = #w}>> {
    ^bb0(%a: f16, %b: f16):
      %c = arith.addf %a, %b : f16
      tile.reduce_return %c : f16
    }
    return
  }
}

// -----

// A 1-D reduction to a scalar over 4 warps: 4 x 1 x 4 bytes.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 16 : i32
// CHECK: tile.reduce %arg0 {axis = 0 : i32, tile.scratch_offset = 0 : i32}
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_to_scalar(%x: tensor<512xi32, #l>) -> i32 {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<512xi32, #l> -> i32 {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.reduce_return %c : i32
    }
    return %s : i32
  }
}

// -----

// The largest user across functions and nested regions sets the total.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 8192 : i32
// CHECK: scf.for
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32} : tensor<1024xf64,
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32} : tensor<512xf32,
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @in_loop(%a: tensor<1024xf64, #l>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %0 = tile.convert_layout %a : tensor<1024xf64, #l> -> tensor<1024xf64, #m>
    }
    return
  }
  func.func @other(%a: tensor<512xf32, #l>) {
    %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
    return
  }
}

//===----------------------------------------------------------------------===//
// The per-CTA limit of the module's tile.target.
//===----------------------------------------------------------------------===//

// -----

// 128 x 512 x 4 bytes = 256 KiB > 227 KiB on sm_90a: the move goes in two
// rounds of 128 KiB. Rows 32 and 64 and columns 32 ... 256 are held by
// registers in both layouts (no lane or warp moves along them): the most
// significant, row 64, splits the tile.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 131072 : i32
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32, tile.scratch_rounds = 2 : i32}
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @rounds_sm90a(%x: tensor<128x512xf32, #a>) {
    %y = tile.convert_layout %x : tensor<128x512xf32, #a> -> tensor<128x512xf32, #b>
    return
  }
}

// -----

// Only the move live beside the buffers past the limit is split, as often as
// needed: 200 KiB of buffers leave 27 KiB, so the 128 KiB move takes 8
// rounds of 16 KiB; the move after the buffer's last use keeps one round.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 221184 : i32
// CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32}
// CHECK: tile.local_alloc {tile.scratch_offset = 131072 : i32}
// CHECK: tile.local_alloc {tile.scratch_offset = 212992 : i32}
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 196608 : i32, tile.scratch_rounds = 8 : i32}
// CHECK: tile.convert_layout %arg1 {tile.scratch_offset = 0 : i32} :
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @rounds_beside_a_buffer(%x: tensor<128x256xf32, #a>, %z: tensor<128x256xf32, #a>) {
    %b0 = tile.local_alloc : () -> !tile.memdesc<32768xf32, #sh, mutable>
    %b1 = tile.local_alloc : () -> !tile.memdesc<16384xf32, #sh, mutable>
    %b2 = tile.local_alloc : () -> !tile.memdesc<2048xf32, #sh, mutable>
    %y = tile.convert_layout %x : tensor<128x256xf32, #a> -> tensor<128x256xf32, #b>
    tile.local_dealloc %b0 : !tile.memdesc<32768xf32, #sh, mutable>
    tile.local_dealloc %b1 : !tile.memdesc<16384xf32, #sh, mutable>
    tile.local_dealloc %b2 : !tile.memdesc<2048xf32, #sh, mutable>
    %w = tile.convert_layout %z : tensor<128x256xf32, #a> -> tensor<128x256xf32, #b>
    return
  }
}

// -----

// Rounds have a limit: the coordinate bits only registers hold (rows 32, 64,
// columns 32 ... 256: 64 rounds of 4 KiB). Beside 224 KiB of buffer that is
// still 1 KiB too much.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @too_big_even_in_rounds(%x: tensor<128x512xf32, #a>) {
    // expected-error-re @+1 {{out of resources: shared memory required 233472 bytes, limit 232448 bytes on cuda:sm_90a; live at the peak: 131072 bytes (buffer{{.*}}), 65536 bytes (buffer{{.*}}), 32768 bytes (buffer{{.*}}), 4096 bytes (scratch of tile.convert_layout{{.*}})}}
    %b0 = tile.local_alloc : () -> !tile.memdesc<32768xf32, #sh, mutable>
    %b1 = tile.local_alloc : () -> !tile.memdesc<16384xf32, #sh, mutable>
    %b2 = tile.local_alloc : () -> !tile.memdesc<8192xf32, #sh, mutable>
    %y = tile.convert_layout %x : tensor<128x512xf32, #a> -> tensor<128x512xf32, #b>
    tile.local_dealloc %b0 : !tile.memdesc<32768xf32, #sh, mutable>
    tile.local_dealloc %b1 : !tile.memdesc<16384xf32, #sh, mutable>
    tile.local_dealloc %b2 : !tile.memdesc<8192xf32, #sh, mutable>
    return
  }
}

// -----

// Exactly the 64 KiB of LDS that gfx942 has.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 65536 : i32
// CHECK-SAME: tile.target = "hip:gfx942"
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @at_limit_gfx942() {
    %b = tile.local_alloc : () -> !tile.memdesc<16384xf32, #sh, mutable>
    tile.local_dealloc %b : !tile.memdesc<16384xf32, #sh, mutable>
    return
  }
}

// -----

// On AMD targets a layout move whose scratch alone sets the kernel's LDS is
// staged in rounds while that lowers the total (as Triton stages such moves
// by the layouts' repeated tiles), but only on bits outside both sides'
// 16-byte vectors: rows 32 and 64 and columns 32 ... 128 here, 32 rounds of
// 4 KiB. (sm_90a keeps one round where the tile fits: rounds_sm90a above.)
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 4096 : i32
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32, tile.scratch_rounds = 32 : i32}
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.target = "hip:gfx942", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @rounds_gfx942(%x: tensor<128x256xf32, #a>) {
    %y = tile.convert_layout %x : tensor<128x256xf32, #a> -> tensor<128x256xf32, #b>
    return
  }
}

// -----

// A move that would narrow a side's vectors is not staged: its only round
// bits (columns 1 and 2: registers in both layouts, which differ in how lanes
// are laid out) are the four consecutive columns each thread holds, so it
// keeps one round (4 would be allowed).
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 4096 : i32
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32} :
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [0, 1]}>
module attributes {tile.target = "hip:gfx950", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @vectors_stay_whole(%x: tensor<32x32xf32, #a>) {
    %y = tile.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    return
  }
}

// -----

// gfx950 (160 KiB) too: the same 128 KiB move in 32 rounds of 4 KiB.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 4096 : i32
// CHECK-SAME: tile.target = "hip:gfx950"
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// OPT: error: module was built for "hip:gfx950" but the pass options target 'hip:gfx942'
module attributes {tile.target = "hip:gfx950", tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @fits_gfx950(%x: tensor<128x256xf32, #a>) {
    %y = tile.convert_layout %x : tensor<128x256xf32, #a> -> tensor<128x256xf32, #b>
    return
  }
}

// -----

// A cross-warp reduction counts too: 4 warps x 16384 outputs x 4 bytes =
// 256 KiB on sm_80 (limit 163 KiB).
#r = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.target = "cuda:sm_80", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reduce_too_big_sm80(%x: tensor<4x16384xf32, #r>) {
    // expected-error @+1 {{out of resources: shared memory required 262144 bytes, limit 166912 bytes on cuda:sm_80}}
    %s = tile.reduce %x {axis = 0 : i32} : tensor<4x16384xf32, #r> -> tensor<16384xf32, #tile.slice<{dim = 0, parent = #r}>> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    return
  }
}

// -----

// expected-error @+1 {{unknown target 'cuda:sm_100'; known targets: cuda:sm_80, cuda:sm_90a, hip:gfx908, hip:gfx90a, hip:gfx942, hip:gfx950}}
module attributes {tile.target = "cuda:sm_100"} {
  func.func @unknown_target() { return }
}

// -----

// Buffers live at the same time are placed side by side, largest first,
// 16-byte aligned.
#l1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 1028 : i32
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @explicit(%t: tensor<128xf32, #l1>) {
    // CHECK: tile.local_alloc %{{.*}} {tile.scratch_offset = 0 : i32}
    %a = tile.local_alloc %t : (tensor<128xf32, #l1>) -> !tile.memdesc<128xf32, #sh, mutable>
    // CHECK: tile.local_alloc {tile.scratch_offset = 1024 : i32}
    %b = tile.local_alloc : () -> !tile.memdesc<4xi8, #sh, mutable>
    // CHECK: tile.local_alloc {tile.scratch_offset = 512 : i32}
    %c = tile.local_alloc : () -> !tile.memdesc<256xf16, #sh, mutable>
    tile.local_dealloc %a : !tile.memdesc<128xf32, #sh, mutable>
    tile.local_dealloc %b : !tile.memdesc<4xi8, #sh, mutable>
    tile.local_dealloc %c : !tile.memdesc<256xf16, #sh, mutable>
    return
  }
}

// -----

// A buffer's bytes are free after its last use: the next allocation and a
// layout conversion's scratch reuse them.
#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 512 : i32
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @reuse(%t: tensor<128xf32, #a>) -> tensor<128xf32, #b> {
    // CHECK: tile.local_alloc %{{.*}} {tile.scratch_offset = 0 : i32}
    %x = tile.local_alloc %t : (tensor<128xf32, #a>) -> !tile.memdesc<128xf32, #sh>
    %u = tile.local_load %x : !tile.memdesc<128xf32, #sh> -> tensor<128xf32, #a>
    // CHECK: tile.local_alloc %{{.*}} {tile.scratch_offset = 0 : i32}
    %y = tile.local_alloc %u : (tensor<128xf32, #a>) -> !tile.memdesc<128xf32, #sh>
    %v = tile.local_load %y : !tile.memdesc<128xf32, #sh> -> tensor<128xf32, #a>
    // CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32}
    %w = tile.convert_layout %v : tensor<128xf32, #a> -> tensor<128xf32, #b>
    return %w : tensor<128xf32, #b>
  }
}

// -----

// A buffer used inside a loop is live for the whole loop: the scratch of a
// conversion in the loop body after the buffer's last use in the body
// cannot take its bytes (the next iteration reads the buffer again).
#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 1024 : i32
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @loop_keeps_alive(%t: tensor<128xf32, #a>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: tile.local_alloc %{{.*}} {tile.scratch_offset = 0 : i32}
    %x = tile.local_alloc %t : (tensor<128xf32, #a>) -> !tile.memdesc<128xf32, #sh>
    scf.for %i = %c0 to %n step %c1 {
      %u = tile.local_load %x : !tile.memdesc<128xf32, #sh> -> tensor<128xf32, #a>
      // CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 512 : i32}
      %w = tile.convert_layout %u : tensor<128xf32, #a> -> tensor<128xf32, #b>
    }
    return
  }
}


// -----

// Padding counts: 8 rows of 32 f32 with 4 elements after each row but the
// last is 8 * 32 + 7 * 4 = 284 elements (1136 bytes) per slot; two slots,
// then the next buffer 16-byte aligned.
#pad = #tile.padded_shared<{intervals = [32], paddings = [4], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], shape = [8, 32]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 2288 : i32
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @padded() {
    // CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32}
    %a = tile.local_alloc : () -> !tile.memdesc<2x8x32xf32, #pad, mutable>
    // CHECK: tile.local_alloc {tile.scratch_offset = 2272 : i32}
    %b = tile.local_alloc : () -> !tile.memdesc<4xf32, #sh, mutable>
    tile.local_dealloc %a : !tile.memdesc<2x8x32xf32, #pad, mutable>
    tile.local_dealloc %b : !tile.memdesc<4xf32, #sh, mutable>
    return
  }
}

// -----

// The partitions of a warp_specialize run at the same time: scratch used in
// the default region and in a worker partition gets distinct bytes (each is
// live throughout the op), while a user after the op may reuse them. A kernel
// with a warp_specialize also keeps the dispatch word for its whole run (the
// module's scratch_offset: which call comes next), beside every other buffer.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.scratch_offset = 2560 : i32, tile.shared = 2568 : i32
// CHECK: tile.warp_specialize
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32}
// CHECK: partitions
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 2048 : i32}
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 0 : i32}
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#m1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @warp_specialize_concurrent(%a: tensor<512xf32, #l>) {
    tile.warp_specialize partition_num_warps = [1] {
      %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
      tile.warp_yield
    } partitions {
      %b = tile.arange 0, 128 : tensor<128xi32, #l1>
      %1 = tile.convert_layout %b : tensor<128xi32, #l1> -> tensor<128xi32, #m1>
      tile.warp_yield
    }
    %2 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
    return
  }
}

// -----

// Inside one region of a warp_specialize, buffers reuse each other's bytes in
// program order (that region's warps run them in order: the buffer %x takes
// the bytes of the two moves before it); no buffer of another region shares
// them, and a buffer allocated before the op and used inside it (%big) is
// live throughout it.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.scratch_offset = 6656 : i32, tile.shared = 6664 : i32
// CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32}
// CHECK: tile.warp_specialize
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 4096 : i32}
// CHECK: tile.convert_layout %arg0 {tile.scratch_offset = 4096 : i32}
// CHECK: tile.local_alloc {tile.scratch_offset = 4096 : i32}
// CHECK: partitions
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 6144 : i32}
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 6144 : i32}
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#m1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @warp_specialize_regions_reuse(%a: tensor<512xf32, #l>) {
    %big = tile.local_alloc : () -> !tile.memdesc<1024xf32, #sh, mutable>
    tile.warp_specialize partition_num_warps = [1] {
      %0 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
      %1 = tile.convert_layout %a : tensor<512xf32, #l> -> tensor<512xf32, #m>
      %x = tile.local_alloc : () -> !tile.memdesc<512xf32, #sh, mutable>
      tile.local_store %0, %x : tensor<512xf32, #m> -> !tile.memdesc<512xf32, #sh, mutable>
      %y = tile.local_load %big : !tile.memdesc<1024xf32, #sh, mutable> -> tensor<1024xf32, #m>
      tile.warp_yield
    } partitions {
      %b = tile.arange 0, 128 : tensor<128xi32, #l1>
      %2 = tile.convert_layout %b : tensor<128xi32, #l1> -> tensor<128xi32, #m1>
      %3 = tile.convert_layout %b : tensor<128xi32, #l1> -> tensor<128xi32, #m1>
      tile.warp_yield
    }
    return
  }
}

// -----

// Buffers an scf.if chooses or a loop swaps live while the value that may
// be them is used, then give their bytes to later buffers: %c and %d reuse
// them (2 x 512 bytes in all, not 3 x 512 or 4 x 512).
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.shared = 1024 : i32
// CHECK-LABEL: func.func @chosen_buffers_die
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @chosen_buffers_die(%flag: i1, %x: !t, %n: i32) -> !t {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %s = scf.if %flag -> !m {
      scf.yield %a : !m
    } else {
      scf.yield %b : !m
    }
    tile.local_store %x, %s : !t -> !m
    %v = tile.local_load %s : !m -> !t
    %c = tile.local_alloc : () -> !m
    %d = tile.local_alloc : () -> !m
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %c, %nxt = %d, %acc = %v) -> (!m, !m, !t) : i32 {
      tile.local_store %acc, %nxt : !t -> !m
      %u = tile.local_load %cur : !m -> !t
      scf.yield %nxt, %cur, %u : !m, !m, !t
    }
    %e = tile.local_alloc : () -> !m
    tile.local_store %r#2, %e : !t -> !m
    %w = tile.local_load %e : !m -> !t
    return %w : !t
  }
}
