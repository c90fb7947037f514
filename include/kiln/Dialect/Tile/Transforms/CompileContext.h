//===- CompileContext.h - Target and warps for a pass -----------*- C++ -*-===//
//
// Every pass that depends on the chip reads the same compile context: the
// pass options first, the module's `tile.target` / `tile.num_warps` /
// `tile.threads_per_warp` otherwise; options that contradict the module are
// an error at the module, and so is a warp count the target cannot launch.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_TRANSFORMS_COMPILECONTEXT_H
#define KILN_DIALECT_TILE_TRANSFORMS_COMPILECONTEXT_H

#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

struct CompileContext {
  /// Null only when no target was given and none was required.
  const TargetDesc *target = nullptr;
  int numWarps = 4;
  int threadsPerWarp = 32;
};

/// `targetOption` empty and `numWarpsOption` 0 mean "not given".
mlir::FailureOr<CompileContext>
resolveCompileContext(mlir::ModuleOp module, llvm::StringRef targetOption,
                      int numWarpsOption, bool requireTarget);

} // namespace kiln

#endif
