//===- WaitInstructions.h - Instructions a counted wait may leave -*- C++ -*-===//
//
// On targets whose async wait counts instructions rather than commit groups
// (TargetDesc::asyncWaitCountsInstructions: every vector-memory instruction
// in flight counts, and LLVM 22 has no marker for a group),
// tile-insert-wait-counts must predict how many instructions LLVM issues
// after the awaited group. It does so from the
// lowering's own rules (VectorWidth, CountedMemoryOpInterface) and from
// which accesses LLVM may merge (AddressForm).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_WAITINSTRUCTIONS_H
#define KILN_ANALYSIS_WAITINSTRUCTIONS_H

#include "kiln/Target/Targets.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln::tile {

/// Counted ops whose instructions LLVM might merge with another counted
/// op's. LLVM merges two accesses only when it proves them adjacent, which
/// needs a common base, and only within straight-line code with nothing
/// ordering memory between them: so two ops of the same kind in one stretch
/// of a block (between waits, barriers and region ops) whose pointers come
/// from the same kernel argument, or either from one the trace does not
/// reach. An op inside a loop may also merge with itself once LLVM unrolls
/// the loop. Such an op counts only its whole 16-byte chunks: a merged
/// instruction moves at most 16 bytes a lane, so the ops together still issue
/// at least the sum of those.
struct Mergeable {
  llvm::DenseSet<mlir::Operation *> ops;
  /// Stores whose accesses LLVM can merge with no other (AddressForm): the
  /// instructions each issues, as the lowering issues them.
  llvm::DenseMap<mlir::Operation *, unsigned> exact;
};

/// The counted ops under `root` that LLVM may merge (`option`: the target,
/// or null to ask each op's enclosing function).
Mergeable findMergeable(mlir::Operation *root, const TargetDesc *option);

/// For targets whose wait counts instructions: the fewest copy instructions
/// issued after the awaited group (the (num+1)-th most recent commit), over
/// every path back from the wait. States are indexed by the commits passed
/// so far and keep the smallest instruction count; loops are walked 0 to
/// need+1 times and anything not understood ends the walk there (counting
/// fewer instructions only makes the wait stricter).
/// `need`: the groups back to walk (the wait's count + 1).
int64_t countWaitInstructions(mlir::Operation *wait, const TargetDesc *target,
                              unsigned need, const Mergeable &mergeable);

} // namespace kiln::tile

#endif
