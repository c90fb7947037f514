//===- PackNarrowPhis.cpp - Carry 8- and 16-bit values in 32-bit words ----===//
//
// A tensor of fp8/i8 (or f16/bf16/i16) elements that a loop carries becomes,
// after LLVM's scalar replacement, one phi per element. A code generator whose
// registers are 32 bits wide gives each such phi a register of its
// own: a 256x256 fp8 tile held by 512 threads is 128 bytes a thread, which is
// 32 registers as words and 128 as bytes. Packing the phis of a block four
// bytes (two halves) to a word restores the words: in each predecessor the
// incoming values are gathered into a vector and bitcast to i32; in the block
// the word is bitcast back and its elements extracted where they are used.
// The gathers usually fold away, as the incoming values were extracted from
// vectors that were loaded whole.
//
// Before packing, a wide phi whose every user narrows it by one cast
// (fptrunc, fptosi, fptoui, trunc) to one 8- or 16-bit type becomes a phi of
// the narrowed values, cast at the end of each predecessor: instcombine had
// folded the phi of a loop's converted tile into a conversion of wide phis.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/PackNarrowPhis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>

using namespace llvm;

/// Lanes of one 32-bit word for a phi of type `ty`, or 0 when `ty` is not
/// packed.
static unsigned lanesPerWord(Type *ty) {
  if (ty->isIntegerTy(8))
    return 4;
  if (ty->isIntegerTy(16) || ty->isHalfTy() || ty->isBFloatTy())
    return 2;
  // 8-bit floats have no LLVM type of their own: fp8 values are i8.
  return 0;
}

/// Packs one group of phis of type `elem` (all in `block`, `group.size()` ==
/// lanes) into one i32 phi.
static void packGroup(BasicBlock *block, ArrayRef<PHINode *> group,
                      Type *elem) {
  LLVMContext &ctx = block->getContext();
  unsigned lanes = group.size();
  auto *vecTy = FixedVectorType::get(elem, lanes);
  Type *wordTy = Type::getInt32Ty(ctx);
  IRBuilder<> b(ctx);
  b.SetInsertPoint(group.front());
  PHINode *word = b.CreatePHI(wordTy, group.front()->getNumIncomingValues(),
                              group.front()->getName() + ".word");
  // One gather per incoming edge (a predecessor may appear twice, with the
  // same values).
  DenseMap<BasicBlock *, Value *> gathered;
  for (unsigned i = 0, e = group.front()->getNumIncomingValues(); i < e; ++i) {
    BasicBlock *pred = group.front()->getIncomingBlock(i);
    Value *&w = gathered[pred];
    if (!w) {
      b.SetInsertPoint(pred->getTerminator());
      Value *v = PoisonValue::get(vecTy);
      for (unsigned lane = 0; lane < lanes; ++lane)
        v = b.CreateInsertElement(
            v, group[lane]->getIncomingValueForBlock(pred), b.getInt32(lane));
      w = b.CreateBitCast(v, wordTy);
    }
    word->addIncoming(w, pred);
  }
  // The elements, extracted once per block that uses them, just before the
  // first use there (a phi user takes its value at the end of its incoming
  // block).
  for (unsigned lane = 0; lane < lanes; ++lane) {
    PHINode *old = group[lane];
    MapVector<BasicBlock *, Instruction *> firstUse;
    SmallVector<Use *> uses;
    for (Use &u : old->uses()) {
      auto *user = cast<Instruction>(u.getUser());
      BasicBlock *at = user->getParent();
      Instruction *pos = user;
      if (auto *phi = dyn_cast<PHINode>(user)) {
        at = phi->getIncomingBlock(u);
        pos = at->getTerminator();
      }
      Instruction *&first = firstUse[at];
      if (!first || (pos != first && pos->comesBefore(first)))
        first = pos;
      uses.push_back(&u);
    }
    DenseMap<BasicBlock *, Value *> extracted;
    for (auto [at, pos] : firstUse) {
      // Inside the packed block, the extract follows its phis.
      Instruction *where = pos;
      if (isa<PHINode>(where))
        where = &*at->getFirstInsertionPt();
      b.SetInsertPoint(where);
      Value *vec = b.CreateBitCast(word, vecTy);
      extracted[at] =
          b.CreateExtractElement(vec, b.getInt32(lane), old->getName());
    }
    for (Use *u : uses) {
      auto *user = cast<Instruction>(u->getUser());
      BasicBlock *at = user->getParent();
      if (auto *phi = dyn_cast<PHINode>(user))
        at = phi->getIncomingBlock(*u);
      u->set(extracted[at]);
    }
    old->eraseFromParent();
  }
}

/// Orders `phis` so that a word's lanes are the lanes of the vector their
/// values were extracted from: by (vector, index) of the incoming value of
/// the first predecessor where that is an extract with a constant index;
/// the others keep their order, after those. (Scalar replacement may list a
/// struct's phis backwards.)
static void orderByLane(SmallVectorImpl<PHINode *> &phis) {
  if (phis.empty() || phis.front()->getNumIncomingValues() == 0)
    return;
  BasicBlock *pred = phis.front()->getIncomingBlock(0);
  DenseMap<Value *, unsigned> vectorRank;
  auto key = [&](PHINode *phi) -> std::pair<unsigned, uint64_t> {
    auto *extract =
        dyn_cast<ExtractElementInst>(phi->getIncomingValueForBlock(pred));
    auto *index =
        extract ? dyn_cast<ConstantInt>(extract->getIndexOperand()) : nullptr;
    if (!index)
      return {~0u, 0};
    auto [it, inserted] = vectorRank.try_emplace(extract->getVectorOperand(),
                                                 vectorRank.size());
    return {it->second, index->getZExtValue()};
  };
  SmallVector<std::pair<std::pair<unsigned, uint64_t>, PHINode *>> keyed;
  for (PHINode *phi : phis)
    keyed.push_back({key(phi), phi});
  std::stable_sort(keyed.begin(), keyed.end(), [](auto &a, auto &b) {
    return a.first < b.first;
  });
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i] = keyed[i].second;
}

/// Whether `op` narrows a value without reading anything else, so that a phi
/// of its results equals it applied to a phi of its operands.
static bool isNarrowingCast(Instruction::CastOps op) {
  return op == Instruction::FPTrunc || op == Instruction::FPToSI ||
         op == Instruction::FPToUI || op == Instruction::Trunc;
}

/// A phi every user of which narrows it by one cast to one narrow type:
/// LLVM's instcombine widens a phi of cast values into a cast of a phi of
/// the wide values (twice the registers for a bf16 tile a loop carries, four
/// times for an i8 one). The cast, or null.
static CastInst *narrowedBy(PHINode &phi) {
  if (phi.use_empty())
    return nullptr;
  CastInst *first = nullptr;
  for (User *u : phi.users()) {
    auto *cast = dyn_cast<CastInst>(u);
    if (!cast || !isNarrowingCast(cast->getOpcode()) ||
        (first && (cast->getOpcode() != first->getOpcode() ||
                   cast->getType() != first->getType())))
      return nullptr;
    if (!first)
      first = cast;
  }
  return lanesPerWord(first->getType()) ? first : nullptr;
}

/// Rewrites such phis (when a block has at least `minPhis`) as phis of the
/// narrowed values, each incoming value cast at the end of its predecessor.
static bool narrowTruncatedPhis(BasicBlock &block, unsigned minPhis) {
  SmallVector<std::pair<PHINode *, CastInst *>> wide;
  for (PHINode &phi : block.phis())
    if (CastInst *cast = narrowedBy(phi))
      wide.push_back({&phi, cast});
  if (wide.size() < minPhis)
    return false;
  IRBuilder<> b(block.getContext());
  for (auto [phi, first] : wide) {
    Type *narrow = first->getType();
    Instruction::CastOps op = first->getOpcode();
    b.SetInsertPoint(phi);
    PHINode *np = b.CreatePHI(narrow, phi->getNumIncomingValues(),
                              phi->getName() + ".narrow");
    DenseMap<BasicBlock *, Value *> narrowed;
    for (unsigned i = 0, e = phi->getNumIncomingValues(); i < e; ++i) {
      BasicBlock *pred = phi->getIncomingBlock(i);
      Value *&t = narrowed[pred];
      if (!t) {
        b.SetInsertPoint(pred->getTerminator());
        t = b.CreateCast(op, phi->getIncomingValue(i), narrow);
      }
      np->addIncoming(t, pred);
    }
    for (User *u : llvm::make_early_inc_range(phi->users())) {
      auto *cast = llvm::cast<CastInst>(u);
      cast->replaceAllUsesWith(np);
      cast->eraseFromParent();
    }
    phi->eraseFromParent();
  }
  return true;
}

bool kiln::packNarrowPhis(Function &f, unsigned minPhis) {
  bool changed = false;
  for (BasicBlock &block : f)
    changed |= narrowTruncatedPhis(block, minPhis);
  for (BasicBlock &block : f) {
    // The narrow phis of the block by type, in their order (scalar
    // replacement keeps a struct's element order, which is the order of a
    // thread's registers, so neighbours are usually neighbours in memory).
    MapVector<Type *, SmallVector<PHINode *>> byType;
    for (PHINode &phi : block.phis())
      if (lanesPerWord(phi.getType()))
        byType[phi.getType()].push_back(&phi);
    for (auto &[ty, phis] : byType) {
      if (phis.size() < minPhis)
        continue;
      orderByLane(phis);
      unsigned lanes = lanesPerWord(ty);
      for (size_t i = 0; i + lanes <= phis.size(); i += lanes) {
        packGroup(&block, ArrayRef<PHINode *>(phis).slice(i, lanes), ty);
        changed = true;
      }
    }
  }
  return changed;
}
