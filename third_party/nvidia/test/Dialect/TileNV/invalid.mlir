// RUN: kiln-opt %s -split-input-file -verify-diagnostics

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @not_a_word(%b: !tile.memdesc<2xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_init' op barrier must be a one-element i64 shared buffer (an mbarrier word, e.g. allocate_shared_memory(int64, [1], MBarrierLayout())), got '!tile.memdesc<2xi64, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>'}}
  tile_nv.mbarrier_init %b, 1 : !tile.memdesc<2xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @not_i64(%b: !tile.memdesc<1xi32, #sh, mutable>, %ph: i32) {
  // expected-error @+1 {{'tile_nv.mbarrier_wait' op barrier must be a one-element i64 shared buffer}}
  tile_nv.mbarrier_wait %b, %ph : !tile.memdesc<1xi32, #sh, mutable>, i32
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @immutable(%b: !tile.memdesc<1xi64, #sh>) {
  // expected-error @+1 {{'tile_nv.mbarrier_invalidate' op barrier must be mutable, got '!tile.memdesc<1xi64, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>'}}
  tile_nv.mbarrier_invalidate %b : !tile.memdesc<1xi64, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @count_zero(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_init' op count must be in [1, 1048575], got 0}}
  tile_nv.mbarrier_init %b, 0 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @arrive_count(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_arrive' op count must be in [1, 1048575], got 2000000}}
  tile_nv.mbarrier_arrive %b, 2000000 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bytes(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_expect' op bytes must be in [0, 1048575], got -4}}
  tile_nv.mbarrier_expect %b, -4 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

// Transaction bytes and try_wait.parity are sm_90 features.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @expect_sm80(%b: !tile.memdesc<1xi64, #sh, mutable>) {
    // expected-error @+1 {{'tile_nv.mbarrier_expect' op mbarrier.arrive.expect_tx needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.mbarrier_expect %b, 16 : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @wait_sm80(%b: !tile.memdesc<1xi64, #sh, mutable>, %ph: i32) {
    // expected-error @+1 {{'tile_nv.mbarrier_wait' op mbarrier.try_wait.parity needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.mbarrier_wait %b, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_coord_count(%d: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<128x64xbf16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{the descriptor's block has rank 2, but 1 coordinates are given}}
  tile_nv.async_tma_copy_global_to_local %d[%c], %bar, %buf : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_box_shape(%d: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xbf16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{result has shape [64, 64], the descriptor's block [128, 64]}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
  return
}

// -----

// expected-error @+1 {{nvmma_shared: rows of 32 elements are narrower than the 128-byte swizzle chunk (64 elements); use a smaller swizzle}}
func.func @nvmma_narrow(%b: !tile.memdesc<64x32xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>) {
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_types(%a: !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>, mutable>, %b: !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = true>, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{wgmma has no 'f32' x 'f32' -> 'f32' form that Kiln lowers (bf16 or f16 -> f32)}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>, mutable>, !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = true>, mutable> -> tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_k(%a: !tile.memdesc<64x8xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>, %b: !tile.memdesc<8x64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{K = 8 is not a multiple of the instruction's K (16)}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x8xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>, !tile.memdesc<8x64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable> -> tensor<64x64xf32, #acc>
  return
}
