//===- AsyncCopy.h - The rules every async copy obeys -----------*- C++ -*-===//
//
// One helper decides whether an asynchronous global -> shared copy is legal
// and how wide its accesses are. The verifier calls it with what the types
// say, the lowering with what the pointer analysis adds, and later passes
// (wait counts, pipelining) with the same arguments, so a rule lives in one
// place. Per-chip facts (the legal widths) come from the target table.
//
// Rules, each named in its diagnostic:
//   element type  the buffer's element type is the pointers' pointee type;
//   shape         the buffer view has the pointer tensor's shape;
//   mutable       the buffer is mutable;
//   width         a thread moves a width the target allows per access; the
//                 width is the widest vector that the register layout, the
//                 shared layout (its contiguity and the view's alignment)
//                 and the pointers (contiguity, alignment, mask) all allow;
//   lanes         where lane i of a warp writes one base + i x width (direct-
//                 to-LDS loads), the lanes' elements of each copy fill one
//                 window of consecutive width-slots; a layout that puts them
//                 there in another order (a swizzle) is lowered by having
//                 each lane copy the element its slot holds (AsyncCopyLanes).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_ASYNCCOPY_H
#define KILN_DIALECT_TILE_IR_ASYNCCOPY_H

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Target/Targets.h"

#include <optional>

namespace kiln::tile {

struct AsyncCopyWidth {
  /// Elements and bytes one thread moves per copy instruction.
  unsigned elements = 1, bytes = 0;
};

/// Which element each lane copies when the lanes of a warp write one base
/// + lane x width (TargetDesc::asyncCopyLaneContiguous). The lanes' elements
/// of a copy fill one window of consecutive slots; a swizzled layout puts
/// them there in another order, so lane l copies the element that lane
///   slotLanes(l) ^ warpLanes(warp) ^ copyLanes[g] ^ viewLane
/// holds in copy g (registers g x width ...), where a table applied to an
/// index is the XOR of its entries for the index's set bits: the slot of
/// the element lane j holds is linear in j's bits, and slotLanes inverts it.
struct AsyncCopyLanes {
  /// Per lane bit of the slot index, per warp bit, per copy.
  llvm::SmallVector<int64_t> slotLanes, warpLanes, copyLanes;
  int64_t viewLane = 0;
  /// Every lane copies its own element (no exchange needed).
  bool identity = true;
};

struct SharedAccessPlan;

/// The lane exchange for copies of `widthElements` elements per lane by the
/// access plan `lanes` (made with that width) into a view whose elements are
/// XORed with `xorOffset`; fails when some warp's elements of one copy do not
/// fill one window of lane-count consecutive slots.
mlir::FailureOr<AsyncCopyLanes> getAsyncCopyLanes(const SharedAccessPlan &lanes,
                                                  unsigned widthElements,
                                                  int64_t xorOffset);

/// Checks `ptrType` -> `dst` (whose first element is `dstAlignment` bytes
/// aligned, elements XORed with `dstXorOffset`, see getSharedXorOffset)
/// against the rules for `target` (no width rule without one).
/// `pointerElements` caps the width by what the pointers allow; without it
/// (the verifier) only the layouts bound the width. Reports a violated rule
/// through `emitError` and fails.
mlir::FailureOr<AsyncCopyWidth>
checkAsyncCopy(const TargetDesc *target, mlir::RankedTensorType ptrType,
               MemDescType dst, unsigned dstAlignment,
               std::optional<unsigned> pointerElements,
               llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
               int64_t dstXorOffset = 0);

/// The same, for a copy into the view `dst` (a memdesc value): its
/// alignment and place in its slot come from the views that made it.
mlir::FailureOr<AsyncCopyWidth>
checkAsyncCopy(const TargetDesc *target, mlir::RankedTensorType ptrType,
               mlir::Value dst, std::optional<unsigned> pointerElements,
               llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// checkAsyncCopy plus what every target's lowering needs: a non-zero
/// `other` only where masked lanes are branched around the copy
/// (TargetDesc::asyncCopyZeroFillsMasked), threads that only repeat others'
/// elements only where the target lowers them (asyncCopyBroadcastLanes).
/// `target` is required. The lowering asks it of each copy, the pipeliner
/// of each load it would turn into one.
mlir::FailureOr<AsyncCopyWidth> checkAsyncCopyLowerable(
    const TargetDesc &target, mlir::RankedTensorType ptrType, MemDescType dst,
    unsigned dstAlignment, int64_t dstXorOffset, unsigned pointerElements,
    bool nonZeroOther,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The same, asked silently: the rule a copy breaks, as the message the
/// lowering would give, or nothing when it is lowerable.
std::optional<std::string> whyAsyncCopyNotLowerable(
    mlir::MLIRContext *context, const TargetDesc &target,
    mlir::RankedTensorType ptrType, MemDescType dst, unsigned dstAlignment,
    unsigned pointerElements, bool nonZeroOther);

/// Copy instructions one thread issues for `copy` on `target` at the widest
/// width its layouts allow: never more than the lowering issues (the
/// pointers can only narrow the width, which adds instructions), so wait
/// counts built on it never overestimate. 0 when the copy is illegal, and
/// for a masked copy that is not masked by address (a wave may skip it).
unsigned getAsyncCopyInstructions(AsyncCopyOpInterface copy,
                                  const TargetDesc *target);

/// The target named by the module's tile.target around `op`, if any.
const TargetDesc *getEnclosingTarget(mlir::Operation *op);

} // namespace kiln::tile

#endif
