//===- ClusterGatherOp.cpp - verifiers of the accesses to other CTAs' parts ===//
//
// A gather from, or a scatter into, the parts of a buffer that the CTAs of a
// cluster hold: the indices, the target ranks and the result (or values)
// share one shape and layout; the buffer is one CTA's part, of the indices'
// rank. cluster_load and cluster_store give every coordinate: one tensor per
// dimension of the buffer, of the same shape and layout.
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

/// What cluster_load and cluster_store ask of the buffer, the coordinates,
/// the ranks and `keep`; `data` is the result or the values.
static LogicalResult verifyClusterAccess(Operation *op, MemDescType buffer,
                                         ValueRange coords, Value ranks,
                                         uint32_t keep, Value data) {
  auto type = cast<RankedTensorType>(data.getType());
  unsigned rank = type.getRank();
  if (buffer.getShape().size() != rank ||
      buffer.getSharedLayout().getRank() != rank)
    return op->emitOpError() << "buffer " << buffer << " must be of rank "
                             << rank << ", with no ring dimensions";
  if (coords.size() != rank)
    return op->emitOpError() << "needs one coordinate tensor per dimension ("
                             << rank << "), got " << coords.size();
  if (type.getElementType() != buffer.getElementType())
    return op->emitOpError() << "the buffer holds " << buffer.getElementType()
                             << ", the tensor " << type.getElementType();
  for (Value c : coords) {
    auto ct = cast<RankedTensorType>(c.getType());
    if (ct.getShape() != type.getShape() ||
        ct.getEncoding() != type.getEncoding() ||
        !ct.getElementType().isInteger(32))
      return op->emitOpError()
             << "coordinates must be i32 of the data's shape and layout ("
             << type << "), got " << ct;
  }
  auto rt = cast<RankedTensorType>(ranks.getType());
  if (rt.getShape() != type.getShape() ||
      rt.getEncoding() != type.getEncoding() ||
      !rt.getElementType().isInteger(32))
    return op->emitOpError() << "ranks must be i32 of the data's shape and "
                                "layout, got "
                             << rt;
  if (keep > 15)
    return op->emitOpError()
           << "keep must be a mask of cluster rank bits in [0, 15], got "
           << keep;
  return success();
}

LogicalResult ClusterLoadOp::verify() {
  return verifyClusterAccess(*this, getSrc().getType(), getCoords(),
                             getRanks(), getKeep(), getResult());
}

LogicalResult ClusterStoreOp::verify() {
  if (failed(verifyClusterAccess(*this, getDst().getType(), getCoords(),
                                 getRanks(), getKeep(), getValues())))
    return failure();
  if (!getDst().getType().getMutableMemory())
    return emitOpError() << "the buffer " << getDst().getType()
                         << " is immutable";
  return success();
}

LogicalResult ClusterAtomicRMWOp::verify() {
  if (failed(verifyClusterAccess(*this, getDst().getType(), getCoords(),
                                 getRanks(), getKeep(), getValues())))
    return failure();
  if (!getDst().getType().getMutableMemory())
    return emitOpError() << "the buffer " << getDst().getType()
                         << " is immutable";
  if (getResult().getType() != getValues().getType())
    return emitOpError() << "the result must have the values' type "
                         << getValues().getType();
  if (Value mask = getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    if (mt.getShape() != getValues().getType().getShape() ||
        mt.getEncoding() != getValues().getType().getEncoding())
      return emitOpError() << "mask must have the values' shape and layout, got "
                           << mt;
  }
  Type t = getValues().getType().getElementType();
  unsigned bits = t.getIntOrFloatBitWidth();
  StringRef kind = getKind();
  bool isInt = isa<IntegerType>(t) && bits != 1;
  bool ok = (bits == 32 || bits == 64) &&
            (kind == "fadd" ? !isInt
             : kind == "xchg"
                 ? true
                 : isInt && llvm::is_contained(
                                {"add", "and", "or", "xor", "max", "min",
                                 "umax", "umin"},
                                kind));
  if (!ok)
    return emitOpError() << "has no " << kind << " of " << t
                         << " (integer add, and, or, xor, max, min, umax, "
                            "umin; fadd of f32 or f64; xchg; 32 or 64 bits)";
  return success();
}
