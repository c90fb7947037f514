#ifndef KILN_TILE_TYPES_TD
#define KILN_TILE_TYPES_TD

include "kiln/Dialect/Tile/IR/TileBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_TypeDef<"Pointer", "ptr"> {
  let summary = "Pointer to an element in a memory address space";
  let description = [{
    A scalar pointer to values of `pointeeType`. The address space defaults
    to 1 (global memory), which is omitted when printed.

    ```mlir
    !tile.ptr<f32>        // global f32 pointer
    !tile.ptr<f16, 3>     // shared-memory f16 pointer
    ```

    Tensors of pointers (`tensor<128x!tile.ptr<f32>, #l>`) are what
    `tile.load` and `tile.store` take.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
}

def Tile_MemDescType : Tile_TypeDef<"MemDesc", "memdesc", [ShapedTypeInterface]> {
  let summary = "A buffer (or a view of one) in shared memory";
  let description = [{
    A shared-memory buffer of `shape` x `elementType`, laid out by a shared
    layout that applies to its trailing dimensions. `mutable` buffers may be
    written (`local_store`, async copies). A view (one ring slot, a
    subslice) keeps the shape of the whole allocation, printed last when it
    differs from `shape`.

    ```mlir
    !tile.memdesc<64x64xf16, #shared, mutable>
    !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>   // slot of a 3-deep ring
    ```

    The dimensions the layout covers are powers of two; leading dimensions
    (ring slots) may be any positive size.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding,
                        "bool":$mutableMemory,
                        ArrayRefParameter<"int64_t">:$allocShape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// ShapedTypeInterface: memory descriptors always have a rank.
    bool hasRank() const { return true; }
    MemDescType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                          ::mlir::Type elementType) const {
      return MemDescType::get(getContext(), shape.value_or(getShape()),
                              elementType, getEncoding(), getMutableMemory(),
                              getAllocShape());
    }
    /// The shared layout (the encoding is verified to be one).
    SharedLayoutAttr getSharedLayout() const {
      return ::llvm::cast<SharedLayoutAttr>(getEncoding());
    }
  }];
}

def Tile_TensorDescType : Tile_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "A descriptor of a global tensor that bulk copies read and write";
  let description = [{
    A kernel parameter describing a tensor in global memory (its base,
    shape and strides are in the descriptor, not in the IR) and the block
    one copy moves: `blockType` is that block, its encoding the shared
    layout the block has in shared memory.

    ```mlir
    !tile.tensordesc<tensor<128x64xbf16, #tile_nv.nvmma_shared<...>>>
    ```

    Descriptors are created on the host; a kernel only passes them to the
    bulk copy ops of the targets that have them.

    With `im2col = N` the descriptor is an im2col one (the TMA im2col
    mode) of a rank-N tensor (3 to 5: N, spatial dimensions, C): a copy
    gathers a block of `pixels x channels` (rank 2) from the pixels of a
    bounding box the host descriptor holds, so copies take N coordinates
    and N - 2 offsets, not one coordinate per block dimension. Its pixels
    may number up to 1024, its channels up to 256.

    ```mlir
    !tile.tensordesc<tensor<256x64xf16, #tile_nv.nvmma_shared<...>>, im2col = 4>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType,
                        DefaultValuedParameter<"unsigned", "0">:$im2colRank);
  let assemblyFormat = "`<` $blockType (`,` `im2col` `=` $im2colRank^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether copies through this descriptor use the im2col mode.
    bool isIm2Col() const { return getIm2colRank() != 0; }
    /// Coordinates a copy takes: the tensor's rank for im2col, else the
    /// block's.
    unsigned getCoordRank() const {
      return isIm2Col() ? getIm2colRank() : getBlockType().getRank();
    }
    /// The block's shared layout (verified to be one).
    SharedLayoutAttr getSharedLayout() const {
      return ::llvm::cast<SharedLayoutAttr>(getBlockType().getEncoding());
    }
  }];
}

def Tile_AsyncTokenType : Tile_TypeDef<"AsyncToken", "async_token"> {
  let summary = "Orders asynchronous copies, their commit groups and waits";
  let description = [{
    Produced by `tile.async_copy_global_to_local`, `tile.async_commit_group`
    and `tile.async_wait`, and taken by the latter two, so that passes can
    follow which copies a wait covers (also through loop-carried values).
    It carries no data.

    ```mlir
    %t = tile.async_commit_group tokens %c
    ```
  }];
}

def Tile_Ptr : Type<CPred<"::llvm::isa<::kiln::tile::PointerType>($_self)">,
                    "tile pointer", "::kiln::tile::PointerType">;
def Tile_PtrTensor : Type<And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::isa<::kiln::tile::PointerType>("
          "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType())">]>,
    "tensor of tile pointers", "::mlir::RankedTensorType">;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;
def Tile_Int : AnyTypeOf<[AnySignlessInteger]>;
def Tile_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def Tile_IntLike : AnyTypeOf<[AnySignlessInteger, Tile_IntTensor]>;
def Tile_BoolTensor : RankedTensorOf<[I1]>;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor]>;
def Tile_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat, Tile_Ptr]>;
def Tile_Tensor : RankedTensorOf<[AnySignlessInteger, AnyFloat, Tile_Ptr]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_MemDesc : Type<CPred<"::llvm::isa<::kiln::tile::MemDescType>($_self)">,
                        "shared memory descriptor", "::kiln::tile::MemDescType">;

def Tile_TensorDesc : Type<CPred<"::llvm::isa<::kiln::tile::TensorDescType>($_self)">,
                           "tensor descriptor", "::kiln::tile::TensorDescType">;
def Tile_AsyncToken : Type<CPred<"::llvm::isa<::kiln::tile::AsyncTokenType>($_self)">,
                           "async token", "::kiln::tile::AsyncTokenType">,
                      BuildableType<"::kiln::tile::AsyncTokenType::get($_builder.getContext())">;

#endif
