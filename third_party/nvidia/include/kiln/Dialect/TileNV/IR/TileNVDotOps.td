//===- TileNVDotOps.td - wgmma --------------------------------*- tablegen -*-===//
//
// Included by TileNVOps.td (TileNV_Op, the resources).
//
//===----------------------------------------------------------------------===//

def TileNV_WarpGroupDotOp : TileNV_Op<"warpgroup_dot", [
    AllTypesMatch<["c", "d"]>, DeclareOpInterfaceMethods<Tile_AsyncReadOpInterface,
        ["getAsyncReadGroupThreads"]>]> {
  let summary = "wgmma: d = a * b + c by each warpgroup";
  let description = [{
    Each warpgroup (4 consecutive warps) multiplies its rows of `a` (M x K:
    a shared buffer, or a 16-bit or fp8 tensor in registers laid out as
    `#tile_nv.dot_op<{opIdx = 0}>` of the accumulator's layout, kWidth 2 or
    4: one 32-bit register of K) with `b` (a
    shared buffer K x N) into its part of the accumulator, laid out as
    `#tile.linear` of the wgmma (v3) accumulator layout. `useC` (default
    true) false ignores `c`. Buffers must be in `#tile_nv.nvmma_shared`
    layouts with K contiguous.
    With `isAsync` the op only issues the instructions: read `d` after a
    `tile_nv.warpgroup_dot_wait` that covers it. `cols` (a multiple of 8,
    at most N) computes only the accumulator's first `cols` columns, with
    instructions of that N where a tile ends inside them (wgmma's N is any
    multiple of 8 up to 256): `d`'s other columns are zero. A tile whose
    width is not a power of two lives in a power-of-two accumulator this
    way (the zeros are constants, which take no registers), and `b`'s
    columns past `cols` are not read. Needs sm_90a.

    ```mlir
    %d = tile_nv.warpgroup_dot %a, %b, %c {isAsync}
        : !tile.memdesc<128x64xbf16, #nvmma, mutable>,
          !tile.memdesc<64x256xbf16, #nvmmaT, mutable> -> tensor<128x256xf32, #acc>
    ```
  }];
  let arguments = (ins Arg<AnyTypeOf<[Tile_MemDesc,
                               RankedTensorOf<[BF16, F16, F8E4M3FN, F8E5M2]>]>, "",
                           [MemRead<TileNV_SharedMemory>]>:$a,
                       Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>]>:$b,
                       RankedTensorOf<[F32, F16, I32]>:$c,
                       Optional<I1>:$useC,
                       UnitAttr:$isAsync,
                       OptionalAttr<I32Attr>:$maxNumImpreciseAcc,
                       OptionalAttr<I32Attr>:$cols);
  let results = (outs RankedTensorOf<[F32, F16, I32]>:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` $useC^)? attr-dict `:` qualified(type($a)) `,`
    qualified(type($b)) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `a` is held in registers (a tensor) rather than a buffer.
    bool hasRegisterA() { return ::llvm::isa<::mlir::RankedTensorType>(getA().getType()); }
  }];
}

def TileNV_WarpGroupDotWaitOp : TileNV_Op<"warpgroup_dot_wait", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_AsyncReadWaitOpInterface>]> {
  let summary = "Wait until at most `pendings` wgmma groups are in flight";
  let description = [{
    Each warpgroup waits until at most `pendings` of its most recent
    `tile_nv.warpgroup_dot` ops are unfinished (`wgmma.wait_group`). The
    accumulators passed in come back out, now safe to read: a value a
    pending dot produces must be read through this op.

    ```mlir
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 1 : i32}
        : (tensor<128x256xf32, #acc>) -> tensor<128x256xf32, #acc>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $outputs)";
  let hasVerifier = 1;
}

def TileNV_MMAv2Op : TileNV_Op<"mma_v2", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "mma.sync: d = a * b + c with both operands in registers";
  let description = [{
    Each warp multiplies its rows of `a` (M x K, in the
    `#tile_nv.dot_op<{opIdx = 0}>` layout of the accumulator's layout) by
    its columns of `b` (K x N, `opIdx = 1`) into its part of `c`, laid out
    as `#tile.linear` of the `mma.sync` (version 2) accumulator layout, with
    m16n8k16 instructions (bf16 or f16 into f32, f16 into f16), m16n8k8
    (f32 operands read as tf32, into f32) or m16n8k32 (signed i8 into i32,
    saturating). Needs sm_80.

    ```mlir
    %d = tile_nv.mma_v2 %a, %b, %c
        : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB>
          -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins RankedTensorOf<[BF16, F16, F32, I8]>:$a,
                       RankedTensorOf<[BF16, F16, F32, I8]>:$b,
                       RankedTensorOf<[F16, F32, I32]>:$c);
  let results = (outs RankedTensorOf<[F16, F32, I32]>:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}
