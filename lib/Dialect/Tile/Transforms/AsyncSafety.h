//===- AsyncSafety.h - Checks of tile-check-async-safety ------------------===//
//
// Internal to the async-safety check: the checks of mbarriers that
// tile-check-async-safety (CheckAsyncSafety.cpp) runs beside its dataflow,
// their phases (CheckBarrierPhases.cpp) and lifecycle
// (CheckBarrierLifecycle.cpp), and the copy of a function it checks again
// with its chosen buffers named (SpecializeChosenBuffers.cpp). Buffers are
// compared as the shared analysis of async work compares them
// (kiln/Analysis/AsyncState.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_TILE_TRANSFORMS_ASYNCSAFETY_H
#define KILN_LIB_DIALECT_TILE_TRANSFORMS_ASYNCSAFETY_H

#include "kiln/Analysis/AsyncState.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::tile::async {

/// Errors for waits on barriers nothing arrives on and for arrivals whose
/// transaction bytes the writes completing on the phase do not deliver
/// (CheckBarrierPhases.cpp). False when one was reported.
bool checkBarrierPhases(mlir::func::FuncOp func);

/// Errors for mbarriers used outside their life or never able to complete
/// a phase (CheckBarrierLifecycle.cpp). False when one was reported.
bool checkBarrierLifecycle(mlir::func::FuncOp func);

/// Rewrites `func` (a throwaway copy) so that the shared buffers an scf.if
/// chooses or a loop permutes are named views again: loops run rounds of
/// the permutation's order with the buffers bound, and an if's block tail
/// moves into its branches (SpecializeChosenBuffers.cpp). False when it
/// found nothing to rewrite.
bool nameChosenBuffers(mlir::func::FuncOp func);

} // namespace kiln::tile::async

#endif
