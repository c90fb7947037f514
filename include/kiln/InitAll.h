//===- InitAll.h - Register every Kiln dialect, pass and pipeline -*- C++
//-*-===//
#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {
/// The vendor backends of KILN_BACKENDS: their chips, lowering hooks and
/// serialization (idempotent; the two functions below call it).
void registerAllBackends();
/// Kiln's dialects plus the upstream ones its IR and lowering use, and their
/// LLVM IR translations, the built-in backends' dialects included.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Kiln's passes and pipelines (idempotent).
void registerAllPasses();
} // namespace kiln

#endif
