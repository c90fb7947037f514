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
  if (auto alloc = dyn_cast<LocalAllocOp>(op))
    return !alloc.getSrc();
  return isMemoryEffectFree(op);
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
    for (Value operand : def->getOperands())
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

SmallVector<Value> kiln::tile::getPassedCaptures(WarpSpecializeOp ws) {
  llvm::SetVector<Value> passed;
  DenseMap<Value, bool> memo;
  for (Region &region : ws.getPartitionRegions()) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    for (Value v : above) {
      Type t = v.getType();
      bool scalar = (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() <= 64) ||
                    (isa<FloatType>(t) && t.getIntOrFloatBitWidth() <= 64);
      if (scalar && !canRecompute(v, memo))
        passed.insert(v);
    }
  }
  return passed.takeVector();
}
