//===- TileAMDDialect.td - The tile_amd dialect ----------------------*- tablegen -*-===//
//
// The AMD half of Kiln's tile language. `tile` (include/kiln/Dialect/Tile)
// holds what every target has; `tile_amd` holds what only AMD GPUs have: mfma layouts and
// instructions, buffer loads/stores and direct-to-LDS copies.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILEAMD_IR_TILEAMDDIALECT_TD
#define KILN_DIALECT_TILEAMD_IR_TILEAMDDIALECT_TD

include "mlir/IR/OpBase.td"

def TileAMD_Dialect : Dialect {
  let name = "tile_amd";
  let cppNamespace = "::kiln::tile_amd";
  let summary = "AMD-only tile ops, types and layouts";
  let description = [{
    Ops, types and layouts that name hardware only AMD GPUs have. They
    operate on `tile` values (tensors with distributed layouts, memory
    descriptors) and are lowered by the AMD backend's patterns, which
    extend the target-neutral `convert-tile-to-llvm`.
  }];
  let dependentDialects = ["::kiln::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
}

#endif
