//===- PipelineBufferCopies.cpp - Pipelined copies masked by address ------===//
//
// tile-amd-pipeline-buffer-copies (Passes.td): the pipeliner predicates the
// copies of iterations past the end through their mask. A masked
// direct-to-LDS load is branched around by a wave whose lanes are all off,
// so it may issue nothing and tile-insert-wait-counts counts it as 0
// instructions: the loop then waits with vmcnt(0). Through a buffer
// resource the mask moves into the address (masked lanes read past the
// resource's end, which writes zeros), every wave issues the instruction,
// and the wait leaves exactly the copies issued after the awaited group.
//
// The resource addresses base + a 32-bit unsigned byte offset and reads
// zeros at and past its num_records (2^31 - 2: the target table's
// pointerRangeBytes, BufferOpToLLVM.cpp's kNumRecords), where the copy it
// replaces reads base + the sign-extended element offset. So a copy converts
// only where every element it may read provably lies in [0, 2^31 - 2) bytes
// of the base: integer range analysis bounds the sum of its offset terms
// (all lanes, masked or not) within it, or the base is a kernel argument
// marked tile.pointer_range = 32 (the launcher's promise that the
// argument's tensor is that small and the kernel stays inside it).
//
// Pointers carried around the loop and advanced by a loop-invariant i32
// offset each iteration (`ptrs += BK`, the textbook loop; after expansion
// the kernel loop's copies read the iter_arg) are converted too when their
// initial value is a ":range32" base plus i32 offsets: the loop then also
// carries those offsets (advanced by the same amount). The i32 running sum
// is exact wherever a lane reads: it equals the true offset modulo 2^32,
// which the launcher's promise puts in [0, 2^31).
//
// Masked stores in loops whose waits count instructions (loops with
// direct-to-LDS copies) become buffer stores under the same conditions:
// masked lanes write past the resource's end, so every wave issues the
// store and the wait may count it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/IntRanges.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace kiln::tile_amd {
#define GEN_PASS_DEF_TILEAMDPIPELINEBUFFERCOPIESPASS
#include "kiln/Dialect/TileAMD/Transforms/Passes.h.inc"
} // namespace kiln::tile_amd

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// A tensor of pointers as one scalar base plus i32 element offsets of the
/// same shape and layout (null offsets: all zero), rebuilt at `b`.
struct Decomposed {
  Value base, offsets;
};

/// The scalar base of a pointer tensor `decompose` accepts, and the i32
/// offset tensors it adds up (as they are, before any rebuilding); a null
/// base where the chain is not one.
Value collectTerms(Value ptrs, SmallVectorImpl<Value> &terms) {
  Operation *def = ptrs.getDefiningOp();
  if (auto splat = dyn_cast_or_null<SplatOp>(def))
    return splat.getSrc();
  if (auto add = dyn_cast_or_null<AddPtrOp>(def)) {
    auto offType = dyn_cast<RankedTensorType>(add.getOffset().getType());
    if (!offType || !offType.getElementType().isInteger(32))
      return Value();
    terms.push_back(add.getOffset());
    return collectTerms(add.getPtr(), terms);
  }
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def))
    return collectTerms(bc.getSrc(), terms);
  if (auto ex = dyn_cast_or_null<ExpandDimsOp>(def))
    return collectTerms(ex.getSrc(), terms);
  return Value();
}

FailureOr<Decomposed> decompose(Value ptrs, OpBuilder &b) {
  Location loc = ptrs.getLoc();
  auto type = cast<RankedTensorType>(ptrs.getType());
  auto offsetType = RankedTensorType::get(type.getShape(), b.getI32Type(),
                                          type.getEncoding());
  Operation *def = ptrs.getDefiningOp();
  if (auto splat = dyn_cast_or_null<SplatOp>(def))
    return Decomposed{splat.getSrc(), Value()};
  if (auto add = dyn_cast_or_null<AddPtrOp>(def)) {
    auto offType = dyn_cast<RankedTensorType>(add.getOffset().getType());
    if (!offType || !offType.getElementType().isInteger(32))
      return failure();
    FailureOr<Decomposed> inner = decompose(add.getPtr(), b);
    if (failed(inner))
      return failure();
    Value sum = add.getOffset();
    if (inner->offsets)
      sum = arith::AddIOp::create(b, loc, inner->offsets, sum);
    return Decomposed{inner->base, sum};
  }
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    FailureOr<Decomposed> inner = decompose(bc.getSrc(), b);
    if (failed(inner) || !inner->offsets)
      return inner;
    return Decomposed{inner->base,
                      BroadcastOp::create(b, loc, offsetType, inner->offsets)};
  }
  if (auto ex = dyn_cast_or_null<ExpandDimsOp>(def)) {
    FailureOr<Decomposed> inner = decompose(ex.getSrc(), b);
    if (failed(inner) || !inner->offsets)
      return inner;
    return Decomposed{inner->base,
                      ExpandDimsOp::create(b, loc, offsetType, inner->offsets,
                                           ex.getAxisAttr())};
  }
  return failure();
}

bool isZeroOrAbsent(Value v) {
  return !v || matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// Whether `base` is a kernel argument the launcher specialized as "every
/// access within 2^31 - 2 bytes" (tile.pointer_range = 32).
bool hasPointerRange(Value base) {
  auto arg = dyn_cast<BlockArgument>(base);
  if (!arg)
    return false;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return false;
  auto range = func.getArgAttrOfType<IntegerAttr>(
      arg.getArgNumber(), TileDialect::PointerRangeAttrHelper::getNameStr());
  return range && range.getInt() == 32;
}

/// Why the offsets `terms` (summed, in elements of `elementBytes`) are not
/// proven within the resource, or "" where they are.
std::string whyNotInRange(ArrayRef<Value> terms, unsigned elementBytes,
                          int64_t resourceBytes, const IntRanges &ranges) {
  // The last element read must end at or below the resource's end.
  int64_t maxOffset = resourceBytes / elementBytes - 1;
  // Each term is an i32, so 64-bit sums of a few of them cannot overflow;
  // within [0, maxOffset] the i32 sum the conversion builds is exact too.
  int64_t lo = 0, hi = 0;
  for (Value term : terms) {
    std::optional<std::pair<int64_t, int64_t>> r = ranges.getSigned(term);
    if (!r || (r->first == std::numeric_limits<int32_t>::min() &&
               r->second == std::numeric_limits<int32_t>::max()))
      return "its offsets depend on a value with no known bound (an integer "
             "argument, a loop with unknown bounds, an overflowing product)";
    lo += r->first;
    hi += r->second;
  }
  std::string why;
  llvm::raw_string_ostream os(why);
  if (lo < 0)
    os << "its offsets may be negative (as low as " << lo << " elements)";
  else if (hi > maxOffset)
    os << "its offsets may reach " << hi << " elements, past the " << maxOffset
       << " of 2 GiB";
  return why;
}

/// The i32 offsets of a decomposition, zeros where it has none.
Value offsetsOrZeros(const Decomposed &parts, Value ptrs, OpBuilder &b) {
  if (parts.offsets)
    return parts.offsets;
  auto type = cast<RankedTensorType>(ptrs.getType());
  return arith::ConstantOp::create(
      b, ptrs.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get(type.getShape(),
                                                   b.getI32Type(),
                                                   type.getEncoding()),
                             b.getI32IntegerAttr(0).getValue()));
}

/// The copy rebuilt as a buffer-resource load of `base` + `offsets`.
void replaceWithBufferCopy(AsyncCopyGlobalToLocalOp copy, Value base,
                           Value offsets) {
  OpBuilder b(copy);
  auto buffer = tile_amd::BufferLoadToLocalOp::create(
      b, copy.getLoc(), copy.getToken().getType(), base, offsets,
      copy.getDst(), copy.getMask(), Value(), b.getStringAttr(""));
  buffer->setDiscardableAttrs(copy->getDiscardableAttrDictionary());
  copy.getToken().replaceAllUsesWith(buffer.getToken());
  copy.erase();
}

/// Pointers that are an scf.for iter_arg advanced by a loop-invariant i32
/// offset each iteration, from an initial value of one scalar base plus i32
/// offsets.
struct Carried {
  scf::ForOp loop;
  BlockArgument arg;
  Value base, delta;
};

std::optional<Carried> matchCarried(Value ptrs) {
  auto arg = dyn_cast<BlockArgument>(ptrs);
  if (!arg)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg == loop.getInductionVar())
    return std::nullopt;
  OpOperand *init = loop.getTiedLoopInit(arg);
  OpOperand *yielded = loop.getTiedLoopYieldedValue(arg);
  if (!init || !yielded)
    return std::nullopt;
  auto add = yielded->get().getDefiningOp<AddPtrOp>();
  // Loop-invariant: from before the loop, or a constant (the pipeliner's
  // expansion may clone constants into the body).
  if (!add || add.getPtr() != arg ||
      !(loop.isDefinedOutsideOfLoop(add.getOffset()) ||
        matchPattern(add.getOffset(), m_Constant())))
    return std::nullopt;
  auto offType = dyn_cast<RankedTensorType>(add.getOffset().getType());
  if (!offType || !offType.getElementType().isInteger(32))
    return std::nullopt;
  SmallVector<Value> terms;
  Value base = collectTerms(init->get(), terms);
  if (!base)
    return std::nullopt;
  return Carried{loop, arg, base, add.getOffset()};
}

/// Adds an i32 offsets iter_arg beside the carried pointers (initial
/// offsets, advanced by the same delta) and reads `copies` through it.
LogicalResult convertCarried(Carried c,
                             ArrayRef<AsyncCopyGlobalToLocalOp> copies) {
  IRRewriter rewriter(c.loop.getContext());
  rewriter.setInsertionPoint(c.loop);
  Value init = c.loop.getTiedLoopInit(c.arg)->get();
  FailureOr<Decomposed> parts = decompose(init, rewriter);
  if (failed(parts))
    return failure();
  Value start = offsetsOrZeros(*parts, init, rewriter);
  Value delta = c.delta;
  FailureOr<LoopLikeOpInterface> grown =
      cast<LoopLikeOpInterface>(c.loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, ValueRange{start},
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &b, Location loc,
                  ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                return {arith::AddIOp::create(b, loc, args[0], delta)};
              });
  if (failed(grown))
    return failure();
  Value offsets = grown->getRegionIterArgs().back();
  for (AsyncCopyGlobalToLocalOp copy : copies)
    replaceWithBufferCopy(copy, parts->base, offsets);
  return success();
}

/// Whether `loop`'s body (nested ops too) issues or waits for
/// direct-to-LDS copies: its waits count vector-memory instructions.
bool hasCountedWaits(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<AsyncCopyOpInterface, AsyncWaitOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a layout gives some element to several lanes or warps (their
/// stores are predicated to one owner by tile.store's lowering; a buffer
/// store would let every holder write).
bool repeatsAcrossThreads(RankedTensorType type) {
  FailureOr<LinearLayout> ll = getLinearLayout(type);
  if (failed(ll))
    return true;
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Basis &b : ll->getBases(in))
      if (llvm::all_of(b, [](int32_t x) { return x == 0; }))
        return true;
  return false;
}

/// Masked stores in loops with counted waits become buffer stores: a
/// masked global store is branched around by a wave whose lanes are all
/// off, so the wait count may rely on none of its instructions; through a
/// buffer resource the mask moves into the address (masked lanes write past
/// the resource's end, which the hardware drops) and every wave issues it.
/// Same conditions as the copies: one scalar base plus i32 offsets, within
/// [0, 2 GiB) of the base (a ':range32' argument or bounded offsets).
void convertStores(ModuleOp module, const IntRanges &ranges,
                   int64_t resourceBytes) {
  SmallVector<StoreOp> stores;
  module.walk([&](StoreOp store) {
    auto loop = store->getParentOfType<scf::ForOp>();
    if (store.getMask() && loop && hasCountedWaits(loop) &&
        !repeatsAcrossThreads(
            cast<RankedTensorType>(store.getValue().getType())))
      stores.push_back(store);
  });
  for (StoreOp store : stores) {
    SmallVector<Value> terms;
    Value base = collectTerms(store.getPtr(), terms);
    if (!base)
      continue;
    if (!hasPointerRange(base)) {
      auto ptrType = cast<PointerType>(
          cast<RankedTensorType>(store.getPtr().getType()).getElementType());
      if (!whyNotInRange(terms, getElementBytes(ptrType.getPointeeType()),
                         resourceBytes, ranges)
               .empty())
        continue;
    }
    OpBuilder b(store);
    FailureOr<Decomposed> parts = decompose(store.getPtr(), b);
    if (failed(parts))
      continue;
    auto buffer = tile_amd::BufferStoreOp::create(
        b, store.getLoc(), store.getValue(), parts->base,
        offsetsOrZeros(*parts, store.getPtr(), b), store.getMask(),
        b.getStringAttr(""));
    buffer->setDiscardableAttrs(store->getDiscardableAttrDictionary());
    store.erase();
  }
}

struct PipelineBufferCopies
    : tile_amd::impl::TileAMDPipelineBufferCopiesPassBase<
          PipelineBufferCopies> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "amd")
      return;
    // The bytes a buffer resource reads (the target table's, matching
    // BufferOpToLLVM.cpp's num_records): every byte a converted copy reads
    // must lie below it.
    int64_t resourceBytes = context->target->pointerRangeBytes;
    if (resourceBytes <= 0)
      return;
    // Ranges of the module as it is, before any copy or store is rebuilt.
    IntRanges ranges(module);
    convertStores(module, ranges, resourceBytes);
    SmallVector<AsyncCopyGlobalToLocalOp> copies;
    module.walk([&](AsyncCopyGlobalToLocalOp copy) {
      if (copy.getMask() && isZeroOrAbsent(copy.getOther()) &&
          TileDialect::PipelinePartAttrHelper(&getContext()).getAttr(copy))
        copies.push_back(copy);
    });
    if (copies.empty())
      return;
    SmallVector<AsyncCopyGlobalToLocalOp> proven;
    // Copies reading carried pointers, by iter_arg (converted below).
    llvm::MapVector<Value, SmallVector<AsyncCopyGlobalToLocalOp>> carried;
    for (AsyncCopyGlobalToLocalOp copy : copies) {
      SmallVector<Value> terms;
      Value base = collectTerms(copy.getPtr(), terms);
      if (!base) {
        std::optional<Carried> c = matchCarried(copy.getPtr());
        if (c && hasPointerRange(c->base)) {
          carried[copy.getPtr()].push_back(copy);
          continue;
        }
        copy.emitRemark()
            << "the pipelined copy keeps a global direct-to-LDS load (the "
               "loop waits with vmcnt(0)): "
            << (c ? "its pointers are carried around the loop from a base "
                    "not specialized as under 2 GiB (signature marker "
                    "':range32', as a launch marks such a tensor)"
                  : "its pointers are not one scalar base plus i32 offsets "
                    "(a splat pointer advanced by i32 tensors), nor such "
                    "pointers carried around the loop and advanced by a "
                    "loop-invariant amount")
            << ", all a buffer resource addresses";
        continue;
      }
      if (hasPointerRange(base)) {
        proven.push_back(copy);
        continue;
      }
      auto ptrType = cast<PointerType>(
          cast<RankedTensorType>(copy.getPtr().getType()).getElementType());
      std::string why =
          whyNotInRange(terms, getElementBytes(ptrType.getPointeeType()),
                        resourceBytes, ranges);
      if (why.empty()) {
        proven.push_back(copy);
        continue;
      }
      copy.emitRemark()
          << "the pipelined copy keeps a global direct-to-LDS load (the loop "
             "waits with vmcnt(0)): "
          << why
          << ", so they are not proven within [0, 2 GiB) of the base, all a "
             "buffer resource reads; a pointer argument whose tensor is under "
             "2 GiB is specialized so at launch (signature marker "
             "':range32'), or the offsets may come from values the compiler "
             "can bound (constants, ranges, loops with constant bounds)";
    }
    for (AsyncCopyGlobalToLocalOp copy : proven) {
      OpBuilder b(copy);
      FailureOr<Decomposed> parts = decompose(copy.getPtr(), b);
      assert(succeeded(parts) && "collectTerms accepted the chain");
      replaceWithBufferCopy(copy, parts->base,
                            offsetsOrZeros(*parts, copy.getPtr(), b));
    }
    // One iter_arg at a time: growing a loop replaces it, so the next
    // group's loop is matched again from its (moved) copies.
    for (auto &[ptrs, group] : carried) {
      std::optional<Carried> c = matchCarried(group.front().getPtr());
      if (!c || failed(convertCarried(*c, group)))
        group.front().emitRemark()
            << "the pipelined copy keeps a global direct-to-LDS load (the "
               "loop waits with vmcnt(0)): its carried pointers could not "
               "be rebuilt as a base plus offsets";
    }
  }
};

} // namespace
