//===- TileNVNamedBarrierOps.td - barriers of some of a CTA's threads -*- tablegen -*-===//
//
// Included by TileNVOps.td. Named barriers (bar.sync / bar.arrive with an id
// and a thread count), as CUTLASS's NamedBarrier: two warp groups take turns
// through them without shared memory.
//
//===----------------------------------------------------------------------===//

class TileNV_NamedBarrierOp<string mnemonic> : TileNV_Op<mnemonic, [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let arguments = (ins I32Attr:$id, I32Attr:$num_threads);
  let assemblyFormat = "$id `,` $num_threads attr-dict";
  let hasVerifier = 1;
}

def TileNV_NamedBarrierSyncOp : TileNV_NamedBarrierOp<"named_barrier_sync"> {
  let summary = "Arrive at a named barrier and wait for it (bar.sync id, n)";
  let description = [{
    The calling warps arrive at the CTA's barrier `id` and wait until
    `num_threads` threads (whole warps) have arrived there, by this op or
    by `tile_nv.named_barrier_arrive`. Ids 0 to 13 are the kernel's; the
    lowering maps id k onto the hardware's barrier 15 - k, above the ones
    Kiln itself uses (0 for the CTA, 1 and up for warp_specialize).

    ```mlir
    tile_nv.named_barrier_sync 0, 256
    ```
  }];
}

def TileNV_NamedBarrierArriveOp : TileNV_NamedBarrierOp<"named_barrier_arrive"> {
  let summary = "Arrive at a named barrier without waiting (bar.arrive id, n)";
  let description = [{
    The calling warps count towards the `num_threads` that complete the
    barrier `id`'s current phase and go on. Memory accesses before the
    arrival are visible to the threads that wait for that phase.

    ```mlir
    tile_nv.named_barrier_arrive 1, 256
    ```
  }];
}
