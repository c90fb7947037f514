//===- TileNVCopyOps.td - TMA copies ------------------------*- tablegen -*-===//
//
// Included by TileNVOps.td (TileNV_Op, the resources).
//
//===----------------------------------------------------------------------===//

def TileNV_AsyncTMACopyGlobalToLocalOp : TileNV_Op<"async_tma_copy_global_to_local", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierCompletedWriteOpInterface,
                              ["issuedByElectedThread", "getLandingCTAs"]>,
    DeclareOpInterfaceMethods<Tile_PredicatedOpInterface>]> {
  let summary = "TMA: copy a block of a global tensor into shared memory";
  let description = [{
    One thread (of those with `pred`, when given) asks the tensor memory
    accelerator to copy the block of `desc`'s tensor at element coordinates
    `coord` (outermost first, as the block's dimensions) into `result`,
    laid out as the descriptor's shared layout says. Elements outside the
    tensor are filled (zeros, or NaN when the descriptor asks). The copy
    counts its bytes against the mbarrier `barrier`'s current phase (arm it
    with `tile_nv.mbarrier_expect` for the block's bytes); its writes are
    visible to the threads whose wait on that phase returns. Needs sm_90.

    With `l2_primary` (and optionally `l2_secondary`, `l2_fraction`) the
    copy carries an L2 eviction policy (`createpolicy.fractional`, a
    `.L2::cache_hint` operand): `l2_fraction` of the lines get the primary
    priority, the rest the secondary (default evict_unchanged).

    With `multicast %mask` (bit k: the CTA of rank k in the cluster), the
    copy lands at `result`'s offset in the shared memory of every CTA whose
    bit is set, and each of them counts its bytes on its own barrier at
    `barrier`'s offset (PTX `.multicast::cluster`). Every CTA of the mask
    runs the op with the same mask; the one of lowest rank issues the copy
    and the others only receive it, so their barriers still expect the
    bytes.

    Through an im2col descriptor (`!tile.tensordesc<..., im2col = N>`) the
    copy is PTX's `.im2col` load: `coord` has the tensor's N coordinates
    (the first pixel's, and the first channel), and `offsets` its N - 2
    unsigned 16-bit spatial offsets (outermost first), which move every
    pixel of the bounding box the host descriptor holds; the block is the
    pixels x channels the hardware gathers. Constant offsets must lie in
    the range PTX gives the rank: [0, 65535] for 3, [0, 255] for 4, [0, 31]
    for 5. A tiled descriptor takes no offsets.

    ```mlir
    tile_nv.async_tma_copy_global_to_local %desc[%m, %k], %bar, %slot
        : !tile.tensordesc<tensor<128x64xbf16, #nvmma>>,
          !tile.memdesc<1xi64, #s, mutable>, !tile.memdesc<128x64xbf16, #nvmma, mutable>
    tile_nv.async_tma_copy_global_to_local %in[%n, %h, %w, %c] offsets [%r, %s], %bar, %a
        : !tile.tensordesc<tensor<128x64xf16, #nvmma>, im2col = 4>,
          !tile.memdesc<1xi64, #s, mutable>, !tile.memdesc<128x64xf16, #nvmma, mutable>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$coord,
                       Variadic<I16>:$offsets,
                       Tile_MemDesc:$barrier, Tile_MemDesc:$result,
                       Optional<I1>:$pred, Optional<I32>:$multicast,
                       OptionalAttr<StrAttr>:$l2_primary,
                       OptionalAttr<StrAttr>:$l2_secondary,
                       OptionalAttr<F32Attr>:$l2_fraction);
  let assemblyFormat = [{
    $desc `[` $coord `]` (`offsets` `[` $offsets^ `]`)? `,` $barrier `,` $result (`,` $pred^)?
    (`multicast` $multicast^)? attr-dict `:`
    qualified(type($desc)) `,` qualified(type($barrier)) `,` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileNV_AsyncBulkCopyGlobalToLocalOp : TileNV_Op<"async_bulk_copy_global_to_local", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierCompletedWriteOpInterface,
                              ["issuedByElectedThread", "getLandingCTAs"]>,
    DeclareOpInterfaceMethods<Tile_PredicatedOpInterface>]> {
  let summary = "Bulk copy: contiguous global bytes into a shared buffer";
  let description = [{
    One thread (of those with `pred`, when given) asks the bulk copy engine
    to copy `bytes` bytes from `src` (a scalar global pointer, 16-byte
    aligned) into the first `bytes` bytes of `result`, byte for byte in the
    buffer's physical order (no swizzle is applied: the buffer's layout
    only says how later readers find the elements). `bytes` is a multiple
    of 16 and at most the buffer's size; it may be a run-time value. The
    copy counts its bytes against the mbarrier `barrier`'s current phase
    (arm it with `tile_nv.mbarrier_expect` for them); its writes are
    visible to the threads whose wait on that phase returns. `result` must
    be one whole slot of its allocation (a contiguous byte range) with an
    unpadded layout. Needs sm_90 (PTX's
    `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`).

    With `multicast %mask` (bit k: the CTA of rank k in the cluster), the
    bytes land at `result`'s offset in the shared memory of every CTA whose
    bit is set, each counting them on its own barrier at `barrier`'s offset;
    every CTA of the mask runs the op with the same mask and the one of
    lowest rank issues the copy.

    ```mlir
    tile_nv.async_bulk_copy_global_to_local %src, %bytes, %bar, %slot
        : !tile.ptr<f32>, !tile.memdesc<1xi64, #s, mutable>,
          !tile.memdesc<1024xf32, #s, mutable, 2x1024>
    ```
  }];
  let arguments = (ins Tile_Ptr:$src, I32:$bytes,
                       Tile_MemDesc:$barrier, Tile_MemDesc:$result,
                       Optional<I1>:$pred, Optional<I32>:$multicast);
  let assemblyFormat = [{
    $src `,` $bytes `,` $barrier `,` $result (`,` $pred^)? (`multicast` $multicast^)?
    attr-dict `:` qualified(type($src)) `,` qualified(type($barrier)) `,`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileNV_AsyncTMACopyLocalToGlobalOp : TileNV_Op<"async_tma_copy_local_to_global", [
    DeclareOpInterfaceMethods<Tile_AsyncReadOpInterface,
        ["getAsyncReadGroupThreads"]>]> {
  let summary = "TMA: copy a shared buffer into a block of a global tensor";
  let description = [{
    One thread asks the tensor memory accelerator to store `src` into the
    block of `desc`'s tensor at `coord`; elements outside the tensor are
    not written. The store reads `src` asynchronously: it joins a bulk
    group that `tile_nv.async_tma_store_wait` waits for. Threads' earlier
    writes to `src` must be made visible to the copy with
    `tile_nv.fence_async_shared` (tile-insert-barriers places the CTA
    barrier after it). Needs sm_90.

    With `l2_primary` (and optionally `l2_secondary`, `l2_fraction`) the
    store carries an L2 eviction policy (`createpolicy.fractional`, a
    `.L2::cache_hint` operand): `l2_fraction` of the lines get the primary
    priority, the rest the secondary (default evict_unchanged).

    ```mlir
    tile_nv.async_tma_copy_local_to_global %desc[%m, %n], %c
        : !tile.tensordesc<tensor<128x256xbf16, #nvmma>>, !tile.memdesc<128x256xbf16, #nvmma, mutable>
    ```
  }];
  let arguments = (ins Arg<Tile_TensorDesc, "", [MemWrite]>:$desc,
                       Variadic<I32>:$coord,
                       Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>]>:$src,
                       OptionalAttr<StrAttr>:$l2_primary,
                       OptionalAttr<StrAttr>:$l2_secondary,
                       OptionalAttr<F32Attr>:$l2_fraction);
  let assemblyFormat = [{
    $desc `[` $coord `]` `,` $src attr-dict `:` qualified(type($desc)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TileNV_AsyncTMAReduceOp : TileNV_Op<"async_tma_reduce", [
    DeclareOpInterfaceMethods<Tile_AsyncReadOpInterface,
        ["getAsyncReadGroupThreads"]>]> {
  let summary = "TMA: combine a shared buffer into a block of a global tensor";
  let description = [{
    A TMA store that combines instead of overwriting: one thread asks the
    tensor memory accelerator to replace each element of the block of
    `desc`'s tensor at `coord` by itself `kind` the matching element of
    `src` (`cp.reduce.async.bulk.tensor`), each element atomically;
    elements outside the tensor are left alone. The element type the
    hardware computes in is the descriptor's tensor map's: `add` takes f16,
    bf16, f32, 32-bit integers and unsigned 64-bit ones; `min` and `max`
    f16, bf16 and 32- or 64-bit integers; `and`, `or` and `xor` 32- or
    64-bit integers. As the store, it reads `src` asynchronously and joins
    the bulk group that `tile_nv.async_tma_store_wait` waits for (with
    `read_only = false` until its writes are in global memory). Needs sm_90.

    ```mlir
    tile_nv.async_tma_reduce add, %desc[%m, %n], %c
        : !tile.tensordesc<tensor<128x64xf32, #nvmma>>, !tile.memdesc<128x64xf32, #nvmma, mutable>
    ```
  }];
  let arguments = (ins TileNV_TMAReduceKindAttr:$kind,
                       Arg<Tile_TensorDesc, "", [MemRead, MemWrite]>:$desc,
                       Variadic<I32>:$coord,
                       Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>]>:$src);
  let assemblyFormat = [{
    $kind `,` $desc `[` $coord `]` `,` $src attr-dict `:` qualified(type($desc)) `,`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TileNV_AsyncTMAStoreWaitOp : TileNV_Op<"async_tma_store_wait", [
    DeclareOpInterfaceMethods<Tile_AsyncReadWaitOpInterface>]> {
  let summary = "Wait until at most `pendings` TMA stores are still pending";
  let description = [{
    The issuing thread waits until at most `pendings` of its most recent
    TMA stores and reduce-stores are still reading their shared-memory
    source (`read_only`, the default: `cp.async.bulk.wait_group.read`);
    their buffers may then be written. With `read_only = false` it waits
    until they have also finished writing global memory
    (`cp.async.bulk.wait_group`), as a release of their results to other
    CTAs or the host needs.

    ```mlir
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings,
                       DefaultValuedAttr<BoolAttr, "true">:$read_only);
  let assemblyFormat = "attr-dict";
}

def TileNV_FenceAsyncSharedOp : TileNV_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_AsyncProxyFenceOpInterface>]> {
  let summary = "Order this thread's shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async`: the calling thread's earlier ordinary writes to
    shared memory become visible to later TMA stores and wgmma reads
    (which go through the async proxy). `cluster` widens it to the
    cluster's shared memory.

    ```mlir
    tile_nv.fence_async_shared {cluster = false}
    ```
  }];
  let arguments = (ins DefaultValuedAttr<BoolAttr, "false">:$cluster);
  let assemblyFormat = "attr-dict";
}

def TileNV_MakeTensorDescriptorOp : TileNV_Op<"make_tensor_descriptor", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<DefaultResource>, MemRead<DefaultResource>]>]> {
  let summary = "A TMA descriptor built on the device (Gluon's tma.make_tensor_descriptor)";
  let description = [{
    A tiled TMA descriptor for the tensor at `base` with `shape` (i32) and
    `strides` (i64, in elements; the last must be 1), copying blocks of the
    result type's block shape in its shared layout. The descriptor is written
    into this CTA's part of the kernel's global scratch (`scratch`, the
    hidden argument the lowering adds; `tile_nv.scratch_offset` bytes in)
    by one thread, released to the tensor-map proxy, and acquired by every
    thread after a CTA barrier, so any thread may then issue TMA copies
    through it. `padding` "nan" fills out-of-bounds elements with NaN (float
    types), "zero" with zeros. Needs sm_90a.

    ```mlir
    %d = tile_nv.make_tensor_descriptor %base[%m, %n], [%sm, %c1] {padding = "zero"}
        : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16, #nvmma>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides,
                       DefaultValuedStrAttr<StrAttr, "zero">:$padding);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `[` $shape `]` `,` `[` $strides `]` attr-dict `:` qualified(type($base))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileNV_AsyncSharedStoreOp : TileNV_Op<"async_shared_store", [
    MemoryEffects<[MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierCompletedWriteOpInterface>]> {
  let summary = "store a tensor into shared memory asynchronously (st.async)";
  let description = [{
    Each thread stores its elements of `src` into `buffer` with PTX's
    `st.async` (sm_90, a cluster of at least two CTAs), every element once
    (threads and registers that repeat elements store nothing), and each
    store counts its bytes against the current phase of the mbarrier
    `barrier` (arm it with `tile_nv.mbarrier_expect` for the buffer's
    bytes); the stores are visible to the threads whose wait on that phase
    returns. This CTA's own buffer and barrier: a tensor and a buffer that a
    cluster splits are split alike (the DSL checks), so each CTA stores its
    part into its own shared memory. Each store is of 4, 8 or 16 bytes: the
    layouts must give each thread at least 4 consecutive bytes of
    `buffer`.

    ```mlir
    tile_nv.async_shared_store %v, %buf, %bar
        : tensor<128xi32, #blocked>, !tile.memdesc<128xi32, #s, mutable>,
          !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src, Tile_MemDesc:$buffer,
                       Tile_MemDesc:$barrier);
  let assemblyFormat = [{
    $src `,` $buffer `,` $barrier attr-dict `:` type($src) `,` qualified(type($buffer)) `,`
    qualified(type($barrier))
  }];
  let hasVerifier = 1;
}
