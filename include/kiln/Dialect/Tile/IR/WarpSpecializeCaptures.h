//===- WarpSpecializeCaptures.h - What worker partitions take from above -===//
//
// A worker partition of tile.warp_specialize runs on warps that did not run
// the kernel's code before it. What it uses from that code it recomputes
// from kernel arguments when it can (constants, program ids, arithmetic,
// shared-memory allocations and views); a scalar it cannot recompute (a
// value loaded from memory, a loop's or branch's result) the kernel's warps
// pass it through the op's shared-memory scratch, 8 bytes each.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILE_IR_WARPSPECIALIZECAPTURES_H
#define KILN_DIALECT_TILE_IR_WARPSPECIALIZECAPTURES_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

namespace kiln::tile {

/// Whether a worker partition may recompute `op` itself: no regions, no
/// memory effects, or a local_alloc (its address: one with a source is
/// recomputed without it).
bool isRecomputableInWorker(mlir::Operation *op);

/// The operands a worker's recomputation of `op` needs: all of them, none of
/// a local_alloc's (the source stays the kernel's warps' store).
mlir::OperandRange getRecomputedOperands(mlir::Operation *op);

/// Whether `v` and everything it is computed from are recomputable (kernel
/// arguments are available to every warp).
bool canRecomputeInWorker(mlir::Value v);

/// The integer or float scalars the worker partitions of `ws` cannot
/// recompute and need: those they use from above, and those what they use
/// is recomputed from (a loop counter indexing a shared-memory buffer), in a
/// fixed order: slot i of the op's scratch (8 bytes each) carries value i.
llvm::SmallVector<mlir::Value> getPassedCaptures(WarpSpecializeOp ws);

} // namespace kiln::tile

#endif
