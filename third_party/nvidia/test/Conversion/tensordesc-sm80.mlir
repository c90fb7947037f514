// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" -verify-diagnostics

// A tensor descriptor parameter on a chip without TMA is an error at the
// function.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // expected-error @+1 {{argument 0 is a tensor descriptor, which cuda:sm_80 does not have}}
  func.func @k(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>) {
    return
  }
}
