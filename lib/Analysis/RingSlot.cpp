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

RingSlot RingSlot::enteringLoop(scf::ForOp loop) const {
  if (!known() || base || !isNonNegativeInductionVar(loop.getInductionVar()))
    return *this;
  int64_t lb = *constantInt(loop.getLowerBound());
  return {root, loop.getInductionVar(), mod(offset - lb, modulus), modulus};
}

RingSlot RingSlot::aroundBackEdge(Operation *loop) const {
  if (!known() || !base)
    return *this;
  auto forOp = dyn_cast<scf::ForOp>(loop);
  if (forOp && base == forOp.getInductionVar()) {
    // A slot has an induction-variable base only with a constant step.
    int64_t step = *constantInt(forOp.getStep());
    return {root, base, mod(offset - step, modulus), modulus};
  }
  return leaving(loop);
}

RingSlot RingSlot::leaving(Operation *op) const {
  if (base && op->isAncestor(Value(base).getParentBlock()->getParentOp()))
    return RingSlot();
  return *this;
}

/// A slot counter carried by a loop: an scf.for iter_arg that starts at a
/// constant c in [0, n) and is yielded as (arg + 1) % n, in a loop of step 1
/// from a constant lower bound lb >= 0. In iteration iv it is
/// (iv - lb + c) mod n: the slot (iv + (c - lb)) mod n.
static std::optional<RingSlot> slotCounter(Value idx, int64_t slots) {
  auto arg = dyn_cast<BlockArgument>(idx);
  if (!arg || arg.getArgNumber() == 0)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || !isNonNegativeInductionVar(loop.getInductionVar()) ||
      constantInt(loop.getStep()) != 1)
    return std::nullopt;
  unsigned k = arg.getArgNumber() - 1;
  std::optional<int64_t> init = constantInt(loop.getInitArgs()[k]);
  Value next = loop.getBody()->getTerminator()->getOperand(k);
  Operation *rem = next.getDefiningOp();
  if (!init || !isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(rem))
    return std::nullopt;
  std::optional<int64_t> n = constantInt(rem->getOperand(1));
  auto [base, off] = linearIndex(rem->getOperand(0));
  if (!n || *n <= 0 || *n > slots || *init < 0 || *init >= *n ||
      base != Value(arg) || off != 1)
    return std::nullopt;
  int64_t lb = *constantInt(loop.getLowerBound());
  return RingSlot{nullptr, loop.getInductionVar(), RingSlot::mod(*init - lb, *n),
                  *n};
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
    return {alloc, Value(), *c, slots};
  }
  if (std::optional<RingSlot> counter = slotCounter(idx, slots)) {
    counter->root = alloc;
    return *counter;
  }
  Operation *rem = idx.getDefiningOp();
  if (!isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(rem))
    return RingSlot();
  std::optional<int64_t> n = constantInt(rem->getOperand(1));
  if (!n || *n <= 0 || *n > slots)
    return RingSlot();
  auto [base, off] = linearIndex(rem->getOperand(0));
  // (s + off) % n of a slot counter s of the same modulus (s in [0, n), so
  // s + off >= 0 when off >= 0): the counter's slot moved by off, as
  // a ping-pong ring reads slot (buf + 1) % 2 while it refills slot buf.
  if (off >= 0 && base)
    if (std::optional<RingSlot> counter = slotCounter(base, slots))
      if (counter->modulus == *n)
        return {alloc, counter->base, RingSlot::mod(counter->offset + off, *n),
                *n};
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
