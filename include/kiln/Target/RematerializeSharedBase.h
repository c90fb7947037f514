//===- RematerializeSharedBase.h - The shared array's address per block -*- C++ -*-===//
//
// After LLVM's optimizer: each block but the entry that computes an address
// from the module's shared array (a run-time offset, an inline assembly
// operand) reads the array's address afresh, so that one register does not
// carry it from the kernel's start to its end
// (Backend::sharedBaseRematerializer).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_REMATERIALIZESHAREDBASE_H
#define KILN_TARGET_REMATERIALIZESHAREDBASE_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class Function;
class GlobalVariable;
class IRBuilderBase;
class Value;
} // namespace llvm

namespace kiln {

/// In every block of `f` other than the entry, the uses of `shared` (or of
/// a constant expression over it) by instructions that need its address in
/// a register -- all but the address operands of loads, stores and atomics
/// and the operands of intrinsics, which the code generator folds into the
/// instruction -- read instead the value `make` emits once in the block,
/// before the first of them (none where `make` returns null). Returns whether `f` changed.
bool rematerializeSharedBase(
    llvm::Function &f, llvm::GlobalVariable &shared,
    llvm::function_ref<llvm::Value *(llvm::IRBuilderBase &)> make);

} // namespace kiln

#endif
