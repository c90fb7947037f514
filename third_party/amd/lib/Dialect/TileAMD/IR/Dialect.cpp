//===- Dialect.cpp - The tile_amd dialect --------------------------------===//

#include "kiln/Dialect/TileAMD/IR/Dialect.h"

using namespace kiln;
using namespace kiln::tile_amd;

#include "kiln/Dialect/TileAMD/IR/TileAMDDialect.cpp.inc"

void TileAMDDialect::initialize() {}
