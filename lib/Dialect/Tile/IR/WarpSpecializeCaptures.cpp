//===- WarpSpecializeCaptures.cpp - What worker partitions take from above ===//

#include "kiln/Dialect/Tile/IR/WarpSpecializeCaptures.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kiln::tile;

bool kiln::tile::isRecomputableInWorker(Operation *op) {
  if (op->getNumRegions())
    return false;
  // An allocation's address; one with an initial value is recomputed
  // without it (the kernel's warps store the value before the partitions
  // start).
  if (isa<LocalAllocOp>(op))
    return true;
  return isMemoryEffectFree(op);
}

OperandRange kiln::tile::getRecomputedOperands(Operation *op) {
  if (auto alloc = dyn_cast<LocalAllocOp>(op))
    return op->getOperands().take_front(0);
  return op->getOperands();
}

static bool canRecompute(Value v, DenseMap<Value, bool> &memo) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  bool ok;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    ok = isa<FunctionOpInterface>(owner) && arg.getOwner()->isEntryBlock();
  } else {
    Operation *def = v.getDefiningOp();
    ok = isRecomputableInWorker(def);
    memo[v] = ok; // provisional: an op's operands do not depend on its results
    for (Value operand : getRecomputedOperands(def))
      if (ok && !canRecompute(operand, memo))
        ok = false;
  }
  memo[v] = ok;
  return ok;
}

bool kiln::tile::canRecomputeInWorker(Value v) {
  DenseMap<Value, bool> memo;
  return canRecompute(v, memo);
}

/// What the kernel's warps can hand a worker partition through its 8-byte
/// scratch slots: integer and float scalars, and a tensor descriptor made in
/// the kernel (the address of its 128 bytes in global memory; the workers
/// acquire it for the tensor-map proxy where they load it).
static bool isPassableScalar(Value v) {
  Type t = v.getType();
  return (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() <= 64) ||
         (isa<FloatType>(t) && t.getIntOrFloatBitWidth() <= 64) ||
         isa<TensorDescType>(t);
}

/// The scalars `v` is computed from that cannot be recomputed, where what
/// lies between them and `v` can (a shared-memory view indexed by a loop's
/// counter: the counter is passed and the view recomputed).
static void collectPassed(Value v, DenseMap<Value, bool> &memo,
                          llvm::SetVector<Value> &passed,
                          llvm::DenseSet<Value> &seen) {
  if (!seen.insert(v).second || canRecompute(v, memo))
    return;
  if (isPassableScalar(v)) {
    passed.insert(v);
    return;
  }
  Operation *def = v.getDefiningOp();
  if (!def || !isRecomputableInWorker(def))
    return; // the partition cannot have it: an error where it is used
  for (Value operand : getRecomputedOperands(def))
    collectPassed(operand, memo, passed, seen);
}

SmallVector<Value> kiln::tile::getPassedCaptures(WarpSpecializeOp ws) {
  llvm::SetVector<Value> passed;
  DenseMap<Value, bool> memo;
  llvm::DenseSet<Value> seen;
  for (Region &region : ws.getPartitionRegions()) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    for (Value v : above)
      collectPassed(v, memo, passed, seen);
  }
  return passed.takeVector();
}
