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

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
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

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Masked load from a tensor of global pointers";
  let description = [{
    Lanes whose `mask` is false do not access memory and yield `other`
    (undefined when `other` is absent). The lowering issues vector loads of
    up to 16 bytes where layout contiguity, pointer alignment and mask
    constancy allow.

    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>, #l>
    %w = tile.load %p : tensor<128x!tile.ptr<f32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other);
  let results = (outs Tile_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$mask, "::mlir::Value":$other)>
  ];
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Masked store to a tensor of global pointers";
  let description = [{
    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Tile_Tensor:$value,
                       Optional<Tile_BoolTensor>:$mask);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif
