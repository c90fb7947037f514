//===- Passes.h - NVIDIA's tile-level passes --------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILENV_TRANSFORMS_PASSES_H
#define KILN_DIALECT_TILENV_TRANSFORMS_PASSES_H

#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace kiln::tile_nv {
#define GEN_PASS_DECL
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
/// The one synchronous wgmma of `loop`'s body that tile-nv-pipeline-wgmma
/// keeps in flight across iterations (it only accumulates into a
/// loop-carried value, and no other wgmma or wgmma wait is in the loop), or
/// null. The same answer before the pipeliner expands the loop and after.
WarpGroupDotOp dotKeptInFlight(mlir::scf::ForOp loop);

} // namespace kiln::tile_nv

#endif
