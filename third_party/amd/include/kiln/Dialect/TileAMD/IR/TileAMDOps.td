//===- TileAMDOps.td - Buffer ops, direct-to-LDS copies, mfma -*- tablegen -*-===//
#ifndef KILN_DIALECT_TILEAMD_IR_TILEAMDOPS_TD
#define KILN_DIALECT_TILEAMD_IR_TILEAMDOPS_TD

include "kiln/Dialect/TileAMD/IR/TileAMDDialect.td"
include "kiln/Dialect/TileAMD/IR/TileAMDAttrs.td"
include "kiln/Dialect/Tile/IR/TileTypes.td"
include "kiln/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TileAMD_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileAMD_Dialect, mnemonic, !listconcat(traits, [Tile_InFunction])>;

def TileAMD_SharedMemory : Resource<"::kiln::tile::SharedMemoryResource">;

def TileAMD_BufferLoadOp : TileAMD_Op<"buffer_load", [AttrSizedOperandSegments,
    Tile_SharesOneLayout,
    MemoryEffects<[MemRead<DefaultResource>]>,
    DeclareOpInterfaceMethods<Tile_CountedMemoryOpInterface>]> {
  let summary = "Load through a buffer resource: a scalar base and 32-bit offsets";
  let description = [{
    Each thread loads `ptr[offsets]` (offsets in elements) for its
    elements of the offsets tensor. The lowering builds one buffer resource
    from the scalar `ptr` and issues `buffer_load` instructions; a lane
    whose `mask` is false gets an offset past the resource's end, so the
    hardware returns 0 for it without touching memory, and the result is
    `other` there (0 without `other`).

    Offsets must stay within 2^31 bytes of `ptr`. `cache` is the gfx9
    cache policy: "" (default), ".ca", ".cg" (glc), ".cs" (slc), ".cv"
    (glc slc).

    ```mlir
    %v = tile_amd.buffer_load %p[%offs], %m other %zero
        : !tile.ptr<f32>, tensor<256xi32, #l> -> tensor<256xf32, #l>
    ```
  }];
  let arguments = (ins Tile_Ptr:$ptr, Tile_IntTensor:$offsets,
                       Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other,
                       DefaultValuedStrAttr<StrAttr, "">:$cache);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` (`,` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))?
    attr-dict `:` qualified(type($ptr)) `,` type($offsets) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileAMD_BufferStoreOp : TileAMD_Op<"buffer_store", [Tile_SharesOneLayout,
    MemoryEffects<[MemWrite<DefaultResource>]>,
    DeclareOpInterfaceMethods<Tile_CountedMemoryOpInterface, ["getCountedMask"]>]> {
  let summary = "Store through a buffer resource: a scalar base and 32-bit offsets";
  let description = [{
    Each thread stores its elements of `value` to `ptr[offsets]` (offsets
    in elements). Lanes whose `mask` is false get an offset past the
    resource's end: the hardware drops their stores.

    ```mlir
    tile_amd.buffer_store %v, %p[%offs], %m
        : tensor<256xf32, #l>, !tile.ptr<f32>, tensor<256xi32, #l>, tensor<256xi1, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_Ptr:$ptr, Tile_IntTensor:$offsets,
                       Optional<Tile_BoolTensor>:$mask,
                       DefaultValuedStrAttr<StrAttr, "">:$cache);
  let assemblyFormat = [{
    $value `,` $ptr `[` $offsets `]` (`,` $mask^ `:` type($mask))? attr-dict
    `:` type($value) `,` qualified(type($ptr)) `,` type($offsets)
  }];
  let hasVerifier = 1;
}

def TileAMD_BufferLoadToLocalOp : TileAMD_Op<"buffer_load_to_local", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_AsyncCopyOpInterface,
                              ["getPointerType", "masksByAddress"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<TileAMD_SharedMemory>]>]> {
  let summary = "Start a direct-to-LDS copy through a buffer resource";
  let description = [{
    The buffer-resource form of `tile.async_copy_global_to_local`: each
    thread copies `ptr[offsets]` (offsets in elements) into the same
    elements of `dst`, with `buffer_load ... lds` (one LDS base per wave in
    M0; the hardware writes lane i at base + i x width). Lanes whose `mask`
    is false read past the resource's end and so write zeros; with a
    non-zero `other` they are branched around the copy instead and store
    `other` themselves. The copy is in flight until a `tile.async_wait`
    covering its commit group, exactly as the generic copy; the same
    legality helper (widths per chip, lane-contiguous LDS writes) applies.

    ```mlir
    %t = tile_amd.buffer_load_to_local %p[%offs], %slot
        : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #s, mutable, 3x256>
    ```
  }];
  let arguments = (ins Tile_Ptr:$ptr, Tile_IntTensor:$offsets, Tile_MemDesc:$dst,
                       Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other,
                       DefaultValuedStrAttr<StrAttr, "">:$cache);
  let results = (outs Tile_AsyncToken:$token);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `,` $dst (`,` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))?
    attr-dict `:` qualified(type($ptr)) `,` type($offsets) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TileAMD_MfmaOp : TileAMD_Op<"mfma", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "mfma: d = a * b + c with both operands in registers";
  let description = [{
    Each wave multiplies its rows of `a` (M x K, in the
    `#tile_amd.dot_op<{opIdx = 0}>` layout over the accumulator's
    `#tile_amd.mfma` layout) by its columns of `b` (K x N, `opIdx = 1`)
    into its part of `c`, with the `v_mfma` instruction of the layout's
    `instrShape` for these element types (f32, f16, bf16, i8 on every CDNA
    chip, f64 from gfx90a; CDNA1/CDNA2's two-element bf16 and four-element
    i8 forms; the double-rate f16/bf16/i8 shapes and OCP fp8 on gfx950;
    FNUZ fp8 on gfx942). The instruction's existence on the layout's CDNA
    version and on the module's chip, the shapes and the layouts are
    checked here; the lowering checks the layouts' linear
    forms against the instruction's operand layouts.

    ```mlir
    %d = tile_amd.mfma %a, %b, %c
        : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB>
          -> tensor<64x64xf32, #acc>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TileAMD_MfmaScaledOp : TileAMD_Op<"mfma_scaled",
    [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "Scaled mfma (CDNA4): d = (a * 2^a_scale) @ (b * 2^b_scale) + c";
  let description = [{
    The microscaled product of gfx950's `v_mfma_scale_f32_16x16x128_f8f6f4`
    and `v_mfma_scale_f32_32x32x64_f8f6f4`: `a` (M x K) and `b` (K x N) in
    the OCP formats named by `aFormat` / `bFormat` (`e4m3`, `e5m2`: one
    element per byte, as i8 bytes or float8e4nv / float8e5; `e2m1`: two
    elements per byte, packed along K, lower nibble first, so the tensor is
    M x K/2 or K/2 x N bytes). Each 32 consecutive K elements of a row of
    `a` (a column of `b`) share one E8M0 scale byte (2^(s - 127)):
    `aScale` is M x K/32, `bScale` N x K/32, both i8. `a` and `b` are in
    `#tile_amd.dot_op` layouts over the accumulator's `#tile_amd.mfma`
    (version 4, instrShape [16, 16, 128] or [32, 32, 64]) with kWidth 16,
    or both with kWidth 32 for e4m3 / e5m2 (K summed in the layout's
    order, which needs constant scales: the lowering checks); the scales'
    layouts must put each scale in the lane the instruction reads it from
    (Gluon's `get_mfma_scale_layout`), which the lowering checks on their
    linear forms.

    ```mlir
    %d = tile_amd.mfma_scaled %a scale %as, %b scale %bs, %c
        {aFormat = "e2m1", bFormat = "e4m3"}
        : tensor<32x64xi8, #opA>, tensor<32x4xi8, #sa>, tensor<128x32xi8, #opB>,
          tensor<32x4xi8, #sb> -> tensor<32x32xf32, #acc>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$aScale, Tile_Tensor:$b,
                       Tile_Tensor:$bScale, Tile_Tensor:$c, StrAttr:$aFormat,
                       StrAttr:$bFormat);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `scale` $aScale `,` $b `scale` $bScale `,` $c attr-dict `:` type($a) `,`
    type($aScale) `,` type($b) `,` type($bScale) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TileAMD_WarpPipelineBorderOp : TileAMD_Op<"warp_pipeline_border", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "A border between warp-pipeline stages (Gluon's amd.warp_pipeline_stage)";
  let description = [{
    The code between two borders is one stage: the code generator's
    scheduler does not move instructions across a border
    (`s_sched_barrier 0`), and a `priority` of 0 to 3 sets the wave's issue
    priority from here on (`s_setprio`); -1 leaves it. A hint for the
    hardware's scheduling: it does not change what the program computes.

    ```mlir
    tile_amd.warp_pipeline_border {priority = 3 : i32}
    ```
  }];
  let arguments = (ins DefaultValuedAttr<I32Attr, "-1">:$priority);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

#endif
