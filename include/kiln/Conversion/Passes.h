//===- Passes.h - Kiln conversion passes ------------------------*- C++ -*-===//
#ifndef KILN_CONVERSION_PASSES_H
#define KILN_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "kiln/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

#endif
