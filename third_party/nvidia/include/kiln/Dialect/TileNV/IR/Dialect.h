//===- Dialect.h - The tile_nv dialect ---------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILENV_IR_DIALECT_H
#define KILN_DIALECT_TILENV_IR_DIALECT_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/TileNV/IR/TileNVDialect.h.inc"

#endif
