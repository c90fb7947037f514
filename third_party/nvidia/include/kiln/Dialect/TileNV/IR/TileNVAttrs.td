//===- TileNVAttrs.td - NVIDIA shared layouts ---------------*- tablegen -*-===//
#ifndef KILN_DIALECT_TILENV_IR_TILENVATTRS_TD
#define KILN_DIALECT_TILENV_IR_TILENVATTRS_TD

include "kiln/Dialect/TileNV/IR/TileNVDialect.td"
include "kiln/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TileNV_NVMMASharedAttr : AttrDef<TileNV_Dialect, "NVMMASharedEncoding",
    [DeclareAttrInterfaceMethods<Tile_SharedLayout,
      ["getBaseAlignment", "verifyBuffer", "verifyDescriptorElementType"]>]> {
  let mnemonic = "nvmma_shared";
  let summary = "The shared layout TMA writes and wgmma reads (Gluon's NVMMASharedLayout)";
  let description = [{
    Rows of the buffer's contiguous dimension (the last one, or the one
    before it when `transposed`) are cut into chunks of `swizzle` bytes. A
    chunk of every row is stored before the next chunk of any row; within 8
    consecutive rows the 16-byte units of a chunk are permuted by XOR with
    the row's phase, which is the hardware's 32/64/128-byte swizzle mode:

    ```
    unit' = unit ^ ((row / (128 / swizzle)) % (swizzle / 16))
    ```

    With `swizzle = 0` the buffer is row-major: a whole row is one chunk
    (as Gluon's unswizzled NVMMASharedLayout and a TMA box with no swizzle
    store it); rows are at least 16 bytes. Dimensions before the last two
    stack whole tiles. Buffers are aligned
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
    /// Elements per row chunk: max(swizzle, 16) bytes (16: the least row
    /// an unswizzled buffer may have).
    unsigned getChunkElements() const;
    /// Elements of a row of `cols` stored together before the next row:
    /// one chunk when swizzled, the whole row when not.
    int64_t getRowChunkElements(int64_t cols) const {
      return getSwizzle() ? std::min<int64_t>(getChunkElements(), cols) : cols;
    }
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
  let summary = "The tensor-core accumulator layouts (Gluon's NVMMADistributedLayout)";
  let description = [{
    The accumulator of `mma.sync` (version 2, instrShape [16, 8]) or of
    wgmma (version 3, instrShape [16, n, k]). In a warp, lane l holds rows
    l / 4 and l / 4 + 8 and, in every group of 8 columns, columns
    2 (l % 4) and 2 (l % 4) + 1 of a 16-row block.

    Version 3: warps tile the tensor in blocks of 16 rows x `instrShape[1]`
    columns, `warpsPerCTA[0]` warps down and `warpsPerCTA[1]` across (4
    consecutive warps, a warpgroup, take 64 consecutive rows).

    Version 2: warps tile it in 16 x 8 blocks, consecutive warps across
    (N) first: warp w takes column block w % warpsPerCTA[1] and row block
    w / warpsPerCTA[1].

    A tensor larger than the CTA's tile repeats it in more registers, N
    first.

    ```mlir
    #acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0,
                           warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
    #mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0,
                           warpsPerCTA = [2, 2], instrShape = [16, 8]}>
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

def TileNV_DotOperandAttr : AttrDef<TileNV_Dialect, "DotOperandEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "dot_op";
  let summary = "A tensor-core operand held in registers (Gluon's DotOperandLayout)";
  let description = [{
    The layout of operand `opIdx` (0: A, M x K; 1: B, K x N) of the
    tensor-core instruction whose accumulator layout is `parent` (a
    `#tile_nv.nvmma`). A thread holds `kWidth` consecutive K elements
    together; lanes split K in 4 and the other dimension in 8, as the
    m16n8k16 fragments of `mma.sync` place them. Warps follow the parent's
    warps along M (A) or N (B) and hold the same elements along the other
    dimension. Larger tensors repeat the tile in registers, K first.
    Version 3 parents (wgmma) take only operand A in registers.

    ```mlir
    #a = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileNV_TMAReduceKind : I32EnumAttr<"TMAReduceKind",
    "how a TMA reduce-store combines its block with global memory", [
      I32EnumAttrCase<"Add", 0, "add">, I32EnumAttrCase<"Min", 1, "min">,
      I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"And", 3, "and">,
      I32EnumAttrCase<"Or", 4, "or">, I32EnumAttrCase<"Xor", 5, "xor">]> {
  let cppNamespace = "::kiln::tile_nv";
  let genSpecializedAttr = 0;
}

def TileNV_TMAReduceKindAttr : EnumAttr<TileNV_Dialect, TileNV_TMAReduceKind,
                                        "tma_reduce_kind"> {
  let summary = "The operation of a TMA reduce-store";
  let description = [{
    What `tile_nv.async_tma_reduce` does with each element of global memory
    and the matching element of its shared block: `add`, `min`, `max`
    (elementwise, signed or unsigned as the descriptor's tensor map says),
    or the bitwise `and`, `or`, `xor`.

    ```mlir
    #tile_nv<tma_reduce_kind add>
    ```
  }];
}

#endif
