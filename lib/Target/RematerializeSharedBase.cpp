//===- RematerializeSharedBase.cpp - The shared array's address per block -===//
//
// The lowering names the module's shared array as a constant in every block
// that addresses it; LLVM's code generator materializes that constant once
// per block and its common-subexpression elimination then keeps the entry
// block's copy for the whole function. On NVIDIA GPUs ptxas holds such a
// register, live from the kernel's start across its main loop to an
// epilogue's shared-memory stores, in a vector register, and each
// mbarrier.init at the start, which needs the address in a uniform register,
// becomes a loop that reads it lane by lane (R2UR and BRA.U.ANY: 4 loops and
// 46 instructions in a 4-stage TMA GEMM). Reading the address afresh in each
// block that needs it in a register (an inline-assembly value the code
// generator does not merge) leaves ptxas the uniform copy.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/RematerializeSharedBase.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace {

/// Whether `c` is the shared array or a constant expression over it.
bool isOverShared(const Constant *c, const GlobalVariable &shared,
                  DenseMap<const Constant *, bool> &memo) {
  if (c == &shared)
    return true;
  auto *expr = dyn_cast<ConstantExpr>(c);
  if (!expr)
    return false;
  auto it = memo.find(c);
  if (it != memo.end())
    return it->second;
  bool over = false;
  for (const Use &op : expr->operands())
    if (auto *opc = dyn_cast<Constant>(op.get()))
      over |= isOverShared(opc, shared, memo);
  memo[c] = over;
  return over;
}

/// Whether the code generator folds the constant operand `op` of `user`
/// into the instruction (an address operand of a memory access, an operand
/// of an intrinsic).
bool foldedIntoInstruction(const Instruction &user, unsigned op) {
  if (isa<IntrinsicInst>(user))
    return true;
  if (auto *load = dyn_cast<LoadInst>(&user))
    return op == load->getPointerOperandIndex();
  if (auto *store = dyn_cast<StoreInst>(&user))
    return op == store->getPointerOperandIndex();
  if (auto *rmw = dyn_cast<AtomicRMWInst>(&user))
    return op == rmw->getPointerOperandIndex();
  if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&user))
    return op == cas->getPointerOperandIndex();
  return false;
}

/// `c` rebuilt as instructions before `at`, with `base` for the array.
Value *rebuild(Constant *c, const GlobalVariable &shared, Value *base,
               Instruction *at, DenseMap<const Constant *, bool> &memo) {
  if (c == &shared)
    return base;
  auto *expr = cast<ConstantExpr>(c);
  Instruction *inst = expr->getAsInstruction();
  for (Use &op : inst->operands())
    if (auto *opc = dyn_cast<Constant>(op.get()))
      if (isOverShared(opc, shared, memo))
        op.set(rebuild(opc, shared, base, at, memo));
  inst->insertBefore(at->getIterator());
  return inst;
}

} // namespace

bool kiln::rematerializeSharedBase(
    Function &f, GlobalVariable &shared,
    function_ref<Value *(IRBuilderBase &)> make) {
  DenseMap<const Constant *, bool> memo;
  bool changed = false;
  for (BasicBlock &block : f) {
    if (&block == &f.getEntryBlock())
      continue;
    SmallVector<std::pair<Instruction *, unsigned>> uses;
    for (Instruction &inst : block) {
      if (isa<PHINode>(inst))
        continue;
      for (Use &op : inst.operands())
        if (auto *c = dyn_cast<Constant>(op.get()))
          if (!isa<GlobalValue>(c) || c == &shared)
            if (isOverShared(c, shared, memo) &&
                !foldedIntoInstruction(inst, op.getOperandNo()))
              uses.push_back({&inst, op.getOperandNo()});
    }
    if (uses.empty())
      continue;
    // Just before the first use: ahead of it may be a register reallocation
    // (setmaxnreg), across which ptxas keeps a value in a vector register.
    IRBuilder<> b(uses.front().first);
    Value *base = make(b);
    if (!base)
      return changed;
    for (auto [inst, op] : uses) {
      auto *c = cast<Constant>(inst->getOperand(op));
      inst->setOperand(op, rebuild(c, shared, base, inst, memo));
    }
    changed = true;
  }
  return changed;
}
