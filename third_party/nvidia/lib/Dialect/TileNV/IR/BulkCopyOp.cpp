//===- BulkCopyOp.cpp - tile_nv.async_bulk_copy_global_to_local ------------===//
//
// The non-tensor bulk copy (Gluon's hopper.bulk.async_load): bytes from a
// global address into the physical byte range of one shared slot, completing
// on an mbarrier like a TMA load.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

/// Bytes of the view `type` (the IR holds one CTA's part of a buffer a
/// cluster splits).
static int64_t viewBytes(MemDescType type) {
  int64_t elements = 1;
  for (int64_t d : type.getShape())
    elements *= d;
  return elements * getElementBytes(type.getElementType());
}

LogicalResult AsyncBulkCopyGlobalToLocalOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier(), 90, "bulk copy completion")))
    return failure();
  MemDescType result = getResult().getType();
  if (!result.getMutableMemory())
    return emitOpError() << "result must be a mutable buffer, got " << result;
  if (getSrc().getType().getAddressSpace() != 1)
    return emitOpError() << "src must be a global-memory pointer, got "
                         << getSrc().getType();
  // The view must be one contiguous byte range: its layout dimensions fill
  // [0, n) from its own offset (a whole slot, or a subslice that is a range
  // of it), and leading dimensions of more than one slot cover whole slots.
  ArrayRef<int64_t> shape = result.getShape(), alloc = result.getAllocShape();
  SharedLayoutAttr layout = result.getSharedLayout();
  unsigned layoutRank = layout.getRank();
  FailureOr<int64_t> elements = getContiguousViewElements(result);
  bool contiguous = succeeded(elements);
  int64_t slots = 1;
  for (int64_t d : shape.drop_back(layoutRank))
    slots *= d;
  if (contiguous && slots > 1)
    contiguous = shape.drop_front() == alloc.take_back(shape.size() - 1);
  if (!contiguous)
    return emitOpError()
           << "result must be one contiguous byte range (a slot, or a view "
              "whose elements fill a range of it), got "
           << result;
  // Padding inside the range would take bytes of the copy.
  for (auto [log2Interval, padding] : layout.getPaddingSteps())
    if (padding && slots * *elements > (int64_t(1) << log2Interval))
      return emitOpError()
             << "a bulk copy writes bytes in the buffer's physical order, and "
                "the layout pads every "
             << (int64_t(1) << log2Interval) << " elements inside this view of "
             << slots * *elements << ": copy into an unpadded view";
  int64_t have = viewBytes(result);
  APInt value;
  if (matchPattern(getBytes(), m_ConstantInt(&value))) {
    int64_t n = value.getSExtValue();
    if (n <= 0 || n % 16)
      return emitOpError() << "bytes must be a positive multiple of 16, got "
                           << n;
    if (n > have)
      return emitOpError() << "copies " << n << " bytes into a buffer of "
                           << have << " bytes (a CTA's part)";
  }
  return verifyArch(*this, 90, "the bulk copy (cp.async.bulk)");
}

Value AsyncBulkCopyGlobalToLocalOp::getDst() { return getResult(); }
Value AsyncBulkCopyGlobalToLocalOp::getCompletionBarrier() {
  return getBarrier();
}
Value AsyncBulkCopyGlobalToLocalOp::getPredicate() { return getPred(); }
void AsyncBulkCopyGlobalToLocalOp::setPredicate(Value pred) {
  getPredMutable().assign(pred);
}
int64_t AsyncBulkCopyGlobalToLocalOp::getCompletedBytes() {
  APInt value;
  if (matchPattern(getBytes(), m_ConstantInt(&value)))
    return value.getSExtValue();
  return -1;
}
Value AsyncBulkCopyGlobalToLocalOp::getCompletionPredicate() {
  return getPred();
}
bool AsyncBulkCopyGlobalToLocalOp::issuedByElectedThread() { return true; }
Value AsyncBulkCopyGlobalToLocalOp::getLandingCTAs() { return getMulticast(); }
