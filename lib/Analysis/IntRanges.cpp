//===- IntRanges.cpp - Integer ranges of index arithmetic -----------------===//

#include "kiln/Analysis/IntRanges.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace kiln;

namespace {

/// The range `pred(x, c)` promises for x (nullopt: no bound it can state).
std::optional<ConstantIntRanges> rangeFromCompare(arith::CmpIPredicate pred,
                                                  const APInt &c) {
  unsigned w = c.getBitWidth();
  APInt smin = APInt::getSignedMinValue(w), smax = APInt::getSignedMaxValue(w);
  APInt umin = APInt::getMinValue(w), umax = APInt::getMaxValue(w);
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
    return ConstantIntRanges::constant(c);
  case P::sge:
    return ConstantIntRanges::fromSigned(c, smax);
  case P::sgt:
    if (c == smax)
      return std::nullopt; // never true: nothing sound to say but everything
    return ConstantIntRanges::fromSigned(c + 1, smax);
  case P::sle:
    return ConstantIntRanges::fromSigned(smin, c);
  case P::slt:
    if (c == smin)
      return std::nullopt;
    return ConstantIntRanges::fromSigned(smin, c - 1);
  case P::uge:
    return ConstantIntRanges::fromUnsigned(c, umax);
  case P::ugt:
    if (c == umax)
      return std::nullopt;
    return ConstantIntRanges::fromUnsigned(c + 1, umax);
  case P::ule:
    return ConstantIntRanges::fromUnsigned(umin, c);
  case P::ult:
    if (c.isZero())
      return std::nullopt;
    return ConstantIntRanges::fromUnsigned(umin, c - 1);
  default:
    return std::nullopt;
  }
}

/// `pred` with its operands swapped (c pred x == x swapped(pred) c).
arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::sgt: return P::slt;
  case P::sge: return P::sle;
  case P::slt: return P::sgt;
  case P::sle: return P::sge;
  case P::ugt: return P::ult;
  case P::uge: return P::ule;
  case P::ult: return P::ugt;
  case P::ule: return P::uge;
  default: return pred;
  }
}

/// Ranges that `cond` (true) promises for kernel arguments: comparisons of
/// an argument with a constant, and conjunctions of them.
void collectPromises(Value cond, DenseMap<Value, ConstantIntRanges> &out) {
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    collectPromises(andOp.getLhs(), out);
    collectPromises(andOp.getRhs(), out);
    return;
  }
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return;
  Value x = cmp.getLhs();
  APInt c;
  arith::CmpIPredicate pred = cmp.getPredicate();
  if (!matchPattern(cmp.getRhs(), m_ConstantInt(&c))) {
    if (!matchPattern(cmp.getLhs(), m_ConstantInt(&c)))
      return;
    x = cmp.getRhs();
    pred = swapped(pred);
  }
  auto arg = dyn_cast<BlockArgument>(x);
  if (!arg || !arg.getOwner()->isEntryBlock() ||
      !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return;
  std::optional<ConstantIntRanges> r = rangeFromCompare(pred, c);
  if (!r)
    return;
  auto it = out.find(x);
  if (it == out.end())
    out.try_emplace(x, *r);
  else
    it->second = it->second.intersection(*r);
}

/// Upstream IntegerRangeAnalysis, but a kernel argument starts from what the
/// kernel's `tile.assume`s promise about it instead of its whole type.
class AssumingRangeAnalysis : public dataflow::IntegerRangeAnalysis {
public:
  AssumingRangeAnalysis(DataFlowSolver &solver,
                        const DenseMap<Value, ConstantIntRanges> &promised)
      : IntegerRangeAnalysis(solver), promised(promised) {}

  void setToEntryState(dataflow::IntegerValueRangeLattice *lattice) override {
    auto it = promised.find(lattice->getAnchor());
    if (it == promised.end())
      return IntegerRangeAnalysis::setToEntryState(lattice);
    propagateIfChanged(lattice, lattice->join(IntegerValueRange(it->second)));
  }

private:
  const DenseMap<Value, ConstantIntRanges> &promised;
};

} // namespace

IntRanges::IntRanges(Operation *root) {
  // A promise counts only where it always runs: a tile.assume at the top
  // level of a function's body (it holds for the argument's one value).
  root->walk([&](FunctionOpInterface fn) {
    if (fn.isExternal())
      return;
    for (Operation &op : fn.getFunctionBody().front())
      if (auto assume = dyn_cast<tile::AssumeOp>(op))
        if (assume.getCond().getType().isInteger(1))
          collectPromises(assume.getCond(), promised);
  });
  // IntegerRangeAnalysis reads liveness from DeadCodeAnalysis, which in turn
  // needs constant propagation to decide branches.
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AssumingRangeAnalysis>(promised);
  ok = succeeded(solver.initializeAndRun(root));
}

std::optional<ConstantIntRanges> IntRanges::get(Value v) const {
  if (!ok)
    return std::nullopt;
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

std::optional<std::pair<int64_t, int64_t>>
IntRanges::getSigned(Value v) const {
  std::optional<ConstantIntRanges> range = get(v);
  if (!range || range->smin().getBitWidth() > 64)
    return std::nullopt;
  return std::make_pair(range->smin().getSExtValue(),
                        range->smax().getSExtValue());
}
