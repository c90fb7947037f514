//===- Passes.h - NVIDIA's tile-level passes --------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILENV_TRANSFORMS_PASSES_H
#define KILN_DIALECT_TILENV_TRANSFORMS_PASSES_H

#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kiln::tile_nv {
#define GEN_PASS_DECL
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

#endif
