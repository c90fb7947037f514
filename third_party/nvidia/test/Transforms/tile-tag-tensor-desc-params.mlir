// RUN: kiln-opt %s -split-input-file --tile-tag-tensor-desc-params="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -split-input-file --tile-tag-tensor-desc-params="target=cuda:sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" 2>&1 | FileCheck %s --check-prefix=UNTAGGED

// Tensor descriptor parameters of kernels are tagged for the lowering (which
// passes them as 128-byte grid constants); on a chip without TMA, or on a
// function that is not a kernel, they are errors at the function. The
// lowering refuses an untagged one.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @kernel
  // CHECK-SAME: %{{.*}}: !tile.tensordesc<{{.*}}> {tile.tensordesc}
  // CHECK-SAME: %{{.*}}: i32)
  // SM80: error: argument 0 is a tensor descriptor, which cuda:sm_80 does not have
  // UNTAGGED: error: argument 0 is a tensor descriptor not checked for the target; run tile-tag-tensor-desc-params (part of kiln-to-llvm) first
  func.func @kernel(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %n: i32) {
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // expected-error @+1 {{argument 0: only kernels take tensor descriptors (pass them to helper functions inlined)}}
  func.func private @helper(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>) {
    return
  }
}
