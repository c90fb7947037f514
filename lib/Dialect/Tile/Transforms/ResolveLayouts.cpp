//===- ResolveLayouts.cpp - infer #tile.coalesced and #tile.auto layouts --===//
//
// Kernel authors may leave register layouts to the compiler, as in Gluon:
// `#tile.coalesced` tensors get a blocked layout chosen from the axis
// analysis of the pointers a load or store reads, and `#tile.auto` tensors
// take the layouts `tile.set_auto_layout` fixes. Both are propagated the same
// way, forward and backward:
//
//  - ops whose tensor operands and results share one layout (elementwise
//    arith/math ops, addptr, load, store, broadcast) pass it to all of them;
//  - expand_dims maps a slice layout to its parent and back, a reduction the
//    parent to the slice (and a slice result back to its parent), a reshape
//    one side's layout to the other's as a linear layout of the same
//    registers, a split its source's layout without the pair to the
//    results and theirs with the pair as a first register basis back (a
//    join the same, the other way);
//  - values that control flow ties (a loop's init, body argument, yield and
//    result; an if's yields and result) share one layout;
//  - convert_layout, arange, splat and constants only receive layouts.
//
// Seeds are taken in program order, each propagated to a fixed point. When a
// `set_auto_layout` wants a layout that disagrees with what earlier seeds
// gave (Gluon reports "conflicting encodings" there), its propagation is
// undone and the op becomes a convert_layout, with a remark naming both
// layouts: the kernel still compiles and the author sees the cost. Any other
// disagreement, and any tensor no seed reaches, is an error at its op.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace kiln::tile {
#define GEN_PASS_DEF_TILERESOLVELAYOUTSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// Values whose types control flow forces to be equal, as groups.
class TiedValues {
public:
  explicit TiedValues(Operation *root) {
    root->walk([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = loop.getBody()->getTerminator();
        for (unsigned i = 0; i < loop.getNumResults(); ++i) {
          unite(loop.getInitArgs()[i], loop.getRegionIterArgs()[i]);
          unite(loop.getInitArgs()[i], loop.getResult(i));
          unite(loop.getInitArgs()[i], yield->getOperand(i));
        }
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (unsigned i = 0; i < branch.getNumResults(); ++i) {
          unite(branch.getResult(i), branch.thenYield()->getOperand(i));
          if (!branch.getElseRegion().empty())
            unite(branch.getResult(i), branch.elseYield()->getOperand(i));
        }
      } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
        Block *before = loop.getBeforeBody(), *after = loop.getAfterBody();
        auto cond = loop.getConditionOp();
        for (unsigned i = 0; i < before->getNumArguments(); ++i) {
          unite(loop.getInits()[i], before->getArgument(i));
          unite(loop.getInits()[i], after->getTerminator()->getOperand(i));
        }
        for (unsigned i = 0; i < after->getNumArguments(); ++i) {
          unite(cond.getArgs()[i], after->getArgument(i));
          unite(cond.getArgs()[i], loop.getResult(i));
        }
      }
    });
    for (auto &[v, p] : parent)
      groups[find(v)].push_back(v);
  }

  /// `v` and every value tied to it.
  SmallVector<Value> group(Value v) {
    auto it = parent.find(v);
    if (it == parent.end())
      return {v};
    return groups[find(v)];
  }

private:
  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end()) {
      parent[v] = v;
      return v;
    }
    if (it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }
  void unite(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent[ra] = rb;
  }

  llvm::MapVector<Value, Value> parent;
  DenseMap<Value, SmallVector<Value>> groups;
};

/// Ops whose tensor operands and results all have one layout.
bool sharesOneLayout(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || op->hasTrait<SharesOneLayout>();
}

RankedTensorType tensorType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// `layout` of a tensor of `from`'s shape, as the layout of the same
/// elements (row-major) in `toShape`: a linear layout (reshape moves no
/// element between threads).
Attribute reshapedLayout(Attribute layout, RankedTensorType from,
                         ArrayRef<int64_t> toShape) {
  auto typed =
      RankedTensorType::get(from.getShape(), from.getElementType(), layout);
  FailureOr<LinearLayout> ll = getLinearLayout(typed);
  if (failed(ll))
    return {};
  SmallVector<int32_t> sizes(toShape.begin(), toShape.end());
  return LinearEncodingAttr::get(layout.getContext(), ll->reshapeOuts(sizes));
}

/// tile.split's results' layout for a source in `layout` (`src`'s shape):
/// the source's without the pair and the last dimension.
Attribute splitLayout(Attribute layout, RankedTensorType src) {
  auto typed =
      RankedTensorType::get(src.getShape(), src.getElementType(), layout);
  FailureOr<LinearLayout> ll = getLinearLayout(typed);
  if (failed(ll))
    return {};
  return LinearEncodingAttr::get(layout.getContext(),
                                 ll->removeOutDim(src.getRank() - 1));
}

/// tile.split's source layout for results in `layout` (shape `dst`): the
/// slice's parent where the results are a slice along the pair, else the
/// results' layout with the pair as a new first register basis (Gluon's).
Attribute joinedLayout(Attribute layout, RankedTensorType dst) {
  unsigned rank = dst.getRank();
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout))
    if (slice.getDim() == rank)
      return slice.getParent();
  FailureOr<LinearLayout> ll = getLinearLayout(
      RankedTensorType::get(dst.getShape(), dst.getElementType(), layout));
  if (failed(ll))
    return {};
  std::array<LinearLayout::Bases, LinearLayout::kNumInDims> bases;
  LinearLayout::Basis pair(rank, 0);
  pair.push_back(1);
  bases[LinearLayout::Register].push_back(pair);
  for (auto in : {LinearLayout::Register, LinearLayout::Lane,
                  LinearLayout::Warp})
    for (LinearLayout::Basis b : ll->getBases(in)) {
      b.push_back(0);
      bases[in].push_back(b);
    }
  SmallVector<int32_t> sizes(ll->getOutSizes());
  sizes.push_back(2);
  return LinearEncodingAttr::get(layout.getContext(),
                                 LinearLayout(std::move(bases), sizes));
}

/// Whether `layout` (on the pair tensor `pair`) holds both elements of each
/// pair in one thread's registers, as tile.split and tile.join need.
bool pairInRegisters(Attribute layout, RankedTensorType pair) {
  FailureOr<LinearLayout> ll = getLinearLayout(
      RankedTensorType::get(pair.getShape(), pair.getElementType(), layout));
  return succeeded(ll) && holdsPairInRegisters(*ll);
}

/// Where propagation met a layout other than the one a value has.
struct Conflict {
  Operation *op = nullptr;
  Value value;
  Attribute have, want;
  std::string why; // set where the op, not a value, rejects the layout
};

/// One propagation round over a function, for the placeholder `isTarget`
/// accepts.
class Propagation {
public:
  Propagation(TiedValues &ties, function_ref<bool(Attribute)> isTarget)
      : ties(ties), isTarget(isTarget) {}

  /// Gives `v` layout `layout` and propagates it to a fixed point; on a
  /// disagreement returns it and leaves the state as it was.
  std::optional<Conflict> seed(Value v, Attribute layout, Operation *at) {
    auto saved = chosen;
    worklist.clear();
    std::optional<Conflict> c = assign(v, layout, at);
    while (!c && !worklist.empty()) {
      Value next = worklist.pop_back_val();
      c = visit(next);
    }
    if (c)
      chosen = std::move(saved);
    return c;
  }

  const llvm::MapVector<Value, Attribute> &result() const { return chosen; }

  /// The layout `v` has now: the chosen one, or its type's.
  Attribute current(Value v) const {
    auto it = chosen.find(v);
    if (it != chosen.end())
      return it->second;
    auto t = tensorType(v);
    return t ? t.getEncoding() : Attribute();
  }

private:
  std::optional<Conflict> assign(Value v, Attribute layout, Operation *at) {
    auto t = tensorType(v);
    if (!t || !layout)
      return std::nullopt;
    if (!isTarget(t.getEncoding())) {
      // A fixed layout (or the other placeholder, resolved in its own round).
      if (isUnresolvedLayout(t.getEncoding()) || t.getEncoding() == layout)
        return std::nullopt;
      return Conflict{at, v, t.getEncoding(), layout, {}};
    }
    auto it = chosen.find(v);
    if (it != chosen.end()) {
      if (it->second == layout)
        return std::nullopt;
      return Conflict{at, v, it->second, layout, {}};
    }
    for (Value u : ties.group(v)) {
      chosen[u] = layout;
      worklist.push_back(u);
    }
    return std::nullopt;
  }

  /// A reshape's other side: a linear layout, which agrees with a layout the
  /// value already has when the two place the elements alike.
  std::optional<Conflict> assignReshaped(Value v, Attribute layout,
                                         Operation *at) {
    Attribute have = current(v);
    auto t = tensorType(v);
    if (have && layout && t && !isUnresolvedLayout(have) && !isTarget(have)) {
      auto typed = [&](Attribute a) {
        return RankedTensorType::get(t.getShape(), t.getElementType(), a);
      };
      FailureOr<LinearLayout> a = getLinearLayout(typed(have)),
                              b = getLinearLayout(typed(layout));
      if (succeeded(a) && succeeded(b) && *a == *b)
        return std::nullopt;
    }
    return assign(v, layout, at);
  }

  std::optional<Conflict> assignAll(ValueRange values, Attribute layout,
                                    Operation *at) {
    for (Value v : values)
      if (auto c = assign(v, layout, at))
        return c;
    return std::nullopt;
  }

  std::optional<Conflict> visit(Value v) {
    Attribute layout = chosen.lookup(v);
    for (OpOperand &use : v.getUses())
      if (auto c = forward(use.getOwner(), layout))
        return c;
    if (Operation *def = v.getDefiningOp())
      return backward(def, layout);
    return std::nullopt;
  }

  /// The sources of `reduce` get `layout` (they share one), its tensor
  /// results the slice of it.
  std::optional<Conflict> assignReduce(ReduceOp reduce, Attribute layout) {
    if (auto c = assignAll(reduce.getSrcs(), layout, reduce))
      return c;
    if (!tensorType(reduce.getResult(0)))
      return std::nullopt;
    return assignAll(reduce.getResults(),
                     SliceEncodingAttr::get(reduce->getContext(),
                                            reduce.getAxis(), layout),
                     reduce);
  }

  /// A split's source or a join's result got `layout`, which must hold each
  /// pair in one thread's registers (the ops move no data).
  std::optional<Conflict> checkPair(Operation *op, Value pair,
                                    Attribute layout) {
    if (pairInRegisters(layout, tensorType(pair)))
      return std::nullopt;
    Conflict c{op, pair, layout, {}, {}};
    llvm::raw_string_ostream(c.why)
        << op->getName().stripDialect()
        << " needs both elements of each pair in one thread's registers, "
           "but the layout inferred for its "
        << (isa<SplitOp>(op) ? "source" : "result") << " is " << layout
        << "; convert_layout the "
        << (isa<SplitOp>(op) ? "source" : "result") << " where they are apart";
    return c;
  }

  /// An operand of `op` got `layout`.
  std::optional<Conflict> forward(Operation *op, Attribute layout) {
    if (sharesOneLayout(op)) {
      if (auto c = assignAll(op->getOperands(), layout, op))
        return c;
      return assignAll(op->getResults(), layout, op);
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto slice = dyn_cast<SliceEncodingAttr>(layout);
      unsigned axis = expand.getAxis();
      if (!slice || slice.getDim() != axis) {
        Conflict c{op, expand.getSrc(), layout, {}, {}};
        llvm::raw_string_ostream(c.why)
            << "expand_dims along axis " << axis
            << " needs a source layout #tile.slice<{dim = " << axis
            << ", ...}>, but the layout inferred for its source is "
            << layout;
        return c;
      }
      return assign(expand.getResult(), slice.getParent(), op);
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return assignReshaped(reshape.getResult(),
                            reshapedLayout(layout, reshape.getSrc().getType(),
                                           reshape.getResult().getType().getShape()),
                            op);
    if (auto reduce = dyn_cast<ReduceOp>(op))
      return assignReduce(reduce, layout);
    if (auto split = dyn_cast<SplitOp>(op)) {
      if (auto c = checkPair(op, split.getSrc(), layout))
        return c;
      Attribute halves = splitLayout(layout, split.getSrc().getType());
      if (auto c = assignReshaped(split.getLhs(), halves, op))
        return c;
      return assignReshaped(split.getRhs(), halves, op);
    }
    if (auto join = dyn_cast<JoinOp>(op)) {
      for (Value half : join->getOperands())
        if (auto c = assignReshaped(half, layout, op))
          return c;
      return assignReshaped(join.getResult(),
                            joinedLayout(layout, join.getLhs().getType()), op);
    }
    return std::nullopt;
  }

  /// The result of `op` got `layout`.
  std::optional<Conflict> backward(Operation *op, Attribute layout) {
    if (sharesOneLayout(op)) {
      if (auto c = assignAll(op->getOperands(), layout, op))
        return c;
      return assignAll(op->getResults(), layout, op);
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op))
      return assign(expand.getSrc(),
                    SliceEncodingAttr::get(op->getContext(), expand.getAxis(),
                                           layout),
                    op);
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return assignReshaped(reshape.getSrc(),
                            reshapedLayout(layout, reshape.getResult().getType(),
                                           reshape.getSrc().getType().getShape()),
                            op);
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      auto slice = dyn_cast<SliceEncodingAttr>(layout);
      if (slice && slice.getDim() == reduce.getAxis())
        return assignReduce(reduce, slice.getParent());
    }
    if (auto split = dyn_cast<SplitOp>(op)) {
      for (Value half : split->getResults())
        if (auto c = assignReshaped(half, layout, op))
          return c;
      return assignReshaped(split.getSrc(),
                            joinedLayout(layout, split.getLhs().getType()), op);
    }
    if (auto join = dyn_cast<JoinOp>(op)) {
      if (auto c = checkPair(op, join.getResult(), layout))
        return c;
      Attribute halves = splitLayout(layout, join.getType());
      for (Value half : join->getOperands())
        if (auto c = assignReshaped(half, halves, op))
          return c;
      return std::nullopt;
    }
    return std::nullopt;
  }

  TiedValues &ties;
  function_ref<bool(Attribute)> isTarget;
  llvm::MapVector<Value, Attribute> chosen;
  SmallVector<Value> worklist;
};

void describe(InFlightDiagnostic &d, const Conflict &c) {
  if (!c.why.empty()) {
    d << c.why;
    return;
  }
  d << "conflicting layouts inferred for " << c.value.getType() << ": "
    << c.have << " and " << c.want;
}

/// Writes the chosen layouts into the IR (types and splat constants).
void apply(const llvm::MapVector<Value, Attribute> &chosen) {
  for (auto [v, layout] : chosen) {
    auto t = cast<RankedTensorType>(v.getType());
    auto nt = RankedTensorType::get(t.getShape(), t.getElementType(), layout);
    v.setType(nt);
    if (auto cst = v.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<SplatElementsAttr>(cst.getValue()))
        cst.setValueAttr(
            SplatElementsAttr::get(nt, dense.getSplatValue<Attribute>()));
  }
}

/// The blocked layout Kiln picks for coalesced accesses through `ptr`: the
/// dimensions by falling contiguity (ties: the last dimension first), as
/// many elements per thread along the first as its contiguity, alignment and
/// the widest access allow (no more than the tensor has per thread), then
/// lanes and warps filled along that order.
Attribute coalescedLayout(Value ptr, AxisInfoAnalysis &axis, int numWarps,
                          int lanes, unsigned maxVectorBytes) {
  auto type = cast<RankedTensorType>(ptr.getType());
  unsigned rank = type.getRank();
  AxisInfo info = axis.get(ptr);
  SmallVector<unsigned> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if (info.contiguity[a] != info.contiguity[b])
      return info.contiguity[a] > info.contiguity[b];
    return a > b;
  });
  Type pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  // Pointers to pointers hold 8-byte elements.
  int64_t bytes = pointee.isIntOrFloat()
                      ? std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8)
                      : 8;
  unsigned fast = order[0];
  int64_t numel = type.getNumElements();
  int64_t perThread = std::min<int64_t>(info.contiguity[fast],
                                        type.getDimSize(fast));
  perThread = std::min<int64_t>(
      perThread, std::max<int64_t>(1, info.divisibility[fast] / bytes));
  perThread = std::min<int64_t>(perThread, std::max<int64_t>(
                                               1, maxVectorBytes / bytes));
  perThread = std::min<int64_t>(
      perThread, std::max<int64_t>(1, numel / (int64_t(numWarps) * lanes)));
  perThread = int64_t(1) << llvm::Log2_64(std::max<int64_t>(perThread, 1));

  SmallVector<unsigned> size(rank, 1), threads(rank, 1), warps(rank, 1);
  size[fast] = perThread;
  int64_t leftThreads = int64_t(numWarps) * lanes;
  int64_t leftLanes = lanes, leftWarps = numWarps;
  for (unsigned k = 0; k + 1 < rank; ++k) {
    unsigned d = order[k];
    int64_t room = std::max<int64_t>(1, type.getDimSize(d) / size[d]);
    int64_t here = std::clamp<int64_t>(leftThreads, 1, room);
    threads[d] = std::clamp<int64_t>(here, 1, leftLanes);
    warps[d] = std::clamp<int64_t>(here / threads[d], 1, leftWarps);
    leftLanes /= threads[d];
    leftWarps /= warps[d];
    leftThreads /= here;
  }
  threads[order[rank - 1]] = leftLanes;
  warps[order[rank - 1]] = leftWarps;
  return BlockedEncodingAttr::get(type.getContext(), size, threads, warps,
                                  order);
}

class ResolveLayoutsPass
    : public kiln::tile::impl::TileResolveLayoutsPassBase<ResolveLayoutsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Layouts are inferred within a function (Gluon inlines every call).
    for (auto func : module.getOps<FunctionOpInterface>()) {
      for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                             func.getResultTypes()))
        if (hasUnresolvedLayout(t)) {
          func->emitError() << "function arguments and results need fixed "
                               "layouts, got "
                            << t;
          return signalPassFailure();
        }
    }
    bool any = false;
    module.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        any |= hasUnresolvedLayout(t);
    });
    if (!any)
      return;
    const TargetDesc *desc = target.empty() ? nullptr : lookupTarget(target);
    if (!desc)
      desc = getEnclosingTarget(module);
    unsigned maxVectorBytes = desc ? desc->maxVectorBytes : 16;
    int lanes = getThreadsPerWarp(module);
    int numWarps = getNumWarps(module);

    TiedValues ties(module);
    AxisInfoAnalysis axis(module);
    // Round 1: coalesced layouts, seeded by the loads and stores.
    {
      Propagation round(ties, [](Attribute a) {
        return isa_and_nonnull<CoalescedEncodingAttr>(a);
      });
      WalkResult r = module.walk([&](Operation *op) {
        Value ptr;
        if (auto load = dyn_cast<LoadOp>(op))
          ptr = load.getPtr();
        else if (auto store = dyn_cast<StoreOp>(op))
          ptr = store.getPtr();
        auto t = ptr ? tensorType(ptr) : RankedTensorType();
        if (!t || !isa_and_nonnull<CoalescedEncodingAttr>(t.getEncoding()))
          return WalkResult::advance();
        Attribute layout =
            coalescedLayout(ptr, axis, lookupNumWarps(op, numWarps), lanes,
                            maxVectorBytes);
        if (auto c = round.seed(ptr, layout, op)) {
          auto d = c->op->emitError();
          describe(d, *c);
          d.attachNote(op->getLoc())
              << "the coalesced layout of this access is " << layout;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return signalPassFailure();
      apply(round.result());
    }
    // Round 2: automatic layouts, seeded by set_auto_layout in program order.
    SmallVector<SetAutoLayoutOp> fixes;
    module.walk([&](SetAutoLayoutOp op) { fixes.push_back(op); });
    Propagation round(ties, [](Attribute a) {
      return isa_and_nonnull<AutoEncodingAttr>(a);
    });
    SmallVector<std::pair<SetAutoLayoutOp, Conflict>> converts;
    for (SetAutoLayoutOp op : fixes) {
      Attribute layout = op.getType().getEncoding();
      if (isUnresolvedLayout(layout))
        continue; // reported below
      if (auto c = round.seed(op.getSrc(), layout, op)) {
        if (!c->why.empty()) {
          // The op, not another set_auto_layout, rejects the layout.
          auto d = c->op->emitError();
          describe(d, *c);
          d.attachNote(op->getLoc()) << "the layout comes from here";
          return signalPassFailure();
        }
        converts.push_back({op, *c});
      }
    }
    apply(round.result());
    for (SetAutoLayoutOp op : fixes) {
      if (op.getSrc().getType() == op.getType()) {
        op.getResult().replaceAllUsesWith(op.getSrc());
        op->erase();
      }
    }
    for (auto &[op, c] : converts) {
      if (hasUnresolvedLayout(op.getSrc().getType())) {
        // Nothing else fixes the source: the disagreement is the error.
        auto d = c.op->emitError();
        describe(d, c);
        d.attachNote(op->getLoc()) << "the layout comes from here";
        return signalPassFailure();
      }
      op->emitRemark()
                    << "set_auto_layout becomes a convert_layout from "
                    << tensorType(op.getSrc()).getEncoding() << " to "
                    << op.getType().getEncoding()
                    << ": an earlier set_auto_layout already gave its source "
                       "the first (data moves between threads here)";
      OpBuilder b(op);
      auto cvt = ConvertLayoutOp::create(b, op.getLoc(), op.getType(),
                                         op.getSrc());
      op.getResult().replaceAllUsesWith(cvt.getResult());
      op->erase();
    }
    // Whatever no seed reached.
    WalkResult r = module.walk([&](Operation *op) {
      auto check = [&](Type t) -> bool {
        auto tt = dyn_cast<RankedTensorType>(t);
        if (!tt || !isUnresolvedLayout(tt.getEncoding()))
          return true;
        if (isa<CoalescedEncodingAttr>(tt.getEncoding()))
          op->emitError() << "no load or store reads pointers laid out like "
                          << tt
                          << ", so Kiln has no access to choose its coalesced "
                             "layout from; give it a layout "
                             "(kl.set_auto_layout or a layout argument)";
        else
          op->emitError() << "cannot infer the layout of " << tt
                          << ": no kl.set_auto_layout or fixed-layout "
                             "operand reaches it; give it a layout";
        return false;
      };
      for (Type t : op->getResultTypes())
        if (!check(t))
          return WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (!check(arg.getType()))
              return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return signalPassFailure();
    // The chosen layouts are checked like the user's.
    if (failed(verifyModuleLayouts(module, numWarps, lanes)))
      return signalPassFailure();
  }
};

} // namespace
