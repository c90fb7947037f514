//===- Dialect.cpp - The tile_nv dialect ---------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

using namespace kiln;
using namespace kiln::tile_nv;

#include "kiln/Dialect/TileNV/IR/TileNVDialect.cpp.inc"

void TileNVDialect::initialize() {}
