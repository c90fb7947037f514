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
  Operation *rem = idx.getDefiningOp();
  if (!isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(rem))
    return RingSlot();
  std::optional<int64_t> n = constantInt(rem->getOperand(1));
  if (!n || *n <= 0 || *n > slots)
    return RingSlot();
  auto [base, off] = linearIndex(rem->getOperand(0));
  if (off < 0 || !isNonNegativeInductionVar(base))
    return RingSlot();
  return {alloc, base, RingSlot::mod(off, *n), *n};
}
