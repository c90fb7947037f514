//===- SinkWidening.cpp - Live-out computations at the block's end --------===//
//
// A loop that loads the next iteration's data early and converts it (fp8 to
// f32, scaled, to bf16) for the next iteration has the conversions where the
// source wrote them: right after the loads. A code generator whose scheduler
// leaves them there keeps the wide results (four f32 registers for each
// register of fp8 bytes, two bf16 words) live across the whole loop body in
// place of the loaded bytes, and exposes the loads' latency at the wait the
// first conversion needs. Moving such computations to the end of the
// iteration puts them after the work that hid the loads.
//
// The computations that move are those whose results are used only after
// the block (by a phi of the next iteration or another block): instructions
// that neither access memory nor have side effects, are not convergent, and
// whose users in the block are all such instructions too. They are grouped
// into connected pieces; a piece moves to just before the terminator, in its
// order, when the bits of the values it reads from the block (those not
// live at the block's end anyway, each shared among the pieces that read
// it) are no more than the bits of its results: the loaded bytes and scales
// are then what stays live across the block, not the converted values.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/SinkWidening.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

bool isMovable(const Instruction &i) {
  if (i.isTerminator() || isa<PHINode>(i) || i.isEHPad() ||
      isa<AllocaInst>(i) || i.getType()->isVoidTy() || i.isDebugOrPseudoInst())
    return false;
  if (i.mayReadOrWriteMemory() || i.mayHaveSideEffects())
    return false;
  if (auto *call = dyn_cast<CallBase>(&i))
    return isa<IntrinsicInst>(call) && !call->isConvergent() &&
           call->doesNotAccessMemory();
  return true;
}

/// Whether `v`, used in `block`, is live at the block's end without the
/// block's uses: defined elsewhere (an argument, a constant, a value of an
/// earlier block), or used by a phi of the block or in another block.
bool liveAtEnd(Value *v, BasicBlock &block) {
  auto *def = dyn_cast<Instruction>(v);
  if (!def || def->getParent() != &block)
    return true;
  for (User *u : def->users()) {
    auto *ui = cast<Instruction>(u);
    if (ui->getParent() != &block || isa<PHINode>(ui))
      return true;
  }
  return false;
}

uint64_t bits(const DataLayout &layout, Type *type) {
  if (!type->isSized())
    return 0;
  return layout.getTypeSizeInBits(type).getKnownMinValue();
}

bool sinkBlock(BasicBlock &block, const DataLayout &layout) {
  // Bottom-up: an instruction is deferred when every user in the block is.
  SmallPtrSet<Instruction *, 32> deferred;
  for (Instruction &i : llvm::reverse(block)) {
    if (!isMovable(i) || i.use_empty())
      continue;
    bool onlyLater = llvm::all_of(i.users(), [&](User *u) {
      auto *ui = cast<Instruction>(u);
      return ui->getParent() != &block || isa<PHINode>(ui) ||
             deferred.contains(ui);
    });
    if (onlyLater)
      deferred.insert(&i);
  }
  if (deferred.empty())
    return false;
  // Connected pieces, over the def-use edges between deferred instructions.
  EquivalenceClasses<Instruction *> pieces;
  for (Instruction *i : deferred) {
    pieces.insert(i);
    for (Value *op : i->operands())
      if (auto *opi = dyn_cast<Instruction>(op); opi && deferred.contains(opi))
        pieces.unionSets(i, opi);
  }
  // Each piece's results (live out of the block) and inputs from the block.
  DenseMap<Instruction *, double> results, inputs;
  DenseMap<Value *, SmallPtrSet<Instruction *, 4>> readers; // input -> pieces
  for (Instruction *i : deferred) {
    Instruction *leader = pieces.getLeaderValue(i);
    if (llvm::any_of(i->users(), [&](User *u) {
          return !deferred.contains(cast<Instruction>(u));
        }))
      results[leader] += bits(layout, i->getType());
    for (Value *op : i->operands()) {
      auto *opi = dyn_cast<Instruction>(op);
      if (!(opi && deferred.contains(opi)) && !liveAtEnd(op, block))
        readers[op].insert(leader);
    }
  }
  for (auto &[value, readingPieces] : readers)
    for (Instruction *leader : readingPieces)
      inputs[leader] +=
          double(bits(layout, value->getType())) / readingPieces.size();
  SmallVector<Instruction *> moving;
  for (Instruction &i : block)
    if (deferred.contains(&i)) {
      Instruction *leader = pieces.getLeaderValue(&i);
      if (inputs.lookup(leader) <= results.lookup(leader))
        moving.push_back(&i);
    }
  Instruction *end = block.getTerminator();
  for (Instruction *i : moving)
    i->moveBefore(end->getIterator());
  return !moving.empty();
}

} // namespace

bool kiln::sinkWideningToUses(Function &f) {
  const DataLayout &layout = f.getParent()->getDataLayout();
  bool changed = false;
  for (BasicBlock &block : f)
    changed |= sinkBlock(block, layout);
  return changed;
}
