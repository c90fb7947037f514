//===- Pipeline.h - What the software-pipelining passes share ---*- C++ -*-===//
//
// The three pipelining passes (tile-pipeline-assign-stages,
// tile-pipeline-lower-loads, tile-pipeline-expand) hand the schedule to one
// another in IR attributes: `tile.num_stages` on the loop, `tile.stage` and
// `tile.cluster` on each op of its body. These helpers read them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_TILE_TRANSFORMS_PIPELINE_H
#define KILN_LIB_DIALECT_TILE_TRANSFORMS_PIPELINE_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace kiln::tile::pipeline {

/// The `tile.num_stages` a loop asks for (0 when absent).
inline int64_t getNumStages(mlir::scf::ForOp loop) {
  auto n = TileDialect::NumStagesAttrHelper(loop.getContext()).getAttr(loop);
  return n ? n.getInt() : 0;
}

inline std::optional<int64_t> getStage(mlir::Operation *op) {
  auto s = TileDialect::StageAttrHelper(op->getContext()).getAttr(op);
  if (!s)
    return std::nullopt;
  return s.getInt();
}

inline int64_t getCluster(mlir::Operation *op) {
  auto c = TileDialect::ClusterAttrHelper(op->getContext()).getAttr(op);
  return c ? c.getInt() : 0;
}

/// Whether tile-pipeline-assign-stages scheduled this loop: its body ops
/// carry stages.
inline bool isStaged(mlir::scf::ForOp loop) {
  for (mlir::Operation &op : loop.getBody()->without_terminator())
    if (getStage(&op))
      return true;
  return false;
}

inline void setStage(mlir::Operation *op, int64_t stage, int64_t cluster) {
  mlir::MLIRContext *ctx = op->getContext();
  mlir::Builder b(ctx);
  TileDialect::StageAttrHelper(ctx).setAttr(op, b.getI32IntegerAttr(stage));
  TileDialect::ClusterAttrHelper(ctx).setAttr(op,
                                              b.getI32IntegerAttr(cluster));
}

/// The local_allocs of `body` a load fills, when they are all its users
/// and of one type (the ring then takes their layout); empty otherwise.
llvm::SmallVector<LocalAllocOp> getFilledAllocs(LoadOp load,
                                                mlir::Block *body);

/// The unswizzled shared layout a load used in registers is staged in: the
/// dimension its registers run along fastest, then the others from the last.
SharedLayoutAttr getStagingLayout(mlir::RankedTensorType type);

/// Whether every view of `buffer` (transitively) can become a view of a
/// ring slot: permutes and subslices only.
bool viewsFollowSlot(mlir::Value buffer);

/// After a whole buffer was replaced by the ring slot `slot`, gives the
/// views of it (permutes, subslices) the slot's allocation shape.
void retypeViews(mlir::Value slot);

/// The ring a pipelined load of `body` copies into: `numStages` slots in
/// the layout of the allocs it fills, or the staging layout.
MemDescType getRingType(LoadOp load, mlir::Block *body, int64_t numStages);

} // namespace kiln::tile::pipeline

#endif
