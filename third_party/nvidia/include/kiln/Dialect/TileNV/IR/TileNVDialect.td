//===- TileNVDialect.td - The tile_nv dialect ----------------------*- tablegen -*-===//
//
// The NVIDIA half of Kiln's tile language. `tile` (include/kiln/Dialect/Tile)
// holds what every target has; `tile_nv` holds what only NVIDIA GPUs have:
// mbarriers, NVMMA shared layouts, TMA copies and wgmma.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILENV_IR_TILENVDIALECT_TD
#define KILN_DIALECT_TILENV_IR_TILENVDIALECT_TD

include "mlir/IR/OpBase.td"

def TileNV_Dialect : Dialect {
  let name = "tile_nv";
  let cppNamespace = "::kiln::tile_nv";
  let summary = "NVIDIA-only tile ops, types and layouts";
  let description = [{
    Ops, types and layouts that name hardware only NVIDIA GPUs have. They
    operate on `tile` values (tensors with distributed layouts, memory
    descriptors) and are lowered by the NVIDIA backend's patterns, which
    extend the target-neutral `convert-tile-to-llvm`.
  }];
  let dependentDialects = ["::kiln::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
}

#endif
