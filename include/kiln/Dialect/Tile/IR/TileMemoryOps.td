//===- TileMemoryOps.td - tile ops that touch memory -------*- tablegen -*-===//
//
// Pointer arithmetic and global loads and stores. Shared-memory descriptors
// (memdesc, local_alloc / local_load / local_store, views) and the async
// copies with their commit groups, tokens and waits land here too, so the
// op families stay in files of their own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TILE_MEMORY_OPS_TD
#define KILN_TILE_MEMORY_OPS_TD

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>,
    Tile_SharesOneLayout]> {
  let summary = "Advance pointers by an element offset";
  let description = [{
    `offset` counts elements of the pointee type and has the shape and
    layout of `ptr`.

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
}

def Tile_PtrCastOp : Tile_Op<"ptr_cast", [Pure, Tile_SharesOneLayout]> {
  let summary = "The same addresses as pointers to another type of the same width";
  let description = [{
    `src`'s addresses as pointers to another element type of the same bit
    width, in the same address space, shape and layout (a float atomic
    max/min on its bits reads the floats as integers through it).

    ```mlir
    %q = tile.ptr_cast %p : tensor<128x!tile.ptr<f32>, #l> -> tensor<128x!tile.ptr<i32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

// The assembly formats of load and store name only the pointer type; these
// traits let them infer the other types from it. Their comparator accepts
// anything: verify() checks the same rules with messages that show both types.
class Tile_InferredFromPtr<string what, string arg, string transform>
    : OptionalTypesMatchWith<what # " type follows from the pointer type", "ptr",
                             arg, transform, "::kiln::tile::CheckedInVerify()">;

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments, Tile_SharesOneLayout,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    Tile_InferredFromPtr<"result", "result", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"mask", "mask", "::kiln::tile::getI1SameShape($_self)">,
    Tile_InferredFromPtr<"other", "other", "::kiln::tile::inferPointeeType($_self)">]> {
  let summary = "Masked load from a tensor of global pointers";
  let description = [{
    Lanes whose `mask` is false do not access memory and yield `other`
    (undefined when `other` is absent). The lowering issues vector loads of
    up to 16 bytes where layout contiguity, pointer alignment and mask
    constancy allow.

    A volatile load (`isVolatile`) reads memory every time it runs, in
    program order with the thread's other volatile accesses: it is never
    merged with another load, moved across a write or made an asynchronous
    copy by the pipeliner (its effects include a write for that reason), and
    it is issued as an LLVM volatile load.

    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>, #l>
    %w = tile.load %p : tensor<128x!tile.ptr<f32>, #l>
    %x = tile.load %p {isVolatile} : tensor<128x!tile.ptr<f32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other, UnitAttr:$isVolatile);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^ (`,` $other^)?)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$mask, "::mlir::Value":$other,
                   CArg<"bool", "false">:$isVolatile)>
  ];
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite<DefaultResource>]>,
    Tile_SharesOneLayout,
    DeclareOpInterfaceMethods<Tile_CountedMemoryOpInterface, ["getCountedMask"]>,
    Tile_InferredFromPtr<"value", "value", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"mask", "mask", "::kiln::tile::getI1SameShape($_self)">]> {
  let summary = "Masked store to a tensor of global pointers";
  let description = [{
    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Tile_Tensor:$value,
                       Optional<Tile_BoolTensor>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    Tile_SharesOneLayout,
    Tile_InferredFromPtr<"result", "result", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"val", "val", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"mask", "mask", "::kiln::tile::getI1SameShape($_self)">]> {
  let summary = "Atomic read-modify-write of global memory, per element";
  let description = [{
    For each element (once, however many threads hold it) whose `mask` is
    true, atomically replaces `*ptr` by `*ptr <kind> val` and returns the
    old value. `kind`: add, and, or, xor, max, min (signed), umax, umin,
    xchg on integers; fadd, fmax, fmin, xchg on floats. `sem`: relaxed,
    acquire, release, acq_rel; `scope`: cta, gpu, sys. Masked-off elements
    return an undefined value.

    ```mlir
    %old = tile.atomic_rmw "add", %p, %v, %m {sem = "acq_rel", scope = "gpu"}
        : tensor<128x!tile.ptr<i32>, #l>
    ```
  }];
  let arguments = (ins StrAttr:$kind, Tile_PtrTensor:$ptr, Tile_Tensor:$val,
                       Optional<Tile_BoolTensor>:$mask, StrAttr:$sem,
                       StrAttr:$scope);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $kind `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    Tile_SharesOneLayout,
    Tile_InferredFromPtr<"result", "result", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"cmp", "cmp", "::kiln::tile::inferPointeeType($_self)">,
    Tile_InferredFromPtr<"val", "val", "::kiln::tile::inferPointeeType($_self)">]> {
  let summary = "Atomic compare-and-swap of global memory, per element";
  let description = [{
    For each element (once, however many threads hold it): if `*ptr ==
    cmp`, `*ptr = val`; returns the old value. 32- or 64-bit integers or
    floats (compared bitwise). `sem` and `scope` as for `tile.atomic_rmw`.

    ```mlir
    %old = tile.atomic_cas %p, %c, %v {sem = "acq_rel", scope = "gpu"}
        : tensor<128x!tile.ptr<i32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Tile_Tensor:$cmp, Tile_Tensor:$val,
                       StrAttr:$sem, StrAttr:$scope);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def Tile_SharedMemory : Resource<"::kiln::tile::SharedMemoryResource">;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "Allocate a buffer in shared memory, optionally initialized";
  let description = [{
    A new shared-memory buffer, placed by `tile-allocate-shared-memory`.
    With `src`, every thread writes its elements of the tensor into it (the
    buffer may then be immutable); without, the buffer is `mutable` and
    uninitialized. The result is a whole allocation, not a view.

    ```mlir
    %buf = tile.local_alloc : () -> !tile.memdesc<2x64x64xf16, #shared, mutable>
    %ro = tile.local_alloc %t : (tensor<64x64xf16, #l>) -> !tile.memdesc<64x64xf16, #shared>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$src);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tile_MemDescIndexOp : Tile_Op<"memdesc_index", [Pure]> {
  let summary = "One slot of a ring of shared buffers (a view)";
  let description = [{
    The `index`-th buffer along the leading dimension of `src`, a dimension
    the shared layout does not cover. The view keeps the allocation's shape.
    An index outside `[0, size)` is undefined, as in Gluon.

    ```mlir
    %slot = tile.memdesc_index %ring[%i] : !tile.memdesc<3x64x64xf16, #shared, mutable>
              -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, I32:$index);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescSubsliceOp : Tile_Op<"memdesc_subslice", [Pure]> {
  let summary = "A rectangular part of a shared buffer (a view)";
  let description = [{
    The elements of `src` from `offsets` on, as many along each dimension as
    the result's shape holds. Along the dimensions the shared layout covers,
    each offset is a multiple of the result's size there (Gluon's
    `.slice(start, length, dim)`), so the view is addressed by one XOR with
    the offset's position; leading (ring) dimensions take any offset.

    ```mlir
    %half = tile.memdesc_subslice %buf[0, 32] : !tile.memdesc<64x64xf16, #s, mutable>
              -> !tile.memdesc<64x32xf16, #s, mutable, 64x64>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, DenseI32ArrayAttr:$offsets);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src `` $offsets attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescPermuteOp : Tile_Op<"memdesc_permute", [Pure]> {
  let summary = "The same buffer with its dimensions permuted (a view)";
  let description = [{
    Result dimension `i` is dimension `order[i]` of `src`, over the same
    bytes: the result's layout is the source's with its dimensions renamed
    (Gluon's `.permute(order)`; `[1, 0]` transposes a tile). Leading ring
    dimensions stay in place.

    ```mlir
    %t = tile.memdesc_permute %buf {order = array<i32: 1, 0>}
           : !tile.memdesc<64x32xf16, #s, mutable> -> !tile.memdesc<32x64xf16, #s_t, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescReshapeOp : Tile_Op<"memdesc_reshape", [Pure]> {
  let summary = "A whole buffer seen with another shape (a view)";
  let description = [{
    The same bytes, in the same row-major element order, as a buffer of the
    result's shape (Gluon's `.reshape(shape)`). The source must be a whole
    allocation, and its layout must say what it is under the new shape
    (an unswizzled row-major buffer is row-major under any shape).

    ```mlir
    %flat = tile.memdesc_reshape %buf : !tile.memdesc<4x64xf32, #rm, mutable>
              -> !tile.memdesc<256xf32, #rm1, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescReinterpretOp : Tile_Op<"memdesc_reinterpret", [Pure]> {
  let summary = "A buffer's bytes seen with another type, shape and layout (a view)";
  let description = [{
    Gluon's `._reinterpret(dtype, shape, layout)`: the bytes the source view
    occupies, from its first, as a whole buffer of the result's element type,
    shape and layout. The source must be one slot whose elements fill one
    contiguous range (its layout maps the view onto offsets [0, n), and a
    subslice's offset is a multiple of n, checked where it is lowered), and
    the result must fit in those bytes.

    ```mlir
    %w = tile.memdesc_reinterpret %half : !tile.memdesc<1024xi8, #s1, mutable, 2048>
           -> !tile.memdesc<32x8xi32, #s2, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let results = (outs Tile_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "CTA-wide barrier that orders shared-memory accesses";
  let description = [{
    Every thread of the CTA waits here until all have arrived, and their
    shared-memory writes before it are visible to reads after it
    (`bar.sync 0` / `s_barrier`). Gluon's `gl.barrier()`.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_LocalDeallocOp : Tile_Op<"local_dealloc", [
    MemoryEffects<[MemFree<Tile_SharedMemory>]>]> {
  let summary = "End the life of a shared-memory allocation";
  let description = [{
    Marks the end of `src`'s live range (the allocator may reuse its bytes
    afterwards). Without it, an allocation lives until its last use.
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [
    MemoryEffects<[MemRead<Tile_SharedMemory>]>]> {
  let summary = "Read a shared-memory buffer into registers";
  let description = [{
    Each thread reads the elements its register layout gives it. The
    result's shape and element type are the buffer's.

    ```mlir
    %t = tile.local_load %buf : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #l>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [
    MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "Write registers into a mutable shared-memory buffer";
  let description = [{
    Each thread writes the elements its register layout gives it. The
    tensor's shape and element type are the buffer's.

    ```mlir
    tile.local_store %t, %buf : tensor<64x64xf16, #l> -> !tile.memdesc<64x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_MemDesc:$dst);
  let assemblyFormat =
      "$value `,` $dst attr-dict `:` type($value) `->` qualified(type($dst))";
  let hasVerifier = 1;
}

def Tile_LocalGatherOp : Tile_Op<"local_gather"> {
  let summary = "Read a shared-memory buffer at per-element indices along one axis";
  let description = [{
    Gluon's `shared_memory_descriptor.gather`: `result[I] = src[I with
    I[axis] replaced by indices[I]]`. The result has the shape and layout of
    `indices` and the buffer's element type; along the other axes `indices`
    is no larger than the buffer. Only the low log2(src.shape[axis]) bits of
    an index are used.

    ```mlir
    %g = tile.local_gather %buf[%idx] {axis = 0 : i32}
        : !tile.memdesc<64x64xf32, #shared>, tensor<64x64xi32, #l> -> tensor<64x64xf32, #l>
    ```
  }];
  let arguments = (ins Arg<Tile_MemDesc, "", [MemRead<Tile_SharedMemory>]>:$src,
                       Tile_IntTensor:$indices, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` qualified(type($src)) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_LocalScatterOp : Tile_Op<"local_scatter"> {
  let summary = "Write registers into a shared-memory buffer at per-element indices";
  let description = [{
    Gluon's `shared_memory_descriptor.scatter`: `dst[I with I[axis] replaced
    by indices[I]] = values[I]`. `values` and `indices` have one shape and
    layout. Two elements written to one place leave one of them there.

    ```mlir
    tile.local_scatter %v, %buf[%idx] {axis = 1 : i32}
        : tensor<32x32xf32, #l>, tensor<32x32xi32, #l> -> !tile.memdesc<32x32xf32, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_Tensor:$values,
                       Arg<Tile_MemDesc, "", [MemWrite<Tile_SharedMemory>]>:$dst,
                       Tile_IntTensor:$indices, I32Attr:$axis);
  let assemblyFormat = [{
    $values `,` $dst `[` $indices `]` attr-dict `:` type($values) `,`
    type($indices) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_LocalAtomicRMWOp : Tile_Op<"local_atomic_rmw", [
    OptionalTypesMatchWith<"result type follows from the values", "values",
                           "result", "$_self", "::kiln::tile::CheckedInVerify()">,
    OptionalTypesMatchWith<"mask type follows from the indices", "indices",
                           "mask", "::kiln::tile::getI1SameShape($_self)",
                           "::kiln::tile::CheckedInVerify()">]> {
  let summary = "Atomic read-modify-write of shared memory at per-element indices";
  let description = [{
    Gluon's `shared_memory_descriptor.atomic_scatter_<kind>`: for each
    element I (once, however many threads hold it) whose `mask` is true,
    atomically replaces `old = dst[I with I[axis] replaced by indices[I]]`
    by `old <kind> values[I]` and returns `old` (undefined where masked
    off). `kind`: add, and, or, xor, max, min (signed), umax, umin, xchg on
    integers; fadd, xchg on floats. Relaxed, at the scope of the CTA.

    ```mlir
    %old = tile.local_atomic_rmw "add", %v, %buf[%idx], %m {axis = 0 : i32}
        : tensor<64xi32, #l>, tensor<64xi32, #l> -> !tile.memdesc<64xi32, #shared, mutable>
    ```
  }];
  let arguments = (ins StrAttr:$kind, Tile_Tensor:$values,
                       Arg<Tile_MemDesc, "", [MemRead<Tile_SharedMemory>,
                                              MemWrite<Tile_SharedMemory>]>:$dst,
                       Tile_IntTensor:$indices, Optional<Tile_BoolTensor>:$mask,
                       I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $kind `,` $values `,` $dst `[` $indices `]` (`,` $mask^)? attr-dict `:`
    type($values) `,` type($indices) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def Tile_AsyncCopyGlobalToLocalOp : Tile_Op<"async_copy_global_to_local", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_AsyncCopyOpInterface, ["getPointerType"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<Tile_SharedMemory>]>,
    Tile_InferredFromPtr<"mask", "mask", "::kiln::tile::getI1SameShape($_self)">,
    Tile_InferredFromPtr<"other", "other", "::kiln::tile::inferPointeeType($_self)">]> {
  let summary = "Start copying global memory into a shared buffer";
  let description = [{
    Each thread starts copying the elements its pointers address (the
    pointer tensor's layout) into the same elements of `dst`, at the
    offsets `dst`'s shared layout gives them. The copy is in flight until a
    `tile.async_wait` that covers its commit group: only then may the
    issuing thread read those elements, and other threads only after a
    barrier that follows that wait (`tile-insert-barriers` adds it). Lanes
    whose `mask` is false read nothing and write `other` (zeros when it is
    absent). Where the hardware copy zero-fills masked lanes itself, a
    non-zero `other` is an error; where it skips them (direct-to-LDS
    loads), masked lanes are branched around the copy and store `other`
    themselves.

    Widths (bytes per thread and access) follow the target's rules,
    checked by one helper (AsyncCopy.h) in the verifier and the lowering.
    `cache_modifier` ("", ".ca", ".cg", ".cv") picks the cache level; ""
    lets the lowering choose; which a target takes, and for which widths,
    is checked before lowering.

    ```mlir
    %tok = tile.async_copy_global_to_local %p, %slot, %m
        : tensor<64x64x!tile.ptr<f16>, #l> -> !tile.memdesc<64x64xf16, #s, mutable, 3x64x64>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Tile_MemDesc:$dst,
                       Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other,
                       DefaultValuedStrAttr<StrAttr, "">:$cache_modifier);
  let results = (outs Tile_AsyncToken:$token);
  let assemblyFormat = [{
    $ptr `,` $dst (`,` $mask^ (`,` $other^)?)? attr-dict `:` type($ptr) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [
    MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "Close the group of this thread's uncommitted async copies";
  let description = [{
    Every asynchronous copy this thread issued since its last commit joins
    one group; `tile.async_wait` counts groups. The tokens name the copies
    the group holds (optional: the hardware groups by program order).

    ```mlir
    %g = tile.async_commit_group tokens %t0, %t1
    ```
  }];
  let arguments = (ins Variadic<Tile_AsyncToken>:$tokens);
  let results = (outs Tile_AsyncToken:$token);
  let assemblyFormat = "(`tokens` $tokens^)? attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "Wait until at most `num` of this thread's groups are pending";
  let description = [{
    Blocks the thread until at most `num` of its most recent commit groups
    are still in flight; its copies in older groups have landed. A wait
    orders only the issuing thread: another thread may read those elements
    only after a barrier that follows the wait.

    Without `num`, the wait is for the groups of its tokens, and
    `tile-insert-wait-counts` computes the count (the fewest groups
    committed after theirs on any path); the lowering needs it.

    On targets whose hardware counts instructions rather than groups,
    `instructions` is how many of this thread's asynchronous copy
    instructions the wait may leave in flight (the fewest issued after the
    awaited group on any path); the same pass computes it.

    ```mlir
    %w = tile.async_wait tokens %g {num = 1 : i32}
    %v = tile.async_wait tokens %g          // count from the tokens
    ```
  }];
  let arguments = (ins Variadic<Tile_AsyncToken>:$tokens,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$num,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$instructions);
  let results = (outs Tile_AsyncToken:$token);
  let assemblyFormat = "(`tokens` $tokens^)? attr-dict";
}

#endif
