//===- SinkSharedLoads.cpp - Shared-memory reads at their first use -------===//
//
// A dot operand read from shared memory is lowered as all of its reads
// first, then the matrix instructions: a 256x256 fp8 block of 8 warps reads
// 192 registers of operands a thread before its first matrix instruction, on
// top of 128 accumulators, and the register allocator spills. Moving each
// operand's reads to just before the first instruction that uses it lets the
// matrix instructions that come first retire their operands before the
// later ones are read (with the K steps outermost, one step's operands at a
// time). The operand must be a tree of bitcasts, shuffles and
// insert/extractelements over loads from shared memory, in the user's block,
// with nothing between a load and the user that writes memory or has other
// side effects (a store, a barrier, a fence, a wait).
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/SinkSharedLoads.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
constexpr unsigned kMaxLeaves = 8;
constexpr unsigned kMaxNodes = 32;

bool isSharedLoad(const Instruction *i) {
  auto *load = dyn_cast<LoadInst>(i);
  return load && load->isSimple() &&
         load->getPointerAddressSpace() == kSharedAddressSpace;
}

bool isShuffleNode(const Instruction *i) {
  return isa<BitCastInst, ShuffleVectorInst, ExtractElementInst,
             InsertElementInst>(i);
}

/// The nodes of `v`'s tree (operands before users), or false when `v` is
/// not such a tree within `block`.
bool collectTree(Value *v, BasicBlock *block,
                 SmallVectorImpl<Instruction *> &nodes,
                 SmallPtrSetImpl<Instruction *> &seen, unsigned &leaves) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i)
    return isa<Constant>(v);
  if (i->getParent() != block)
    return false;
  if (!seen.insert(i).second)
    return true;
  if (isSharedLoad(i)) {
    if (++leaves > kMaxLeaves)
      return false;
    nodes.push_back(i);
    return true;
  }
  if (!isShuffleNode(i))
    return false;
  for (Value *op : i->operands())
    if (!collectTree(op, block, nodes, seen, leaves))
      return false;
  nodes.push_back(i);
  return nodes.size() <= kMaxNodes;
}

bool blocksMotion(const Instruction &i) {
  return i.mayWriteToMemory() || i.mayHaveSideEffects();
}

} // namespace

bool kiln::sinkSharedLoadsToUses(Function &f) {
  bool changed = false;
  for (BasicBlock &block : f) {
    // The users: calls that do not access memory (the matrix instructions),
    // in order; each operand's tree moves to just before its first user.
    SmallVector<CallInst *> calls;
    for (Instruction &i : block)
      if (auto *call = dyn_cast<CallInst>(&i))
        if (call->doesNotAccessMemory() && !call->mayHaveSideEffects())
          calls.push_back(call);
    for (CallInst *call : calls) {
      for (unsigned a = 0; a < call->arg_size(); ++a) {
        Value *operand = call->getArgOperand(a);
        if (!isa<Instruction>(operand) || !operand->getType()->isVectorTy())
          continue;
        SmallVector<Instruction *> nodes;
        SmallPtrSet<Instruction *, 16> seen;
        unsigned leaves = 0;
        if (!collectTree(operand, &block, nodes, seen, leaves) || leaves == 0)
          continue;
        // Every node's other users come after the call, and nothing between
        // a load and the call writes memory or has side effects.
        bool ok = true;
        for (Instruction *node : nodes) {
          for (User *u : node->users()) {
            auto *ui = cast<Instruction>(u);
            if (ui != call && !seen.contains(ui) &&
                (ui->getParent() != &block || ui->comesBefore(call)))
              ok = false;
          }
          if (ok && isSharedLoad(node))
            for (auto it = std::next(node->getIterator());
                 &*it != call && ok; ++it)
              ok = seen.contains(&*it) || !blocksMotion(*it);
          if (!ok)
            break;
        }
        if (!ok)
          continue;
        for (Instruction *node : nodes) // operands before their users
          if (node->getNextNode() != call)
            node->moveBefore(call->getIterator());
        changed = true;
      }
    }
  }
  return changed;
}
