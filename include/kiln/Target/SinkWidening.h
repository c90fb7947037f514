//===- SinkWidening.h - Computations at their first use ---------*- C++ -*-===//
//
// After LLVM's optimizer: computations whose results are used only after
// their block (by the next iteration of a loop) move to the block's end when
// what they read from the block is narrower than what they produce: a loop's
// early conversion of the next iteration's loaded data (fp8 to bf16) happens
// at the end of the iteration, not across it (Backend::sinksWidening).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SINKWIDENING_H
#define KILN_TARGET_SINKWIDENING_H

namespace llvm {
class Function;
} // namespace llvm

namespace kiln {

/// In each block of `f`, moves to just before the terminator every connected
/// piece of instructions that do not access memory, have no side effects,
/// are not convergent and have no users in the block but each other, when
/// the values the piece reads from the block (and that would not be live at
/// its end anyway) hold no more bits than the piece's results. Returns
/// whether `f` changed.
bool sinkWideningToUses(llvm::Function &f);

/// Moves each instruction that sinkWideningToUses could move, that is not an
/// address and whose users are all in its block (no phi), to just before its
/// first user, bottom-up, unless the operands whose live ranges that would
/// lengthen (those whose last use it is and that do not follow it down; of
/// an extracted vector or aggregate, the element) hold at least as many bits
/// as its result. Returns whether `f` changed.
bool sinkToFirstUses(llvm::Function &f);

} // namespace kiln

#endif
