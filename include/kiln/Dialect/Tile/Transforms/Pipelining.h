//===- Pipelining.h - Software-pipelining utilities backends share -*- C++ -*-===//
//
// The tile-pipeline-* passes hand the schedule on in IR attributes
// (`tile.num_stages` on the loop, `tile.stage` / `tile.cluster` on each op of
// its body). A backend that builds rings of its own copies (bulk copies on
// barriers) uses the same steps: these functions, called by core's passes too, so a
// vendor ring is staged, normalized and expanded exactly as core's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_TRANSFORMS_PIPELINING_H
#define KILN_DIALECT_TILE_TRANSFORMS_PIPELINING_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace kiln::tile::pipeline {

/// The `tile.num_stages` a loop asks for (0 when absent).
int64_t getNumStages(mlir::scf::ForOp loop);
std::optional<int64_t> getStage(mlir::Operation *op);
int64_t getCluster(mlir::Operation *op);
void setStage(mlir::Operation *op, int64_t stage, int64_t cluster);
/// Whether the loop's body ops carry stages.
bool isStaged(mlir::scf::ForOp loop);

/// What keeps upstream's expander from pipelining `loop`, if anything: a
/// step that is not a positive constant, an induction variable that is not
/// i32, a distance-2 recurrence, a yield of a value from before the loop.
std::optional<std::string> whyNotPipelinable(mlir::scf::ForOp loop);

/// Why a read through `ptr` (a load's pointers, a TMA copy's descriptor),
/// issued num_stages - 1 iterations ahead, may read what the loop writes:
/// a global write that may touch its elements in the iterations the read
/// moves across, or in its own iteration before `waitPoint` (the body op
/// before which its value is waited for) -- see Analysis/LoopDependence.h.
/// The message names the write and its line; `what` names the read.
std::optional<std::string> whyWritesBlockMove(mlir::scf::ForOp loop,
                                              mlir::Value ptr,
                                              int64_t numStages,
                                              mlir::Operation *waitPoint,
                                              llvm::StringRef what);

/// Adds to `ops` the body ops `root`'s operands need, transitively (through
/// the value the body yields for each loop-carried value read). Fails, with
/// `why`, at the first one with memory effects or regions.
mlir::LogicalResult sliceOperands(mlir::scf::ForOp loop, mlir::Operation *root,
                                  llvm::SetVector<mlir::Operation *> &ops,
                                  std::string &why);

/// The cluster (order within the kernel loop's body) of an op of stage 0
/// (`stage0`) or of the last stage. Copies first: stage 0's pure ops, its
/// copies, then the rest (the copies' addresses, masks and slots are ready
/// before the barrier that orders a refill after the last stage's reads, so
/// only the copies sit between it and the wait). Otherwise (asynchronous
/// readers, such as a wgmma, must retire a slot before it is refilled): the
/// last stage's ops first, then all of stage 0 (the next copies' addresses,
/// masks and slot indices, then the copies), the order a hand-pipelined
/// wgmma loop has: the arithmetic still overlaps the wgmma left in flight.
/// (Stage 0's arithmetic before the wgmma instead measured 0.986x the hand
/// kernel at 4096^3, 3 stages; this order compiles to the hand kernel's
/// loop.)
int64_t clusterOf(mlir::Operation *op, bool stage0, bool copiesFirst);

/// Gives every body op a stage: those in `stage0` 0, the rest
/// num_stages - 1; a stage-0 value a later op reads is recomputed for it.
/// Clusters as clusterOf says.
void assignTwoStages(mlir::scf::ForOp loop,
                     const llvm::SetVector<mlir::Operation *> &stage0,
                     bool copiesFirst);

/// Ops created before or after `loop` in an enclosing staged loop's body
/// (ring setup, trip count, prologue, drain) run where the loop does: each
/// op of its block without a stage gets the loop's stage and cluster (or
/// the given ones). Nothing for a loop outside a staged body.
void stageOpsBeside(mlir::scf::ForOp loop);
void stageOpsBeside(mlir::scf::ForOp loop, int64_t stage, int64_t cluster);

/// for iv = lb to ub step s  ->  for j = 0 to max(ceildiv(ub - lb, s), 0)
/// step 1, with iv = lb + j * s rebuilt in each stage that reads it. Needs
/// stages on the body ops.
void normalizeLoop(mlir::scf::ForOp loop);

/// Whether every view of `buffer` (transitively) can become a view of a
/// ring slot: permutes and subslices only.
bool viewsFollowSlot(mlir::Value buffer);

/// After a whole buffer was replaced by the ring slot `slot`, gives the
/// views of it (permutes, subslices) the slot's allocation shape.
void retypeViews(mlir::Value slot);

/// Expands a staged, normalized loop with upstream's scf::pipelineForLoop
/// (see tile-pipeline-expand). Remarks and leaves the loop when the
/// expander refuses it; fails only when it changed the loop and then failed.
mlir::LogicalResult expandStagedLoop(mlir::scf::ForOp loop);

} // namespace kiln::tile::pipeline

#endif
