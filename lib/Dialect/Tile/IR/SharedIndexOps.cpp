//===- SharedIndexOps.cpp - Verifiers of the indexed shared-memory ops ----===//
//
// tile.local_gather, tile.local_scatter and tile.local_atomic_rmw: Gluon's
// shared_memory_descriptor.gather / scatter / atomic_scatter_<kind>.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

/// What the three ops share: an axis of the buffer, integer indices of the
/// buffer's rank no larger than it off the axis, in one CTA.
static LogicalResult verifyIndexed(Operation *op, MemDescType buffer,
                                   RankedTensorType indices, int32_t axis) {
  ArrayRef<int64_t> shape = buffer.getShape();
  unsigned rank = shape.size();
  if (rank != buffer.getSharedLayout().getRank())
    return op->emitOpError()
           << "needs a buffer its shared layout covers whole; " << buffer
           << " has leading ring dimensions (index a slot first)";
  if (axis < 0 || unsigned(axis) >= rank)
    return op->emitOpError() << "axis " << axis << " is out of range for the "
                             << "rank-" << rank << " buffer " << buffer;
  if (indices.getRank() != rank)
    return op->emitOpError() << "indices " << indices << " must have the "
                             << "buffer's rank " << rank;
  if (!indices.getEncoding())
    return op->emitOpError() << "indices " << indices
                             << " need a layout encoding";
  if (ArrayRef<int64_t>(getCtaShape(indices)) != indices.getShape())
    return op->emitOpError()
           << "indices split among the CTAs of a cluster are not supported";
  for (unsigned d = 0; d < rank; ++d)
    if (int32_t(d) != axis && indices.getDimSize(d) > shape[d])
      return op->emitOpError()
             << "indices " << indices << " exceed the buffer " << buffer
             << " along dimension " << d << ", which is not the axis";
  return success();
}

/// `values` matches `indices` in shape and layout and the buffer in type.
static LogicalResult verifyValues(Operation *op, MemDescType buffer,
                                  RankedTensorType values,
                                  RankedTensorType indices) {
  if (values.getShape() != indices.getShape() ||
      values.getEncoding() != indices.getEncoding())
    return op->emitOpError() << "values " << values << " and indices "
                             << indices << " must have one shape and layout";
  if (values.getElementType() != buffer.getElementType())
    return op->emitOpError() << "values " << values << " must have the "
                             << "element type of the buffer " << buffer;
  if (!buffer.getMutableMemory())
    return op->emitOpError() << "writes into an immutable buffer " << buffer;
  return success();
}

LogicalResult LocalGatherOp::verify() {
  MemDescType src = getSrc().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (failed(verifyIndexed(*this, src, indices, getAxis())))
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

LogicalResult LocalScatterOp::verify() {
  MemDescType dst = getDst().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (failed(verifyIndexed(*this, dst, indices, getAxis())))
    return failure();
  return verifyValues(*this, dst, cast<RankedTensorType>(getValues().getType()),
                      indices);
}

LogicalResult LocalAtomicRMWOp::verify() {
  MemDescType dst = getDst().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto values = cast<RankedTensorType>(getValues().getType());
  if (failed(verifyIndexed(*this, dst, indices, getAxis())) ||
      failed(verifyValues(*this, dst, values, indices)))
    return failure();
  if (getType() != values)
    return emitOpError() << "result must have the type of the values "
                         << values << ", got " << getType();
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (m.getShape() != indices.getShape() ||
        m.getEncoding() != indices.getEncoding())
      return emitOpError() << "mask " << m << " must have the shape and "
                           << "layout of the indices " << indices;
  }
  Type elem = values.getElementType();
  bool isInt = isa<IntegerType>(elem), isFloat = isa<FloatType>(elem);
  StringRef kind = getKind();
  bool ok = llvm::StringSwitch<bool>(kind)
                .Cases({"add", "and", "or", "xor", "max", "min", "umax", "umin"},
                       isInt)
                .Case("fadd", isFloat)
                .Case("xchg", isInt || isFloat)
                .Default(false);
  if (!ok)
    return emitOpError() << "kind \"" << kind << "\" is not an atomic of "
                         << elem << " (add, and, or, xor, max, min, umax, "
                         << "umin, xchg on integers; fadd, xchg on floats)";
  unsigned bits = elem.getIntOrFloatBitWidth();
  if (bits != 16 && bits != 32 && bits != 64)
    return emitOpError() << "atomics of " << elem << " are not supported "
                         << "(16-, 32- or 64-bit elements)";
  return success();
}
