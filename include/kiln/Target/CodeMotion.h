//===- CodeMotion.h - What Serialize's LLVM-IR rewrites may move -*- C++
//-*-===//
//
// The questions the post-optimizer rewrites that move computations
// (SinkWidening, SinkLoadsPastLoops) ask alike: may an instruction move, and
// how many bits does a value of a type hold.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_CODEMOTION_H
#define KILN_TARGET_CODEMOTION_H

#include <cstdint>

namespace llvm {
class DataLayout;
class Instruction;
class Type;
} // namespace llvm

namespace kiln {

/// A computation that may move within or between blocks: it produces a
/// value, accesses no memory, has no side effects, is no phi, terminator or
/// alloca, and, if a call, is a convergence-free intrinsic.
bool isMovableComputation(const llvm::Instruction &i);

/// The bits a value of `type` holds (0 for an unsized type).
uint64_t typeBits(const llvm::DataLayout &layout, llvm::Type *type);

} // namespace kiln

#endif
