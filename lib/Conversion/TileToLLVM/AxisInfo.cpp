//===- AxisInfo.cpp - Contiguity, divisibility and constancy --------------===//

#include "AxisInfo.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo a;
  a.contiguity.assign(rank, 1);
  a.divisibility.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

static int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return AxisInfo::kMaxDivisibility;
  int64_t d = v & -v;
  return std::min(std::abs(d), AxisInfo::kMaxDivisibility);
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

static unsigned rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return 1;
}

static SmallVector<int64_t> shapeOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return SmallVector<int64_t>(t.getShape());
  return {1};
}

AxisInfo AxisInfoAnalysis::get(Value v) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  // Insert a conservative value first so that cycles (loop block arguments)
  // terminate.
  cache[v] = AxisInfo::unknown(rankOf(v));
  AxisInfo info = compute(v);
  return cache[v] = info;
}

/// a + b (or a - b when `sub`): contiguous runs survive where the other side
/// is constant.
static AxisInfo addInfo(const AxisInfo &a, const AxisInfo &b, bool sub) {
  AxisInfo r = AxisInfo::unknown(a.getRank());
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t c = gcd(a.contiguity[d], b.constancy[d]);
    if (!sub)
      c = std::max(c, gcd(a.constancy[d], b.contiguity[d]));
    r.contiguity[d] = c;
    r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  return r;
}

AxisInfo AxisInfoAnalysis::compute(Value v) {
  unsigned rank = rankOf(v);
  AxisInfo unknown = AxisInfo::unknown(rank);

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front())
      return unknown;
    if (auto d = func.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(), TileDialect::kDivisibilityAttr))
      unknown.divisibility[0] = std::max<int64_t>(1, pow2Divisor(d.getInt()));
    return unknown;
  }

  Operation *op = v.getDefiningOp();
  SmallVector<int64_t> shape = shapeOf(v);
  auto full = [&](AxisInfo r) {
    r.constancy.assign(shape.begin(), shape.end());
    return r;
  };

  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](arith::ConstantOp c) {
        AxisInfo r = full(unknown);
        APInt value;
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          r.divisibility.assign(rank, pow2Divisor(i.getInt()));
        else if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
                 dense && isa<IntegerType>(dense.getElementType()))
          r.divisibility.assign(
              rank, pow2Divisor(dense.getSplatValue<APInt>().getSExtValue()));
        return r;
      })
      .Case([&](ArangeOp a) {
        AxisInfo r = unknown;
        r.contiguity[0] = shape[0];
        r.divisibility[0] = pow2Divisor(static_cast<int32_t>(a.getStart()));
        return r;
      })
      .Case([&](SplatOp s) {
        AxisInfo r = full(unknown);
        r.divisibility.assign(rank, get(s.getSrc()).divisibility[0]);
        return r;
      })
      .Case([&](BroadcastOp bc) {
        AxisInfo src = get(bc.getSrc());
        AxisInfo r = src;
        auto srcShape = bc.getSrc().getType().getShape();
        for (unsigned d = 0; d < rank; ++d)
          if (srcShape[d] == 1 && shape[d] != 1) {
            r.constancy[d] = shape[d];
            r.contiguity[d] = 1;
          }
        return r;
      })
      .Case([&](ExpandDimsOp e) {
        AxisInfo r = get(e.getSrc());
        unsigned axis = e.getAxis();
        r.contiguity.insert(r.contiguity.begin() + axis, 1);
        r.divisibility.insert(r.divisibility.begin() + axis,
                              r.divisibility.empty() ? 1 : r.divisibility[0]);
        r.constancy.insert(r.constancy.begin() + axis, 1);
        return r;
      })
      .Case([&](ConvertLayoutOp c) { return get(c.getSrc()); })
      .Case([&](AddPtrOp a) {
        AxisInfo p = get(a.getPtr());
        AxisInfo off = get(a.getOffset());
        Type elem = cast<PointerType>(getElementTypeOrSelf(a.getPtr().getType()))
                        .getPointeeType();
        int64_t bytes = getElementBytes(elem);
        for (int64_t &d : off.divisibility)
          d = std::min(d * bytes, AxisInfo::kMaxDivisibility);
        return addInfo(p, off, /*sub=*/false);
      })
      .Case([&](arith::AddIOp a) {
        return addInfo(get(a.getLhs()), get(a.getRhs()), false);
      })
      .Case([&](arith::SubIOp a) {
        return addInfo(get(a.getLhs()), get(a.getRhs()), true);
      })
      .Case([&](arith::MulIOp m) {
        AxisInfo a = get(m.getLhs()), b = get(m.getRhs());
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d) {
          r.divisibility[d] = std::min(a.divisibility[d] * b.divisibility[d],
                                       AxisInfo::kMaxDivisibility);
          r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        }
        return r;
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(
          [&](Operation *e) { return get(e->getOperand(0)); })
      .Case([&](arith::CmpIOp c) {
        AxisInfo a = get(c.getLhs()), b = get(c.getRhs());
        AxisInfo r = unknown;
        // x < n (and x >= n) stays constant over an aligned contiguous run of
        // x when n is constant there and both are multiples of the run
        // length. x <= n and x > n do not: the run's first element can differ.
        using P = arith::CmpIPredicate;
        P p = c.getPredicate();
        bool lhsRuns = p == P::slt || p == P::sge || p == P::ult || p == P::uge;
        bool rhsRuns = p == P::sgt || p == P::sle || p == P::ugt || p == P::ule;
        for (unsigned d = 0; d < rank; ++d) {
          int64_t k = gcd(a.constancy[d], b.constancy[d]);
          if (lhsRuns || rhsRuns) {
            const AxisInfo &x = lhsRuns ? a : b, &n = lhsRuns ? b : a;
            int64_t run = std::min({x.contiguity[d], x.divisibility[d],
                                    n.constancy[d], n.divisibility[d]});
            run = run > 0 ? int64_t(1) << llvm::Log2_64(run) : 1;
            k = std::max(k, run);
          }
          r.constancy[d] = k;
        }
        return r;
      })
      .Case<arith::AndIOp, arith::OrIOp>([&](Operation *o) {
        AxisInfo a = get(o->getOperand(0)), b = get(o->getOperand(1));
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d)
          r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        return r;
      })
      .Default([&](Operation *) { return unknown; });
}
