//===- ClusterGatherOp.cpp - tile_nv.cluster_gather's verifier ------------===//
//
// A gather from the parts of a buffer that the CTAs of a cluster hold: the
// indices, the target ranks and the result share one shape and layout; the
// buffer is one CTA's part, of the indices' rank.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

LogicalResult ClusterGatherOp::verify() {
  MemDescType src = getSrc().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto ranks = cast<RankedTensorType>(getRanks().getType());
  RankedTensorType result = getType();
  unsigned rank = indices.getRank();
  if (src.getShape().size() != rank || src.getSharedLayout().getRank() != rank)
    return emitOpError() << "buffer " << src << " must be of the indices' rank "
                         << rank << ", with no ring dimensions";
  if (getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is out of range for rank "
                         << rank;
  if (ranks.getShape() != indices.getShape() ||
      ranks.getEncoding() != indices.getEncoding() ||
      !ranks.getElementType().isInteger(32))
    return emitOpError() << "ranks must be i32 of the indices' shape and "
                            "layout, got "
                         << ranks;
  if (result.getShape() != indices.getShape() ||
      result.getEncoding() != indices.getEncoding() ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result must have the shape and layout of the "
                            "indices and the buffer's element type, got "
                         << result;
  if (getKeep() > 15)
    return emitOpError() << "keep must be a mask of cluster rank bits in [0, "
                            "15], got "
                         << getKeep();
  return success();
}
