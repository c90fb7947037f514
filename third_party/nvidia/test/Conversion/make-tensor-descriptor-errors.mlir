// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics
// RUN: not kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// SM80: error: 'tile_nv.make_tensor_descriptor' op needs TMA (sm_90), which cuda:sm_80 does not have

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func private @helper(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
    // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op is only lowered in kernels (public functions returning nothing): the descriptor lives in the kernel's global scratch}}
    %d = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = true>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @transposed(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
    // expected-error @+1 {{are not lowered yet (a layout that is not transposed)}}
    %d = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
    return
  }
}
