//===- SinkSharedLoads.h - Shared reads at their first use ------*- C++ -*-===//
//
// After LLVM's optimizer: each vector operand of a memory-free call (a matrix
// instruction) built from loads of shared memory by shuffles and bitcasts
// moves to just before its first user (Backend::sinksSharedLoads).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SINKSHAREDLOADS_H
#define KILN_TARGET_SINKSHAREDLOADS_H

namespace llvm {
class Function;
} // namespace llvm

namespace kiln {

/// Moves, to just before the first call that does not access memory and
/// uses it, the tree of bitcasts, shuffles and element inserts/extracts over
/// shared-memory loads (at most 8) of each of the call's vector operands,
/// when the tree is in the call's block, its other users come after the
/// call, and nothing between a load and the call writes memory or has side
/// effects. Returns whether `f` changed.
bool sinkSharedLoadsToUses(llvm::Function &f);

} // namespace kiln

#endif
