//===- PackNarrowPhis.h - Carry 8- and 16-bit values in words ---*- C++ -*-===//
//
// After LLVM's optimizer: the 8-bit (16-bit) phis of a block, four (two) to
// an i32 phi, for code generators that give every value a 32-bit register
// (Backend::packsNarrowPhis).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PACKNARROWPHIS_H
#define KILN_TARGET_PACKNARROWPHIS_H

namespace llvm {
class Function;
} // namespace llvm

namespace kiln {

/// Packs the phis of i8 (i16, half, bfloat) type of each block of `f` that
/// has at least `minPhis` of one such type into i32 phis, in groups of
/// neighbours; the elements are extracted in each block that uses them.
/// Returns whether `f` changed. (A remainder smaller than a word stays.)
bool packNarrowPhis(llvm::Function &f, unsigned minPhis = 8);

} // namespace kiln

#endif
