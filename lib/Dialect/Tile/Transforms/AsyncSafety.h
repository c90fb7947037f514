//===- AsyncSafety.h - Buffers as tile-check-async-safety compares them ---===//
//
// Internal to the async-safety check (CheckAsyncSafety.cpp, the dataflow
// over async copies, reads and waits; CheckBarrierLifecycle.cpp, the
// lifecycle of mbarriers): which shared buffer a memdesc names, and when two
// of them certainly or possibly share bytes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_TILE_TRANSFORMS_ASYNCSAFETY_H
#define KILN_LIB_DIALECT_TILE_TRANSFORMS_ASYNCSAFETY_H

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Analysis/RingSlot.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace kiln::tile::async_safety {

/// A shared buffer: its allocation, the ring slot it stays in (RingSlot.h),
/// and whether it is the whole allocation or only part of its slot.
struct Buffer {
  mlir::Operation *root = nullptr;
  RingSlot slot;
  bool whole = false;   // no index or subslice between it and the allocation
  bool partial = false; // a subslice: not all of its slot

  void aroundBackEdge(mlir::Operation *loop) {
    slot = slot.aroundBackEdge(loop);
  }
  void leaving(mlir::Operation *op) { slot = slot.leaving(op); }
};

/// The buffer `memdesc` views, when its allocation is known.
std::optional<Buffer> resolve(mlir::Value memdesc);

/// The two buffers certainly share bytes: one allocation, and one of them
/// all of it or both all of one slot known to be the same.
bool mustOverlap(const Buffer &a, const Buffer &b);

/// The two buffers may share bytes (in the same iteration).
bool mayOverlap(const Buffer &a, const Buffer &b);

/// The two buffers may share bytes in some iterations: only different
/// constant slots never do.
bool mayMeet(const Buffer &a, const Buffer &b);

/// Shared buffers `op` writes (not counting buffers it allocates), async
/// copies and barrier-completed writes included.
llvm::SmallVector<mlir::Value> writtenBuffers(mlir::Operation *op);

/// Shared buffers `op` reads by its threads (not asynchronous reads).
llvm::SmallVector<mlir::Value> readBuffers(mlir::Operation *op);

/// The barrier `o` waits on, arrives on or completes a write on; null for
/// other ops.
mlir::Value eventBarrier(mlir::Operation *o);

/// Errors for mbarriers used outside their life or never able to complete
/// a phase (CheckBarrierLifecycle.cpp). False when one was reported.
bool checkBarrierLifecycle(mlir::func::FuncOp func);

} // namespace kiln::tile::async_safety

#endif
