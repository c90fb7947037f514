//===- GlobalStrings.h - Constant strings of a lowered module --------------===//

#ifndef KILN_CONVERSION_TILETOLLVM_GLOBALSTRINGS_H
#define KILN_CONVERSION_TILETOLLVM_GLOBALSTRINGS_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// The address of `text` with a terminating NUL, a constant internal global
/// (`kiln_str_<n>`) in address space `addrSpace` of the module being built,
/// reused when the module already holds the same text there. Device printf
/// formats and assertion messages.
mlir::Value globalString(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef text, unsigned addrSpace = 0);

} // namespace kiln

#endif
