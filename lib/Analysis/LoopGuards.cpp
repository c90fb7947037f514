//===- LoopGuards.cpp - What branch conditions say about a loop's trips --===//
//
// Two facts the forward walk (ForwardWalk.h) uses to follow only executions
// that can happen: the trips branch conditions taken before a loop make it
// run at least, and a loop's iterations as consecutive segments by the
// guards `iv + d < x` of its body (once false, such a guard stays false).
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/ForwardWalk.h"
#include "kiln/Analysis/RingSlot.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

/// `v` through casts that keep a signed value (index_cast, extsi).
static Value stripSignedCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::ExtSIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// `ub` as ceildiv(x, s) for a positive constant s: `(x + s - 1) / s` in any
/// grouping of the constant (Python's `cdiv`, `(x + s) - 1`), or
/// arith.ceildivsi. The sum is assumed not to overflow.
static std::optional<std::pair<Value, int64_t>> asCeilDiv(Value ub) {
  ub = stripSignedCasts(ub);
  if (auto ceil = ub.getDefiningOp<arith::CeilDivSIOp>()) {
    std::optional<int64_t> s = constantInt(ceil.getRhs());
    if (s && *s > 0)
      return std::make_pair(stripSignedCasts(ceil.getLhs()), *s);
    return std::nullopt;
  }
  auto div = ub.getDefiningOp<arith::DivSIOp>();
  if (!div)
    return std::nullopt;
  std::optional<int64_t> s = constantInt(div.getRhs());
  if (!s || *s <= 0)
    return std::nullopt;
  auto [x, off] = linearIndex(div.getLhs());
  if (!x || off != *s - 1)
    return std::nullopt;
  return std::make_pair(stripSignedCasts(x), *s);
}

/// Testing only: the trips conditions imply as before min-trip facts (at
/// most one, none from a ceildiv bound); a brute-force test compares the
/// check's verdicts with and without them.
static llvm::cl::opt<bool> clNoMinTrips(
    "tile-async-no-min-trips", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("Take branch conditions before a loop as implying at most "
                   "one trip, never through a ceildiv bound (testing only)"));

int64_t async::impliedMinTrips(ArrayRef<std::pair<Value, bool>> taken,
                               scf::ForOp loop) {
  std::optional<int64_t> step = constantInt(loop.getStep());
  if (!step || *step <= 0 || loop.getUnsignedCmp())
    return 0;
  Value lb = stripSignedCasts(loop.getLowerBound()),
        ub = stripSignedCasts(loop.getUpperBound());
  std::optional<int64_t> lbConst = constantInt(lb);
  std::optional<std::pair<Value, int64_t>> ceil =
      clNoMinTrips ? std::nullopt : asCeilDiv(ub);
  auto same = [](Value a, Value b) {
    a = stripSignedCasts(a);
    b = stripSignedCasts(b);
    if (a == b)
      return true;
    std::optional<int64_t> x = constantInt(a), y = constantInt(b);
    return x && y && *x == *y;
  };
  // Trips of the loop when its upper bound is at least `ubMin`.
  auto tripsFrom = [&](int64_t ubMin) -> int64_t {
    if (!lbConst || ubMin <= *lbConst)
      return 0;
    return (ubMin - *lbConst + *step - 1) / *step;
  };
  int64_t trips = 0;
  using P = arith::CmpIPredicate;
  for (auto [cond, value] : taken) {
    auto cmp = cond.getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    P pred = value ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
    Value x = cmp.getLhs(), y = cmp.getRhs();
    // As "x < y" or "x <= y" (signed).
    if (pred == P::sgt || pred == P::sge) {
      std::swap(x, y);
      pred = pred == P::sgt ? P::slt : P::sle;
    }
    if (pred != P::slt && pred != P::sle)
      continue;
    // lb < ub itself.
    if (pred == P::slt && same(x, lb) && same(y, ub)) {
      trips = std::max<int64_t>(trips, 1);
      continue;
    }
    std::optional<int64_t> c = constantInt(stripSignedCasts(x));
    if (!c)
      continue;
    // The least value y can have: c < y, or c <= y.
    int64_t yMin = pred == P::slt ? *c + 1 : *c;
    // A constant below the upper bound itself.
    if (same(y, ub))
      trips = std::max(trips, tripsFrom(yMin));
    // Below the x of an upper bound ceildiv(x, s) (`for k in range(cdiv(K,
    // 64))` after `if 64 < K:`): ub >= ceildiv(yMin, s) (for yMin > 0).
    else if (ceil && same(y, ceil->first) && yMin > 0)
      trips = std::max(trips, tripsFrom((yMin + ceil->second - 1) /
                                        ceil->second));
  }
  return clNoMinTrips ? std::min<int64_t>(trips, 1) : trips;
}

/// Testing only: walk loops whole, as before guard segments (a brute-force
/// test compares the check's verdicts with and without them).
static llvm::cl::opt<bool> clNoGuardSegments(
    "tile-async-no-guard-segments", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("Walk loops without splitting them at iv + d < x guards "
                   "(testing only)"));

SmallVector<GuardSegment> async::guardSegments(scf::ForOp loop) {
  if (clNoGuardSegments)
    return {};
  std::optional<int64_t> step = constantInt(loop.getStep());
  if (!step || *step <= 0 || loop.getUnsignedCmp())
    return {};
  Value iv = loop.getInductionVar();
  // Guards `iv + d < x` (x defined outside the loop), each with the side
  // that means "true", grouped by x.
  struct Guard {
    Value cond;
    int64_t d;
    bool whenBelow; // the condition's value while iv + d < x
  };
  llvm::MapVector<Value, SmallVector<Guard>> byBound;
  auto invariant = [&](Value x) {
    if (auto arg = dyn_cast<BlockArgument>(x))
      return !loop->isAncestor(arg.getOwner()->getParentOp());
    return !loop->isAncestor(x.getDefiningOp());
  };
  using P = arith::CmpIPredicate;
  for (Operation &op : *loop.getBody()) {
    auto branch = dyn_cast<scf::IfOp>(&op);
    if (!branch)
      continue;
    auto cmp = branch.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    P pred = cmp.getPredicate();
    auto [base, off] = linearIndex(lhs);
    if (base != iv) { // x op iv + d: swap into iv + d op' x
      std::tie(base, off) = linearIndex(rhs);
      std::swap(lhs, rhs);
      switch (pred) {
      case P::slt: pred = P::sgt; break;
      case P::sle: pred = P::sge; break;
      case P::sgt: pred = P::slt; break;
      case P::sge: pred = P::sle; break;
      default: break;
      }
    }
    if (base != iv || !invariant(rhs))
      continue;
    // iv + off <pred> x, as "iv + d < x" and the side it is on.
    Guard g{branch.getCondition(), off, true};
    switch (pred) {
    case P::slt: break;
    case P::sle: g.d = off - 1; break;            // iv + off - 1 < x
    case P::sge: g.whenBelow = false; break;      // not (iv + off < x)
    case P::sgt: g.d = off - 1; g.whenBelow = false; break;
    default: continue;
    }
    byBound[rhs].push_back(g);
  }
  // The bound with the most guards; its guards turn false in the order of
  // decreasing d as iv grows (never back: iv + d grows), so the iterations
  // are consecutive segments, each possibly empty: all true, then those of
  // the largest d false, ..., all false.
  SmallVector<Guard> *best = nullptr;
  for (auto &[x, guards] : byBound)
    if (!best || guards.size() > best->size())
      best = &guards;
  if (!best)
    return {};
  SmallVector<int64_t> ds;
  for (const Guard &g : *best)
    ds.push_back(g.d);
  llvm::sort(ds, std::greater<int64_t>());
  ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
  SmallVector<GuardSegment> segments;
  for (size_t j = 0; j <= ds.size(); ++j) {
    GuardSegment &seg = segments.emplace_back();
    for (const Guard &g : *best) {
      // In segment j the guards of the j largest d are no longer below.
      bool below = !(j > 0 && g.d >= ds[j - 1]);
      seg.conditions.push_back({g.cond, below == g.whenBelow});
    }
    // Between two thresholds: x - ds[j-1] <= iv < x - ds[j].
    if (j > 0 && j < ds.size())
      seg.maxTrips = (ds[j - 1] - ds[j] + *step - 1) / *step;
  }
  return segments;
}
