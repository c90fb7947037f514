//===- TileNVAttrs.td - NVIDIA shared layouts ---------------*- tablegen -*-===//
#ifndef KILN_DIALECT_TILENV_IR_TILENVATTRS_TD
#define KILN_DIALECT_TILENV_IR_TILENVATTRS_TD

include "kiln/Dialect/TileNV/IR/TileNVDialect.td"
include "kiln/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def TileNV_NVMMASharedAttr : AttrDef<TileNV_Dialect, "NVMMASharedEncoding",
    [DeclareAttrInterfaceMethods<Tile_SharedLayout,
      ["getBaseAlignment", "verifyBuffer"]>]> {
  let mnemonic = "nvmma_shared";
  let summary = "The shared layout TMA writes and wgmma reads (Gluon's NVMMASharedLayout)";
  let description = [{
    Rows of the buffer's contiguous dimension (the last one, or the one
    before it when `transposed`) are cut into chunks of `swizzle` bytes
    (16 when `swizzle` is 0). A chunk of every row is stored before the next
    chunk of any row; within 8 consecutive rows the 16-byte units of a chunk
    are permuted by XOR with the row's phase, which is the hardware's
    32/64/128-byte swizzle mode:

    ```
    unit' = unit ^ ((row / (128 / swizzle)) % (swizzle / 16))
    ```

    Dimensions before the last two stack whole tiles. Buffers are aligned
    to 1024 bytes (the swizzle pattern repeats every 1024 bytes and the
    hardware applies it to address bits).

    ```mlir
    #nvmma = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16,
                                   layoutRank = 2, transposed = false>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle, "unsigned":$elementBitWidth,
                        "unsigned":$layoutRank, "bool":$transposed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements per row chunk: max(swizzle, 16) bytes.
    unsigned getChunkElements() const;
    /// Dimension whose elements are contiguous (the last, or the one before
    /// it when transposed).
    unsigned getContiguousDim() const {
      return getTransposed() ? getLayoutRank() - 2 : getLayoutRank() - 1;
    }
  }];
}

def TileNV_NVMMADistributedAttr : AttrDef<TileNV_Dialect, "NVMMADistributedEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "nvmma";
  let summary = "The wgmma accumulator layout (Gluon's NVMMADistributedLayout, version 3)";
  let description = [{
    Warps tile the tensor in blocks of 16 rows x `instrShape[1]` columns,
    `warpsPerCTA[0]` warps down and `warpsPerCTA[1]` across (4 consecutive
    warps, a warpgroup, take 64 consecutive rows). In a warp, lane l holds
    rows l / 4 and l / 4 + 8 and, in every group of 8 columns, columns
    2 (l % 4) and 2 (l % 4) + 1. A tensor larger than the CTA's tile
    repeats it in more registers, N first.

    ```mlir
    #acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0,
                           warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
    ```
  }];
  let parameters = (ins "unsigned":$versionMajor, "unsigned":$versionMinor,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `{` `versionMajor` `=` $versionMajor `,` `versionMinor` `=` $versionMinor `,`
    `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif
