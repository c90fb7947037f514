//===- TileNVOrderedOps.td - ordered global loads and stores -*- tablegen -*-===//
//
// Included by TileNVOps.td. Gluon's atomic_load / atomic_store (after
// Triton 3.8): loads and stores of global memory that are atomic per
// element and carry a memory order, issued as vectors where the plain
// ones would be.
//
//===----------------------------------------------------------------------===//

def TileNV_AtomicLoadOp : TileNV_Op<"atomic_load", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Ordered load of global memory (ld.relaxed, with a fence for acquire)";
  let description = [{
    Reads `*ptr` for each element whose `mask` is true (0 elsewhere), each
    read atomic at `scope` (cta, gpu or sys). The reads are `ld.relaxed`,
    vectors of up to 16 bytes where the layout, the pointers' contiguity
    and alignment and the mask's constancy allow (as `tile.load`); with
    `sem = "acquire"` a `fence.acq_rel` at `scope` follows them, which
    makes the reads acquire. Its effects include a write so that nothing
    moves it or merges it with another load.

    ```mlir
    %v = tile_nv.atomic_load %p, %m {sem = "acquire", scope = "gpu"}
        : (tensor<128x!tile.ptr<i32>, #l>, tensor<128xi1, #l>) -> tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Optional<Tile_BoolTensor>:$mask,
                       StrAttr:$sem, StrAttr:$scope);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TileNV_AtomicStoreOp : TileNV_Op<"atomic_store", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Ordered store to global memory (st.relaxed, after a fence for release)";
  let description = [{
    Writes `value` to `*ptr` for each element whose `mask` is true, once
    per element (by the thread that owns it, as `tile.store`), each write
    atomic at `scope`. The writes are `st.relaxed` vectors of up to 16
    bytes; with `sem = "release"` a `fence.acq_rel` at `scope` precedes
    them, which makes them release.

    ```mlir
    tile_nv.atomic_store %p, %v {sem = "release", scope = "gpu"}
        : (tensor<128x!tile.ptr<i32>, #l>, tensor<128xi32, #l>) -> ()
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptr, Tile_Tensor:$value,
                       Optional<Tile_BoolTensor>:$mask, StrAttr:$sem,
                       StrAttr:$scope);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}
