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
func.func @arrive_cta_mask(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_arrive' op cta_mask must be in [0, 15] (bits of a CTA's rank in a cluster of at most 16), got 16}}
  tile_nv.mbarrier_arrive %b, 1 {cta_mask = 16 : i32} : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @arrive_from_leader_no_mask(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_arrive' op from_leader names the leader of a set of CTAs: it needs a non-zero cta_mask}}
  tile_nv.mbarrier_arrive %b, 1 {from_leader} : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @arrive_per_warp_leader(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_arrive' op per_warp arrivals are made by every warp of every CTA: not with from_leader}}
  tile_nv.mbarrier_arrive %b, 1 {cta_mask = 1 : i32, from_leader, per_warp} : !tile.memdesc<1xi64, #sh, mutable>
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
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_types(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %c: tensor<64x64xf16, #acc>) {
  // expected-error @+1 {{wgmma has no 'bf16' x 'bf16' -> 'f16' form (f16 -> f16/f32, bf16 -> f32, tf32 (f32) -> f32, fp8 -> f16/f32)}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf16, #acc>
  return
}

// -----

#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_k(%a: !tile.memdesc<64x8xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>, %b: !tile.memdesc<8x64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{K = 8 is not a multiple of the instruction's K (16 for 'bf16')}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x8xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>, !tile.memdesc<8x64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable> -> tensor<64x64xf32, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_cols_not_multiple_of_8(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{cols = 12 must be a multiple of 8 from 8 to the accumulator's 64 columns (wgmma's N)}}
  %d = tile_nv.warpgroup_dot %a, %b, %c {cols = 12 : i32} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wgmma_cols_past_n(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{cols = 72 must be a multiple of 8 from 8 to the accumulator's 64 columns (wgmma's N)}}
  %d = tile_nv.warpgroup_dot %a, %b, %c {cols = 72 : i32} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#c = #tile.cga<{bases = [[0, 1]], layout = #acc}>
func.func @wgmma_cols_cta_split_n(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %acc: tensor<64x128xf32, #c>) {
  // expected-error @+1 {{cols with an accumulator split among a cluster's CTAs along N is not supported}}
  %d = tile_nv.warpgroup_dot %a, %b, %acc {cols = 32 : i32} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x128xf32, #c>
  return
}

// -----

// expected-error @+1 {{nvmma_shared: swizzle must be 0, 32, 64 or 128 bytes, got 48}}
func.func @nvmma_swizzle(%b: !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 48, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared: elementBitWidth must be 8, 16, 32 or 64, got 12}}
func.func @nvmma_bits(%b: !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 12, layoutRank = 2, transposed = false>, mutable>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared: layoutRank must be in [1, 5], got 6}}
func.func @nvmma_rank(%b: !tile.memdesc<2x2x2x2x2x64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 6, transposed = false>, mutable>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared: a 1-D layout is neither swizzled nor transposed (swizzle 128, transposed false)}}
func.func @nvmma_rank1_swizzled(%b: !tile.memdesc<64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 1, transposed = false>, mutable>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared: a 1-D layout is neither swizzled nor transposed (swizzle 0, transposed true)}}
func.func @nvmma_rank1_transposed(%b: !tile.memdesc<64xbf16, #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = true>, mutable>) {
  return
}

// -----

// A buffer accepts a layout for another element width (Gluon does); a TMA
// descriptor's block does not.
// expected-error @+1 {{nvmma_shared: the layout is for 16-bit elements, the descriptor's block holds 'f32'}}
func.func @nvmma_width(%d: !tile.tensordesc<tensor<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: version must be [2, 0], [2, 1] (mma.sync) or [3, 0] (wgmma), got [1, 0]}}
func.func @nvmma_version(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 1, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: version 2 (mma.sync) has instrShape [16, 8]}}
func.func @nvmma_v2_instr(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: version 3 (wgmma) has instrShape [16, n, k]}}
func.func @nvmma_v3_instr(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64]}>>) {
  return
}

// -----

// expected-error @+1 {{dot_op: parent must be a #tile_nv.nvmma layout, got #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}}
func.func @dot_op_parent(%t: tensor<64x64xbf16, #tile_nv.dot_op<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>, kWidth = 2}>>) {
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{dot_op: opIdx must be 0 (A) or 1 (B), got 2}}
func.func @dot_op_index(%t: tensor<64x64xbf16, #tile_nv.dot_op<{opIdx = 2, parent = #mma, kWidth = 2}>>) {
  return
}

// -----

#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// expected-error @+1 {{dot_op: wgmma (version 3) reads B from shared memory; only opIdx 0 (A) is held in registers}}
func.func @dot_op_wgmma_b(%t: tensor<64x64xbf16, #tile_nv.dot_op<{opIdx = 1, parent = #acc, kWidth = 2}>>) {
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{dot_op: kWidth must be a power of two in [1, 16], got 3}}
func.func @dot_op_kwidth(%t: tensor<64x64xbf16, #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 3}>>) {
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_shapes(%a: tensor<64x32xbf16, #opA>, %b: tensor<16x64xbf16, #opB>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op shapes do not multiply: a [64, 32], b [16, 64], accumulator [64, 64]}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<16x64xbf16, #opB> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_types(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op a and b must hold the same type, got 'bf16' and 'f16'}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_small(%a: tensor<8x16xbf16, #opA>, %b: tensor<16x8xbf16, #opB>, %c: tensor<8x8xf32, #mma>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op M = 8 is not a multiple of the m16n8k16 instruction's M (16)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<8x16xbf16, #opA>, tensor<16x8xbf16, #opB> -> tensor<8x8xf32, #mma>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_k(%a: tensor<16x8xbf16, #opA>, %b: tensor<8x8xbf16, #opB>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op K = 8 is not a multiple of the m16n8k16 instruction's K (16)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<16x8xbf16, #opA>, tensor<8x8xbf16, #opB> -> tensor<16x8xf32, #mma>
  return
}

// -----

#bl1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @mma_v2_rank(%a: tensor<64xbf16, #bl1>, %b: tensor<64xbf16, #bl1>, %c: tensor<64xf32, #bl1>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op a, b and the accumulator must be 2-D}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64xbf16, #bl1>, tensor<64xbf16, #bl1> -> tensor<64xf32, #bl1>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_n(%a: tensor<16x16xbf16, #opA>, %b: tensor<16x4xbf16, #opB>, %c: tensor<16x4xf32, #mma>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op N = 4 is not a multiple of the m16n8k16 instruction's N (8)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<16x16xbf16, #opA>, tensor<16x4xbf16, #opB> -> tensor<16x4xf32, #mma>
  return
}

// -----

// expected-error @+1 {{nvmma: warpsPerCTA has 2 entries ([m, n]) or 3 ([batch, m, n]), got 1}}
func.func @nvmma_entries(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4], instrShape = [16, 64, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: warpsPerCTA entries must be powers of two}}
func.func @nvmma_pow2(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 3], instrShape = [16, 64, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: version 2 (mma.sync) has instrShape [1, 16, 8]}}
func.func @nvmma_v2_batch_instr(%t: tensor<2x64x64xf32, #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [16, 8]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: version must be [2, 0], [2, 1] (mma.sync) or [3, 0] (wgmma), got [3, 1]}}
func.func @nvmma_v3_minor(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 1, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma: instrShape must be [16, n, k] with n a power of two in [8, 256]}}
func.func @nvmma_instr(%t: tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 512, 16]}>>) {
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nv32 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_elements(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{result holds 'f16', the descriptor 'bf16'}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nv64 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_layout(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xbf16, #nv64, mutable>, %c: i32) {
  // expected-error @+1 {{result's layout #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false> is not the descriptor's #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv64, mutable>
  return
}

// -----

#s2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_not_nvmma(%d: !tile.tensordesc<tensor<64x64xbf16, #s2>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xbf16, #s2, mutable>, %c: i32) {
  // expected-error @+1 {{TMA copies need a #tile_nv.nvmma_shared descriptor layout, got #tile.swizzled_shared}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<64x64xbf16, #s2>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #s2, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_immutable(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xbf16, #nv>, %c: i32) {
  // expected-error @+1 {{result must be a mutable buffer}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c], %bar, %buf : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @tma_store_sm80(%d: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %buf: !tile.memdesc<64x64xbf16, #nv, mutable>, %c: i32) {
    // expected-error @+1 {{TMA (cp.async.bulk.tensor) needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.async_tma_copy_local_to_global %d[%c, %c], %buf : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<64x64xbf16, #nv, mutable>
    return
  }
}

// -----

// TMA reduce-stores: the element types PTX's cp.reduce.async.bulk.tensor
// combines with each kind (no f32 min or max, no fp8, no 16-bit integers).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
func.func @tma_reduce_min_f32(%d: !tile.tensordesc<tensor<32x32xf32, #nv>>, %buf: !tile.memdesc<32x32xf32, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_reduce' op TMA reduce-stores have no min on 'f32' (add: f16, bf16, f32, 32-bit and unsigned 64-bit integers; min, max: f16, bf16, 32- and 64-bit integers; and, or, xor: 32- and 64-bit integers)}}
  tile_nv.async_tma_reduce min, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xf32, #nv>>, !tile.memdesc<32x32xf32, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 8, layoutRank = 2, transposed = false>
func.func @tma_reduce_add_fp8(%d: !tile.tensordesc<tensor<32x64xf8E4M3FN, #nv>>, %buf: !tile.memdesc<32x64xf8E4M3FN, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{TMA reduce-stores have no add on 'f8E4M3FN'}}
  tile_nv.async_tma_reduce add, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x64xf8E4M3FN, #nv>>, !tile.memdesc<32x64xf8E4M3FN, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @tma_reduce_xor_f16(%d: !tile.tensordesc<tensor<32x32xf16, #nv>>, %buf: !tile.memdesc<32x32xf16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{TMA reduce-stores have no xor on 'f16'}}
  tile_nv.async_tma_reduce xor, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xf16, #nv>>, !tile.memdesc<32x32xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @tma_reduce_max_i16(%d: !tile.tensordesc<tensor<32x32xi16, #nv>>, %buf: !tile.memdesc<32x32xi16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{TMA reduce-stores have no max on 'i16'}}
  tile_nv.async_tma_reduce max, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xi16, #nv>>, !tile.memdesc<32x32xi16, #nv, mutable>
  return
}

// -----

// The store's checks: one coordinate per block dimension, src shaped as the block.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
func.func @tma_reduce_shape(%d: !tile.tensordesc<tensor<32x32xf32, #nv>>, %buf: !tile.memdesc<16x32xf32, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_reduce' op src has shape [16, 32], the descriptor's block [32, 32]}}
  tile_nv.async_tma_reduce add, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xf32, #nv>>, !tile.memdesc<16x32xf32, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @tma_reduce_sm80(%d: !tile.tensordesc<tensor<32x32xi32, #nv>>, %buf: !tile.memdesc<32x32xi32, #nv, mutable>, %c: i32) {
    // expected-error @+1 {{TMA (cp.async.bulk.tensor) needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.async_tma_reduce or, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xi32, #nv>>, !tile.memdesc<32x32xi32, #nv, mutable>
    return
  }
}

// -----

#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wait_types(%t: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{results must have the inputs' types}}
  %r = tile_nv.warpgroup_dot_wait %t {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xi32, #acc>
  return
}

// -----

#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @wait_kind(%t: tensor<64x64xf64, #acc>) {
  // expected-error @+1 {{waits on wgmma accumulators (f32, f16 or i32 tensors), got 'tensor<64x64xf64}}
  %r = tile_nv.warpgroup_dot_wait %t {pendings = 0 : i32} : (tensor<64x64xf64, #acc>) -> tensor<64x64xf64, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @dot_shapes(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %c: tensor<128x64xf32, #acc>) {
  // expected-error @+1 {{shapes do not multiply: a [64, 64], b [64, 64], accumulator [128, 64]}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @dot_mixed(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xf16, #nvt, mutable>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{a and b must hold the same type, got 'bf16' and 'f16'}}
  %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @dot_sm80(%a: !tile.memdesc<64x64xbf16, #nv, mutable>, %b: !tile.memdesc<64x64xbf16, #nvt, mutable>, %c: tensor<64x64xf32, #acc>) {
    // expected-error @+1 {{wgmma needs sm_90 or later; cuda:sm_80 has none}}
    %d = tile_nv.warpgroup_dot %a, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return
  }
}

// -----

// A module-scope barrier used to crash tile-allocate-shared-memory: every
// op of the tile dialects must be inside a function.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @k() {
    return
  }
  // expected-error @+1 {{'tile.local_alloc' op must be inside a function}}
  %b = "tile.local_alloc"() : () -> !tile.memdesc<1xi64, #sh, mutable>
  "tile_nv.mbarrier_init"(%b) {count = 1 : i32} : (!tile.memdesc<1xi64, #sh, mutable>) -> ()
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @k(%b: !tile.memdesc<1xi64, #sh, mutable>) {
    return
  }
  // expected-error @+1 {{'tile_nv.fence_async_shared' op must be inside a function}}
  tile_nv.fence_async_shared
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @mma_v2_bf16_into_f16(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf16, #mma>) {
  // expected-error @+1 {{mma.sync has no 'bf16' x 'bf16' -> 'f16' form (bf16/f16 -> f32, f16 -> f16, tf32 (f32) -> f32, i8 -> i32)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf16, #mma>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @mma_v2_i8_into_f32(%a: tensor<64x32xi8, #opA>, %b: tensor<32x64xi8, #opB>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{mma.sync has no 'i8' x 'i8' -> 'f32' form (bf16/f16 -> f32, f16 -> f16, tf32 (f32) -> f32, i8 -> i32)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xi8, #opA>, tensor<32x64xi8, #opB> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @mma_v2_i8_k16(%a: tensor<64x16xi8, #opA>, %b: tensor<16x64xi8, #opB>, %c: tensor<64x64xi32, #mma>) {
  // expected-error @+1 {{K = 16 is not a multiple of the m16n8k32 instruction's K (32)}}
  %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x16xi8, #opA>, tensor<16x64xi8, #opB> -> tensor<64x64xi32, #mma>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @make_desc_rank(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op needs one shape and one stride per dimension of the block (2), got 1 and 1}}
  %d = tile_nv.make_tensor_descriptor %p[%m], [%s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @make_desc_pointee(%p: !tile.ptr<f32>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op base points to 'f32' but the descriptor's blocks hold 'f16'}}
  %d = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @make_desc_padding(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op padding must be "zero" or "nan", got "inf"}}
  %d = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] {padding = "inf"} : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nv>>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @make_desc_nan_int(%p: !tile.ptr<i16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op NaN padding needs a float element type, got 'i16'}}
  %d = tile_nv.make_tensor_descriptor %p[%m, %m], [%s, %s] {padding = "nan"} : !tile.ptr<i16> -> !tile.tensordesc<tensor<16x16xi16, #nv>>
  return
}

// -----

// Cluster barriers and the mbarrier-init fence are sm_90 features.
module attributes {tile.target = "cuda:sm_80"} {
  func.func @cluster_sm80() {
    // expected-error @+1 {{'tile_nv.cluster_arrive' op a cluster barrier needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.cluster_arrive {relaxed = true}
    return
  }
}

// -----

module attributes {tile.target = "cuda:sm_80"} {
  func.func @cluster_wait_sm80() {
    // expected-error @+1 {{'tile_nv.cluster_wait' op a cluster barrier needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.cluster_wait
    return
  }
}

// -----

module attributes {tile.target = "cuda:sm_80"} {
  func.func @fence_init_sm80() {
    // expected-error @+1 {{'tile_nv.fence_mbarrier_init_cluster' op fence.mbarrier_init needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.fence_mbarrier_init_cluster
    return
  }
}

// -----

// Named barrier ids are 0 to 13 (the hardware's other two barriers are Kiln's).
func.func @named_barrier_id() {
  // expected-error @+1 {{'tile_nv.named_barrier_sync' op barrier id 14 is out of range: ids 0 to 13 are the kernel's (the other hardware barriers are Kiln's)}}
  tile_nv.named_barrier_sync 14, 256
  return
}

// -----

func.func @named_barrier_negative_id() {
  // expected-error @+1 {{'tile_nv.named_barrier_arrive' op barrier id -1 is out of range}}
  tile_nv.named_barrier_arrive -1, 256
  return
}

// -----

// A named barrier counts whole warps.
func.func @named_barrier_partial_warp() {
  // expected-error @+1 {{'tile_nv.named_barrier_arrive' op counts 100 threads: a named barrier counts whole warps, 32 to 1024 threads}}
  tile_nv.named_barrier_arrive 0, 100
  return
}

// -----

func.func @named_barrier_too_many() {
  // expected-error @+1 {{'tile_nv.named_barrier_sync' op counts 2048 threads: a named barrier counts whole warps, 32 to 1024 threads}}
  tile_nv.named_barrier_sync 0, 2048
  return
}

// -----

#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @async_store_immutable(%v: tensor<128xi32, #b1>, %b: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<128xi32, #sh>) {
  // expected-error @+1 {{'tile_nv.async_shared_store' op stores into an immutable buffer '!tile.memdesc<128xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>'}}
  tile_nv.async_shared_store %v, %buf, %b : tensor<128xi32, #b1>, !tile.memdesc<128xi32, #sh>, !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @async_store_elements(%v: tensor<128xi32, #b1>, %b: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<128xf32, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.async_shared_store' op stores 'tensor<128xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' into '!tile.memdesc<128xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>': they must hold the same elements}}
  tile_nv.async_shared_store %v, %buf, %b : tensor<128xi32, #b1>, !tile.memdesc<128xf32, #sh, mutable>, !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @async_store_sm80(%v: tensor<128xi32, #b1>, %b: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<128xi32, #sh, mutable>) {
    // expected-error @+1 {{'tile_nv.async_shared_store' op st.async needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.async_shared_store %v, %buf, %b : tensor<128xi32, #b1>, !tile.memdesc<128xi32, #sh, mutable>, !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @arrive_cta_mask_sm80(%b: !tile.memdesc<1xi64, #sh, mutable>) {
    // expected-error @+1 {{'tile_nv.mbarrier_arrive' op mbarrier.arrive needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.mbarrier_arrive %b, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

// A reduce kind outside the six is a parse error (the lowering's switch covers them all).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
func.func @tma_reduce_unknown_kind(%d: !tile.tensordesc<tensor<32x32xi32, #nv>>, %buf: !tile.memdesc<32x32xi32, #nv, mutable>, %c: i32) {
  // expected-error @+2 {{custom op 'tile_nv.async_tma_reduce' expected ::kiln::tile_nv::TMAReduceKind to be one of: add, min, max, and, or, xor}}
  // expected-error @+1 {{custom op 'tile_nv.async_tma_reduce' failed to parse TileNV_TMAReduceKindAttr parameter 'value' which is to be a `::kiln::tile_nv::TMAReduceKind`}}
  tile_nv.async_tma_reduce nand, %d[%c, %c], %buf : !tile.tensordesc<tensor<32x32xi32, #nv>>, !tile.memdesc<32x32xi32, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @im2col_coord_count(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32, %o: i16) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op the im2col descriptor's tensor has rank 4, but 2 coordinates are given}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c] offsets [%o, %o], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @im2col_offset_count(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32, %o: i16) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op an im2col copy of a rank-4 tensor takes 2 offsets, got 1}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c, %c, %c] offsets [%o], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @im2col_offset_range(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32, %o: i16) {
  %big = arith.constant 256 : i16
  // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op im2col offset 1 is 256, outside [0, 255] (a rank-4 tensor)}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c, %c, %c] offsets [%o, %big], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @offsets_on_tiled(%d: !tile.tensordesc<tensor<64x64xf16, #nv>>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32, %o: i16) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op im2col offsets need an im2col descriptor}}
  tile_nv.async_tma_copy_global_to_local %d[%c, %c] offsets [%o], %bar, %buf : !tile.tensordesc<tensor<64x64xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @im2col_store(%d: !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, %buf: !tile.memdesc<64x64xf16, #nv, mutable>, %c: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' op im2col descriptors are for TMA loads only}}
  tile_nv.async_tma_copy_local_to_global %d[%c, %c, %c, %c], %buf : !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>, !tile.memdesc<64x64xf16, #nv, mutable>
  return
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
func.func @im2col_made_on_device(%p: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile_nv.make_tensor_descriptor' op builds tiled descriptors only, not im2col ones}}
  %d = tile_nv.make_tensor_descriptor %p[%m, %m, %m, %m], [%s, %s, %s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16, #nv>, im2col = 4>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_gather_ranks(%b: !tile.memdesc<32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi64, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_gather' op ranks must be i32 of the indices' shape and layout, got 'tensor<32xi64, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>'}}
  %g = tile_nv.cluster_gather %b[%i] ranks(%r) {axis = 0 : i32, keep = 0 : i32} : !tile.memdesc<32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi64, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_gather_result(%b: !tile.memdesc<32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_gather' op result must have the shape and layout of the indices and the buffer's element type, got 'tensor<32xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>'}}
  %g = tile_nv.cluster_gather %b[%i] ranks(%r) {axis = 0 : i32, keep = 0 : i32} : !tile.memdesc<32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_gather_axis(%b: !tile.memdesc<32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_gather' op axis 1 is out of range for rank 1}}
  %g = tile_nv.cluster_gather %b[%i] ranks(%r) {axis = 1 : i32, keep = 0 : i32} : !tile.memdesc<32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_gather_keep(%b: !tile.memdesc<32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_gather' op keep must be a mask of cluster rank bits in [0, 15], got 16}}
  %g = tile_nv.cluster_gather %b[%i] ranks(%r) {axis = 0 : i32, keep = 16 : i32} : !tile.memdesc<32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_gather_rank(%b: !tile.memdesc<2x32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_gather' op buffer '!tile.memdesc<2x32xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>' must be of the indices' rank 1, with no ring dimensions}}
  %g = tile_nv.cluster_gather %b[%i] ranks(%r) {axis = 0 : i32, keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_scatter_values(%v: tensor<32xf32, #l>, %b: !tile.memdesc<32xi32, #sh, mutable>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_scatter' op values must have the shape and layout of the indices and the buffer's element type, got 'tensor<32xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>'}}
  tile_nv.cluster_scatter %v, %b[%i] ranks(%r) {axis = 0 : i32, keep = 0 : i32} : tensor<32xf32, #l>, !tile.memdesc<32xi32, #sh, mutable>, tensor<32xi32, #l>, tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_scatter_immutable(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh>, %i: tensor<32xi32, #l>, %r: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_scatter' op the buffer '!tile.memdesc<32xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>' is immutable}}
  tile_nv.cluster_scatter %v, %b[%i] ranks(%r) {axis = 0 : i32, keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh>, tensor<32xi32, #l>, tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_load_one_coordinate(%b: !tile.memdesc<2x32xi32, #sh>, %c: tensor<2x32xi32, #l>, %r: tensor<2x32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_load' op needs one coordinate tensor per dimension (2), got 1}}
  %g = tile_nv.cluster_load %b[%c] ranks(%r) {keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh>, (tensor<2x32xi32, #l>), tensor<2x32xi32, #l> -> tensor<2x32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_load_coordinates(%b: !tile.memdesc<2x32xi32, #sh>, %c: tensor<2x32xi32, #l>, %d: tensor<2x32xi64, #l>, %r: tensor<2x32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_load' op coordinates must be i32 of the data's shape and layout ('tensor<2x32xi32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>'), got 'tensor<2x32xi64, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>'}}
  %g = tile_nv.cluster_load %b[%c, %d] ranks(%r) {keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh>, (tensor<2x32xi32, #l>, tensor<2x32xi64, #l>), tensor<2x32xi32, #l> -> tensor<2x32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_load_type(%b: !tile.memdesc<2x32xi32, #sh>, %c: tensor<2x32xi32, #l>, %r: tensor<2x32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_load' op the buffer holds 'i32', the tensor 'f32'}}
  %g = tile_nv.cluster_load %b[%c, %c] ranks(%r) {keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh>, (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>), tensor<2x32xi32, #l> -> tensor<2x32xf32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_load_ranks(%b: !tile.memdesc<2x32xi32, #sh>, %c: tensor<2x32xi32, #l>, %r: tensor<2x32xi16, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_load' op ranks must be i32 of the data's shape and layout, got 'tensor<2x32xi16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>'}}
  %g = tile_nv.cluster_load %b[%c, %c] ranks(%r) {keep = 0 : i32} : !tile.memdesc<2x32xi32, #sh>, (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>), tensor<2x32xi16, #l> -> tensor<2x32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_load_keep(%b: !tile.memdesc<2x32xi32, #sh>, %c: tensor<2x32xi32, #l>, %r: tensor<2x32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_load' op keep must be a mask of cluster rank bits in [0, 15], got 32}}
  %g = tile_nv.cluster_load %b[%c, %c] ranks(%r) {keep = 32 : i32} : !tile.memdesc<2x32xi32, #sh>, (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>), tensor<2x32xi32, #l> -> tensor<2x32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @cluster_store_rank(%v: tensor<32xi32, #l>, %b: !tile.memdesc<2x32xi32, #sh, mutable>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_store' op buffer '!tile.memdesc<2x32xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable>' must be of rank 1, with no ring dimensions}}
  tile_nv.cluster_store %v, %b[%c] ranks(%c) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<2x32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_store_immutable(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_store' op the buffer '!tile.memdesc<32xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>' is immutable}}
  tile_nv.cluster_store %v, %b[%c] ranks(%c) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh>, (tensor<32xi32, #l>), tensor<32xi32, #l>
  return
}

// -----

#p = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#c = #tile.cga<{bases = [[0, 1]], layout = #p}>
#a = #tile.cga<{bases = [[0, 1]], layout = #tile_nv.dot_op<{opIdx = 0, parent = #p, kWidth = 2}>}>
#b = #tile.cga<{bases = [[0, 1]], layout = #tile_nv.dot_op<{opIdx = 1, parent = #p, kWidth = 2}>}>
func.func @mma_v2_split_along_k(%x: tensor<64x32xf16, #a>, %y: tensor<32x64xf16, #b>, %acc: tensor<64x64xf32, #c>) {
  // expected-error @+1 {{'tile_nv.mma_v2' op a must be split among the cluster's CTAs as the accumulator is, except along K (which every CTA holds whole)}}
  %d = tile_nv.mma_v2 %x, %y, %acc : tensor<64x32xf16, #a>, tensor<32x64xf16, #b> -> tensor<64x64xf32, #c>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_atomic_kind(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh, mutable>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_atomic_rmw' op has no fadd of 'i32' (integer add, and, or, xor, max, min, umax, umin; fadd of f32 or f64; xchg; 32 or 64 bits)}}
  %o = tile_nv.cluster_atomic_rmw "fadd" %v, %b[%c] ranks(%c) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#m = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_atomic_mask(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh, mutable>, %c: tensor<32xi32, #l>, %k: tensor<32xi1, #m>) {
  // expected-error @+1 {{'tile_nv.cluster_atomic_rmw' op mask must have the values' shape and layout, got 'tensor<32xi1, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>'}}
  %o = tile_nv.cluster_atomic_rmw "add" %v, %b[%c] ranks(%c) mask(%k) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l>, tensor<32xi1, #m> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_atomic_result(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh, mutable>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_atomic_rmw' op the result must have the values' type 'tensor<32xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>'}}
  %o = tile_nv.cluster_atomic_rmw "add" %v, %b[%c] ranks(%c) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi64, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_atomic_repeated(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh, mutable>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_atomic_rmw' op 'tile.repeated_ctas' is a mask of cluster rank bits in [0, 15] on an atomic with old values}}
  %o = tile_nv.cluster_atomic_rmw "add" %v, %b[%c] ranks(%c) {keep = 0 : i32, tile.repeated_ctas = 16 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh, mutable>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @cluster_atomic_immutable(%v: tensor<32xi32, #l>, %b: !tile.memdesc<32xi32, #sh>, %c: tensor<32xi32, #l>) {
  // expected-error @+1 {{'tile_nv.cluster_atomic_rmw' op the buffer '!tile.memdesc<32xi32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>' is immutable}}
  %o = tile_nv.cluster_atomic_rmw "add" %v, %b[%c] ranks(%c) {keep = 0 : i32} : tensor<32xi32, #l>, !tile.memdesc<32xi32, #sh>, (tensor<32xi32, #l>), tensor<32xi32, #l> -> tensor<32xi32, #l>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bulk_bytes_not_16(%p: !tile.ptr<f32>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #sh, mutable>) {
  %n = arith.constant 100 : i32
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op bytes must be a positive multiple of 16, got 100}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bulk_too_many_bytes(%p: !tile.ptr<f32>, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #sh, mutable>) {
  %n = arith.constant 2048 : i32
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op copies 2048 bytes into a buffer of 1024 bytes (a CTA's part)}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bulk_immutable(%p: !tile.ptr<f32>, %n: i32, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #sh>) {
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op result must be a mutable buffer, got '!tile.memdesc<256xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>'}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bulk_shared_source(%p: !tile.ptr<f32, 3>, %n: i32, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op src must be a global-memory pointer, got '!tile.ptr<f32, 3>'}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32, 3>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#sh2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @bulk_subslice(%p: !tile.ptr<f32>, %n: i32, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<16x32xf32, #sh2, mutable, 16x64>) {
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op result must be one contiguous byte range (a slot, or a view whose elements fill a range of it), got}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf32, #sh2, mutable, 16x64>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#pad = #tile.padded_shared<{intervals = [32], paddings = [4], offset = [[1], [2], [4], [8], [16], [32], [64], [128]], shape = [256]}>
func.func @bulk_padded(%p: !tile.ptr<f32>, %n: i32, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #pad, mutable>) {
  // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op a bulk copy writes bytes in the buffer's physical order, and the layout pads every 32 elements inside this view of 256: copy into an unpadded view}}
  tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #pad, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @bulk_on_sm80(%p: !tile.ptr<f32>, %n: i32, %bar: !tile.memdesc<1xi64, #sh, mutable>, %buf: !tile.memdesc<256xf32, #sh, mutable>) {
    // expected-error @+1 {{'tile_nv.async_bulk_copy_global_to_local' op bulk copy completion needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.async_bulk_copy_global_to_local %p, %n, %bar, %buf : !tile.ptr<f32>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_load_release(%p: tensor<128x!tile.ptr<i32>, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_load' op sem must be relaxed or acquire, got 'release'}}
  %v = tile_nv.atomic_load %p {sem = "release", scope = "gpu"} : (tensor<128x!tile.ptr<i32>, #l>) -> tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_store_acquire(%p: tensor<128x!tile.ptr<i32>, #l>, %v: tensor<128xi32, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_store' op sem must be relaxed or release, got 'acquire'}}
  tile_nv.atomic_store %p, %v {sem = "acquire", scope = "gpu"} : (tensor<128x!tile.ptr<i32>, #l>, tensor<128xi32, #l>) -> ()
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_load_scope(%p: tensor<128x!tile.ptr<i32>, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_load' op scope must be cta, gpu or sys, got 'cluster'}}
  %v = tile_nv.atomic_load %p {sem = "relaxed", scope = "cluster"} : (tensor<128x!tile.ptr<i32>, #l>) -> tensor<128xi32, #l>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @atomic_load_layout(%p: tensor<128x!tile.ptr<i32>, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_load' op pointers, mask and values must have one shape and layout}}
  %v = tile_nv.atomic_load %p {sem = "relaxed", scope = "gpu"} : (tensor<128x!tile.ptr<i32>, #l>) -> tensor<128xi32, #m>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_store_type(%p: tensor<128x!tile.ptr<i32>, #l>, %v: tensor<128xf32, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_store' op values must be of the pointee type 'i32', got 'f32'}}
  tile_nv.atomic_store %p, %v {sem = "relaxed", scope = "gpu"} : (tensor<128x!tile.ptr<i32>, #l>, tensor<128xf32, #l>) -> ()
  return
}

// -----

#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
func.func @tma_l2_secondary(%out: !tile.tensordesc<tensor<256xf16, #nv1>>, %buf: !tile.memdesc<256xf16, #nv1, mutable>, %x: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' op l2_secondary must be evict_unchanged or evict_first, got 'evict_last'}}
  tile_nv.async_tma_copy_local_to_global %out[%x], %buf {l2_primary = "evict_first", l2_secondary = "evict_last"} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
  return
}

// -----

#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
func.func @tma_l2_fraction(%out: !tile.tensordesc<tensor<256xf16, #nv1>>, %buf: !tile.memdesc<256xf16, #nv1, mutable>, %x: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' op l2_fraction must be in (0, 1], got 0}}
  tile_nv.async_tma_copy_local_to_global %out[%x], %buf {l2_primary = "evict_first", l2_fraction = 0.0 : f32} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
  return
}

// -----

#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
func.func @tma_l2_primary(%out: !tile.tensordesc<tensor<256xf16, #nv1>>, %buf: !tile.memdesc<256xf16, #nv1, mutable>, %x: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' op l2_primary must be evict_normal, evict_unchanged, evict_first or evict_last, got 'no_allocate'}}
  tile_nv.async_tma_copy_local_to_global %out[%x], %buf {l2_primary = "no_allocate"} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
  return
}

// -----

#nv1 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 1, transposed = false>
func.func @tma_l2_no_primary(%out: !tile.tensordesc<tensor<256xf16, #nv1>>, %buf: !tile.memdesc<256xf16, #nv1, mutable>, %x: i32) {
  // expected-error @+1 {{'tile_nv.async_tma_copy_local_to_global' op l2_secondary and l2_fraction need an l2_primary}}
  tile_nv.async_tma_copy_local_to_global %out[%x], %buf {l2_fraction = 0.5 : f32} : !tile.tensordesc<tensor<256xf16, #nv1>>, !tile.memdesc<256xf16, #nv1, mutable>
  return
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @atomic_load_width(%p: tensor<128x!tile.ptr<i4>, #l>) {
  // expected-error @+1 {{'tile_nv.atomic_load' op no atomic access of 'i4'}}
  %v = tile_nv.atomic_load %p {sem = "relaxed", scope = "gpu"} : (tensor<128x!tile.ptr<i4>, #l>) -> tensor<128xi4, #l>
  return
}
