//===- WaitInstructions.cpp - Instructions a counted wait may leave -------===//
//
// The backward walk from a wait over the copies and counted memory ops
// issued after the awaited commit group, and the merge analysis it weighs
// them with.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/WaitInstructions.h"

#include "kiln/Analysis/AddressForm.h"
#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Analysis/VectorWidth.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// The kernel argument a pointer value comes from (through splat, addptr,
/// broadcast, expand_dims, convert_layout, reshape, hint), or null.
Value pointerRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto splat = dyn_cast<SplatOp>(def))
      v = splat.getSrc();
    else if (auto add = dyn_cast<AddPtrOp>(def))
      v = add.getPtr();
    else if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp, ReshapeOp, HintOp>(def))
      v = def->getOperand(0);
    else
      return Value();
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp()) ||
      !arg.getOwner()->isEntryBlock())
    return Value();
  return arg;
}

class InstructionCounter {
public:
  InstructionCounter(const TargetDesc *target, unsigned need,
                     const Mergeable &mergeable)
      : target(target), need(need), mergeable(mergeable) {}

  int64_t countBefore(Operation *wait) {
    States s(need, kInf);
    s[0] = 0;
    fromPosition(wait, std::move(s), 0);
    return finished == kInf ? 0 : finished;
  }

private:
  using States = SmallVector<int64_t>;
  static constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

  void finishAll(const States &s) {
    for (int64_t c : s)
      finished = std::min(finished, c);
  }

  static States merge(const States &a, const States &b) {
    States r(a);
    for (auto [x, y] : llvm::zip(r, b))
      x = std::min(x, y);
    return r;
  }

  unsigned weight(Operation *op) {
    auto it = weights.find(op);
    if (it == weights.end()) {
      unsigned w = 0;
      if (auto copy = dyn_cast<AsyncCopyOpInterface>(op))
        w = getAsyncCopyInstructions(copy, target);
      else if (auto mem = dyn_cast<CountedMemoryOpInterface>(op)) {
        w = mem.getMinIssuedInstructions();
        if (auto it = mergeable.exact.find(op);
            w && it != mergeable.exact.end()) {
          it = weights.try_emplace(op, it->second).first;
          return it->second;
        }
        if (w && mergeable.ops.contains(op))
          w = getVectorMemoryBytes(mem.getCountedType()) / 16;
        // Elements whose addresses the axis analysis finds equal: LLVM may
        // keep only the last store to each address.
        if (w > 1) {
          AxisInfo info = axis.get(mem.getCountedAddresses());
          if (llvm::any_of(info.constancy, [](int64_t k) { return k > 1; }))
            w = 1;
        }
      }
      it = weights.try_emplace(op, w).first;
    }
    return it->second;
  }

  /// Walks [block.begin(), end) backwards.
  States walkOps(Block &block, Block::iterator end, States s) {
    for (auto it = end; it != block.begin();) {
      Operation *op = &*--it;
      if (isa<AsyncCopyOpInterface, CountedMemoryOpInterface>(op)) {
        // Copies, and loads and stores whose instruction count the lowering
        // pins: the hardware counter sees them all.
        for (int64_t &c : s)
          if (c != kInf)
            c += weight(op);
      } else if (isa<AsyncCommitGroupOp>(op)) {
        finished = std::min(finished, s[need - 1]); // the awaited group
        for (unsigned k = need - 1; k > 0; --k)
          s[k] = s[k - 1];
        s[0] = kInf;
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        States thenS = walkOps(branch.getThenRegion().front(),
                               branch.getThenRegion().front().end(), s);
        States elseS = branch.getElseRegion().empty()
                           ? s
                           : walkOps(branch.getElseRegion().front(),
                                     branch.getElseRegion().front().end(), s);
        s = merge(thenS, elseS);
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        States acc = s, cur = s; // 0 .. need+1 iterations
        for (unsigned i = 0; i <= need; ++i) {
          cur = walkOps(*loop.getBody(), loop.getBody()->end(), cur);
          acc = merge(acc, cur);
        }
        s = acc;
      } else if (op->getNumRegions() > 0) {
        finishAll(s);
        s.assign(need, kInf);
      }
    }
    return s;
  }

  /// Continues backwards from just before `at`, then out of its block.
  void fromPosition(Operation *at, States s, unsigned backEdges) {
    s = walkOps(*at->getBlock(), Block::iterator(at), std::move(s));
    atBlockStart(at->getBlock(), std::move(s), backEdges);
  }

  void atBlockStart(Block *block, States s, unsigned backEdges) {
    Operation *parent = block->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      fromPosition(loop, s, backEdges); // entered from before the loop
      if (backEdges <= need) {          // or around the back edge
        States prev = walkOps(*block, block->end(), s);
        atBlockStart(block, std::move(prev), backEdges + 1);
      } else {
        finishAll(s);
      }
      return;
    }
    if (isa<scf::IfOp>(parent)) {
      fromPosition(parent, std::move(s), backEdges);
      return;
    }
    finishAll(s); // the function's start, or a region not followed
  }

  const TargetDesc *target;
  unsigned need;
  const Mergeable &mergeable;
  AxisInfoAnalysis axis;
  int64_t finished = kInf;
  DenseMap<Operation *, unsigned> weights;
};

} // namespace

/// A global store whose accesses the unmergeable-address rule may count
/// exactly: a store (a write of global memory) of a tensor, through
/// pointers or a base plus offsets.
static bool isCountedStore(Operation *op) {
  auto mem = dyn_cast<CountedMemoryOpInterface>(op);
  return mem && hasEffect<MemoryEffects::Write>(op) &&
         isa<RankedTensorType>(mem.getCountedAddresses().getType());
}

Mergeable kiln::tile::findMergeable(Operation *root, const TargetDesc *option) {
  using Key = std::tuple<unsigned, OperationName, Value>;
  llvm::DenseMap<Key, unsigned> perBase;
  llvm::DenseMap<Key, SmallVector<Operation *>> groups;
  llvm::DenseMap<std::pair<unsigned, OperationName>, unsigned> perKind;
  SmallVector<std::tuple<Operation *, unsigned, Value>> ops;
  unsigned stretch = 0;
  root->walk([&](Block *block) {
    ++stretch;
    for (Operation &op : *block) {
      if (isa<AsyncWaitOp, BarrierOp>(op) || op.getNumRegions() > 0) {
        ++stretch;
        continue;
      }
      auto mem = dyn_cast<CountedMemoryOpInterface>(op);
      if (!mem)
        continue;
      Value base = pointerRoot(mem.getCountedPointers());
      ops.push_back({&op, stretch, base});
      ++perBase[{stretch, op.getName(), base}];
      ++perKind[{stretch, op.getName()}];
      groups[{stretch, op.getName(), base}].push_back(&op);
    }
  });
  auto unrolled = [](Operation *op) {
    auto loop = op->getParentOfType<LoopLikeOpInterface>();
    return loop && !loop->hasAttr("llvm.loop_annotation");
  };
  Mergeable result;
  // The stores of one argument in one stretch whose addresses show that
  // LLVM can merge none of their accesses count as the lowering issues them.
  AxisInfoAnalysis axis;
  for (auto &[key, group] : groups) {
    auto [at, name, base] = key;
    if (!base || perBase.lookup({at, name, Value()}) > 0 ||
        !llvm::all_of(group, [&](Operation *op) {
          return isCountedStore(op) && !unrolled(op);
        }))
      continue;
    const TargetDesc *target = option ? option : getEnclosingTarget(group[0]);
    if (!target)
      continue;
    // Each store's accesses: through a tensor of pointers (tile.store) or a
    // scalar base plus element offsets (a buffer store), at the width the
    // lowering issues them.
    SmallVector<CountedAccesses> accesses;
    for (Operation *op : group) {
      auto mem = cast<CountedMemoryOpInterface>(op);
      Value ptrs = mem.getCountedPointers(), addrs = mem.getCountedAddresses();
      auto type = cast<RankedTensorType>(addrs.getType());
      std::optional<AddressForm> form;
      unsigned vec = 0;
      if (ptrs == addrs) {
        form = getAddressForm(ptrs);
        vec = getPointerVectorWidth(ptrs, mem.getCountedMask(), axis,
                                    target->maxVectorBytes);
      } else {
        form = getAddressForm(ptrs, addrs);
        vec = getOffsetVectorWidth(
            ptrs, addrs, mem.getCountedMask(),
            getElementBytes(mem.getCountedType().getElementType()), axis,
            target->maxVectorBytes);
      }
      if (!form) {
        accesses.clear();
        break;
      }
      accesses.push_back({std::move(*form), type, vec});
    }
    if (accesses.empty())
      continue;
    if (std::optional<SmallVector<unsigned>> counts =
            countUnmergeableAccesses(accesses, target->warpSize))
      for (auto [op, n] : llvm::zip(group, *counts))
        result.exact[op] = n;
  }
  for (auto [op, at, base] : ops) {
    if (result.exact.contains(op))
      continue;
    bool untraced = perBase.lookup({at, op->getName(), Value()}) > 0;
    bool alone = base ? perBase.lookup({at, op->getName(), base}) == 1 && !untraced
                      : perKind.lookup({at, op->getName()}) == 1;
    if (!alone || unrolled(op))
      result.ops.insert(op);
  }
  return result;
}

int64_t kiln::tile::countWaitInstructions(Operation *wait,
                                          const TargetDesc *target,
                                          unsigned need,
                                          const Mergeable &mergeable) {
  return InstructionCounter(target, need, mergeable).countBefore(wait);
}
