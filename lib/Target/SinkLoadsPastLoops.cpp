//===- SinkLoadsPastLoops.cpp - Loads next to their users after a loop ----===//
//
// A GEMM's source reads its scales before the main loop and applies them in
// the epilogue. The loaded values then stay live across the whole loop, in
// registers the loop's accumulators and prefetched tiles need: a register
// allocator short of registers spills them before the loop and reloads them
// after it (a real int8 scaled GEMM: 8 row-scale and 16
// column-scale registers, all of its spills). Loading them after the loop
// costs one memory latency in the epilogue, as the reloads of the spills do.
//
// A load moves when its users all lie in one block, after a loop its own
// block is not part of; it takes with it the computations of its block that
// only the moving loads read (the scales' offsets and masks, their buffer
// descriptor), so what stays live across the loop is what those read: row
// and column indices the epilogue reads anyway. It moves only when no
// instruction on a path between its old and new place may write what it
// reads, and when the values it would keep live in its stead hold fewer
// bits than the loaded ones.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/SinkLoadsPastLoops.h"

#include "kiln/Target/CodeMotion.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

/// A read of memory that may move: a simple load, or a call that only reads
/// memory, has no side effects and is not convergent.
bool isMovableLoad(const Instruction &i) {
  if (auto *load = dyn_cast<LoadInst>(&i))
    return load->isSimple();
  auto *call = dyn_cast<CallBase>(&i);
  return call && call->mayReadFromMemory() && call->onlyReadsMemory() &&
         !call->mayHaveSideEffects() && !call->isConvergent() &&
         !call->getType()->isVoidTy();
}

/// The block where `use` needs its value: a phi's incoming block.
BasicBlock *useBlock(const Use &use) {
  auto *user = cast<Instruction>(use.getUser());
  if (auto *phi = dyn_cast<PHINode>(user))
    return phi->getIncomingBlock(use);
  return user->getParent();
}

/// Whether `write` may change what `load` reads.
bool mayClobber(Instruction &write, Instruction &load, AAResults &aa) {
  if (!write.mayWriteToMemory())
    return false;
  if (auto *l = dyn_cast<LoadInst>(&load))
    return isModSet(aa.getModRefInfo(&write, MemoryLocation::get(l)));
  auto *call = cast<CallBase>(&load);
  if (auto *writeCall = dyn_cast<CallBase>(&write))
    return isModSet(aa.getModRefInfo(writeCall, call));
  std::optional<MemoryLocation> written = MemoryLocation::getOrNone(&write);
  return !written || isModOrRefSet(aa.getModRefInfo(call, *written));
}

/// Appends the instructions in [begin, end) that may write memory, but for
/// the backend's barriers: a release fence of sync scope `barrierScope`, the
/// acquire fence of that scope that ends it, and what they bracket (its
/// wait and hardware barrier), which order shared-memory accesses only.
void collectWrites(BasicBlock::iterator begin, BasicBlock::iterator end,
                   std::optional<SyncScope::ID> barrierScope,
                   SmallVectorImpl<Instruction *> &writes) {
  auto isFence = [&](Instruction &i, AtomicOrdering ordering) {
    auto *fence = dyn_cast<FenceInst>(&i);
    return fence && barrierScope && fence->getSyncScopeID() == *barrierScope &&
           fence->getOrdering() == ordering;
  };
  bool inBarrier = false;
  SmallVector<Instruction *> bracketed;
  for (Instruction &i : llvm::make_range(begin, end)) {
    if (isFence(i, AtomicOrdering::Release)) {
      // An unclosed bracket's contents count after all.
      llvm::append_range(writes, bracketed);
      bracketed.clear();
      inBarrier = true;
    } else if (inBarrier && isFence(i, AtomicOrdering::Acquire)) {
      bracketed.clear();
      inBarrier = false;
    } else if (i.mayWriteToMemory()) {
      (inBarrier ? bracketed : writes).push_back(&i);
    }
  }
  llvm::append_range(writes, bracketed);
}

/// The blocks on a path from `from` to `to` (each of them entered after
/// `from` was left and before `to` was entered): reachable from `from`'s
/// successors without passing `to`, and reaching `to`'s predecessors
/// without passing `from`. Either end is among them when a path returns to
/// it.
SmallPtrSet<BasicBlock *, 16> blocksBetween(BasicBlock *from, BasicBlock *to) {
  SmallPtrSet<BasicBlock *, 16> forward, backward, between;
  SmallVector<BasicBlock *> work(successors(from));
  while (!work.empty()) {
    BasicBlock *b = work.pop_back_val();
    if (!forward.insert(b).second || b == to)
      continue;
    llvm::append_range(work, successors(b));
  }
  work.assign(pred_begin(to), pred_end(to));
  while (!work.empty()) {
    BasicBlock *b = work.pop_back_val();
    if (!backward.insert(b).second || b == from)
      continue;
    llvm::append_range(work, predecessors(b));
  }
  for (BasicBlock *b : forward)
    if (backward.contains(b))
      between.insert(b);
  return between;
}

/// Whether `v` is needed in `to` or after it other than by `moving`.
bool liveAfter(Value *v, BasicBlock *to,
               const SmallPtrSetImpl<Instruction *> &moving,
               const SmallPtrSetImpl<BasicBlock *> &after) {
  for (const Use &use : v->uses()) {
    auto *user = cast<Instruction>(use.getUser());
    if (moving.contains(user))
      continue;
    BasicBlock *block = useBlock(use);
    if (block == to || after.contains(block))
      return true;
  }
  return false;
}

/// Moves the loads `group` of `from`, all used from `to` on, with the
/// computations only they read, when that keeps fewer bits live.
bool sinkGroup(BasicBlock *from, BasicBlock *to, ArrayRef<Instruction *> group,
               AAResults &aa, std::optional<SyncScope::ID> barrierScope) {
  const DataLayout &layout = from->getModule()->getDataLayout();
  // Before the first user in `to`.
  SmallPtrSet<Instruction *, 16> loads(group.begin(), group.end());
  Instruction *insertBefore = to->getTerminator();
  for (Instruction &i : *to)
    if (!isa<PHINode>(i) && llvm::any_of(i.operands(), [&](Value *op) {
          auto *opi = dyn_cast<Instruction>(op);
          return opi && loads.contains(opi);
        })) {
      insertBefore = &i;
      break;
    }
  // Only loads that nothing on the way may overwrite.
  SmallPtrSet<BasicBlock *, 16> between = blocksBetween(from, to);
  SmallVector<Instruction *> writes;
  for (BasicBlock *b : between)
    collectWrites(b->begin(), b->end(), barrierScope, writes);
  if (!between.contains(to))
    collectWrites(to->begin(), insertBefore->getIterator(), barrierScope,
                  writes);
  SmallPtrSet<Instruction *, 16> moving;
  for (Instruction *load : group) {
    SmallVector<Instruction *> after;
    if (!between.contains(from))
      collectWrites(std::next(load->getIterator()), from->end(), barrierScope,
                    after);
    bool clobbered =
        llvm::any_of(llvm::concat<Instruction *>(writes, after),
                     [&](Instruction *w) { return mayClobber(*w, *load, aa); });
    if (!clobbered)
      moving.insert(load);
  }
  if (moving.empty())
    return false;
  uint64_t results = 0;
  for (Instruction *load : moving)
    results += kiln::typeBits(layout, load->getType());
  // With them, bottom-up, what only moving instructions read.
  for (Instruction &i : llvm::reverse(*from)) {
    if (moving.contains(&i) || !kiln::isMovableComputation(i) || i.use_empty())
      continue;
    if (llvm::all_of(i.users(), [&](User *u) {
          return moving.contains(cast<Instruction>(u));
        }))
      moving.insert(&i);
  }
  // The values they read that would become live across the loop.
  SmallPtrSet<BasicBlock *, 16> after;
  SmallVector<BasicBlock *> work(successors(to));
  while (!work.empty()) {
    BasicBlock *b = work.pop_back_val();
    if (after.insert(b).second)
      llvm::append_range(work, successors(b));
  }
  uint64_t inputs = 0;
  SmallPtrSet<Value *, 16> seen;
  for (Instruction *i : moving)
    for (Value *op : i->operands()) {
      auto *opi = dyn_cast<Instruction>(op);
      if ((opi && moving.contains(opi)) || !(opi || isa<Argument>(op)) ||
          !seen.insert(op).second || liveAfter(op, to, moving, after))
        continue;
      inputs += kiln::typeBits(layout, op->getType());
    }
  if (inputs >= results)
    return false;
  SmallVector<Instruction *> order;
  for (Instruction &i : *from)
    if (moving.contains(&i))
      order.push_back(&i);
  for (Instruction *i : order)
    i->moveBefore(insertBefore->getIterator());
  return true;
}

} // namespace

bool kiln::sinkLoadsPastLoops(Function &f, DominatorTree &dt, LoopInfo &loops,
                              AAResults &aa, StringRef barrierFenceScope) {
  std::optional<SyncScope::ID> barrierScope;
  if (!barrierFenceScope.empty())
    barrierScope = f.getContext().getOrInsertSyncScopeID(barrierFenceScope);
  bool changed = false;
  for (BasicBlock &block : f) {
    Loop *loop = loops.getLoopFor(&block);
    // The loads of the block by the block their users share.
    MapVector<BasicBlock *, SmallVector<Instruction *>> groups;
    for (Instruction &i : block) {
      if (!isMovableLoad(i) || i.use_empty())
        continue;
      BasicBlock *to = nullptr;
      for (const Use &use : i.uses()) {
        BasicBlock *b = useBlock(use);
        to = to ? dt.findNearestCommonDominator(to, b) : b;
      }
      if (!to || to == &block || !dt.isReachableFromEntry(to) ||
          loops.getLoopFor(to) != loop)
        continue;
      groups[to].push_back(&i);
    }
    for (auto &[to, group] : groups) {
      // Only past a loop: within straight-line code the scheduler places
      // loads itself.
      SmallPtrSet<BasicBlock *, 16> between = blocksBetween(&block, to);
      if (llvm::none_of(between, [&](BasicBlock *b) {
            return loops.getLoopFor(b) != loop;
          }))
        continue;
      changed |= sinkGroup(&block, to, group, aa, barrierScope);
    }
  }
  return changed;
}
