// A scan that reaches across warps branches around its shared-memory stores,
// so it is lowered in a function's control-flow graph: inside an scf.for not
// yet lowered (kiln-opt without --convert-scf-to-cf) it is an error at the op,
// not a crash. (The compile pipeline lowers structured control flow first.)
// RUN: not kiln-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm 2>&1 | FileCheck %s

// CHECK: error: 'tile.scan' op a scan across warps must be lowered in a function's control-flow graph
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @scan_in_loop(%x: tensor<128xi32, #l>, %n: index) -> tensor<128xi32, #l> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<128xi32, #l>) {
      %s = tile.scan %acc {axis = 0 : i32, reverse = false} : tensor<128xi32, #l> {
      ^bb0(%a: i32, %b: i32):
        %c = arith.addi %a, %b : i32
        tile.scan_return %c : i32
      }
      scf.yield %s : tensor<128xi32, #l>
    }
    return %r : tensor<128xi32, #l>
  }
}
