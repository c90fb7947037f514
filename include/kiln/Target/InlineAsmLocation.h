//===- InlineAsmLocation.h - The op that wrote a line of inline asm -*- C++ -*-===//
//
// An assembler that rejects a line of a kernel's inline assembly names the
// line of its own input (a vendor's assembler: the line of the file it was
// given; LLVM's integrated assembler: the statement it echoes). These find the llvm.inline_asm op
// whose text wrote that line, so that the error points at the user's line
// that wrote the assembly rather than at the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_INLINEASMLOCATION_H
#define KILN_TARGET_INLINEASMLOCATION_H

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace kiln {

/// The location of the llvm.inline_asm op of `module` one of whose template
/// lines wrote `line` (a line of the emitted assembly, operands substituted):
/// the op whose line's literal text (what is not an operand) appears in
/// `line` in order with the most characters. None when no op's line has
/// enough literal text to tell, or when ops at different locations tie.
std::optional<mlir::Location> locateInlineAsmLine(mlir::ModuleOp module,
                                                  llvm::StringRef line);

/// For LLVM's integrated assembler's errors (`<inline asm>:L:C: ...`
/// followed by the statement): the location of the inline assembly that
/// wrote the first statement it rejects.
std::optional<mlir::Location> locateAssemblerError(mlir::ModuleOp module,
                                                   llvm::StringRef errors);

} // namespace kiln

#endif
