//===- TileNVClusterOps.td - barriers and fences across a cluster -*- tablegen -*-===//
//
// Included by TileNVOps.td. Gluon's hopper.cluster (after Triton 3.6) and
// mbarrier.fence_init_release_cluster.
//
//===----------------------------------------------------------------------===//

def TileNV_ClusterArriveOp : TileNV_Op<"cluster_arrive", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
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
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
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
