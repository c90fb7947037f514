//===- OrderedOps.cpp - verifiers of atomic_load / atomic_store -----------===//
//
// The pointers, mask, and loaded or stored values share one shape and
// layout; the values are the pointee type, of 1 (a byte in memory), 8, 16,
// 32 or 64 bits; the order and the scope are PTX's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

static LogicalResult verifyOrdered(Operation *op, Value ptr, Value mask,
                                   Type values, StringRef sem,
                                   ArrayRef<StringRef> sems, StringRef scope) {
  if (!llvm::is_contained(sems, sem))
    return op->emitOpError() << "sem must be " << sems[0] << " or " << sems[1]
                             << ", got '" << sem << "'";
  if (scope != "cta" && scope != "gpu" && scope != "sys")
    return op->emitOpError() << "scope must be cta, gpu or sys, got '"
                             << scope << "'";
  auto ptrTy = cast<RankedTensorType>(ptr.getType());
  auto same = [&](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.getShape() == ptrTy.getShape() &&
           r.getEncoding() == ptrTy.getEncoding();
  };
  if (!same(values) || (mask && !same(mask.getType())))
    return op->emitOpError()
           << "pointers, mask and values must have one shape and layout";
  Type pointee = cast<PointerType>(ptrTy.getElementType()).getPointeeType();
  Type elt = cast<RankedTensorType>(values).getElementType();
  if (elt != pointee)
    return op->emitOpError() << "values must be of the pointee type "
                             << pointee << ", got " << elt;
  unsigned bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 0;
  if (bits != 1 && bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return op->emitOpError() << "no atomic access of " << elt;
  return success();
}

LogicalResult AtomicLoadOp::verify() {
  return verifyOrdered(*this, getPtr(), getMask(), getResult().getType(),
                       getSem(), {"relaxed", "acquire"}, getScope());
}

LogicalResult AtomicStoreOp::verify() {
  return verifyOrdered(*this, getPtr(), getMask(), getValue().getType(),
                       getSem(), {"relaxed", "release"}, getScope());
}
