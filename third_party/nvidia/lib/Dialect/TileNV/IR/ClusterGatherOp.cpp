//===- ClusterGatherOp.cpp - cluster_gather and cluster_scatter's verifiers ===//
//
// A gather from, or a scatter into, the parts of a buffer that the CTAs of a
// cluster hold: the indices, the target ranks and the result (or values)
// share one shape and layout; the buffer is one CTA's part, of the indices'
// rank.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

/// What both ops ask of the buffer, indices, ranks, axis and keep.
static LogicalResult verifyClusterIndexed(Operation *op, MemDescType buffer,
                                          Value indicesValue, Value ranksValue,
                                          uint32_t axis, uint32_t keep) {
  auto indices = cast<RankedTensorType>(indicesValue.getType());
  auto ranks = cast<RankedTensorType>(ranksValue.getType());
  unsigned rank = indices.getRank();
  if (buffer.getShape().size() != rank ||
      buffer.getSharedLayout().getRank() != rank)
    return op->emitOpError() << "buffer " << buffer
                             << " must be of the indices' rank " << rank
                             << ", with no ring dimensions";
  if (axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  if (ranks.getShape() != indices.getShape() ||
      ranks.getEncoding() != indices.getEncoding() ||
      !ranks.getElementType().isInteger(32))
    return op->emitOpError() << "ranks must be i32 of the indices' shape and "
                                "layout, got "
                             << ranks;
  if (keep > 15)
    return op->emitOpError()
           << "keep must be a mask of cluster rank bits in [0, 15], got "
           << keep;
  return success();
}

LogicalResult ClusterGatherOp::verify() {
  MemDescType src = getSrc().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (failed(verifyClusterIndexed(*this, src, getIndices(), getRanks(),
                                  getAxis(), getKeep())))
    return failure();
  RankedTensorType result = getType();
  if (result.getShape() != indices.getShape() ||
      result.getEncoding() != indices.getEncoding() ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result must have the shape and layout of the "
                            "indices and the buffer's element type, got "
                         << result;
  return success();
}

LogicalResult ClusterScatterOp::verify() {
  MemDescType dst = getDst().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (failed(verifyClusterIndexed(*this, dst, getIndices(), getRanks(),
                                  getAxis(), getKeep())))
    return failure();
  auto values = cast<RankedTensorType>(getValues().getType());
  if (values.getShape() != indices.getShape() ||
      values.getEncoding() != indices.getEncoding() ||
      values.getElementType() != dst.getElementType())
    return emitOpError() << "values must have the shape and layout of the "
                            "indices and the buffer's element type, got "
                         << values;
  if (!dst.getMutableMemory())
    return emitOpError() << "the buffer " << dst << " is immutable";
  return success();
}
