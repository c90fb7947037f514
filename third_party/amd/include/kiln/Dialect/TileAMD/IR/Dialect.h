//===- Dialect.h - The tile_amd dialect --------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILEAMD_IR_DIALECT_H
#define KILN_DIALECT_TILEAMD_IR_DIALECT_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/TileAMD/IR/TileAMDDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileAMD/IR/TileAMDAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/TileAMD/IR/TileAMDOps.h.inc"

namespace kiln::tile_amd {

/// Cache policy bits (gfx9 `aux`: sc0 = 1, nt = 2, sc1 = 16) for a buffer
/// load's or store's cache modifier; nullopt when it is not one of them.
std::optional<unsigned> getBufferCacheBits(llvm::StringRef modifier,
                                           bool isStore);

} // namespace kiln::tile_amd

#endif
