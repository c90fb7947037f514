// RUN: kiln-opt %s --test-print-linear-layout -verify-diagnostics -o /dev/null

// C++'s linear form of a layout and the classification of layout moves (the
// Python/C++ differential test, test/Python/test_layout_differential.py,
// drives this pass over random layouts).
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @f() {
    // expected-remark @below {{layout = {register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}}}
    %a = arith.constant dense<0> : tensor<512xi32, #b>
    // expected-remark @below {{layout = {register = [[128], [256]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]}; move = shared; source = {register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]]}}}
    %c = tile.convert_layout %a : tensor<512xi32, #b> -> tensor<512xi32, #s>
    return
  }
}
