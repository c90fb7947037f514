//===- TileAMDAttrs.td - mfma register layouts -------------*- tablegen -*-===//
#ifndef KILN_DIALECT_TILEAMD_IR_TILEAMDATTRS_TD
#define KILN_DIALECT_TILEAMD_IR_TILEAMDATTRS_TD

include "kiln/Dialect/TileAMD/IR/TileAMDDialect.td"
include "kiln/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def TileAMD_MfmaAttr : AttrDef<TileAMD_Dialect, "MfmaEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "mfma";
  let summary = "The accumulator layout of AMD's mfma instructions (Gluon's AMDMFMALayout)";
  let description = [{
    The accumulator of `v_mfma` instructions of shape `instrShape` =
    [M, N, K] (32 x 32, 16 x 16, or the 4x4 instructions as a 4 x 64
    product, or 64 x 4 transposed) on CDNA `version` 1 (gfx908), 2 (gfx90a),
    3 (gfx942) or 4 (gfx950), for 32-bit accumulators (`elementBitWidth`
    32). The version picks the generation's instructions; the layout is the
    same for all four. In a 64-lane
    wave, lane l holds column l % N of an M x N block and 4 consecutive rows
    starting at 4 (l / N); a 32 x 32 block repeats that 4 times, 8 rows
    apart (16 registers), a 16 x 16 block once (4 registers). With
    `elementBitWidth` 64 (f64, 16 x 16 x 4 only) lane l holds rows l / 16,
    4 + l / 16, 8 + ... of its column, one a register. `transposed` swaps the
    roles of rows and columns (lanes along M, registers along N), which the
    lowering gets by swapping the operands.

    A warp computes `tilesPerWarp` blocks; warps tile the tensor
    `warpsPerCTA[1]` across first, then `warpsPerCTA[0]` down. A tensor
    larger than the CTA's tile repeats it in registers, N first (as
    Triton's layout, so kernels that convert between it and other layouts
    see the same register order). With three `warpsPerCTA` (and
    `tilesPerWarp`) entries the layout is batched, [B, M, N]: the batch
    dimension's entries come first, its warps after those of M and N, and
    the batch indices a warp holds beyond its own are its last registers.

    ```mlir
    #acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8],
                           transposed = false, warpsPerCTA = [2, 2],
                           tilesPerWarp = [1, 1], elementBitWidth = 32}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        "bool":$transposed,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$tilesPerWarp,
                        "unsigned":$elementBitWidth);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `instrShape` `=` `[` $instrShape `]` `,`
    `transposed` `=` $transposed `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
    `tilesPerWarp` `=` `[` $tilesPerWarp `]` `,`
    `elementBitWidth` `=` $elementBitWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileAMD_DotOperandAttr : AttrDef<TileAMD_Dialect, "DotOperandEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "dot_op";
  let summary = "An mfma operand held in registers (Gluon's DotOperandLayout over AMDMFMALayout)";
  let description = [{
    Operand `opIdx` (0: A, M x K; 1: B, K x N) of the mfma instruction
    whose accumulator layout is `parent` (a `#tile_amd.mfma`). A lane holds
    `kWidth` consecutive K elements; lanes split the other dimension by the
    instruction's M (A) or N (B), then K. The tile repeats along K in
    registers, then `tilesPerWarp` times along the other dimension. Warps
    follow the parent's along M (A) or N (B) and hold the same elements
    along the other dimension.

    ```mlir
    #a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif
