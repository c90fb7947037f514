//===- Dialect.h - The tile_amd dialect --------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILEAMD_IR_DIALECT_H
#define KILN_DIALECT_TILEAMD_IR_DIALECT_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/TileAMD/IR/TileAMDDialect.h.inc"

#endif
