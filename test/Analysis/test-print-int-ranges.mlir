// RUN: kiln-opt %s -split-input-file --test-print-int-ranges -verify-diagnostics -o /dev/null

// The tile ops' ranges (lib/Dialect/Tile/IR/IntRanges.cpp): program ids and
// grid sizes from the launcher's grid limit, aranges from their bounds, and
// the ops that only move or repeat elements keep their source's range.
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#l2t = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
#l1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @tile_ops(%n: i32) {
    // expected-remark @below {{range = [0, 2147483646]}}
    %pid = tile.program_id 0
    // expected-remark @below {{range = [1, 2147483647]}}
    %np = tile.num_programs 1
    // expected-remark @below {{range = [-8, 7]}}
    %r = tile.arange -8, 8 : tensor<16xi32, #row>
    // expected-remark @below {{range = [0, 31]}}
    %c = tile.arange 0, 32 : tensor<32xi32, #col>
    // expected-remark @below {{range = [-8, 7]}}
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
    // expected-remark @below {{range = [-8, 7]}}
    %rb = tile.broadcast %re : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
    // expected-remark @below {{range = [-8, 7]}}
    %rc = tile.convert_layout %rb : tensor<16x32xi32, #l2> -> tensor<16x32xi32, #l2t>
    // expected-remark @below {{range = [-8, 7]}}
    %rf = tile.reshape %rb : tensor<16x32xi32, #l2> -> tensor<512xi32, #l1>
    // expected-remark @below {{range = [0, 31]}}
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
    // expected-remark @below {{range = [0, 31]}}
    %cb = tile.broadcast %ce : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
    // arith on tensors is upstream's: [-8, 7] * 32 + [0, 31].
    // expected-remark @below {{range = [32, 32]}}
    %c32 = arith.constant dense<32> : tensor<16x32xi32, #l2>
    // expected-remark @below {{range = [-256, 224]}}
    %m = arith.muli %rb, %c32 : tensor<16x32xi32, #l2>
    // expected-remark @below {{range = [-256, 255]}}
    %s = arith.addi %m, %cb : tensor<16x32xi32, #l2>
    // An argument has no bound; a splat keeps that.
    // expected-remark @below {{range = [-2147483648, 2147483647]}}
    %ns = tile.splat %n : tensor<16x32xi32, #l2>
    // A program id times a block may overflow i32: no bound either.
    // expected-remark @below {{range = [128, 128]}}
    %c128 = arith.constant 128 : i32
    // expected-remark @below {{range = [-2147483648, 2147483647]}}
    %start = arith.muli %pid, %c128 : i32
    return
  }
}

// -----

// A loop with constant bounds bounds its induction variable.
#l1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @loop() {
    // expected-remark @below {{range = [0, 0]}}
    %c0 = arith.constant 0 : i32
    // expected-remark @below {{range = [8, 8]}}
    %c8 = arith.constant 8 : i32
    // expected-remark @below {{range = [1, 1]}}
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{range = [512, 512]}}
    %c512 = arith.constant 512 : i32
    scf.for %i = %c0 to %c8 step %c1 : i32 {
      // expected-remark @below {{range = [0, 3584]}}
      %k = arith.muli %i, %c512 : i32
      // expected-remark @below {{range = [0, 511]}}
      %a = tile.arange 0, 512 : tensor<512xi32, #l1>
      // expected-remark @below {{range = [0, 3584]}}
      %ks = tile.splat %k : tensor<512xi32, #l1>
      // expected-remark @below {{range = [0, 4095]}}
      %o = arith.addi %ks, %a : tensor<512xi32, #l1>
    }
    return
  }
}

// -----

// A kernel argument starts from what the top-level tile.assume's promise
// (comparisons with constants and their conjunctions, either side); a
// promise inside a branch is not read (it does not always run), nor one
// about a computed value.
module attributes {tile.num_warps = 1 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @assumed(%s: i32, %t: i32, %u: i32, %b: i1) {
    %c0 = arith.constant 0 : i32
    // expected-remark @above {{range = [0, 0]}}
    %c1000 = arith.constant 1000 : i32
    // expected-remark @above {{range = [1000, 1000]}}
    %ge = arith.cmpi sge, %s, %c0 : i32
    // expected-remark @above {{range = [-1, -1]}}
    %lt = arith.cmpi sgt, %c1000, %s : i32
    // expected-remark @above {{range = [-1, -1]}}
    %both = arith.andi %ge, %lt : i1
    // expected-remark @above {{range = [-1, -1]}}
    tile.assume %both : i1
    %c4 = arith.constant 4 : i32
    // expected-remark @above {{range = [4, 4]}}
    %x = arith.muli %s, %c4 : i32
    // expected-remark @above {{range = [0, 3996]}}
    %ult = arith.cmpi ult, %t, %c1000 : i32
    // expected-remark @above {{range = [-1, 0]}}
    scf.if %b {
      tile.assume %ult : i1
    }
    %y = arith.muli %t, %c4 : i32
    // expected-remark @above {{range = [-2147483648, 2147483647]}}
    %v = arith.addi %u, %c4 : i32
    // expected-remark @above {{range = [-2147483648, 2147483647]}}
    %vpos = arith.cmpi sge, %v, %c0 : i32
    // expected-remark @above {{range = [-1, 0]}}
    tile.assume %vpos : i1
    return
  }
}
