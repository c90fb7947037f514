//===- RingSlot.cpp - Which slot of a ring a view stays in ----------------===//

#include "kiln/Analysis/RingSlot.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

std::optional<int64_t> kiln::tile::constantInt(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

std::pair<Value, int64_t> kiln::tile::linearIndex(Value v) {
  if (std::optional<int64_t> c = constantInt(v))
    return {Value(), *c};
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())})
      if (std::optional<int64_t> c = constantInt(y)) {
        auto [base, off] = linearIndex(x);
        return {base, off + *c};
      }
  }
  if (auto sub = v.getDefiningOp<arith::SubIOp>())
    if (std::optional<int64_t> c = constantInt(sub.getRhs())) {
      auto [base, off] = linearIndex(sub.getLhs());
      return {base, off - *c};
    }
  return {v, 0};
}

bool kiln::tile::isNonNegativeInductionVar(Value v) {
  auto arg = dyn_cast_or_null<BlockArgument>(v);
  if (!arg || arg.getArgNumber() != 0)
    return false;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop)
    return false;
  std::optional<int64_t> lb = constantInt(loop.getLowerBound()),
                         step = constantInt(loop.getStep());
  return lb && *lb >= 0 && step && *step > 0;
}

namespace {
/// Differences taken as hypotheses while they are being proved (two iter_args
/// of a loop: their yields are compared assuming the iter_args differ by it).
struct Assumed {
  Value a, b;
  int64_t d;
};
} // namespace

static std::optional<int64_t> differenceOf(Value a, Value b,
                                           SmallVectorImpl<Assumed> &assumed);

/// `x` and `y` are iter_args (not the induction variable) of one scf.for.
static bool iterArgsOfOneLoop(Value x, Value y) {
  auto ax = dyn_cast<BlockArgument>(x), ay = dyn_cast<BlockArgument>(y);
  if (!ax || !ay || ax.getOwner() != ay.getOwner() || ax.getArgNumber() == 0 ||
      ay.getArgNumber() == 0)
    return false;
  return isa<scf::ForOp>(ax.getOwner()->getParentOp());
}

static std::optional<int64_t>
differenceOfBases(Value x, Value y, SmallVectorImpl<Assumed> &assumed) {
  for (const Assumed &h : assumed) {
    if (h.a == x && h.b == y)
      return h.d;
    if (h.a == y && h.b == x)
      return -h.d;
  }
  if (iterArgsOfOneLoop(x, y)) {
    auto ax = cast<BlockArgument>(x), ay = cast<BlockArgument>(y);
    auto loop = cast<scf::ForOp>(ax.getOwner()->getParentOp());
    unsigned i = ax.getArgNumber() - 1, j = ay.getArgNumber() - 1;
    std::optional<int64_t> d0 =
        differenceOf(loop.getInitArgs()[i], loop.getInitArgs()[j], assumed);
    if (!d0)
      return std::nullopt;
    Operation *yield = loop.getBody()->getTerminator();
    assumed.push_back({x, y, *d0});
    std::optional<int64_t> dy =
        differenceOf(yield->getOperand(i), yield->getOperand(j), assumed);
    assumed.pop_back();
    if (dy != d0)
      return std::nullopt;
    return d0;
  }
  // Two results of one loop: the iter_args' invariant difference (after
  // no trip, the inits').
  auto rx = dyn_cast<OpResult>(x), ry = dyn_cast<OpResult>(y);
  if (rx && ry && rx.getOwner() == ry.getOwner())
    if (auto loop = dyn_cast<scf::ForOp>(rx.getOwner()))
      return differenceOfBases(
          loop.getRegionIterArgs()[rx.getResultNumber()],
          loop.getRegionIterArgs()[ry.getResultNumber()], assumed);
  return std::nullopt;
}

static std::optional<int64_t> differenceOf(Value a, Value b,
                                           SmallVectorImpl<Assumed> &assumed) {
  auto [ba, oa] = linearIndex(a);
  auto [bb, ob] = linearIndex(b);
  if (ba == bb)
    return oa - ob;
  if (!ba || !bb)
    return std::nullopt;
  std::optional<int64_t> d = differenceOfBases(ba, bb, assumed);
  if (!d)
    return std::nullopt;
  return *d + oa - ob;
}

std::optional<int64_t> kiln::tile::valueDifference(Value a, Value b) {
  SmallVector<Assumed> assumed;
  return differenceOf(a, b, assumed);
}

/// The constant a loop's yield adds to iter_arg `arg` each iteration, or
/// none.
static std::optional<int64_t> iterStride(BlockArgument arg) {
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() == 0)
    return std::nullopt;
  Value next =
      loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1);
  auto [base, off] = linearIndex(next);
  if (base != Value(arg))
    return std::nullopt;
  return off;
}

/// `v` is never negative: a constant >= 0 plus values that are (induction
/// variables from a lower bound >= 0, iter_args that start never negative
/// and never decrease or stay never negative, loop results of such).
static bool neverNegative(Value v, SmallVectorImpl<Value> &assumed) {
  auto [base, off] = linearIndex(v);
  if (!base)
    return off >= 0;
  if (off < 0)
    return false;
  if (llvm::is_contained(assumed, base) || isNonNegativeInductionVar(base))
    return true;
  if (auto result = dyn_cast<OpResult>(base))
    if (auto loop = dyn_cast<scf::ForOp>(result.getOwner()))
      return neverNegative(loop.getRegionIterArgs()[result.getResultNumber()],
                           assumed);
  auto arg = dyn_cast<BlockArgument>(base);
  if (!arg || arg.getArgNumber() == 0)
    return false;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop)
    return false;
  unsigned k = arg.getArgNumber() - 1;
  if (!neverNegative(loop.getInitArgs()[k], assumed))
    return false;
  assumed.push_back(base);
  bool ok =
      neverNegative(loop.getBody()->getTerminator()->getOperand(k), assumed);
  assumed.pop_back();
  return ok;
}

RingSlot RingSlot::enteringLoop(scf::ForOp loop) const {
  if (!known() || base || !isNonNegativeInductionVar(loop.getInductionVar()))
    return *this;
  int64_t lb = *constantInt(loop.getLowerBound());
  return {root, loop.getInductionVar(), mod(offset - lb, modulus), modulus,
          literal};
}

RingSlot RingSlot::aroundBackEdge(Operation *loop) const {
  if (!known() || !base)
    return *this;
  auto forOp = dyn_cast<scf::ForOp>(loop);
  if (forOp && base == forOp.getInductionVar()) {
    // A slot has an induction-variable base only with a constant step.
    int64_t step = *constantInt(forOp.getStep());
    return {root, base, mod(offset - step, modulus), modulus, literal};
  }
  // A counter of this loop advanced by k: last iteration's s is this one's
  // s - k.
  if (auto arg = dyn_cast<BlockArgument>(base);
      forOp && arg && arg.getOwner() == forOp.getBody())
    if (std::optional<int64_t> k = iterStride(arg))
      return {root, base, mod(offset - *k, modulus), modulus, literal};
  return leaving(loop);
}

static std::optional<std::pair<Value, int64_t>>
canonicalCounterResult(scf::ForOp loop, int64_t n);

RingSlot RingSlot::leaving(Operation *op) const {
  if (base && op->isAncestor(Value(base).getParentBlock()->getParentOp())) {
    // (iv + c) % N as the loop's head sees it when it exits (iv = lb +
    // trips: the walks move the last trip's slots around the back edge
    // first), in a loop of step 1 that returns a counter r (exact mod N,
    // from start s = init - lb, so r = s + trips mod N): the slot (r + c - s).
    auto loop = dyn_cast<scf::ForOp>(op);
    if (loop && base == loop.getInductionVar() && modulus > 0)
      if (auto canon = canonicalCounterResult(loop, modulus))
        return {root, canon->first, mod(offset - canon->second, modulus),
                modulus};
    // A constant index is the same slot after the loop. (The literal was
    // dropped here when it was introduced, after the race oracle found
    // errors it never witnessed on three seeds of its ring generator; with
    // the walk as it is now, 18,000 random kernels of the oracle's three
    // generators show none, and 161 more races are reported.)
    if (literal >= 0)
      return {root, Value(), literal, modulus, literal};
    return RingSlot();
  }
  return *this;
}

/// A counter carried by a loop: an scf.for iter_arg that starts at a constant
/// c >= 0 and is yielded as arg + 1 (`wrap` 0) or as (arg + 1) % n with
/// c < n (`wrap` n), in a loop of step 1 from a constant lower bound lb >= 0.
/// In iteration iv it is iv - lb + c (wrapped: that mod n), never negative.
/// An unwrapped counter may also advance by a constant d > 1 (`stride`; a
/// loop unrolled by hand advancing it once per copy): d (iv - lb) + c.
/// Like the induction variable, it is assumed not to overflow.
namespace {
struct Counter {
  Value iv;
  int64_t start = 0; // c - d lb: the value is d iv + start
  int64_t wrap = 0;
  int64_t stride = 1;
  int64_t init = 0; // c
};
} // namespace

static std::optional<Counter> loopCounter(Value v) {
  auto arg = dyn_cast_or_null<BlockArgument>(v);
  if (!arg || arg.getArgNumber() == 0)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || !isNonNegativeInductionVar(loop.getInductionVar()) ||
      constantInt(loop.getStep()) != 1)
    return std::nullopt;
  unsigned k = arg.getArgNumber() - 1;
  std::optional<int64_t> init = constantInt(loop.getInitArgs()[k]);
  if (!init || *init < 0)
    return std::nullopt;
  int64_t lb = *constantInt(loop.getLowerBound());
  Value next = loop.getBody()->getTerminator()->getOperand(k);
  int64_t wrap = 0;
  Operation *rem = next.getDefiningOp();
  if (isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(rem)) {
    std::optional<int64_t> n = constantInt(rem->getOperand(1));
    if (!n || *n <= 0 || *init >= *n)
      return std::nullopt;
    wrap = *n;
    next = rem->getOperand(0);
  }
  auto [base, off] = linearIndex(next);
  if (base != Value(arg) || off < 1 || (wrap && off != 1))
    return std::nullopt;
  return Counter{loop.getInductionVar(), *init - off * lb, wrap, off, *init};
}

/// The value a loop leaves a counter at: an scf.for result whose iter_arg
/// is a counter (loopCounter). Never negative; below the counter's `wrap`
/// when it wraps (the start, after no trip, is below it too).
static std::optional<Counter> counterResult(Value v) {
  auto result = dyn_cast_or_null<OpResult>(v);
  if (!result)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(result.getOwner());
  if (!loop)
    return std::nullopt;
  return loopCounter(loop.getRegionIterArgs()[result.getResultNumber()]);
}

/// The first counter result of `loop` exact modulo `n` (unwrapped, or
/// wrapped at a multiple of n) and its start (init - lb): every counter a
/// loop returns is its start plus the trip count, so slots of any of them
/// (and of the last trip's induction variable) are named from this one.
static std::optional<std::pair<Value, int64_t>>
canonicalCounterResult(scf::ForOp loop, int64_t n) {
  for (OpResult r : loop->getResults()) {
    std::optional<Counter> c =
        loopCounter(loop.getRegionIterArgs()[r.getResultNumber()]);
    if (c && c->stride == 1 && (!c->wrap || c->wrap % n == 0))
      return std::make_pair(Value(r), c->start);
  }
  return std::nullopt;
}

/// A slot counter: a counter wrapped at n <= `slots`, used as the index
/// itself. In iteration iv it is the slot (iv + (c - lb)) mod n.
static std::optional<RingSlot> slotCounter(Value idx, int64_t slots) {
  std::optional<Counter> c = loopCounter(idx);
  if (!c || !c->wrap || c->wrap > slots)
    return std::nullopt;
  return RingSlot{nullptr, c->iv, RingSlot::mod(c->start, c->wrap), c->wrap};
}

RingSlot kiln::tile::getRingSlot(Value memdesc) {
  Operation *def = memdesc.getDefiningOp();
  while (isa_and_nonnull<MemDescSubsliceOp, MemDescPermuteOp,
                         MemDescReshapeOp, MemDescReinterpretOp>(def))
    def = def->getOperand(0).getDefiningOp();
  auto index = dyn_cast_or_null<MemDescIndexOp>(def);
  if (!index)
    return RingSlot();
  auto alloc = index.getSrc().getDefiningOp<LocalAllocOp>();
  if (!alloc)
    return RingSlot();
  int64_t slots = alloc.getType().getShape()[0];
  Value idx = index.getIndex();
  if (std::optional<int64_t> c = constantInt(idx)) {
    if (*c < 0 || *c >= slots)
      return RingSlot();
    return {alloc, Value(), *c, slots, *c};
  }
  if (std::optional<RingSlot> counter = slotCounter(idx, slots)) {
    counter->root = alloc;
    return *counter;
  }
  // A wrapped counter's value after its loop, as the index itself: one
  // unknown slot below the wrap, named by the loop's canonical result.
  if (std::optional<Counter> after = counterResult(idx))
    if (after->wrap && after->wrap <= slots)
      if (auto canon = canonicalCounterResult(
              cast<scf::ForOp>(cast<OpResult>(idx).getOwner()), after->wrap))
        return {alloc, canon->first,
                RingSlot::mod(after->start - canon->second, after->wrap),
                after->wrap};
  Operation *rem = idx.getDefiningOp();
  if (!isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(rem))
    return RingSlot();
  std::optional<int64_t> n = constantInt(rem->getOperand(1));
  if (!n || *n <= 0 || *n > slots)
    return RingSlot();
  auto [base, off] = linearIndex(rem->getOperand(0));
  // (s + off) % n of a counter s (s >= 0, so s + off >= 0 when off >= 0):
  // the slot (iv + start + off) mod n when s runs unwrapped, as a persistent
  // GEMM's `producer % S` with `producer += 1`; when s wraps, only at the
  // same modulus, as a ping-pong ring reads slot (buf + 1) % 2 while it
  // refills slot buf.
  if (off >= 0 && base)
    if (std::optional<Counter> counter = loopCounter(base)) {
      // Advanced by a multiple of n each iteration: the same slot in every
      // one, (c + off) mod n, as a ping-pong ring unrolled by two refills
      // slot `load % 2` with `load += 1` twice a trip.
      if (counter->stride % *n == 0)
        return {alloc, Value(), RingSlot::mod(counter->init + off, *n), slots,
                RingSlot::mod(counter->init + off, *n)};
      // By 1 mod n (d iv = iv mod n): (iv + start + off) mod n.
      if ((!counter->wrap || counter->wrap == *n) && counter->stride % *n == 1)
        return {alloc, counter->iv, RingSlot::mod(counter->start + off, *n),
                *n};
    }
  // (r + off) % n of a counter's value r after its loop (never negative),
  // as an epilogue refills slot (buf + 1) % 2 while it reads slot buf.
  if (off >= 0 && base)
    if (std::optional<Counter> after = counterResult(base)) {
      // Advanced by a multiple of n each trip: c mod n after any number of
      // trips (none included).
      if (after->stride % *n == 0)
        return {alloc, Value(), RingSlot::mod(after->init + off, *n), slots,
                RingSlot::mod(after->init + off, *n)};
      if (after->stride == 1 && (!after->wrap || after->wrap % *n == 0))
        if (auto canon = canonicalCounterResult(
                cast<scf::ForOp>(cast<OpResult>(base).getOwner()), *n))
          return {alloc, canon->first,
                  RingSlot::mod(after->start - canon->second + off, *n), *n};
    }
  // (s + off) % n of an iter_arg counter s whose start is not a constant
  // (a producer counter a tile loop carries into its K loop, `p % S` with
  // `p += 1`), never negative: the slot (s + off) mod n, named by s itself
  // (valueDifference relates it to other such counters).
  if (off >= 0 && base && !isNonNegativeInductionVar(base))
    if (auto arg = dyn_cast<BlockArgument>(base)) {
      SmallVector<Value> assumed;
      std::optional<int64_t> k = iterStride(arg);
      if (k && *k >= 1 && neverNegative(base, assumed))
        return {alloc, base, RingSlot::mod(off, *n), *n};
    }
  // (iv + off) % n is the slot (iv + off) mod n only where iv + off is never
  // negative: off >= 0, or a lower bound that keeps it so ((t - (N-1)) % N
  // in a loop from N - 1).
  if (!isNonNegativeInductionVar(base))
    return RingSlot();
  int64_t lb = *constantInt(
      cast<scf::ForOp>(cast<BlockArgument>(base).getOwner()->getParentOp())
          .getLowerBound());
  if (lb + off < 0)
    return RingSlot();
  return {alloc, base, RingSlot::mod(off, *n), *n};
}
