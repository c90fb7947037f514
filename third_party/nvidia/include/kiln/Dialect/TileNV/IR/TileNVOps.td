//===- TileNVOps.td - mbarriers; includes TMA and wgmma ops -*- tablegen -*-===//
#ifndef KILN_DIALECT_TILENV_IR_TILENVOPS_TD
#define KILN_DIALECT_TILENV_IR_TILENVOPS_TD

include "kiln/Dialect/TileNV/IR/TileNVDialect.td"
include "kiln/Dialect/TileNV/IR/TileNVAttrs.td"
include "kiln/Dialect/Tile/IR/TileTypes.td"
include "kiln/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TileNV_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileNV_Dialect, mnemonic, !listconcat(traits, [Tile_InFunction])>;

// Initializing or invalidating an mbarrier writes its shared-memory word as
// any store does (tile-insert-barriers orders it with a CTA barrier on both
// sides). Arrivals and waits are atomic operations on that word, which the
// hardware orders among themselves: they touch a resource of their own.
def TileNV_SharedMemory : Resource<"::kiln::tile::SharedMemoryResource">;
def TileNV_MBarrierState : Resource<"::kiln::tile_nv::MBarrierResource">;

def TileNV_MBarrierInitOp : TileNV_Op<"mbarrier_init", [
    DeclareOpInterfaceMethods<Tile_BarrierInitOpInterface>]> {
  let summary = "Initialize an mbarrier with its expected arrival count";
  let description = [{
    One thread initializes the 64-bit mbarrier in `barrier` (a one-element
    i64 buffer) for `count` arrivals per phase; its phase starts at 0.
    Other threads may use it after a barrier, which tile-insert-barriers
    places.

    ```mlir
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins Arg<Tile_MemDesc, "", [MemWrite<TileNV_SharedMemory>]>:$barrier,
                       I32Attr:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileNV_MBarrierInvalidateOp : TileNV_Op<"mbarrier_invalidate", [
    DeclareOpInterfaceMethods<Tile_BarrierInvalidateOpInterface>]> {
  let summary = "Invalidate an mbarrier so its memory may be reused";
  let description = [{
    One thread invalidates the mbarrier; its word may then be reused as
    ordinary shared memory.

    ```mlir
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins Arg<Tile_MemDesc, "", [MemWrite<TileNV_SharedMemory>]>:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileNV_MBarrierExpectOp : TileNV_Op<"mbarrier_expect", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierArriveOpInterface,
                              ["getArrivalCTABits", "arrivesFromLeaderOnly"]>,
    DeclareOpInterfaceMethods<Tile_PredicatedOpInterface>]> {
  let summary = "Arrive on an mbarrier expecting a number of transaction bytes";
  let description = [{
    One thread (of those with `pred`, when given) arrives on the mbarrier
    and adds `bytes` to the transaction bytes its current phase waits for
    (`mbarrier.arrive.expect_tx`): the phase completes when all arrivals
    are in and the asynchronous copies signalling it (TMA, bulk copies)
    have delivered that many bytes. A run-time count (`bytes %n`, an i32)
    replaces the attribute, which is then 0. Needs sm_90.

    With a non-zero `cta_mask` (bit i: bit i of a CTA's rank in its
    cluster), the CTA of its set whose rank has those bits clear arrives,
    for the whole set, on the barrier at the same place in every CTA whose
    rank differs from its own only in those bits (its own included): one
    arrival and `bytes` on each, the others arrive nowhere. Gluon's
    `expect(..., from_cta=f)` is `cta_mask = ~f & (num_ctas - 1)`: the
    expect of a multicast copy that one CTA issues for all of them.

    ```mlir
    tile_nv.mbarrier_expect %bar, 16384, %p : !tile.memdesc<1xi64, #s, mutable>
    tile_nv.mbarrier_expect %bar, 0 bytes %n {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$barrier, I32Attr:$bytes,
                       Optional<I32>:$dynamic_bytes, Optional<I1>:$pred,
                       DefaultValuedAttr<I32Attr, "0">:$cta_mask);
  let assemblyFormat = [{
    $barrier `,` $bytes (`bytes` $dynamic_bytes^)? (`,` $pred^)? attr-dict `:`
    qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def TileNV_MBarrierArriveOp : TileNV_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierArriveOpInterface,
                              ["arrivesPerWarp", "getArrivalCTABits",
                               "arrivesFromLeaderOnly"]>]> {
  let summary = "Arrive on an mbarrier";
  let description = [{
    One thread (of those with `pred`, when given) arrives `count` times on
    the mbarrier, with release semantics: what the CTA's threads did to
    shared memory before their arrivals is visible to threads whose wait
    on that phase returns. Gluon's `mbarrier.arrive(bar, count=n)`: a
    barrier initialized for one arrival is completed by one such op.

    With a non-zero `cta_mask` (sm_90; bit i: bit i of a CTA's rank in its
    cluster), the arrivals go instead to the barrier at the same place in
    each CTA of the cluster whose rank differs from this CTA's only in
    those bits (this CTA's own included), each with a local arrival's
    release semantics: the consumers of a slot that another CTA's
    multicast copy refills tell that CTA's producer.

    With `from_leader` as well, only the set's leader -- the CTA whose rank
    has the mask's bits clear -- arrives, `count` times on the barrier of
    each CTA of the set, and the others arrive nowhere: each barrier's
    phase counts `count` arrivals from the set, not one set from each CTA.
    Gluon's `arrive(bar, from_cta=f)` is `cta_mask = ~f & (num_ctas - 1)`
    with `from_leader`.

    With `per_warp`, every warp arrives `count` times instead, each for its
    own threads (they synchronize as a warp, then one lane arrives): a
    barrier initialized for `count` times the warps that run the op
    completes when all have arrived, and each warp's shared-memory
    accesses before its arrival are ordered before what a wait on that
    phase returns to, with no CTA barrier first. The warps need not arrive
    together, so warpgroups that release a ring slot this way keep running
    apart (tile-nv-pipeline-tma's "empty" barriers, and
    tile-nv-per-warp-arrivals' rewrite of Gluon's arrivals). With `pred`
    (the same in all threads, as every scalar) every warp skips or every
    warp arrives; with `cta_mask` every warp arrives on each barrier of the
    set. Not with `from_leader`.

    ```mlir
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #s, mutable>
    tile_nv.mbarrier_arrive %bar, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #s, mutable>
    tile_nv.mbarrier_arrive %bar, 1 {cta_mask = 3 : i32, from_leader} : !tile.memdesc<1xi64, #s, mutable>
    tile_nv.mbarrier_arrive %bar, 1 {per_warp} : !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$barrier, I32Attr:$count, Optional<I1>:$pred,
                       DefaultValuedAttr<I32Attr, "0">:$cta_mask, UnitAttr:$per_warp,
                       UnitAttr:$from_leader);
  let assemblyFormat = "$barrier `,` $count (`,` $pred^)? attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileNV_MBarrierWaitOp : TileNV_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_BarrierWaitOpInterface,
                              ["getWaitPredicate", "waitsInElectedWarpOnly"]>]> {
  let summary = "Wait until the mbarrier's phase of a given parity completes";
  let description = [{
    Every thread (with `pred`, when given) spins on
    `mbarrier.try_wait.parity` (sm_90 on; `mbarrier.test_wait.parity` on
    sm_80) until the phase whose parity is `phase`
    (0 or 1, the low bit is used) has completed, with acquire semantics.
    On a fresh barrier (phase 0 in progress) a wait for parity 1 returns at
    once: the "previous phase" is complete.

    With `elected_warp`, only the first warp (of the partition) waits: the
    warp whose elected thread issues TMA copies and one-thread barrier ops.
    The others go on at once; what the wait orders, it orders for that
    thread's copies only (tile-nv-pipeline-tma's refills).

    ```mlir
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #s, mutable>, i32
    tile_nv.mbarrier_wait %bar, %phase {elected_warp} : !tile.memdesc<1xi64, #s, mutable>, i32
    ```
  }];
  let arguments = (ins Tile_MemDesc:$barrier, I32:$phase, Optional<I1>:$pred,
                       UnitAttr:$elected_warp);
  let assemblyFormat = "$barrier `,` $phase (`,` $pred^)? attr-dict `:` qualified(type($barrier)) `,` type($phase)";
  let hasVerifier = 1;
}

def TileNV_AsyncCopyMBarrierArriveOp : TileNV_Op<"async_copy_mbarrier_arrive", [
    MemoryEffects<[MemRead<TileNV_MBarrierState>, MemWrite<TileNV_MBarrierState>]>,
    DeclareOpInterfaceMethods<Tile_AsyncCopyArriveOpInterface,
                              ["getCopiesArrivalCount"]>]> {
  let summary = "Make an mbarrier track this thread's earlier cp.async copies";
  let description = [{
    Every thread (`cp.async.mbarrier.arrive`): the mbarrier's current phase
    also waits for the cp.async copies the thread issued before, whatever
    their commit groups; a wait on the phase sees them landed (Gluon's
    `async_copy.mbarrier_arrive`). With `increment` (the default) the
    arrival the copies trigger is added to the phase's pending count first,
    so it does not count toward `init`'s; without, it does (`.noinc`).

    ```mlir
    tile_nv.async_copy_mbarrier_arrive %bar {increment = true} : !tile.memdesc<1xi64, #s, mutable>
    ```
  }];
  let arguments = (ins Tile_MemDesc:$barrier, DefaultValuedAttr<BoolAttr, "true">:$increment);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

include "kiln/Dialect/TileNV/IR/TileNVCopyOps.td"
include "kiln/Dialect/TileNV/IR/TileNVDotOps.td"
include "kiln/Dialect/TileNV/IR/TileNVClusterOps.td"
include "kiln/Dialect/TileNV/IR/TileNVNamedBarrierOps.td"
include "kiln/Dialect/TileNV/IR/TileNVOrderedOps.td"

#endif
