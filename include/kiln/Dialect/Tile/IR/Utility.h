//===- Utility.h - Layout questions shared by passes and lowering -*- C++ -*-===//
//
// One place answers "how does this op move data" so that shared-memory
// allocation and the LLVM lowering can never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_UTILITY_H
#define KILN_DIALECT_TILE_IR_UTILITY_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

namespace kiln::tile {

enum class LayoutMove {
  /// Every thread already holds the same registers.
  Identity,
  /// Only the order of each thread's registers changes.
  RegisterPermute,
  /// Data crosses threads: staged through shared memory.
  SharedMemory,
};

/// How a tensor in layout `src` moves to layout `dst` (same output space).
LayoutMove classifyLayoutMove(const LinearLayout &src, const LinearLayout &dst);

/// Source and destination linear layouts of a convert_layout or reshape, in
/// the destination's output space. Failure if either type lacks a layout.
mlir::FailureOr<std::pair<LinearLayout, LinearLayout>>
getMoveLayouts(mlir::Operation *op);

/// Tensor coordinate bits (dimension, bit) that a move of `src` to `dst`
/// through shared memory may split into rounds: bits no lane or warp basis
/// of either layout sets, so every register's value of them is a constant.
/// Most significant first (row-major linear index: rounds then cover
/// contiguous slices of the tile), except that bits inside either side's
/// leading consecutive registers (its vectors) come after all others.
llvm::SmallVector<std::pair<unsigned, unsigned>>
getScratchRoundBits(const LinearLayout &src, const LinearLayout &dst);

/// `layout` without the coordinate bits `bits` ((dim, bit) pairs, as
/// getScratchRoundBits gives them), which split a layout move into rounds:
/// each must be set by one register basis that sets nothing else, and by no
/// other basis. Those register bases are dropped (their index positions go to
/// `regBits`, in the order of `bits`) and the bits removed from every other
/// basis's coordinates (each dimension halves per bit), so that register i
/// of the result holds, in round r, the full layout's register i with the
/// dropped positions set to r's bits. Fails where a bit is shared.
mlir::FailureOr<LinearLayout>
getRoundLayout(const LinearLayout &layout,
               llvm::ArrayRef<std::pair<unsigned, unsigned>> bits,
               llvm::SmallVector<unsigned> &regBits);
/// Whether a layout move `op` in `rounds` rounds keeps a round layout for
/// both sides (getRoundLayout), which the lowering moves in vectors, and its
/// round bits leave each side's vectors (consecutive elements, up to 16
/// bytes) whole; the other moves in rounds go element by element.
bool roundsKeepVectors(mlir::Operation *op, int64_t rounds);

/// Rounds a convert_layout or reshape through shared memory takes
/// (`tile.scratch_rounds`, 1 when absent).
int64_t getScratchRounds(mlir::Operation *op);

/// Most rounds `op` may take (1 for ops that do not move data through
/// shared memory in rounds).
int64_t getMaxScratchRounds(mlir::Operation *op);

/// Bytes of one element in memory (i1 is stored as a byte, pointers as 8).
unsigned getElementBytes(mlir::Type elementType);

/// Whether `layout`, of a tensor whose last dimension has size 2, holds both
/// elements of each pair in one thread's registers: a register basis one step
/// along the last dimension and no other basis along it (tile.split and
/// tile.join move no data).
bool holdsPairInRegisters(const LinearLayout &layout);

/// The fewest vector-memory instructions one thread issues to move its
/// distinct elements of `type` (registers holding the same element count
/// once): one per 16 bytes, the widest access of the targets whose waits
/// count instructions; 0 if the type has no layout.
unsigned getMinVectorMemoryInstructions(mlir::RankedTensorType type);

/// Bytes of the distinct elements of `type` one thread holds; 0 if the type
/// has no layout.
unsigned getVectorMemoryBytes(mlir::RankedTensorType type);

/// Number of warp bits whose basis moves along `axis` in a reduction. Fails
/// when a lane or warp basis mixes `axis` with other dimensions (a layout
/// the reduction lowering does not handle).
mlir::FailureOr<unsigned> getReduceWarpBits(const LinearLayout &layout,
                                            unsigned axis);

/// Which input bit of a layout places each bit of an element's position
/// along a scan axis: bits[b] = (register, lane or warp; its index) for
/// position bit b (the axis has 2^bits.size() elements).
struct ScanAxisBits {
  llvm::SmallVector<std::pair<LinearLayout::InDim, unsigned>> bits;
  /// The lowest position bit a warp places (bits.size() when none).
  unsigned firstWarpBit() const;
};

/// The axis bits of a scan along `axis`, or failure when a basis moves along
/// the axis and another dimension at once, or by a non-power of two (scan
/// such a tensor in a blocked layout).
mlir::FailureOr<ScanAxisBits> getScanAxisBits(const LinearLayout &layout,
                                              unsigned axis);

/// The lane and warp bits of `layout` that only repeat elements other lanes
/// or warps hold (bases that are zero or depend on the register bases and
/// the lower lane / warp bases), as masks: a write of the tensor acts in the
/// threads whose bits in them are zero. Elimination over F2 on coordinates
/// of `shape` packed into one integer; fails when they take over 63 bits.
struct RedundantThreadBits {
  unsigned lanes = 0, warps = 0;
};
mlir::FailureOr<RedundantThreadBits>
getRedundantThreadBits(const LinearLayout &layout,
                       llvm::ArrayRef<int64_t> shape);

/// The scratch of a reduce or scan of several tensors: `count` elements of
/// each element type in turn, each array aligned to 8 bytes; their byte
/// offsets in `offsets` (when given) and the total bytes.
int64_t getTupleScratchLayout(mlir::TypeRange elementTypes, int64_t count,
                              llvm::SmallVectorImpl<int64_t> *offsets = nullptr);

/// Whether an atomic's old values (`result`) are read: some user of it is
/// not an op that would be trivially dead once this use is gone. The DSL
/// turns a scalar atomic's one-element result into a scalar by a reduce,
/// which stays when the kernel drops the value; such an atomic passes no
/// old value on through shared memory (the allocator and the lowering ask
/// this, so they agree).
bool oldValuesUsed(mlir::Value result);

/// Shared-memory scratch bytes `op` needs while it runs (0 if none); a move
/// in rounds needs one round's share.
int64_t getScratchBytes(mlir::Operation *op);

/// A reduce's scratch: the exchange between warps (when the reduced axis
/// crosses warps; `warpCount` tuples), then, at `clusterOffset` (a 16-byte
/// boundary), the array of `clusterCount` tuples through which the CTAs of a
/// cluster read each other's partial results (the reduce's cluster_peers).
/// Counts are 0 where the reduce needs no such step. Returns the total bytes.
int64_t getReduceScratch(ReduceOp op, int64_t *warpCount = nullptr,
                         int64_t *clusterCount = nullptr,
                         int64_t *clusterOffset = nullptr);

} // namespace kiln::tile

#endif
