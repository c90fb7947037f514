//===- BarrierRuns.cpp - One CTA barrier for a run of inits ---------------===//

#include "kiln/Dialect/Tile/IR/BarrierRuns.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
/// An op the run may step over: no memory effects and no regions (a region
/// could hold anything).
bool stepsOver(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

Operation *nextEffectful(Operation *op) {
  for (Operation *n = op->getNextNode(); n; n = n->getNextNode())
    if (!stepsOver(n))
      return n;
  return nullptr;
}

Operation *previousEffectful(Operation *op) {
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode())
    if (!stepsOver(p))
      return p;
  return nullptr;
}
} // namespace

bool kiln::tile::initSharesNextBarrier(Operation *init) {
  Operation *next = nextEffectful(init);
  return next && isa<BarrierInitOpInterface>(next);
}

bool kiln::tile::invalidateSharesPreviousBarrier(Operation *invalidate) {
  Operation *prev = previousEffectful(invalidate);
  return prev && isa<BarrierInvalidateOpInterface>(prev);
}

void kiln::tile::markBarrierRuns(Operation *root) {
  TileDialect::SharesBarrierAttrHelper helper(root->getContext());
  root->walk([&](Operation *op) {
    if ((isa<BarrierInitOpInterface>(op) && initSharesNextBarrier(op)) ||
        (isa<BarrierInvalidateOpInterface>(op) &&
         invalidateSharesPreviousBarrier(op)))
      helper.setAttr(op, UnitAttr::get(op->getContext()));
  });
}

bool kiln::tile::sharesBarrier(Operation *op) {
  return bool(TileDialect::SharesBarrierAttrHelper(op->getContext()).getAttr(op));
}
