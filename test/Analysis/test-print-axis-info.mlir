// RUN: kiln-opt %s -split-input-file --test-print-axis-info -verify-diagnostics -o /dev/null

// Row starts r[:, None] are not aligned along the new axis; an unknown
// stride keeps them unaligned; the sum is contiguous along columns.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32, %s16: i32 {tile.divisibility = 16 : i32}) {
    // expected-remark @below {{contiguity = [16], divisibility = [1073741824], constancy = [1]}}
    %r = tile.arange 0, 16 : tensor<16xi32, #row>
    // expected-remark @below {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
    %c = tile.arange 0, 32 : tensor<32xi32, #col>
    // expected-remark @below {{contiguity = [16, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [16, 1]}}
    %ss = tile.splat %stride : tensor<16x1xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1]}}
    %rs = arith.muli %re, %ss : tensor<16x1xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [16, 1]}}
    %s16s = tile.splat %s16 : tensor<16x1xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
    %r16 = arith.muli %re, %s16s : tensor<16x1xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 32]}}
    %rb = tile.broadcast %rs : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32]}}
    %rb16 = tile.broadcast %r16 : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]}}
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [16, 1]}}
    %cb = tile.broadcast %ce : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 1], constancy = [1, 1]}}
    %o = arith.addi %rb, %cb : tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 16], constancy = [1, 1]}}
    %o16 = arith.addi %rb16, %cb : tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [16, 32]}}
    %xs = tile.splat %x : tensor<16x32x!tile.ptr<f32>, #l2>
    // An i32 run is kept only as long as it is aligned (it must not wrap).
    // expected-remark @below {{contiguity = [1, 1], divisibility = [4, 4], constancy = [1, 1]}}
    %xp = tile.addptr %xs, %o : tensor<16x32x!tile.ptr<f32>, #l2>, tensor<16x32xi32, #l2>
    // expected-remark @below {{contiguity = [1, 16], divisibility = [4, 16], constancy = [1, 1]}}
    %xp16 = tile.addptr %xs, %o16 : tensor<16x32x!tile.ptr<f32>, #l2>, tensor<16x32xi32, #l2>
    return
  }
}

// -----

// Masks: x < n is constant over aligned runs of x when n is a constant
// multiple of the run; x <= n is not. Constants carry their value.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @masks(%n: i32 {tile.divisibility = 4 : i32}, %m: i32) {
    // expected-remark @below {{contiguity = [512], divisibility = [1073741824], constancy = [1]}}
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [512]}}
    %ns = tile.splat %n : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4]}}
    %lt = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %le = arith.cmpi sle, %r, %ns : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4]}}
    %gt = arith.cmpi sgt, %ns, %r : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [512]}}
    %ms = tile.splat %m : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %lt1 = arith.cmpi slt, %r, %ms : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %both = arith.andi %lt, %lt1 : tensor<512xi1, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [512], constant = 4}}
    %c4 = arith.constant dense<4> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [4], constancy = [1]}}
    %r4 = arith.addi %r, %c4 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1]}}
    %x4 = arith.muli %r, %c4 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %dense = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    // expected-remark @below {{contiguity = [4], divisibility = [4], constancy = [1]}}
    %w = arith.extsi %r4 : tensor<512xi32, #l> to tensor<512xi64, #l>
    // Truncation keeps runs that start at a multiple of their length, and
    // divisors up to the narrow type's range.
    // expected-remark @below {{contiguity = [512], divisibility = [1073741824], constancy = [1]}}
    %r64 = arith.extsi %r : tensor<512xi32, #l> to tensor<512xi64, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [1073741824], constancy = [1]}}
    %t = arith.trunci %r64 : tensor<512xi64, #l> to tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [4], divisibility = [4], constancy = [1]}}
    %t4 = arith.trunci %w : tensor<512xi64, #l> to tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [256], divisibility = [256], constancy = [1]}}
    %t8 = arith.trunci %r : tensor<512xi32, #l> to tensor<512xi8, #l>
    // Division and remainder by a power of two of a value known to be
    // non-negative (an arange from 0): runs of 16 from 0, quotients constant
    // over 16; by 6, nothing.
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [512], constant = 16}}
    %c16 = arith.constant dense<16> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [16], divisibility = [1073741824], constancy = [1]}}
    %rem = arith.remsi %r, %c16 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16]}}
    %quo = arith.divsi %r, %c16 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1]}}
    %sh = arith.shli %x4, %c4 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [512], constant = 6}}
    %c6 = arith.constant dense<6> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %rem6 = arith.remsi %r, %c6 : tensor<512xi32, #l>
    return
  }
}

// -----

// tile.hint: the user's promise raises the claims (never lowers them);
// contiguity and constancy stay within the shape.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @hints(%off: i32, %p: !tile.ptr<f32>) {
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [512]}}
    %s = tile.splat %off : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [512]}}
    %h = tile.hint %s {divisibility = array<i64: 16>} : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [1073741824], constancy = [1]}}
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [16], constancy = [1]}}
    %a = arith.addi %h, %r : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [16], constancy = [1]}}
    %c = tile.hint %a {contiguity = array<i64: 1024>, constancy = array<i64: 1>} : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1]}}
    %q = tile.hint %p {divisibility = array<i64: 64>} : !tile.ptr<f32>
    return
  }
}

// -----

// A signed division by a power of two m of values of unknown sign: where
// every element is a multiple of q >= m the division is exact, and the
// quotient a multiple of q / m (256 * s // 2 with s a multiple of 16).
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @exact_division(%off: i32) {
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [512]}}
    %s = tile.splat %off : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [512]}}
    %h = tile.hint %s {divisibility = array<i64: 16>} : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [256], constancy = [512], constant = 256}}
    %c256 = arith.constant dense<256> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [4096], constancy = [512]}}
    %m = arith.muli %h, %c256 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [512], constant = 2}}
    %c2 = arith.constant dense<2> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [2048], constancy = [512]}}
    %q = arith.divsi %m, %c2 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [512], constant = 32}}
    %c32 = arith.constant dense<32> : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [512]}}
    %q32 = arith.divsi %h, %c32 : tensor<512xi32, #l>
    return
  }
}

// -----

// A pointer cast keeps the byte addresses: divisibility (bytes) stays, and
// contiguity (elements) only where the element width does.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @pointer_casts(%p: !tile.ptr<i8> {tile.divisibility = 16 : i32}) {
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [512]}}
    %s = tile.splat %p : tensor<512x!tile.ptr<i8>, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [1073741824], constancy = [1]}}
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [16], constancy = [1]}}
    %a = tile.addptr %s, %r : tensor<512x!tile.ptr<i8>, #l>, tensor<512xi32, #l>
    // expected-remark @below {{contiguity = [512], divisibility = [16], constancy = [1]}}
    %u8 = tile.ptr_cast %a : tensor<512x!tile.ptr<i8>, #l> -> tensor<512x!tile.ptr<ui8>, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1]}}
    %u32 = tile.ptr_cast %a : tensor<512x!tile.ptr<i8>, #l> -> tensor<512x!tile.ptr<i32>, #l>
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1]}}
    %w = tile.ptr_cast %p : !tile.ptr<i8> -> !tile.ptr<i32>
    return
  }
}

