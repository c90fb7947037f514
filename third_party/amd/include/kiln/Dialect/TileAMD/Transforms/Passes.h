//===- Passes.h - AMD's tile-level passes -----------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILEAMD_TRANSFORMS_PASSES_H
#define KILN_DIALECT_TILEAMD_TRANSFORMS_PASSES_H

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kiln::tile_amd {
#define GEN_PASS_DECL
#include "kiln/Dialect/TileAMD/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/TileAMD/Transforms/Passes.h.inc"
} // namespace kiln::tile_amd

#endif
