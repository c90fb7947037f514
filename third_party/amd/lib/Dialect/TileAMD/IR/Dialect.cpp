//===- Dialect.cpp - The tile_amd dialect --------------------------------===//

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_amd;

#include "kiln/Dialect/TileAMD/IR/TileAMDDialect.cpp.inc"

void TileAMDDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/TileAMD/IR/TileAMDAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/TileAMD/IR/TileAMDOps.cpp.inc"
      >();
}

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileAMD/IR/TileAMDAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/TileAMD/IR/TileAMDOps.cpp.inc"

std::optional<unsigned> kiln::tile_amd::getBufferCacheBits(StringRef modifier,
                                                           bool isStore) {
  constexpr unsigned sc0 = 1, nt = 2, sc1 = 16;
  if (modifier.empty())
    return 0;
  if (!isStore) {
    if (modifier == ".ca")
      return 0;
    if (modifier == ".cg")
      return sc0; // bypass the per-CU cache
    if (modifier == ".cv")
      return sc0 | sc1; // system coherent: bypass all caches
    return std::nullopt;
  }
  if (modifier == ".wb")
    return 0;
  if (modifier == ".cg")
    return sc0;
  if (modifier == ".cs")
    return nt; // streaming
  if (modifier == ".wt")
    return sc0 | sc1;
  return std::nullopt;
}

namespace {

/// The rules buffer ops share: i32 offsets, a value/mask/other shaped like
/// them, elements of the pointer's type, a known cache modifier.
LogicalResult verifyBufferOperands(Operation *op, PointerType ptr,
                                   RankedTensorType offsets, Type valueType,
                                   StringRef valueName, Value mask,
                                   Value other, StringRef cache,
                                   bool isStore) {
  if (!offsets.getElementType().isInteger(32))
    return op->emitOpError() << "offsets must be i32 (a buffer resource "
                                "addresses at most 2^31 bytes), got "
                             << offsets.getElementType();
  if (valueType) {
    auto value = cast<RankedTensorType>(valueType);
    if (value.getShape() != offsets.getShape() ||
        value.getEncoding() != offsets.getEncoding())
      return op->emitOpError()
             << valueName << " must have the offsets' shape and layout "
             << offsets.getShape() << ", got " << valueType;
    if (value.getElementType() != ptr.getPointeeType())
      return op->emitOpError() << valueName << " elements must be the "
                               << "pointer's " << ptr.getPointeeType()
                               << ", got " << value.getElementType();
  }
  if (mask && mask.getType() != getI1SameShape(offsets))
    return op->emitOpError() << "mask must be " << getI1SameShape(offsets)
                             << ", got " << mask.getType();
  if (other) {
    auto want = RankedTensorType::get(offsets.getShape(), ptr.getPointeeType(),
                                      offsets.getEncoding());
    if (other.getType() != want)
      return op->emitOpError()
             << "other must be " << want << ", got " << other.getType();
  }
  if (!getBufferCacheBits(cache, isStore))
    return op->emitOpError()
           << "cache modifier must be one of "
           << (isStore ? "\"\", \".wb\", \".cg\", \".cs\", \".wt\""
                       : "\"\", \".ca\", \".cg\", \".cv\"")
           << ", got \"" << cache << "\"";
  return success();
}

} // namespace

LogicalResult BufferLoadOp::verify() {
  return verifyBufferOperands(*this, getPtr().getType(), getOffsets().getType(),
                              getResult().getType(), "result", getMask(),
                              getOther(), getCache(), /*isStore=*/false);
}

// A load is not pinned: LLVM deletes the loads of registers whose values end
// up unused and merges identical loads, so it may issue none.
unsigned BufferLoadOp::getMinIssuedInstructions() { return 0; }

Value BufferLoadOp::getCountedPointers() { return getPtr(); }

Value BufferLoadOp::getCountedAddresses() { return getOffsets(); }

RankedTensorType BufferLoadOp::getCountedType() { return getResult().getType(); }

LogicalResult BufferStoreOp::verify() {
  return verifyBufferOperands(*this, getPtr().getType(), getOffsets().getType(),
                              getValue().getType(), "value", getMask(),
                              Value(), getCache(), /*isStore=*/true);
}

unsigned BufferStoreOp::getMinIssuedInstructions() {
  // Another store to the same addresses: LLVM may delete one as dead.
  for (Operation *user : getOffsets().getUsers())
    if (auto other = dyn_cast<BufferStoreOp>(user))
      if (other != *this && other.getPtr() == getPtr())
        return 0;
  // Storing what was just loaded from the same addresses: LLVM may drop the
  // store as a no-op.
  if (auto load = getValue().getDefiningOp<BufferLoadOp>())
    if (load.getPtr() == getPtr() && load.getOffsets() == getOffsets())
      return 0;
  return getMinVectorMemoryInstructions(getValue().getType());
}

Value BufferStoreOp::getCountedPointers() { return getPtr(); }

Value BufferStoreOp::getCountedAddresses() { return getOffsets(); }

RankedTensorType BufferStoreOp::getCountedType() { return getValue().getType(); }

Value BufferStoreOp::getCountedMask() { return getMask(); }

RankedTensorType BufferLoadToLocalOp::getPointerType() {
  RankedTensorType offsets = getOffsets().getType();
  return RankedTensorType::get(offsets.getShape(), getPtr().getType(),
                               offsets.getEncoding());
}

// Masked lanes read past the resource's end, which writes zeros; a non-zero
// `other` is stored by the masked lanes themselves, branched around the copy.
bool BufferLoadToLocalOp::masksByAddress() {
  Value other = getOther();
  return !getMask() || !other || matchPattern(other, m_AnyZeroFloat()) ||
         matchPattern(other, m_Zero());
}

LogicalResult BufferLoadToLocalOp::verify() {
  if (failed(verifyBufferOperands(*this, getPtr().getType(),
                                  getOffsets().getType(), Type(), "",
                                  getMask(), getOther(), getCache(),
                                  /*isStore=*/false)))
    return failure();
  // The same legality rules as every async copy (layouts only here; the
  // lowering checks again with the offsets' contiguity).
  return checkAsyncCopy(getEnclosingTarget(*this), getPointerType(), getDst(),
                        std::nullopt, [&] { return emitOpError(); });
}

LogicalResult WarpPipelineBorderOp::verify() {
  int32_t priority = getPriority();
  if (priority < -1 || priority > 3)
    return emitOpError() << "priority " << priority
                         << " is not a wave priority: 0 to 3 (s_setprio), or -1 "
                            "to leave it";
  return success();
}
