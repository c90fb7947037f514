//===- InputLimits.h - Bounds on textual IR before it is parsed -*- C++ -*-===//
//
// MLIR's parser, verifier and printer recurse once per level of nesting, so
// deeply nested input (10^5 brackets, thousands of nested regions) overflowed
// the stack. Every entry point that parses text (kiln-opt, kiln-translate,
// the Python compiler) checks the nesting depth first and reports the first
// place that is too deep as an error.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_INPUTLIMITS_H
#define KILN_SUPPORT_INPUTLIMITS_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Deepest nesting of (), [], {} and <> that textual IR may have.
constexpr unsigned kMaxNestingDepth = 512;

/// Fails with an error at `bufferName`:line:col of the first bracket that
/// opens level kMaxNestingDepth + 1 (string literals and comments skipped).
mlir::LogicalResult checkNestingDepth(llvm::StringRef text,
                                      llvm::StringRef bufferName,
                                      mlir::MLIRContext *context);

/// Runs `fn` on a thread with a large stack (what is left of MLIR's
/// recursion over nested IR then has room), returning what it returns.
int runWithLargeStack(llvm::function_ref<int()> fn);

} // namespace kiln

#endif
