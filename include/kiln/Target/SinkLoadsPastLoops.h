//===- SinkLoadsPastLoops.h - Loads next to their users after a loop -*- C++ -*-===//
//
// After LLVM's optimizer: loads before a loop whose values are used only
// after it (a GEMM's scales, read before the main loop by the source and
// applied in the epilogue) move, with the address computations only they
// read, to where they are used, so that the loaded values are not live
// across the loop (Backend::sinksLoadsPastLoops).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SINKLOADSPASTLOOPS_H
#define KILN_TARGET_SINKLOADSPASTLOOPS_H

#include "llvm/ADT/StringRef.h"

namespace llvm {
class AAResults;
class DominatorTree;
class Function;
class LoopInfo;
} // namespace llvm

namespace kiln {

/// Moves each group of loads of a block (simple loads, and calls that only
/// read memory and have no side effects) whose users all lie in one later
/// block outside any loop of the first, past a loop (a loop not containing
/// the first block lies on a path between them), to just before the first of
/// those users, together with the computations without memory accesses or
/// side effects of the first block that only they read, when no instruction
/// on a path between the two positions may write what a load reads
/// (`aa`; fences of sync scope `barrierFenceScope`, which order only the
/// shared-memory accesses of a barrier, do not count) and the values they
/// read that would become live across the loop hold fewer bits than the
/// loaded values. Returns whether `f` changed.
bool sinkLoadsPastLoops(llvm::Function &f, llvm::DominatorTree &dt,
                        llvm::LoopInfo &loops, llvm::AAResults &aa,
                        llvm::StringRef barrierFenceScope = {});

} // namespace kiln

#endif
