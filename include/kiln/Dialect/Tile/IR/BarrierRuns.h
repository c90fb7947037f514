//===- BarrierRuns.h - One CTA barrier for a run of inits -------*- C++ -*-===//
//
// A barrier's initialization is followed by a CTA barrier (no thread may
// arrive or wait before the word is initialized), and its invalidation is
// preceded by one (every thread is past its last use). Kernels initialize
// and invalidate their barriers in runs (a ring's ready and empty barriers,
// one a slot): a run whose ops are separated only by ops without memory
// effects needs one CTA barrier, after its last init or before its first
// invalidate. These say where the lowering puts them, and the barrier oracle
// plays the same.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_BARRIERRUNS_H
#define KILN_DIALECT_TILE_IR_BARRIERRUNS_H

#include "mlir/IR/Operation.h"

namespace kiln::tile {

/// Whether the CTA barrier after `init` (a BarrierInitOpInterface op) is the
/// next init's: the next op of its block with memory effects is another
/// barrier init.
bool initSharesNextBarrier(mlir::Operation *init);

/// Whether the CTA barrier before `invalidate` (a
/// BarrierInvalidateOpInterface op) is the previous invalidate's: the
/// previous op of its block with memory effects is another invalidate.
bool invalidateSharesPreviousBarrier(mlir::Operation *invalidate);

/// Marks (`tile.shares_barrier`, TileDialect::SharesBarrierAttrHelper) every
/// init and invalidate under `root` whose CTA barrier is
/// another's (initSharesNextBarrier, invalidateSharesPreviousBarrier), before
/// a lowering that can no longer see the original neighbours of an op.
void markBarrierRuns(mlir::Operation *root);

/// Whether markBarrierRuns marked `op`: its lowering emits no CTA barrier.
bool sharesBarrier(mlir::Operation *op);

} // namespace kiln::tile

#endif
