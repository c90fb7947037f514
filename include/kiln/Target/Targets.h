//===- Targets.h - Kiln's known GPU targets ---------------------*- C++ -*-===//
//
// A target is data. Every chip Kiln knows is one row of one table; core code
// asks the description, never the vendor name.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_TARGETS_H
#define KILN_TARGET_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace kiln {

enum class Vendor { NVIDIA, AMD };

/// Everything the compiler needs to know about one chip.
struct TargetDesc {
  /// Canonical spelling, e.g. "cuda:sm_90a" or "hip:gfx942".
  llvm::StringLiteral name;
  Vendor vendor;
  /// Chip name handed to LLVM (-mcpu) and ptxas (-arch).
  llvm::StringLiteral chip;
  /// LLVM target triple.
  llvm::StringLiteral triple;
  /// LLVM subtarget features (e.g. "+ptx80").
  llvm::StringLiteral features;
  unsigned warpSize;
  /// Largest shared memory (LDS) one CTA may use, in bytes.
  unsigned maxSharedBytes;
  /// Largest global load/store one thread issues, in bytes.
  unsigned maxVectorBytes;
  unsigned maxThreadsPerBlock;
  /// Compute capability (NVIDIA, e.g. 90) or gfx number (AMD, e.g. 942).
  unsigned arch;
};

/// All known targets.
llvm::ArrayRef<TargetDesc> getKnownTargets();

/// Look up a target by its canonical name. Returns null when unknown.
const TargetDesc *lookupTarget(llvm::StringRef name);

/// Comma separated list of known target names, for error messages.
std::string knownTargetNames();

} // namespace kiln

#endif // KILN_TARGET_TARGETS_H
