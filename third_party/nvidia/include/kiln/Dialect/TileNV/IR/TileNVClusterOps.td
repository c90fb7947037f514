//===- TileNVClusterOps.td - barriers and fences across a cluster -*- tablegen -*-===//
//
// Included by TileNVOps.td. Gluon's hopper.cluster (after Triton 3.6) and
// mbarrier.fence_init_release_cluster.
//
//===----------------------------------------------------------------------===//

def TileNV_ClusterArriveOp : TileNV_Op<"cluster_arrive", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    DeclareOpInterfaceMethods<Tile_ClusterBarrierOpInterface>]> {
  let summary = "Arrive at the cluster barrier (barrier.cluster.arrive)";
  let description = [{
    Every thread of every CTA of the cluster arrives; a later
    `tile_nv.cluster_wait` returns once all have. The arrival releases the
    thread's earlier memory accesses to the cluster, unless `relaxed`.
    A kernel launched without clusters is a cluster of one CTA.

    ```mlir
    tile_nv.cluster_arrive {relaxed = false}
    ```
  }];
  let arguments = (ins DefaultValuedAttr<BoolAttr, "false">:$relaxed);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileNV_ClusterWaitOp : TileNV_Op<"cluster_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    DeclareOpInterfaceMethods<Tile_ClusterBarrierOpInterface>]> {
  let summary = "Wait for the cluster barrier (barrier.cluster.wait)";
  let description = [{
    Returns once every thread of the cluster has arrived (acquiring what
    their non-relaxed arrivals released).

    ```mlir
    tile_nv.cluster_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileNV_FenceMBarrierInitClusterOp : TileNV_Op<"fence_mbarrier_init_cluster", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>]> {
  let summary = "Make earlier mbarrier inits visible to the cluster (fence.mbarrier_init.release.cluster)";
  let description = [{
    Releases this thread's earlier `mbarrier_init`s to the cluster; paired
    with a relaxed cluster barrier before other CTAs use the barriers.

    ```mlir
    tile_nv.fence_mbarrier_init_cluster
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TileNV_ClusterGatherOp : TileNV_Op<"cluster_gather"> {
  let summary = "Read the cluster's CTAs' parts of a buffer at per-element indices (distributed shared memory)";
  let description = [{
    Gluon's `shared_memory_descriptor.gather` on a buffer split among the
    CTAs of a cluster: `result[I]` is the element `I with I[axis] replaced
    by indices[I]` of `src`'s part in the CTA of rank
    `(ranks[I] & ~keep) | (this CTA's rank & keep)`. `src` is this CTA's
    part (the others sit at the same place in theirs); `keep` holds the
    rank bits the buffer's split repeats, along which each CTA reads its
    own replica. The reads go through `mapa` and `ld.shared::cluster`: a
    cluster barrier must order the other CTAs' writes before them.
    `indices`, `ranks` and the result have one shape and layout.

    ```mlir
    %g = tile_nv.cluster_gather %buf[%idx] ranks(%ranks) {axis = 0 : i32, keep = 0 : i32}
        : !tile.memdesc<32xi32, #shared>, tensor<32xi32, #l>, tensor<32xi32, #l> -> tensor<32xi32, #l>
    ```
  }];
  let arguments = (ins Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>]>:$src,
                       Tile_IntTensor:$indices, Tile_IntTensor:$ranks, I32Attr:$axis,
                       I32Attr:$keep);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` `ranks` `(` $ranks `)` attr-dict `:` qualified(type($src)) `,`
    type($indices) `,` type($ranks) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileNV_ClusterScatterOp : TileNV_Op<"cluster_scatter"> {
  let summary = "Write into the cluster's CTAs' parts of a buffer at per-element indices (distributed shared memory)";
  let description = [{
    Gluon's `shared_memory_descriptor.scatter` on a buffer split among the
    CTAs of a cluster: `values[I]` goes to the element `I with I[axis]
    replaced by indices[I]` of `dst`'s part in the CTA of rank
    `(ranks[I] & ~keep) | (this CTA's rank & keep)` (as
    `tile_nv.cluster_gather` reads). The writes go through `mapa` and
    `st.shared::cluster`: a cluster barrier must order them before the
    other CTAs read. `values`, `indices` and `ranks` have one shape and
    layout.

    ```mlir
    tile_nv.cluster_scatter %v, %buf[%idx] ranks(%ranks) {axis = 0 : i32, keep = 0 : i32}
        : tensor<32xi32, #l>, !tile.memdesc<32xi32, #shared, mutable>, tensor<32xi32, #l>, tensor<32xi32, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$values,
                       Arg<Tile_MemDesc, "", [MemWrite<TileNV_SharedMemory>]>:$dst,
                       Tile_IntTensor:$indices, Tile_IntTensor:$ranks, I32Attr:$axis,
                       I32Attr:$keep);
  let assemblyFormat = [{
    $values `,` $dst `[` $indices `]` `ranks` `(` $ranks `)` attr-dict `:` type($values) `,`
    qualified(type($dst)) `,` type($indices) `,` type($ranks)
  }];
  let hasVerifier = 1;
}

def TileNV_ClusterLoadOp : TileNV_Op<"cluster_load"> {
  let summary = "Read the cluster's CTAs' parts of a buffer at per-element coordinates (distributed shared memory)";
  let description = [{
    A load from a buffer split among the CTAs of a cluster whose elements
    the result's layout spreads differently (or a view of it that crosses
    the split): `result[I]` is the element at coordinates
    `(coords[0][I], ..., coords[n-1][I])` of `src`'s part in the CTA of rank
    `(ranks[I] & ~keep) | (this CTA's rank & keep)`. `src` is this CTA's
    part (the others sit at the same place in theirs), with one coordinate
    tensor per dimension. The reads go through `mapa` and
    `ld.shared::cluster`: a cluster barrier must order the other CTAs'
    writes before them. The coordinates, `ranks` and the result have one
    shape and layout.

    ```mlir
    %v = tile_nv.cluster_load %buf[%r, %c] ranks(%ranks) {keep = 0 : i32}
        : !tile.memdesc<2x32xi32, #shared>, (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>),
          tensor<2x32xi32, #l> -> tensor<2x32xi32, #l>
    ```
  }];
  let arguments = (ins Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>]>:$src,
                       Variadic<Tile_IntTensor>:$coords, Tile_IntTensor:$ranks,
                       I32Attr:$keep);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $coords `]` `ranks` `(` $ranks `)` attr-dict `:` qualified(type($src)) `,`
    `(` type($coords) `)` `,` type($ranks) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileNV_ClusterStoreOp : TileNV_Op<"cluster_store"> {
  let summary = "Write into the cluster's CTAs' parts of a buffer at per-element coordinates (distributed shared memory)";
  let description = [{
    The store of `tile_nv.cluster_load`: `values[I]` goes to the element at
    coordinates `(coords[0][I], ..., coords[n-1][I])` of `dst`'s part in the
    CTA of rank `(ranks[I] & ~keep) | (this CTA's rank & keep)`, through
    `mapa` and `st.shared::cluster`. A cluster barrier must order the
    writes before the other CTAs read. Where several threads (or CTAs) hold
    one element, each writes the same value.

    ```mlir
    tile_nv.cluster_store %v, %buf[%r, %c] ranks(%ranks) {keep = 0 : i32}
        : tensor<2x32xi32, #l>, !tile.memdesc<2x32xi32, #shared, mutable>,
          (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>), tensor<2x32xi32, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$values,
                       Arg<Tile_MemDesc, "", [MemWrite<TileNV_SharedMemory>]>:$dst,
                       Variadic<Tile_IntTensor>:$coords, Tile_IntTensor:$ranks,
                       I32Attr:$keep);
  let assemblyFormat = [{
    $values `,` $dst `[` $coords `]` `ranks` `(` $ranks `)` attr-dict `:` type($values) `,`
    qualified(type($dst)) `,` `(` type($coords) `)` `,` type($ranks)
  }];
  let hasVerifier = 1;
}

def TileNV_ClusterAtomicRMWOp : TileNV_Op<"cluster_atomic_rmw",
    [NativeOpTrait<"TileAtomicResults">, AttrSizedOperandSegments]> {
  let summary = "Atomics on the cluster's CTAs' parts of a buffer at per-element coordinates (distributed shared memory)";
  let description = [{
    The atomic of `tile_nv.cluster_store`: `kind` (add, and, or, xor, max,
    min, umax, umin, xchg, fadd) of `values[I]` with the element at
    coordinates `(coords[0][I], ..., coords[n-1][I])` of `dst`'s part in the
    CTA of rank `(ranks[I] & ~keep) | (this CTA's rank & keep)`, relaxed at
    cluster scope (`atom` / `red` on `.shared::cluster`). Once per element,
    however many threads hold it; the result is each element's old value.

    ```mlir
    %old = tile_nv.cluster_atomic_rmw "add" %v, %buf[%r, %c] ranks(%ranks) {keep = 0 : i32}
        : tensor<2x32xi32, #l>, !tile.memdesc<2x32xi32, #shared, mutable>,
          (tensor<2x32xi32, #l>, tensor<2x32xi32, #l>), tensor<2x32xi32, #l> -> tensor<2x32xi32, #l>
    ```
  }];
  let arguments = (ins StrAttr:$kind, Tile_Tensor:$values,
                       Arg<Tile_MemDesc, "", [MemRead<TileNV_SharedMemory>,
                                              MemWrite<TileNV_SharedMemory>]>:$dst,
                       Variadic<Tile_IntTensor>:$coords, Tile_IntTensor:$ranks,
                       Optional<Tile_BoolTensor>:$mask, I32Attr:$keep);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $kind $values `,` $dst `[` $coords `]` `ranks` `(` $ranks `)` (`mask` `(` $mask^ `)`)?
    attr-dict `:` type($values) `,` qualified(type($dst)) `,` `(` type($coords) `)` `,`
    type($ranks) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}
