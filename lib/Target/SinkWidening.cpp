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
// sinkToFirstUses, run after it, moves the rest of a block's computations
// that are used only in the block to just before their first user, bottom-up,
// so that an elementwise chain the lowering emitted one operation at a time
// over a whole tile (all the products, then all the conversions, then all
// the multiplies, then the stores) runs one element's chain at a time. It
// does not move an instruction when the operands whose last use it is (and
// that would not follow it down) hold at least as many bits as its result.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/SinkWidening.h"

#include "kiln/Target/CodeMotion.h"

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

bool sinkBlock(BasicBlock &block, const DataLayout &layout) {
  // Bottom-up: an instruction is deferred when every user in the block is.
  SmallPtrSet<Instruction *, 32> deferred;
  for (Instruction &i : llvm::reverse(block)) {
    if (!kiln::isMovableComputation(i) || i.use_empty())
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
      results[leader] += kiln::typeBits(layout, i->getType());
    for (Value *op : i->operands()) {
      auto *opi = dyn_cast<Instruction>(op);
      if (!(opi && deferred.contains(opi)) && !liveAtEnd(op, block))
        readers[op].insert(leader);
    }
  }
  for (auto &[value, readingPieces] : readers)
    for (Instruction *leader : readingPieces)
      inputs[leader] += double(kiln::typeBits(layout, value->getType())) /
                        readingPieces.size();
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

namespace {

/// The bits of `i`'s operands whose live ranges would grow if `i` moved down
/// to just before `to` (in its block): values of the block that only `i`
/// reads (one that others read is live over their span anyway), less those
/// that would themselves follow `i` there; of an extracted vector or
/// aggregate, only the element.
uint64_t lengthened(Instruction &i, Instruction &to, const DataLayout &layout,
                    unsigned depth);

bool follows(Instruction &i, Instruction &to, const DataLayout &layout,
             unsigned depth) {
  return depth < 8 && kiln::isMovableComputation(i) && i.hasOneUse() &&
         !i.getType()->isPtrOrPtrVectorTy() &&
         lengthened(i, to, layout, depth + 1) <=
             kiln::typeBits(layout, i.getType());
}

uint64_t lengthened(Instruction &i, Instruction &to, const DataLayout &layout,
                    unsigned depth) {
  BasicBlock *block = i.getParent();
  uint64_t total = 0;
  SmallPtrSet<Value *, 4> seen;
  for (Value *op : i.operands()) {
    auto *def = dyn_cast<Instruction>(op);
    if (!def || def->getParent() != block || !seen.insert(op).second ||
        !def->hasOneUse() || follows(*def, to, layout, depth))
      continue;
    Type *type = op->getType();
    if (isa<ExtractElementInst, ExtractValueInst>(i) && op == i.getOperand(0))
      type = i.getType();
    total += kiln::typeBits(layout, type);
  }
  return total;
}

} // namespace

bool kiln::sinkToFirstUses(Function &f) {
  // Each move renumbers the block for the next order query: quadratic in
  // the block's size, so very large blocks stay as they are.
  constexpr size_t kMaxInstructions = 16384;
  const DataLayout &layout = f.getParent()->getDataLayout();
  bool changed = false;
  for (BasicBlock &block : f) {
    if (block.size() > kMaxInstructions)
      continue;
    SmallVector<Instruction *> order;
    for (Instruction &i : block)
      order.push_back(&i);
    // Bottom-up, so that a chain follows its last instruction down. Address
    // computations stay: the code generator folds them into the accesses.
    for (Instruction *i : llvm::reverse(order)) {
      if (!kiln::isMovableComputation(*i) || i->use_empty() ||
          i->getType()->isPtrOrPtrVectorTy())
        continue;
      Instruction *first = nullptr;
      bool local = true;
      for (User *u : i->users()) {
        auto *ui = cast<Instruction>(u);
        if (ui->getParent() != &block || isa<PHINode>(ui)) {
          local = false;
          break;
        }
        if (!first || ui->comesBefore(first))
          first = ui;
      }
      if (!local || i->getNextNode() == first)
        continue;
      // Moved when no operand's live range grows, or when those that grow
      // hold fewer bits than the result that no longer spans the distance.
      uint64_t cost = lengthened(*i, *first, layout, 0);
      if (cost && cost >= kiln::typeBits(layout, i->getType()))
        continue;
      i->moveBefore(first->getIterator());
      changed = true;
    }
  }
  return changed;
}
