//===- AsyncCopy.cpp - The rules every async copy obeys -------------------===//

#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

static std::string widthList(unsigned mask) {
  std::string out;
  for (unsigned w = 1; w < 32; ++w)
    if (mask & (1u << w))
      out += (out.empty() ? "" : ", ") + std::to_string(w);
  return out;
}

FailureOr<AsyncCopyWidth> kiln::tile::checkAsyncCopy(
    const TargetDesc *target, RankedTensorType ptrType, MemDescType dst,
    unsigned dstAlignment, std::optional<unsigned> pointerElements,
    function_ref<InFlightDiagnostic()> emitError, int64_t dstXorOffset) {
  Type pointee = cast<PointerType>(ptrType.getElementType()).getPointeeType();
  if (dst.getElementType() != pointee)
    return emitError() << "async copy rule 'element type': the buffer holds "
                       << dst.getElementType() << " but the pointers point to "
                       << pointee;
  if (dst.getShape() != ArrayRef<int64_t>(getCtaShape(ptrType)))
    return emitError() << "async copy rule 'shape': the buffer " << dst
                       << " and the pointer tensor " << ptrType
                       << " differ in shape";
  if (!dst.getMutableMemory())
    return emitError() << "async copy rule 'mutable': the buffer " << dst
                       << " is not mutable";
  auto tensorType = RankedTensorType::get(ptrType.getShape(), pointee,
                                          ptrType.getEncoding());
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, dst, dstAlignment, 16, dstXorOffset);
  if (failed(plan))
    return emitError() << "cannot address " << dst << " with the layout of "
                       << ptrType;
  unsigned elemBytes = getElementBytes(pointee);
  AsyncCopyWidth width;
  width.elements = plan->vec;
  if (pointerElements)
    width.elements = std::min(width.elements, *pointerElements);
  width.bytes = width.elements * elemBytes;
  if (!target)
    return width;
  unsigned legal = target->asyncCopyWidths;
  if (legal == 0)
    return emitError() << "async copies are not supported on " << target->name
                       << " (Kiln lowers no asynchronous global-to-shared "
                          "copy for it yet)";
  // The widest legal width the vector allows (every narrower power of two
  // splits the vector evenly).
  unsigned chosen = 0;
  for (unsigned bytes = width.bytes; bytes >= elemBytes && bytes > 0;
       bytes /= 2)
    if (bytes < 32 && (legal & (1u << bytes))) {
      chosen = bytes;
      break;
    }
  if (chosen == 0) {
    InFlightDiagnostic diag = emitError();
    diag << "async copy rule 'width': " << target->asyncCopyName << " on "
         << target->name << " moves " << widthList(legal)
         << " bytes per thread, but this copy can move only " << width.bytes
         << " bytes (" << width.elements << " x " << pointee << ") at once: ";
    if (pointerElements && *pointerElements < plan->vec)
      diag << "the pointers are contiguous and aligned (or the mask is "
              "constant) for only "
           << *pointerElements << " element(s)";
    else
      diag << "the register layout and the shared layout " << dst
           << " keep only " << plan->vec
           << " element(s) of a thread consecutive in the buffer";
    return diag;
  }
  unsigned vectorBytes = width.bytes, vectorElements = width.elements;
  width.bytes = chosen;
  width.elements = chosen / elemBytes;
  if (target->asyncCopyLaneContiguous) {
    // Lane i of a warp writes at one base + i x width: a warp's elements of
    // one copy must fill one window of consecutive slots (in lane order, or
    // in another order the lowering undoes by exchanging lanes' elements:
    // getAsyncCopyLanes).
    FailureOr<SharedAccessPlan> lanes = planSharedAccess(
        tensorType, dst, dstAlignment, width.bytes, dstXorOffset);
    if (failed(lanes))
      return emitError() << "cannot address " << dst << " with the layout of "
                         << ptrType;
    // The consecutive elements a thread holds from its first register (its
    // vector before any width cap): a run longer than one copy spaces its
    // lanes by the run, and the width is the rule to fix first.
    int64_t run = 0;
    while (run < int64_t(lanes->registerOffsets.size()) &&
           lanes->registerOffsets[run] == run)
      ++run;
    if (run * elemBytes > vectorBytes) {
      vectorBytes = run * elemBytes;
      vectorElements = run;
    }
    auto complain = [&]() -> InFlightDiagnostic {
      if (vectorBytes > width.bytes)
        return emitError()
               << "async copy rule 'width': " << target->asyncCopyName
               << " on " << target->name << " moves " << widthList(legal)
               << " bytes per lane, but each thread of the layout of "
               << ptrType << " holds " << vectorBytes << " consecutive bytes ("
               << vectorElements << " x " << pointee
               << "), so its lanes cannot write consecutive " << width.bytes
               << "-byte slots: give each thread " << width.bytes
               << " bytes along the contiguous dimension (size_per_thread "
               << width.elements << ")";
      return emitError() << "async copy rule 'lanes': a " << target->asyncCopyName
                         << " on " << target->name << " writes lane i of a warp at "
                         << "one base + i x " << width.bytes
                         << " bytes, but the layout of " << ptrType
                         << " does not put a warp's elements of one copy in "
                         << (int64_t(1) << lanes->laneBitOffsets.size())
                         << " consecutive " << width.bytes << "-byte slots of "
                         << dst;
    };
    FailureOr<AsyncCopyLanes> exchange =
        getAsyncCopyLanes(*lanes, width.elements, dstXorOffset);
    // A permuted window needs its slots consecutive in memory: no padding.
    if (failed(exchange) ||
        (!exchange->identity && !lanes->paddings.empty()))
      return complain();
  }
  return width;
}

FailureOr<AsyncCopyLanes>
kiln::tile::getAsyncCopyLanes(const SharedAccessPlan &lanes,
                              unsigned widthElements, int64_t xorOffset) {
  int64_t w = widthElements;
  unsigned n = lanes.laneBitOffsets.size();
  int64_t window = w << n;
  if (lanes.vec < widthElements)
    return failure();
  // The slot (within the window) a part of an offset moves an element by;
  // none when it does not move it by whole slots.
  auto slotOf = [&](int64_t o) -> std::optional<int64_t> {
    o &= window - 1;
    if (o % w)
      return std::nullopt;
    return o / w;
  };
  // Lane bit k moves the element by slot s_k, inside the window; the s_k
  // must be independent (then they span all 2^n slots). Invert the map by
  // elimination over GF(2): rows pair a slot combination with the lanes
  // that make it.
  SmallVector<std::pair<int64_t, int64_t>> rows;
  bool identity = true;
  for (auto [k, o] : llvm::enumerate(lanes.laneBitOffsets)) {
    if (o < 0 || o >= window || o % w)
      return failure();
    rows.push_back({o / w, int64_t(1) << k});
    identity &= o == (w << k);
  }
  for (unsigned bit = 0; bit < n; ++bit) {
    auto pivot = llvm::find_if(llvm::drop_begin(rows, bit), [&](auto &r) {
      return (r.first >> bit) & 1;
    });
    if (pivot == rows.end())
      return failure(); // two lane bits move to one slot: broadcast lanes
    std::swap(rows[bit], *pivot);
    for (unsigned i = 0; i < n; ++i)
      if (i != bit && ((rows[i].first >> bit) & 1)) {
        rows[i].first ^= rows[bit].first;
        rows[i].second ^= rows[bit].second;
      }
  }
  AsyncCopyLanes result;
  for (unsigned bit = 0; bit < n; ++bit)
    result.slotLanes.push_back(rows[bit].second);
  auto laneOf = [&](int64_t o) -> std::optional<int64_t> {
    std::optional<int64_t> s = slotOf(o);
    if (!s)
      return std::nullopt;
    int64_t lane = 0;
    for (unsigned bit = 0; bit < n; ++bit)
      if ((*s >> bit) & 1)
        lane ^= result.slotLanes[bit];
    return lane;
  };
  for (int64_t o : lanes.warpBitOffsets) {
    std::optional<int64_t> l = laneOf(o);
    if (!l)
      return failure();
    result.warpLanes.push_back(*l);
    identity &= *l == 0;
  }
  for (size_t r = 0; r < lanes.registerOffsets.size(); r += w) {
    std::optional<int64_t> l = laneOf(lanes.registerOffsets[r]);
    if (!l)
      return failure();
    result.copyLanes.push_back(*l);
    identity &= *l == 0;
  }
  std::optional<int64_t> view = laneOf(xorOffset);
  if (!view)
    return failure();
  result.viewLane = *view;
  result.identity = identity && *view == 0;
  return result;
}

FailureOr<AsyncCopyWidth> kiln::tile::checkAsyncCopy(
    const TargetDesc *target, RankedTensorType ptrType, Value dst,
    std::optional<unsigned> pointerElements,
    function_ref<InFlightDiagnostic()> emitError) {
  return checkAsyncCopy(target, ptrType, cast<MemDescType>(dst.getType()),
                        getSharedBaseAlignment(dst), pointerElements,
                        emitError, getSharedXorOffset(dst));
}

FailureOr<AsyncCopyWidth> kiln::tile::checkAsyncCopyLowerable(
    const TargetDesc &target, RankedTensorType ptrType, MemDescType dst,
    unsigned dstAlignment, int64_t dstXorOffset, unsigned pointerElements,
    bool nonZeroOther, function_ref<InFlightDiagnostic()> emitError) {
  FailureOr<AsyncCopyWidth> width =
      checkAsyncCopy(&target, ptrType, dst, dstAlignment, pointerElements,
                     emitError, dstXorOffset);
  if (failed(width))
    return failure();
  if (nonZeroOther && target.asyncCopyZeroFillsMasked) {
    emitError() << "a non-zero 'other' is not lowered for " << target.name
                << ": the copy writes zeros where the mask is false (store "
                   "'other' after the wait instead)";
    return failure();
  }
  if (target.asyncCopyBroadcastLanes)
    return width;
  // Threads that only repeat others' elements. A warp that repeats another
  // warp's issues the same copy (the same bytes to the same slots, so every
  // warp's wait counts stay the same: a warp that skipped its copies would
  // see its older copies as the newest and return from a wait early); lanes
  // that repeat others' cannot write consecutive slots and are not lowered.
  auto tensorType = RankedTensorType::get(
      ptrType.getShape(), dst.getElementType(), ptrType.getEncoding());
  FailureOr<SharedAccessPlan> plan = planSharedAccess(
      tensorType, dst, dstAlignment, width->bytes, dstXorOffset);
  if (failed(plan) || plan->redundantLaneMask) {
    emitError() << "this async copy (with broadcast threads) is not lowered "
                   "for "
                << target.name
                << " yet: give the pointers a layout in which every thread "
                   "owns distinct elements";
    return failure();
  }
  return width;
}

std::optional<std::string> kiln::tile::whyAsyncCopyNotLowerable(
    MLIRContext *context, const TargetDesc &target, RankedTensorType ptrType,
    MemDescType dst, unsigned dstAlignment, unsigned pointerElements,
    bool nonZeroOther) {
  std::optional<std::string> why;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
    if (!why)
      why = d.str();
    return success();
  });
  Location loc = UnknownLoc::get(context);
  if (failed(checkAsyncCopyLowerable(target, ptrType, dst, dstAlignment,
                                     /*dstXorOffset=*/0, pointerElements,
                                     nonZeroOther,
                                     [&] { return mlir::emitError(loc); })))
    return why ? why : std::optional<std::string>("not lowerable");
  return std::nullopt;
}

const TargetDesc *kiln::tile::getEnclosingTarget(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return nullptr;
  auto name = TileDialect::TargetAttrHelper(op->getContext()).getAttr(module);
  return name ? lookupTarget(name.getValue()) : nullptr;
}

unsigned kiln::tile::getAsyncCopyInstructions(AsyncCopyOpInterface copy,
                                              const TargetDesc *target) {
  // A wave whose lanes are all masked off may branch around the copy.
  if (copy.getMask() && !copy.masksByAddress())
    return 0;
  RankedTensorType ptrType = copy.getPointerType();
  // Diagnostics are the verifier's business; here only the width counts.
  ScopedDiagnosticHandler silence(copy->getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<AsyncCopyWidth> width = checkAsyncCopy(
      target, ptrType, copy.getDst(), std::nullopt,
      [&] { return copy->emitOpError(); });
  if (failed(width))
    return 0;
  Type pointee = cast<PointerType>(ptrType.getElementType()).getPointeeType();
  auto tensorType = RankedTensorType::get(ptrType.getShape(), pointee,
                                          ptrType.getEncoding());
  FailureOr<SharedAccessPlan> plan = planSharedAccess(
      tensorType, cast<MemDescType>(copy.getDst().getType()),
      getSharedBaseAlignment(copy.getDst()), width->bytes,
      getSharedXorOffset(copy.getDst()));
  if (failed(plan))
    return 0;
  unsigned n = 0;
  for (unsigned r = 0; r < plan->registerOffsets.size(); r += plan->vec)
    if ((r & plan->redundantRegisterMask) == 0)
      ++n;
  return n;
}
