#ifndef KILN_TILE_ATTRS_TD
#define KILN_TILE_ATTRS_TD

include "kiln/Dialect/Tile/IR/TileBase.td"

def Tile_DistributedLayout : AttrInterface<"DistributedLayoutAttr"> {
  let cppNamespace = "::kiln::tile";
  let description = [{
    A register layout: a map from (register, lane, warp) to tensor elements.
    Every distributed layout converts to the general F2-linear form; the
    lowering only ever looks at that form.
  }];
  let methods = [
    InterfaceMethod<"The F2-linear layout of a tensor of `shape`.",
      "::kiln::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the tensors this layout applies to.",
      "unsigned", "getRank", (ins)>,
  ];
}

def Tile_SharedLayout : AttrInterface<"SharedLayoutAttr"> {
  let cppNamespace = "::kiln::tile";
  let description = [{
    A shared-memory layout: where each element of a buffer lives, as a map
    from the element offset in the buffer to tensor coordinates. It applies to
    the trailing `getRank()` dimensions of a memory descriptor; leading
    dimensions (ring slots) stack whole buffers. Every shared layout converts
    to the F2-linear form, with the offset bits in the `register` input
    dimension (`lane` and `warp` empty).
  }];
  let methods = [
    InterfaceMethod<"The F2-linear map offset -> coordinates for a buffer of `shape`.",
      "::kiln::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the buffers this layout applies to.",
      "unsigned", "getRank", (ins)>,
    InterfaceMethod<[{Padding after the linear map, as (log2 interval,
      padding) pairs: the element at linear offset `o` lives at
      `o + sum((o >> log2 interval) * padding)`. Empty for layouts without.}],
      "::llvm::SmallVector<std::pair<unsigned, unsigned>>", "getPaddingSteps",
      (ins), "", [{ return {}; }]>,
    InterfaceMethod<[{The layout of the same bytes seen with dimensions
      permuted (result dimension i is dimension perm[i]); null when this
      layout cannot express it.}],
      "::mlir::Attribute", "getPermuted",
      (ins "::llvm::ArrayRef<int32_t>":$perm)>,
    InterfaceMethod<[{The layout of the same bytes seen as a buffer of
      `newShape` (this layout's dimensions, `shape`, reshaped); null when
      this layout cannot express it.}],
      "::mlir::Attribute", "getReshaped",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::ArrayRef<int64_t>":$newShape)>,
    InterfaceMethod<[{Alignment in bytes a buffer in this layout needs
      (hardware that reads a layout as a whole, such as swizzle atoms, may
      need more than the default 16).}],
      "unsigned", "getBaseAlignment", (ins), "", [{ return 16; }]>,
    InterfaceMethod<[{Checks that a buffer of `shape` (this layout's
      dimensions) and `elementType` can be laid out this way; the default
      accepts every shape.}],
      "::mlir::LogicalResult", "verifyBuffer",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType),
      "", [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{Checks that a tensor descriptor's block of
      `elementType` can use this layout: hardware that copies whole blocks
      (TMA) applies the layout to elements of its own width, while loads
      and stores through registers accept a layout written for another
      width (as Gluon does). The default accepts every type.}],
      "::mlir::LogicalResult", "verifyDescriptorElementType",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "::mlir::Type":$elementType),
      "", [{ return ::mlir::success(); }]>,
  ];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedAttr : Tile_Attr<"BlockedEncoding", "blocked",
                                 [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let summary = "Blocked register layout (Gluon's BlockedLayout)";
  let description = [{
    Each thread holds `sizePerThread` contiguous elements, a warp tiles
    `threadsPerWarp` threads, a CTA tiles `warpsPerCTA` warps; `order` lists
    dimensions from fastest to slowest varying. A tensor larger than the
    CTA tile wraps around into more registers; a smaller one is broadcast
    over the spare lanes and warps.

    ```mlir
    #l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8],
                        warpsPerCTA = [4, 1], order = [1, 0]}>
    ```

    All entries must be powers of two and `order` a permutation. The products
    of `threadsPerWarp` and `warpsPerCTA` must equal the module's
    `tile.threads_per_warp` and `tile.num_warps`.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_SliceAttr : Tile_Attr<"SliceEncoding", "slice",
                               [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of a tensor that results from reducing `parent` along `dim`
    (or that `tile.expand_dims` turns back into `parent`). Threads that
    differed only along `dim` hold the same elements.

    ```mlir
    #s = #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4],
           threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_DotOperandAttr : Tile_Attr<"BlockedDotOperandEncoding", "dot_operand",
                                    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let summary = "An operand of tile.dot_fma over a blocked accumulator";
  let description = [{
    Operand `opIdx` (0: A, [batch,] M x K; 1: B, [batch,] K x N) of a
    `tile.dot_fma` whose accumulator has the blocked layout `parent` (Gluon's
    `DotOperandLayout` with a `BlockedLayout` parent). Each thread holds the
    whole K extent of the rows (A) or columns (B) it computes: the parent
    with `sizePerThread` along K grown to the tensor's K, so the lanes and
    warps the parent spreads along N (A) or M (B) hold the same elements.

    ```mlir
    #a = #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 1],
           threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_LinearAttr : Tile_Attr<"LinearEncoding", "linear",
                                [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let summary = "General F2-linear register layout";
  let description = [{
    The general form of every distributed layout: for each input dimension
    (`register`, `lane`, `warp`) one basis vector per bit of the index. The
    coordinates of an element are the XOR of the bases of the set bits of its
    register, lane and warp index. A zero basis means broadcast.

    ```mlir
    // 128 elements: 4 contiguous per thread, 32 lanes, 1 warp
    #l = #tile.linear<{register = [[1], [2]],
                       lane = [[4], [8], [16], [32], [64]], warp = []}>
    ```

    The bases must cover every element of the tensor shape they are used
    with exactly (the map must be surjective onto the shape).
  }];
  let parameters = (ins "::kiln::LinearLayout":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_SwizzledSharedAttr : Tile_Attr<"SwizzledSharedEncoding", "swizzled_shared",
                                       [DeclareAttrInterfaceMethods<Tile_SharedLayout>]> {
  let summary = "Swizzled shared-memory layout (Gluon's SwizzledSharedLayout)";
  let description = [{
    Rows of the buffer (dimension `order[1]`) are stored one after another,
    `order[0]` fastest. Within a row, groups of `vec` elements are permuted
    by XOR with the row's phase, `(row / perPhase) % maxPhase`, so that
    threads reading a column of a row-major tile hit different banks:

    ```
    stored column = ((column / vec) ^ phase) * vec + column % vec
    ```

    XOR bits that fall past the row's length are dropped (the permutation
    stays within the row). Dimensions after `order[1]` stack whole tiles.
    `vec = perPhase = maxPhase = 1` is the unswizzled row-major layout.

    ```mlir
    #shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```

    `vec`, `perPhase` and `maxPhase` are powers of two; `order` is a
    permutation.
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_PaddedSharedAttr : Tile_Attr<"PaddedSharedEncoding", "padded_shared",
                                     [DeclareAttrInterfaceMethods<Tile_SharedLayout,
                                       ["getPaddingSteps"]>]> {
  let summary = "Padded shared-memory layout (Gluon's PaddedSharedLayout)";
  let description = [{
    Elements are placed by an F2-linear map from a linear offset to the
    coordinates of a buffer of `shape` (`offset`: one basis per offset bit),
    and after every `intervals[i]` elements `paddings[i]` unused elements are
    inserted (summed where intervals coincide), which moves rows to other
    banks instead of permuting within them:

    ```
    address(o) = o + sum_i (o / intervals[i]) * paddings[i]
    ```

    ```mlir
    // 32x32, row-major, 4 elements of padding after every row.
    #p = #tile.padded_shared<{intervals = [32], paddings = [4],
           offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                     [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], shape = [32, 32]}>
    ```

    Intervals and paddings are powers of two, intervals distinct; the
    offset bases reach every element of `shape` exactly once.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$intervals,
                        ArrayRefParameter<"unsigned">:$paddings,
                        "::kiln::LinearLayout":$offsets);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_SharedLinearAttr : Tile_Attr<"SharedLinearEncoding", "shared_linear",
                                     [DeclareAttrInterfaceMethods<Tile_SharedLayout,
                                       ["getBaseAlignment"]>]> {
  let summary = "Shared-memory layout given as an F2-linear map (Gluon's SharedLinearLayout)";
  let description = [{
    Element offset `o` of the buffer holds the coordinates that are the XOR
    of the `offset` bases of the set bits of `o` (one basis per offset bit),
    in a buffer of `shape`; `alignment` is the byte alignment the buffer
    needs (16 or more; a layout that encodes a swizzle the hardware applies
    to addresses needs the swizzle's repeat).

    ```mlir
    // 8 x 16 f16: 8 elements (16 bytes) of a row, then the 8 rows, then the
    // next 8 columns: wgmma's unswizzled K-major core matrices.
    #s = #tile.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0],
                                        [4, 0], [0, 8]], shape = [8, 16], alignment = 16}>
    ```

    The bases reach every element of `shape` exactly once.
  }];
  let parameters = (ins "::kiln::LinearLayout":$offsets, "unsigned":$alignment);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_ClusterAttr : Tile_Attr<"ClusterEncoding", "cga",
                                 [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let summary = "A register layout split among the CTAs of a cluster (Gluon's cga_layout)";
  let description = [{
    `layout` is how each CTA holds its part; `bases` has one vector per bit
    of the CTA's rank in its cluster, the move in CTA tiles that bit makes
    along each dimension (a zero vector: the CTAs differing in that bit hold
    the same elements). A dimension is split 2^(bases moving along it) ways;
    one smaller than its split is held whole by every CTA.

    ```mlir
    // 128 x 64 split in two along rows: each CTA holds 64 x 64 in #l.
    #c = #tile.cga<{bases = [[1, 0]], layout = #l}>
    ```

    Tensors with this layout have the whole (cluster) shape. The pass
    `tile-split-cluster` turns them into each CTA's part (`layout` and the
    per-CTA shape) before lowering.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$bases, "::mlir::Attribute":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_AutoAttr : Tile_Attr<"AutoEncoding", "auto"> {
  let summary = "A register layout still to be inferred (Gluon's AutoLayout)";
  let description = [{
    Placeholder encoding of a tensor whose layout the kernel author left to
    the compiler (`kl.arange`/`kl.full` without a layout, `kl.AutoLayout()`).
    `tile-resolve-layouts` replaces it by propagating the layouts that
    `tile.set_auto_layout` fixes, forward and backward through elementwise
    ops, broadcasts, `expand_dims`, reductions and loops. It never reaches
    the lowering.

    ```mlir
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.auto>
    ```
  }];
}

def Tile_CoalescedAttr : Tile_Attr<"CoalescedEncoding", "coalesced"> {
  let summary = "A blocked layout chosen for coalesced global access (Gluon's CoalescedLayout)";
  let description = [{
    Placeholder encoding resolved by `tile-resolve-layouts` before the
    automatic layouts: every `tile.load`/`tile.store` whose pointer tensor has
    it gets a `#tile.blocked` layout built from the axis analysis of its
    pointers (the most contiguous dimension fastest, as many elements per
    thread as alignment, contiguity and 16-byte accesses allow), and that
    layout propagates to the values tied to it.

    ```mlir
    %r = tile.arange 0, 64 : tensor<64xi32, #tile.coalesced>
    ```
  }];
}

#endif
