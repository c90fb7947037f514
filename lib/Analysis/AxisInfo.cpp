//===- AxisInfo.cpp - Contiguity, divisibility and constancy --------------===//
//
// Every rule below is argued against the definitions in AxisInfo.h; the
// argument is the comment next to it. Values wrap at their bit width, and a
// group that starts at a multiple of a power of two r and spans r elements
// never crosses a wrap boundary, which is what the comparison and extension
// rules rely on.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AxisInfo.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

static int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return AxisInfo::kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v);
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(u),
                           AxisInfo::kMaxDivisibility);
}

static int64_t pow2Floor(int64_t v) {
  return v >= 1 ? int64_t(1) << llvm::Log2_64(v) : 1;
}

static int64_t capDiv(int64_t v) {
  return std::clamp<int64_t>(v, 1, AxisInfo::kMaxDivisibility);
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

/// Bit width of an integer (or index) value or tensor; 0 otherwise.
static unsigned intWidth(Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth();
  if (isa<IndexType>(t))
    return 64;
  return 0;
}

/// `v` wrapped to a signed integer of `width` bits.
static int64_t wrap(int64_t v, unsigned width) {
  if (width == 0 || width >= 64)
    return v;
  return llvm::SignExtend64(static_cast<uint64_t>(v), width);
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo a;
  a.contiguity.assign(rank, 1);
  a.divisibility.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

int64_t AxisInfo::divisibilityAt(unsigned d, int64_t group) const {
  if (constant)
    return pow2Divisor(*constant);
  // Positions that are multiples of `group` >= c are group starts; those
  // inside a longer group are start + m * group (times the step).
  if (contiguity[d] <= group)
    return divisibility[d];
  return std::min(divisibility[d], group * step);
}

int64_t AxisInfo::elementDivisibility() const {
  int64_t best = 1;
  for (unsigned d = 0; d < getRank(); ++d)
    best = std::max(best, divisibilityAt(d, 1));
  return best;
}

/// What holds for a value that is either `a` or `b` (same type).
static AxisInfo join(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo r = AxisInfo::unknown(a.getRank());
  r.step = a.step;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t c = std::min(a.contiguity[d], b.contiguity[d]);
    r.contiguity[d] = c;
    // Group starts at multiples of the smaller run hold both claims.
    r.divisibility[d] = std::min(a.divisibilityAt(d, c), b.divisibilityAt(d, c));
    r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  if (a.constant && b.constant && *a.constant == *b.constant)
    r.constant = a.constant;
  return r;
}

static bool sameClaims(const AxisInfo &a, const AxisInfo &b) {
  return a.contiguity == b.contiguity && a.divisibility == b.divisibility &&
         a.constancy == b.constancy && a.constant == b.constant &&
         a.step == b.step;
}

AxisInfo AxisInfoAnalysis::fixedPoint(Value arg, ArrayRef<Value> incoming) {
  // The greatest fixed point of "the join of what flows in": start from
  // claiming everything (the values that flow in around a loop are first
  // computed from that), then weaken to the join of the incoming values'
  // claims until a round keeps them. They then hold on entry and after
  // every trip around. Each failed round strictly weakens a power of two
  // (or drops the constant), so a few rounds suffice; the bound only guards
  // the loop.
  unsigned rank = rankOf(arg);
  SmallVector<int64_t> shape = shapeOf(arg);
  AxisInfo everything = AxisInfo::unknown(rank);
  for (unsigned d = 0; d < rank && d < shape.size(); ++d) {
    everything.contiguity[d] = std::max<int64_t>(shape[d], 1);
    everything.constancy[d] = std::max<int64_t>(shape[d], 1);
    everything.divisibility[d] = AxisInfo::kMaxDivisibility;
  }
  std::optional<AxisInfo> assumed; // none: everything
  assuming.insert(arg);
  auto done = [&](AxisInfo r) {
    assuming.erase(arg);
    return r;
  };
  for (int round = 0; round < 256; ++round) {
    size_t mark = made.size();
    cache[arg] = assumed ? *assumed : everything;
    // A value whose computation led here (the query began inside the
    // cycle, say at `ptrs + BK`) holds a placeholder: drop it so that the
    // round computes it from the assumption instead of reading "nothing
    // known". Every cycle passes a block argument, so this terminates.
    for (Value v : active)
      if (!assuming.contains(v))
        cache.erase(v);
    std::optional<AxisInfo> after = assumed;
    for (Value v : incoming) {
      AxisInfo in = get(v);
      after = after ? join(*after, in) : in;
    }
    if (!after)
      return done(AxisInfo::unknown(rank));
    if (assumed && sameClaims(*after, *assumed))
      return done(*assumed);
    // Drop what was computed from the failed assumption.
    for (size_t i = mark; i < made.size(); ++i)
      cache.erase(made[i]);
    made.resize(mark);
    assumed = after;
  }
  return done(AxisInfo::unknown(rank));
}

AxisInfo AxisInfoAnalysis::get(Value v) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  // Insert a conservative value first so that cycles terminate (an
  // iter_arg replaces it with its assumption while it is being computed).
  cache[v] = AxisInfo::unknown(rankOf(v));
  made.push_back(v);
  active.push_back(v);
  AxisInfo info = compute(v);
  active.pop_back();
  // Claims never exceed the shape; a dimension of size 1 holds one group.
  SmallVector<int64_t> shape = shapeOf(v);
  if (info.getRank() != shape.size())
    info = AxisInfo::unknown(shape.size());
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t n = std::max<int64_t>(shape[d], 1);
    info.contiguity[d] = std::clamp<int64_t>(info.contiguity[d], 1, n);
    info.constancy[d] = std::clamp<int64_t>(info.constancy[d], 1, n);
    info.divisibility[d] = capDiv(info.divisibility[d]);
  }
  if (auto p = dyn_cast<PointerType>(getElementTypeOrSelf(v.getType())))
    info.step = getElementBytes(p.getPointeeType());
  else
    info.step = 1;
  if (info.constant && intWidth(v))
    info.constant = wrap(*info.constant, intWidth(v));
  return cache[v] = info;
}

/// A value that is the same known integer everywhere.
static AxisInfo constantInfo(ArrayRef<int64_t> shape, int64_t value) {
  AxisInfo r = AxisInfo::unknown(shape.size());
  r.constancy.assign(shape.begin(), shape.end());
  r.divisibility.assign(shape.size(), pow2Divisor(value));
  r.constant = value;
  return r;
}

/// a + b (or a - b when `sub`), both with the same step, `bScale` the factor
/// b is multiplied by before the addition (bytes per element for addptr).
/// A contiguous run survives where the other side is constant; the first
/// element of each run of the result is a sum of the operands' elements at
/// that position.
static AxisInfo addInfo(const AxisInfo &a, const AxisInfo &b, bool sub,
                        int64_t bScale = 1) {
  AxisInfo r = AxisInfo::unknown(a.getRank());
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t c = gcd(a.contiguity[d], b.constancy[d]);
    if (!sub)
      c = std::max(c, gcd(a.constancy[d], b.contiguity[d]));
    r.contiguity[d] = c;
    r.divisibility[d] =
        gcd(a.divisibilityAt(d, c), capDiv(b.divisibilityAt(d, c) * bScale));
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constant && b.constant)
    r.constant = sub ? *a.constant - *b.constant * bScale
                     : *a.constant + *b.constant * bScale;
  return r;
}

/// An integer that is sign- or zero-extended: a contiguous run must not
/// cross the wrap boundary of the narrow type, which holds for runs that
/// start at a multiple of their length.
static AxisInfo capRunsAtAlignment(AxisInfo a) {
  for (unsigned d = 0; d < a.getRank(); ++d)
    a.contiguity[d] = std::min(a.contiguity[d], pow2Floor(a.divisibility[d]));
  return a;
}

/// `v` as a positive power of two, from a known constant.
static std::optional<int64_t> pow2Constant(const AxisInfo &a) {
  if (a.constant && *a.constant > 0 && llvm::isPowerOf2_64(*a.constant))
    return *a.constant;
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> AxisInfoAnalysis::bounds(Value v) {
  auto it = boundsCache.find(v);
  if (it != boundsCache.end())
    return it->second;
  boundsCache[v] = std::nullopt; // cycles (loop-carried values): unknown
  std::optional<std::pair<int64_t, int64_t>> b = computeBounds(v);
  // Only bounds within the value's signed range are claims about it.
  unsigned w = intWidth(v);
  if (b && w > 1 && w < 64) {
    int64_t lo = -(int64_t(1) << (w - 1)), hi = (int64_t(1) << (w - 1)) - 1;
    if (b->first < lo || b->second > hi)
      b = std::nullopt;
  }
  if (!w || w == 1)
    b = std::nullopt;
  return boundsCache[v] = b;
}

std::optional<std::pair<int64_t, int64_t>>
AxisInfoAnalysis::computeBounds(Value v) {
  using Bounds = std::optional<std::pair<int64_t, int64_t>>;
  constexpr int64_t kLimit = int64_t(1) << 62; // products stay exact below
  auto fits = [&](__int128 lo, __int128 hi) -> Bounds {
    if (lo < -kLimit || hi > kLimit)
      return std::nullopt;
    return std::pair<int64_t, int64_t>{int64_t(lo), int64_t(hi)};
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // An scf.for induction variable with a positive step lies in [lb, ub).
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return std::nullopt;
    Bounds lb = bounds(loop.getLowerBound()), ub = bounds(loop.getUpperBound()),
           step = bounds(loop.getStep());
    if (!lb || !ub || !step || step->first <= 0)
      return std::nullopt;
    return fits(lb->first, std::max(lb->first, ub->second - 1));
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  AxisInfo info = get(v);
  if (info.constant)
    return std::pair<int64_t, int64_t>{*info.constant, *info.constant};
  return llvm::TypeSwitch<Operation *, Bounds>(op)
      .Case([&](ArangeOp a) -> Bounds {
        return std::pair<int64_t, int64_t>{int32_t(a.getStart()),
                                           int64_t(int32_t(a.getEnd())) - 1};
      })
      .Case([&](ProgramIdOp) -> Bounds {
        return std::pair<int64_t, int64_t>{0, (int64_t(1) << 31) - 2};
      })
      .Case([&](NumProgramsOp) -> Bounds {
        return std::pair<int64_t, int64_t>{1, (int64_t(1) << 31) - 1};
      })
      .Case<SplatOp, BroadcastOp, ExpandDimsOp, ConvertLayoutOp,
            SetAutoLayoutOp, arith::ExtSIOp>(
          [&](Operation *o) { return bounds(o->getOperand(0)); })
      .Case([&](arith::ExtUIOp e) -> Bounds {
        Bounds b = bounds(e.getIn());
        if (b && b->first >= 0)
          return b;
        return std::nullopt;
      })
      .Case([&](arith::TruncIOp t) { return bounds(t.getIn()); })
      .Case([&](arith::AddIOp a) -> Bounds {
        Bounds x = bounds(a.getLhs()), y = bounds(a.getRhs());
        if (!x || !y)
          return std::nullopt;
        return fits(__int128(x->first) + y->first,
                    __int128(x->second) + y->second);
      })
      .Case([&](arith::SubIOp a) -> Bounds {
        Bounds x = bounds(a.getLhs()), y = bounds(a.getRhs());
        if (!x || !y)
          return std::nullopt;
        return fits(__int128(x->first) - y->second,
                    __int128(x->second) - y->first);
      })
      .Case([&](arith::MulIOp m) -> Bounds {
        Bounds x = bounds(m.getLhs()), y = bounds(m.getRhs());
        if (!x || !y)
          return std::nullopt;
        __int128 c[] = {__int128(x->first) * y->first,
                        __int128(x->first) * y->second,
                        __int128(x->second) * y->first,
                        __int128(x->second) * y->second};
        return fits(*std::min_element(std::begin(c), std::end(c)),
                    *std::max_element(std::begin(c), std::end(c)));
      })
      .Case<arith::DivSIOp, arith::DivUIOp, arith::ShRSIOp, arith::ShRUIOp>(
          [&](Operation *o) -> Bounds {
            // A non-negative value divided by a positive constant (or
            // shifted right by one) stays within its bounds divided.
            Bounds x = bounds(o->getOperand(0));
            std::optional<int64_t> k = get(o->getOperand(1)).constant;
            if (!x || x->first < 0 || !k || *k < 0)
              return std::nullopt;
            bool shift = isa<arith::ShRSIOp, arith::ShRUIOp>(o);
            if (shift ? *k >= 63 : *k == 0)
              return std::nullopt;
            int64_t m = shift ? int64_t(1) << *k : *k;
            return std::pair<int64_t, int64_t>{x->first / m, x->second / m};
          })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *o) -> Bounds {
        Bounds x = bounds(o->getOperand(0));
        std::optional<int64_t> k = get(o->getOperand(1)).constant;
        if (!x || x->first < 0 || !k || *k <= 0)
          return std::nullopt;
        return std::pair<int64_t, int64_t>{0, std::min(x->second, *k - 1)};
      })
      .Case([&](arith::AndIOp a) -> Bounds {
        // With a non-negative side, the result's bits are among its bits.
        for (Value side : {a.getLhs(), a.getRhs()})
          if (Bounds b = bounds(side); b && b->first >= 0)
            return std::pair<int64_t, int64_t>{0, b->second};
        return std::nullopt;
      })
      .Case([&](arith::SelectOp s) -> Bounds {
        Bounds x = bounds(s.getTrueValue()), y = bounds(s.getFalseValue());
        if (!x || !y)
          return std::nullopt;
        return std::pair<int64_t, int64_t>{std::min(x->first, y->first),
                                           std::max(x->second, y->second)};
      })
      .Default([&](Operation *) -> Bounds { return std::nullopt; });
}

AxisInfo AxisInfoAnalysis::compute(Value v) {
  unsigned rank = rankOf(v);
  AxisInfo unknown = AxisInfo::unknown(rank);
  SmallVector<int64_t> shape = shapeOf(v);

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // An scf.for induction variable is lb + k * step.
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())) {
      if (arg == loop.getInductionVar()) {
        unknown.divisibility[0] =
            std::min(get(loop.getLowerBound()).divisibility[0],
                     get(loop.getStep()).divisibility[0]);
        return unknown;
      }
      OpOperand *init = loop.getTiedLoopInit(arg);
      OpOperand *next = loop.getTiedLoopYieldedValue(arg);
      if (init && next)
        return fixedPoint(arg, {init->get(), next->get()});
      return unknown;
    }
    // A block's argument (a loop header once scf is lowered to cf): what
    // every branch to it passes.
    Block *block = arg.getOwner();
    if (!block->isEntryBlock()) {
      SmallVector<Value> incoming;
      for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
        auto br = dyn_cast<BranchOpInterface>((*it)->getTerminator());
        if (!br)
          return unknown;
        Value in = br.getSuccessorOperands(it.getSuccessorIndex())
                       [arg.getArgNumber()];
        if (!in)
          return unknown; // produced by the branch itself
        incoming.push_back(in);
      }
      if (incoming.empty())
        return unknown;
      return fixedPoint(arg, incoming);
    }
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front() ||
        isa<RankedTensorType>(v.getType()))
      return unknown;
    // The hint is a promise about the argument's value (bytes for pointers).
    if (auto d = func.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(),
            TileDialect::DivisibilityAttrHelper::getNameStr()))
      if (d.getInt() > 0)
        unknown.divisibility[0] = pow2Divisor(d.getInt());
    return unknown;
  }

  Operation *op = v.getDefiningOp();
  // A loop's result is its iter_arg's last value (or the init).
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return get(loop.getRegionIterArgs()[cast<OpResult>(v).getResultNumber()]);
  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](arith::ConstantOp c) {
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return constantInfo(shape, i.getValue().getSExtValue());
        if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue())) {
          if (isa<IntegerType, IndexType>(dense.getElementType()))
            return constantInfo(shape,
                                dense.getSplatValue<APInt>().getSExtValue());
          AxisInfo r = unknown; // a float splat is still constant
          r.constancy.assign(shape.begin(), shape.end());
          return r;
        }
        if (isa<FloatAttr>(c.getValue())) {
          AxisInfo r = unknown;
          r.constancy.assign(shape.begin(), shape.end());
          return r;
        }
        return unknown; // a non-splat dense tensor: no claim
      })
      .Case([&](HintOp h) {
        // The user's promise, on top of what the analysis proves.
        AxisInfo r = get(h.getSrc());
        auto raise = [](SmallVectorImpl<int64_t> &claims,
                        std::optional<ArrayRef<int64_t>> promised) {
          if (promised && promised->size() == claims.size())
            for (auto [c, p] : llvm::zip(claims, *promised))
              c = std::max(c, p);
        };
        raise(r.divisibility, h.getDivisibility());
        raise(r.contiguity, h.getContiguity());
        raise(r.constancy, h.getConstancy());
        for (int64_t &d : r.divisibility)
          d = std::min(d, AxisInfo::kMaxDivisibility);
        for (unsigned d = 0; d < r.getRank() && d < shape.size(); ++d) {
          r.contiguity[d] = std::min(r.contiguity[d], shape[d]);
          r.constancy[d] = std::min(r.constancy[d], shape[d]);
        }
        return r;
      })
      .Case([&](ArangeOp a) {
        // start, start + 1, ...: one run whose first element is `start`.
        AxisInfo r = unknown;
        r.contiguity[0] = shape[0];
        r.divisibility[0] = pow2Divisor(static_cast<int32_t>(a.getStart()));
        if (shape[0] == 1)
          r.constant = static_cast<int32_t>(a.getStart());
        return r;
      })
      .Case([&](SplatOp s) {
        // One scalar everywhere: constant, and every element divisible as
        // the scalar is.
        AxisInfo src = get(s.getSrc());
        AxisInfo r = unknown;
        r.constancy.assign(shape.begin(), shape.end());
        r.divisibility.assign(rank, src.elementDivisibility());
        r.constant = src.constant;
        return r;
      })
      .Case([&](BroadcastOp bc) {
        // Along a stretched dimension the source had one element (so its
        // divisibility held for every element); it repeats.
        AxisInfo r = get(bc.getSrc());
        auto srcShape = bc.getSrc().getType().getShape();
        for (unsigned d = 0; d < rank; ++d)
          if (srcShape[d] == 1 && shape[d] != 1) {
            r.constancy[d] = shape[d];
            r.contiguity[d] = 1;
          }
        return r;
      })
      .Case([&](ExpandDimsOp e) {
        // The new axis has size 1, so its divisibility must hold for every
        // element; the other axes keep their groups.
        AxisInfo r = get(e.getSrc());
        unsigned axis = e.getAxis();
        int64_t all = r.elementDivisibility();
        r.contiguity.insert(r.contiguity.begin() + axis, 1);
        r.divisibility.insert(r.divisibility.begin() + axis, all);
        r.constancy.insert(r.constancy.begin() + axis, 1);
        return r;
      })
      .Case([&](ConvertLayoutOp c) { return get(c.getSrc()); })
      // The same values, their layout still to be resolved (the coalesced
      // layout is chosen from what this analysis says of them).
      .Case([&](SetAutoLayoutOp c) { return get(c.getSrc()); })
      // Same addresses, element type of the same width: the same claims.
      .Case([&](PtrCastOp c) {
        // The same byte addresses: divisibility (bytes) and constancy stay;
        // contiguity (elements) only where the element width stays too.
        AxisInfo r = get(c.getSrc());
        Type from = cast<PointerType>(getElementTypeOrSelf(c.getSrc().getType()))
                        .getPointeeType();
        Type to = cast<PointerType>(getElementTypeOrSelf(c.getType()))
                      .getPointeeType();
        if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
          for (int64_t &k : r.contiguity)
            k = 1;
        return r;
      })
      .Case([&](AddPtrOp a) {
        // ptr + sext(offset) * bytes. A narrow offset whose run crossed its
        // wrap boundary would jump after sign extension.
        AxisInfo p = get(a.getPtr());
        AxisInfo off = get(a.getOffset());
        if (intWidth(a.getOffset()) < 64)
          off = capRunsAtAlignment(off);
        Type elem =
            cast<PointerType>(getElementTypeOrSelf(a.getPtr().getType()))
                .getPointeeType();
        AxisInfo r = addInfo(p, off, /*sub=*/false, getElementBytes(elem));
        r.constant.reset();
        return r;
      })
      .Case([&](arith::AddIOp a) {
        return addInfo(get(a.getLhs()), get(a.getRhs()), false);
      })
      .Case([&](arith::SubIOp a) {
        return addInfo(get(a.getLhs()), get(a.getRhs()), true);
      })
      .Case([&](arith::MulIOp m) {
        // Runs survive only a multiplication by one; the product of two
        // elements is divisible by the product of their divisors.
        AxisInfo a = get(m.getLhs()), b = get(m.getRhs());
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d) {
          int64_t c = 1;
          if (b.constant == 1)
            c = a.contiguity[d];
          else if (a.constant == 1)
            c = b.contiguity[d];
          r.contiguity[d] = c;
          r.divisibility[d] =
              capDiv(a.divisibilityAt(d, c) * b.divisibilityAt(d, c));
          r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        }
        if (a.constant && b.constant)
          r.constant = *a.constant * *b.constant;
        return r;
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>([&](Operation *e) {
        Value src = e->getOperand(0);
        AxisInfo r = get(src);
        unsigned from = intWidth(src), to = intWidth(e->getResult(0));
        if (from == 0 || to == 0)
          return unknown;
        if (to > from)
          r = capRunsAtAlignment(r);
        bool zext = isa<arith::ExtUIOp, arith::IndexCastUIOp>(e);
        if (r.constant && zext && from < 64)
          r.constant =
              static_cast<int64_t>(static_cast<uint64_t>(*r.constant) &
                                   llvm::maskTrailingOnes<uint64_t>(from));
        if (from == 1 && to > 1) // i1 true widens to -1 or 1: no divisor
          r.divisibility.assign(rank, 1);
        return r;
      })
      .Case([&](arith::TruncIOp t) -> AxisInfo {
        // Truncation to w bits is arithmetic modulo 2^w: constancy stays; a
        // power of two p dividing a value divides its residue when p <=
        // 2^w; a run of consecutive values stays consecutive modulo 2^w,
        // and one that starts at a multiple of its length never crosses the
        // narrow type's wrap boundary (the extension and pointer rules cap
        // runs so again where it matters).
        unsigned to = intWidth(t.getResult());
        if (to == 0 || to == 1)
          return unknown;
        AxisInfo r = capRunsAtAlignment(get(t.getIn()));
        int64_t limit = to >= 31 ? AxisInfo::kMaxDivisibility : int64_t(1) << to;
        for (unsigned d = 0; d < rank; ++d) {
          r.divisibility[d] =
              std::min(pow2Divisor(r.divisibility[d]), limit);
          r.contiguity[d] = std::min(r.contiguity[d], limit);
        }
        if (r.constant)
          r.constant = wrap(*r.constant, to);
        return r;
      })
      .Case<arith::DivSIOp, arith::DivUIOp, arith::ShRSIOp, arith::ShRUIOp,
            arith::RemSIOp, arith::RemUIOp>([&](Operation *o) -> AxisInfo {
        // By a positive power of two m (or a right shift by log2 m). Each
        // element's quotient is constant, and its remainder is contiguous,
        // over a run of consecutive values that starts at a multiple of its
        // length r <= m (it lies in one block [k m, k m + m)): for the
        // unsigned forms (such a run never crosses the unsigned wrap either)
        // and the arithmetic shift (floor division) of any value, and for
        // the signed division and remainder (which truncate toward zero) of
        // values known to be non-negative.
        Value lhs = o->getOperand(0);
        AxisInfo x = get(lhs), k = get(o->getOperand(1));
        unsigned width = intWidth(v);
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d)
          r.constancy[d] = x.constancy[d];
        bool shift = isa<arith::ShRSIOp, arith::ShRUIOp>(o);
        std::optional<int64_t> m;
        if (shift) {
          if (k.constant && *k.constant >= 0 && *k.constant < width &&
              *k.constant < 62)
            m = int64_t(1) << *k.constant;
        } else {
          m = pow2Constant(k);
        }
        if (!m || width == 0 || width > 64)
          return r;
        bool rem = isa<arith::RemSIOp, arith::RemUIOp>(o);
        bool needsSign = isa<arith::DivSIOp, arith::RemSIOp>(o);
        if (needsSign) {
          std::optional<std::pair<int64_t, int64_t>> b = bounds(lhs);
          if (!b || b->first < 0) {
            // Of any sign, a multiple q >= m of m divides exactly (truncation
            // and floor agree): the quotient is a multiple of q / m.
            if (isa<arith::DivSIOp>(o))
              for (unsigned d = 0; d < rank; ++d) {
                int64_t q = x.divisibilityAt(d, 1);
                if (q >= *m)
                  r.divisibility[d] = q / *m;
              }
            return r;
          }
        }
        if (x.constant) {
          llvm::APInt a(width, uint64_t(*x.constant), /*isSigned=*/true);
          llvm::APInt n(width, uint64_t(*m));
          llvm::APInt q = isa<arith::DivSIOp>(o)   ? a.sdiv(n)
                          : isa<arith::DivUIOp>(o) ? a.udiv(n)
                          : isa<arith::ShRSIOp>(o) ? a.ashr(n.logBase2())
                          : isa<arith::ShRUIOp>(o) ? a.lshr(n.logBase2())
                          : isa<arith::RemSIOp>(o) ? a.srem(n)
                                                   : a.urem(n);
          r.constant = q.getSExtValue();
          r.constancy = x.constancy;
          return r;
        }
        for (unsigned d = 0; d < rank; ++d) {
          int64_t run = std::min({pow2Floor(x.contiguity[d]),
                                  pow2Floor(x.divisibility[d]), *m});
          if (rem) {
            // Runs of `run` from a multiple of `run`: the start's residue
            // is 0 when m divides the start, else a multiple of its
            // divisor (below m).
            int64_t q = x.divisibilityAt(d, run);
            r.contiguity[d] = run;
            r.divisibility[d] = q >= *m ? AxisInfo::kMaxDivisibility : q;
          } else {
            r.constancy[d] = std::max(x.constancy[d], run);
            // Every element divisible by q >= m: its quotient by q / m.
            int64_t q = x.divisibilityAt(d, 1);
            r.divisibility[d] = q >= *m ? q / *m : 1;
          }
        }
        return r;
      })
      .Case([&](arith::ShLIOp o) -> AxisInfo {
        // A multiplication by 2^s.
        AxisInfo x = get(o.getLhs()), k = get(o.getRhs());
        unsigned width = intWidth(v);
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d)
          r.constancy[d] = x.constancy[d];
        if (!k.constant || *k.constant < 0 || *k.constant >= width ||
            *k.constant >= 31)
          return r;
        int64_t s = *k.constant;
        for (unsigned d = 0; d < rank; ++d) {
          r.contiguity[d] = s == 0 ? x.contiguity[d] : 1;
          r.divisibility[d] =
              capDiv(x.divisibilityAt(d, r.contiguity[d]) << s);
        }
        if (x.constant)
          r.constant = int64_t(uint64_t(*x.constant) << s);
        return r;
      })
      .Case([&](arith::CmpIOp c) {
        AxisInfo a = get(c.getLhs()), b = get(c.getRhs());
        AxisInfo r = unknown;
        // x < n (and x >= n) is constant over an r-group of x that starts at
        // a multiple of r when n is constant there and a multiple of r too:
        // x0 < n0 with both multiples of r gives x0 + r - 1 < n0. x <= n and
        // x > n do not: the group's first element can equal n.
        using P = arith::CmpIPredicate;
        P p = c.getPredicate();
        bool lhsRuns = p == P::slt || p == P::sge || p == P::ult || p == P::uge;
        bool rhsRuns = p == P::sgt || p == P::sle || p == P::ugt || p == P::ule;
        for (unsigned d = 0; d < rank; ++d) {
          int64_t k = gcd(a.constancy[d], b.constancy[d]);
          if (lhsRuns || rhsRuns) {
            const AxisInfo &x = lhsRuns ? a : b, &n = lhsRuns ? b : a;
            int64_t run =
                pow2Floor(std::min({x.contiguity[d], x.divisibility[d],
                                    n.constancy[d], n.divisibilityAt(d, 1)}));
            if (x.constant) // a constant x has no runs of its own
              run = 1;
            k = std::max(k, run);
          }
          r.constancy[d] = k;
        }
        return r;
      })
      .Case([&](arith::SelectOp s) {
        // Every element comes from one of the two sides.
        AxisInfo c = get(s.getCondition()), a = get(s.getTrueValue()),
                 b = get(s.getFalseValue());
        AxisInfo r = unknown;
        bool scalarCond = !isa<RankedTensorType>(s.getCondition().getType());
        for (unsigned d = 0; d < rank; ++d) {
          int64_t k = gcd(a.constancy[d], b.constancy[d]);
          r.constancy[d] = scalarCond ? k : gcd(k, c.constancy[d]);
          r.divisibility[d] =
              gcd(a.elementDivisibility(), b.elementDivisibility());
        }
        return r;
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *o) {
        AxisInfo a = get(o->getOperand(0)), b = get(o->getOperand(1));
        AxisInfo r = unknown;
        for (unsigned d = 0; d < rank; ++d)
          r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        return r;
      })
      .Default([&](Operation *) { return unknown; });
}
