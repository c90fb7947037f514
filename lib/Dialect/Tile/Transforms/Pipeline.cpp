//===- Pipeline.cpp - What the software-pipelining passes share -----------===//

#include "Pipeline.h"

#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Analysis/LoopDependence.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"


#include <limits>
#include <set>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

bool kiln::tile::pipeline::isZeroOrAbsent(Value v) {
  if (!v)
    return true;
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(a);
  return dense && dense.isSplat() &&
         (isa<FloatType>(dense.getElementType())
              ? dense.getSplatValue<APFloat>().isPosZero()
              : dense.getSplatValue<APInt>().isZero());
}

SmallVector<LocalAllocOp> kiln::tile::pipeline::getFilledAllocs(LoadOp load,
                                                                Block *body) {
  SmallVector<LocalAllocOp> allocs;
  for (Operation *user : load->getUsers()) {
    auto alloc = dyn_cast<LocalAllocOp>(user);
    if (!alloc || alloc->getBlock() != body ||
        (!allocs.empty() && alloc.getType() != allocs.front().getType()))
      return {};
    allocs.push_back(alloc);
  }
  return allocs;
}

SharedLayoutAttr
kiln::tile::pipeline::getStagingLayout(RankedTensorType type) {
  unsigned rank = type.getRank();
  int fastest = rank - 1;
  if (FailureOr<LinearLayout> ll = getLinearLayout(type);
      succeeded(ll) && ll->getNumBits(LinearLayout::Register) > 0) {
    const auto &b0 = ll->getBases(LinearLayout::Register)[0];
    for (unsigned d = 0; d < b0.size(); ++d)
      if (b0[d] != 0) {
        fastest = d;
        break;
      }
  }
  SmallVector<unsigned> order{unsigned(fastest)};
  for (int d = rank - 1; d >= 0; --d)
    if (d != fastest)
      order.push_back(d);
  return cast<SharedLayoutAttr>(
      SwizzledSharedEncodingAttr::get(type.getContext(), 1, 1, 1, order));
}

MemDescType kiln::tile::pipeline::getRingType(LoadOp load, Block *body,
                                              int64_t numStages) {
  auto type = cast<RankedTensorType>(load.getType());
  SmallVector<LocalAllocOp> allocs = getFilledAllocs(load, body);
  Attribute layout = allocs.empty()
                         ? Attribute(getStagingLayout(type))
                         : allocs.front().getType().getEncoding();
  SmallVector<int64_t> shape{numStages};
  llvm::append_range(shape, type.getShape());
  return MemDescType::get(load.getContext(), shape, type.getElementType(),
                          layout, /*mutableMemory=*/true, shape);
}

static bool isSlotView(Operation *op) {
  return isa<MemDescPermuteOp, MemDescSubsliceOp>(op);
}

bool kiln::tile::pipeline::viewsFollowSlot(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    bool makesView = llvm::any_of(user->getResultTypes(), [](Type t) {
      return isa<MemDescType>(t);
    });
    if (!makesView)
      continue;
    if (!isSlotView(user) || !viewsFollowSlot(user->getResult(0)))
      return false;
  }
  return true;
}

void kiln::tile::pipeline::retypeViews(Value slot) {
  auto slotType = cast<MemDescType>(slot.getType());
  for (Operation *user : slot.getUsers()) {
    if (!isSlotView(user))
      continue;
    Value view = user->getResult(0);
    auto old = cast<MemDescType>(view.getType());
    // The slot's leading (ring) dimensions, then the view's own.
    SmallVector<int64_t> alloc(slotType.getAllocShape().take_front(
        slotType.getAllocShape().size() - slotType.getShape().size()));
    llvm::append_range(alloc, old.getAllocShape());
    view.setType(MemDescType::get(old.getContext(), old.getShape(),
                                  old.getElementType(), old.getEncoding(),
                                  old.getMutableMemory(), alloc));
    retypeViews(view);
  }
}

//===----------------------------------------------------------------------===//
// Pipelining.h
//===----------------------------------------------------------------------===//

int64_t kiln::tile::pipeline::getNumStages(scf::ForOp loop) {
  auto n = TileDialect::NumStagesAttrHelper(loop.getContext()).getAttr(loop);
  return n ? n.getInt() : 0;
}

std::optional<int64_t> kiln::tile::pipeline::getStage(Operation *op) {
  auto s = TileDialect::StageAttrHelper(op->getContext()).getAttr(op);
  if (!s)
    return std::nullopt;
  return s.getInt();
}

int64_t kiln::tile::pipeline::getCluster(Operation *op) {
  auto c = TileDialect::ClusterAttrHelper(op->getContext()).getAttr(op);
  return c ? c.getInt() : 0;
}

void kiln::tile::pipeline::setStage(Operation *op, int64_t stage,
                                    int64_t cluster) {
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  TileDialect::StageAttrHelper(ctx).setAttr(op, b.getI32IntegerAttr(stage));
  TileDialect::ClusterAttrHelper(ctx).setAttr(op, b.getI32IntegerAttr(cluster));
}

bool kiln::tile::pipeline::isStaged(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator())
    if (getStage(&op))
      return true;
  return false;
}

std::optional<std::string>
kiln::tile::pipeline::whyNotPipelinable(scf::ForOp loop) {
    if (int64_t n = getNumStages(loop); n > kMaxPipelineStage + 1)
      return "num_stages=" + std::to_string(n) + " is more than " +
             std::to_string(kMaxPipelineStage + 1) + ", the most Kiln pipelines";
    if (!loop.getInductionVar().getType().isSignlessInteger(32))
      return std::string("its induction variable is not an i32 (ring slots "
                         "are i32)");
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 0)
      return std::string("its step is not a positive constant");
    // The pipelined loop counts iterations in i32: with a step of 2 or more
    // any i32 bounds give fewer than 2^31; with 1, the bounds must show it.
    if (*step == 1) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      bool fits = (lb && *lb >= 0) || (ub && *ub < 0) ||
                  (lb && ub && *ub - *lb <= INT32_MAX);
      if (!fits)
        return std::string(
            "with a step of 1 and a lower bound that may be negative, its "
            "trip count may not fit in 32 bits (give the loop a constant "
            "lower bound of 0 or more, or a step of 2 or more)");
    }
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == loop.getBody()) {
        if (arg != loop.getRegionIterArgs()[i])
          return "loop-carried value #" + std::to_string(i) +
                 " is another loop-carried value of the previous iteration "
                 "(a distance-2 recurrence)";
        continue;
      }
      if (loop.isDefinedOutsideOfLoop(v))
        return "loop-carried value #" + std::to_string(i) +
               " is a value defined before the loop";
    }
    return std::nullopt;
  }

/// "file:line" of a location, through call sites, names and fusions.
static std::string lineOf(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (f.getFilename().getValue() + ":" + Twine(f.getLine())).str();
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return lineOf(c.getCallee());
  if (auto n = dyn_cast<NameLoc>(loc))
    return lineOf(n.getChildLoc());
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (std::string s = lineOf(l); !s.empty())
        return s;
  return "";
}

std::optional<std::string> kiln::tile::pipeline::whyWritesBlockMove(
    scf::ForOp loop, Value ptr, int64_t numStages, Operation *waitPoint,
    StringRef what) {
  Block *body = loop.getBody();
  SmallVector<int64_t> distances;
  for (int64_t d = 0; d < numStages; ++d)
    distances.push_back(d);
  std::optional<LoopHazard> h =
      findLoopHazard(loop, ptr, distances, [&](Operation *write) {
        Operation *at = body->findAncestorOpInBlock(*write);
        return waitPoint && at && at->isBeforeInBlock(waitPoint);
      });
  if (!h)
    return std::nullopt;
  // The user's words for the write, not the op's name.
  std::string write = isa<StoreOp>(h->write)                    ? "the store"
                      : isa<AtomicRMWOp, AtomicCASOp>(h->write) ? "the atomic"
                                                                : "the write";
  if (std::string line = lineOf(h->write->getLoc()); !line.empty())
    write += " at " + line;
  std::string ahead = std::to_string(numStages - 1);
  if (h->kind == LoopHazard::Overlap)
    return write + " writes an element " + what.str() + " reads " +
           std::to_string(h->distance) + " iteration" +
           (h->distance == 1 ? "" : "s") + " later" +
           (h->distance == 0 ? " (in its own iteration, before the value "
                               "is used)"
                             : "") +
           ": issued " + ahead +
           " iterations ahead, the copy would read the element before it "
           "is written";
  return write + " writes through the same pointer argument and Kiln "
                 "cannot prove that it never writes an element " +
         what.str() + " reads up to " + ahead + " iterations later (" +
         h->why +
         "); pass the two through separate pointer arguments (Kiln "
         "assumes separate arguments do not overlap), or write their "
         "offsets as constants apart";
}

LogicalResult kiln::tile::pipeline::sliceOperands(
    scf::ForOp loop, Operation *root, llvm::SetVector<Operation *> &ops,
    std::string &why) {
    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    SmallVector<Value> work(root->getOperands());
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == body && arg != loop.getInductionVar())
          work.push_back(yield.getOperand(arg.getArgNumber() - 1));
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def->getBlock() != body)
        continue;
      if (def->getNumRegions() || !isMemoryEffectFree(def)) {
        why = "its address or mask depends on '" +
              def->getName().getStringRef().str() + "'" +
              (def == root ? "" : " in the loop") +
              ", which is not a pure op (loop-carried distance > 1 or "
              "memory effects)";
        return failure();
      }
      if (ops.insert(def))
        work.append(def->operand_begin(), def->operand_end());
    }
    return success();
  }

void kiln::tile::pipeline::assignTwoStages(
    scf::ForOp loop, const llvm::SetVector<Operation *> &stage0,
    bool copiesFirst) {
  int64_t numStages = getNumStages(loop);
    Block *body = loop.getBody();
    DenseMap<Value, Value> clones;
    std::function<Value(Value)> recompute = [&](Value v) -> Value {
      Operation *def = v.getDefiningOp();
      if (!def || !stage0.contains(def) || !isMemoryEffectFree(def))
        return v;
      if (Value done = clones.lookup(v))
        return done;
      SmallVector<Value> operands;
      for (Value o : def->getOperands())
        operands.push_back(recompute(o));
      OpBuilder b(def->getContext());
      b.setInsertionPointAfter(def);
      Operation *copy = b.clone(*def);
      copy->setOperands(operands);
      for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
        clones[from] = to;
      return clones.lookup(v);
    };
    for (Operation &op : llvm::make_early_inc_range(body->without_terminator())) {
      if (stage0.contains(&op))
        continue;
      // Uses inside the op's regions too (a value read under an scf.if).
      op.walk([&](Operation *user) {
        for (OpOperand &use : user->getOpOperands())
          if (Operation *def = use.get().getDefiningOp();
              def && def->getBlock() == body && stage0.contains(def) &&
              isMemoryEffectFree(def))
            use.set(recompute(use.get()));
      });
    }
    int64_t last = numStages - 1;
    for (Operation &op : body->without_terminator()) {
      bool first = stage0.contains(&op);
      pipeline::setStage(&op, first ? 0 : last,
                         clusterOf(&op, first, copiesFirst));
    }
  }

int64_t kiln::tile::pipeline::clusterOf(Operation *op, bool stage0,
                                        bool copiesFirst) {
  bool pure = op->getNumRegions() == 0 && isMemoryEffectFree(op);
  if (copiesFirst)
    return !stage0 ? 2 : pure ? 0 : 1;
  return stage0 ? 2 : 1;
}

void kiln::tile::pipeline::stageOpsBeside(scf::ForOp loop) {
  if (std::optional<int64_t> stage = getStage(loop))
    stageOpsBeside(loop, *stage, getCluster(loop));
}

void kiln::tile::pipeline::stageOpsBeside(scf::ForOp loop, int64_t stage,
                                          int64_t cluster) {
  // In a staged body every op had a stage: those without are new.
  for (Operation &op : loop->getBlock()->without_terminator())
    if (!getStage(&op))
      setStage(&op, stage, cluster);
}

void kiln::tile::pipeline::normalizeLoop(scf::ForOp loop) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lb == 0 && step == 1)
      return;
    Location loc = loop.getLoc();
    Type type = loop.getInductionVar().getType();
    OpBuilder b(loop);
    auto cst = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
    };
    Value lower = loop.getLowerBound(), stepV = loop.getStep();
    // The trip count in 64 bits (ub - lb overflows 32 for bounds of
    // opposite signs), then back: whyNotPipelinable proved it fits.
    Type i64 = b.getI64Type();
    auto wide = [&](Value v) {
      return arith::ExtSIOp::create(b, loc, i64, v).getResult();
    };
    auto cst64 = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
    };
    Value step64 = wide(stepV);
    Value span = arith::SubIOp::create(b, loc, wide(loop.getUpperBound()),
                                       wide(lower));
    Value rounded = arith::AddIOp::create(
        b, loc, span, arith::SubIOp::create(b, loc, step64, cst64(1)));
    Value trips64 = arith::MaxSIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, rounded, step64), cst64(0));
    Value trips = arith::TruncIOp::create(b, loc, type, trips64);
    Value zero = cst(0), one = cst(1);
    loop.setLowerBound(zero);
    loop.setUpperBound(trips);
    loop.setStep(one);
    Value j = loop.getInductionVar();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : j.getUses())
      uses.push_back(&use);
    Block *body = loop.getBody();
    OpBuilder ib = OpBuilder::atBlockBegin(body);
    Value ivs[2];
    for (OpOperand *use : uses) {
      Operation *owner = body->findAncestorOpInBlock(*use->getOwner());
      int64_t stage = *getStage(owner);
      Value &iv = ivs[stage == 0 ? 0 : 1];
      if (!iv) {
        Value scaled = arith::MulIOp::create(ib, loc, j, stepV);
        iv = arith::AddIOp::create(ib, loc, lower, scaled);
        int64_t cluster = getCluster(owner);
        setStage(scaled.getDefiningOp(), stage, cluster);
        setStage(iv.getDefiningOp(), stage, cluster);
      }
      use->set(iv);
    }
    stageOpsBeside(loop); // the trip count, before the loop
  }

namespace {

/// How many different values of `v` one thread holds: its registers'
/// elements, those in one run of equal elements (axis-analysis constancy)
/// counted once.
int64_t distinctValues(AxisInfoAnalysis &axis, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return 1;
  FailureOr<LinearLayout> layout = getLinearLayout(type);
  if (failed(layout))
    return type.getNumElements();
  AxisInfo info = axis.get(v);
  std::set<SmallVector<int64_t>> runs;
  for (int32_t r = 0, e = layout->getInSize(LinearLayout::Register); r < e;
       ++r) {
    LinearLayout::Basis c = layout->applyOne(LinearLayout::Register, r);
    SmallVector<int64_t> run;
    for (auto [d, x] : llvm::enumerate(c))
      run.push_back(x / std::max<int64_t>(
                            d < info.constancy.size() ? info.constancy[d] : 1,
                            1));
    runs.insert(run);
  }
  return std::max<int64_t>(runs.size(), 1);
}

/// Ands `pred` into the copy's `mask` where the mask has the fewest
/// different values: at an operand of its single-use andi / broadcast tree
/// (a mask of rows & columns is usually the and of a broadcast row mask and
/// a broadcast column mask, one of which a thread holds once), so the
/// predicate costs an instruction per such value, not one per copy. Returns
/// the mask, or null when no operand has fewer values than the mask itself.
Value andIntoNarrowestOperand(RewriterBase &rewriter, Value mask, Value pred) {
  if (!mask.hasOneUse())
    return {};
  AxisInfoAnalysis axis;
  auto cost = [&](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return std::make_pair(distinctValues(axis, v),
                          type ? type.getNumElements() : 1);
  };
  // Fewest values a thread holds first; then the smallest tensor (before a
  // broadcast rather than after it).
  OpOperand *best = nullptr;
  auto bestCost = std::make_pair(distinctValues(axis, mask),
                                 std::numeric_limits<int64_t>::max());
  int64_t maskCount = bestCost.first;
  std::function<void(Value)> walk = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || !isa<arith::AndIOp, BroadcastOp>(def))
      return;
    for (OpOperand &o : def->getOpOperands()) {
      if (auto c = cost(o.get()); c < bestCost) {
        best = &o;
        bestCost = c;
      }
      if (o.get().hasOneUse())
        walk(o.get());
    }
  };
  walk(mask);
  if (!best || bestCost.first >= maskCount)
    return {};
  Operation *owner = best->getOwner();
  // The predicate must be available where the operand is used.
  if (Operation *def = pred.getDefiningOp()) {
    if (def->getBlock() != owner->getBlock() ||
        !def->isBeforeInBlock(owner))
      return {};
  } else if (cast<BlockArgument>(pred).getOwner() != owner->getBlock()) {
    return {};
  }
  rewriter.setInsertionPoint(owner);
  Location loc = owner->getLoc();
  Value operand = best->get();
  Value splat = operand;
  if (auto type = dyn_cast<RankedTensorType>(operand.getType()))
    splat = SplatOp::create(rewriter, loc, type, pred);
  else
    splat = pred;
  Value both = arith::AndIOp::create(rewriter, loc, operand, splat);
  rewriter.modifyOpInPlace(owner, [&] { best->set(both); });
  return mask;
}

/// `op` executed only where `pred` holds (nullptr: cannot be predicated).
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  if (isa<AsyncCommitGroupOp>(op))
    return op; // an empty group keeps every iteration at one group
  if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
    rewriter.setInsertionPoint(copy);
    auto ptrType = cast<RankedTensorType>(copy.getPtr().getType());
    auto maskType = RankedTensorType::get(
        ptrType.getShape(), rewriter.getI1Type(), ptrType.getEncoding());
    Value mask;
    if (copy.getMask())
      mask = andIntoNarrowestOperand(rewriter, copy.getMask(), pred);
    if (!mask) {
      rewriter.setInsertionPoint(copy);
      mask = SplatOp::create(rewriter, copy.getLoc(), maskType, pred);
      if (copy.getMask())
        mask = arith::AndIOp::create(rewriter, copy.getLoc(), copy.getMask(),
                                     mask);
    }
    rewriter.setInsertionPoint(copy);
    auto masked = AsyncCopyGlobalToLocalOp::create(
        rewriter, copy.getLoc(), copy.getToken().getType(), copy.getPtr(),
        copy.getDst(), mask, copy.getOther(), copy.getCacheModifierAttr());
    masked->setDiscardableAttrs(copy->getDiscardableAttrDictionary());
    rewriter.replaceOp(copy, masked);
    return masked;
  }
  // A wait whose phase earlier iterations always complete (the TMA ring's
  // wait for a released slot) runs past the end as it is.
  if (isa<BarrierWaitOpInterface>(op) &&
      TileDialect::UnpredicatedAttrHelper(op->getContext()).isAttrPresent(op))
    return op;
  if (auto predicated = dyn_cast<PredicatedOpInterface>(op)) {
    rewriter.setInsertionPoint(op);
    Value both = pred;
    if (Value old = predicated.getPredicate())
      both = arith::AndIOp::create(rewriter, op->getLoc(), old, pred);
    rewriter.modifyOpInPlace(op, [&] { predicated.setPredicate(both); });
    return op;
  }
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op))
    return op;
  return nullptr;
}

void annotate(Operation *op, scf::PipeliningOption::PipelinerPart part,
              unsigned) {
  if (!isa<AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, AsyncWaitOp,
           BarrierCompletedWriteOpInterface, BarrierWaitOpInterface,
           BarrierArriveOpInterface>(op))
    return;
  MLIRContext *ctx = op->getContext();
  // An inner loop's prologue, moved into this loop's kernel, stays one.
  if (TileDialect::PipelinePartAttrHelper(ctx).getAttr(op))
    return;
  StringRef name =
      part == scf::PipeliningOption::PipelinerPart::Prologue ? "prologue"
                                                              : "kernel";
  TileDialect::PipelinePartAttrHelper(ctx).setAttr(
      op, StringAttr::get(ctx, name));
}

} // namespace

LogicalResult kiln::tile::pipeline::expandStagedLoop(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  int64_t numStages = getNumStages(loop);
  // Upstream's expander divides by the step and refuses some loops without
  // a word: those are errors here (a replayed or hand-staged loop).
  if (std::optional<std::string> why = whyNotPipelinable(loop))
    return loop.emitOpError() << "has tile.stage ops but cannot be "
                                 "pipelined: "
                              << *why;
  std::vector<std::pair<Operation *, unsigned>> schedule;
  for (Operation &op : loop.getBody()->without_terminator()) {
    std::optional<int64_t> stage = getStage(&op);
    if (!stage || *stage >= std::max<int64_t>(numStages, 1))
      return op.emitOpError()
             << "in a staged loop needs a tile.stage below the loop's "
                "tile.num_stages ("
             << numStages << ")";
    schedule.push_back({&op, unsigned(*stage)});
  }
  std::stable_sort(schedule.begin(), schedule.end(),
                   [](const auto &a, const auto &b) {
                     return getCluster(a.first) <
                            getCluster(b.first);
                   });
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
        s = schedule;
      };
  options.annotateFn = annotate;
  options.peelEpilogue = false;
  options.supportDynamicLoops = true;
  options.predicateFn = predicate;

  // The index arithmetic the expansion creates is folded afterwards; what
  // it creates beside the loop (prologue, results) takes the loop's place in
  // an enclosing staged loop.
  struct Collector : public RewriterBase::Listener {
    llvm::SetVector<Operation *> created, beside;
    Block *parent = nullptr;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (isa<arith::ArithDialect>(op->getDialect()))
        created.insert(op);
      if (op->getBlock() == parent)
        beside.insert(op);
    }
    void notifyOperationErased(Operation *op) override {
      created.remove(op);
      beside.remove(op);
    }
  } collector;
  collector.parent = loop->getBlock();
  std::optional<int64_t> outerStage = getStage(loop);
  int64_t outerCluster = getCluster(loop);
  Location loc = loop.getLoc();
  IRRewriter rewriter(ctx, &collector);
  rewriter.setInsertionPoint(loop);
  bool modified = false;
  FailureOr<scf::ForOp> result =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (failed(result)) {
    if (modified)
      return emitError(loc) << "the loop expander failed after changing the "
                               "loop; the module is left inconsistent";
    emitRemark(loc) << "loop not pipelined: the loop expander refused its "
                       "schedule";
    for (Operation &op : loop.getBody()->without_terminator()) {
      op.removeDiscardableAttr(TileDialect::StageAttrHelper::getNameStr());
      op.removeDiscardableAttr(TileDialect::ClusterAttrHelper::getNameStr());
    }
    return success();
  }
  // Only this loop's schedule is dropped: other loops of the function keep
  // theirs for their own expansion.
  auto unstage = [](Operation *op) {
    op->removeDiscardableAttr(TileDialect::StageAttrHelper::getNameStr());
    op->removeDiscardableAttr(TileDialect::ClusterAttrHelper::getNameStr());
  };
  for (Operation &op : result->getBody()->without_terminator())
    unstage(&op);
  for (Operation *op : collector.beside) {
    if (outerStage)
      setStage(op, *outerStage, outerCluster);
    else
      unstage(op);
  }
  result->getOperation()->removeDiscardableAttr(
      TileDialect::NumStagesAttrHelper::getNameStr());
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(collector.created.takeVector(),
                                FrozenRewritePatternSet(),
                                config);
  // Constants the folding materialized in an enclosing staged loop's body
  // serve the ops made here: they run where the loop ran.
  if (outerStage)
    stageOpsBeside(*result, *outerStage, outerCluster);
  return success();
}

