//===- CodeMotion.cpp - What Serialize's LLVM-IR rewrites may move --------===//

#include "kiln/Target/CodeMotion.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

bool kiln::isMovableComputation(const Instruction &i) {
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

uint64_t kiln::typeBits(const DataLayout &layout, Type *type) {
  if (!type->isSized())
    return 0;
  return layout.getTypeSizeInBits(type).getKnownMinValue();
}
