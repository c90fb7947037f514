#ifndef KILN_TILE_PASSES_TD
#define KILN_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileResolveLayoutsPass : Pass<"tile-resolve-layouts", "mlir::ModuleOp"> {
  let summary = "Choose the layouts the kernel left to the compiler (#tile.coalesced, #tile.auto)";
  let description = [{
    First every `tile.load`/`tile.store` whose pointers have
    `#tile.coalesced` gets a blocked layout from the axis analysis of those
    pointers (most contiguous dimension fastest, as many elements per thread
    as contiguity, alignment and the widest access allow, lanes and warps
    along that order). Then each `tile.set_auto_layout`, in program order,
    gives its layout to its `#tile.auto` source. Layouts propagate forward
    and backward through ops that keep one layout (elementwise ops, addptr,
    load, store, broadcast), expand_dims and reductions (slice <-> parent)
    and the values loops and ifs tie together, and set_auto_layout ops whose
    source agrees are removed. A set_auto_layout that disagrees with what
    earlier ones chose becomes a `tile.convert_layout`, with a remark; any
    other disagreement, and a tensor no layout reaches, is an error at its
    op. The pass is the first of `kiln-to-llvm`; modules without these
    placeholders are left untouched.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose widest access sizes coalesced layouts (default: tile.target)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileSplitClusterPass : Pass<"tile-split-cluster", "mlir::ModuleOp"> {
  let summary = "Make the program of one CTA of tensors split among a cluster (#tile.cga)";
  let description = [{
    Every tensor whose layout is `#tile.cga<{bases, layout}>` (also under
    `#tile.slice`) gets the shape of one CTA's part and the inner layout,
    and each split `tile.arange` adds where this CTA's part starts, from the
    CTA's rank in its cluster (`program_id 0` modulo the cluster's CTA count:
    the launch puts a cluster's CTAs next to each other along x). A
    reduction along a split dimension and a `tile.convert_layout` that
    changes the split would move data between CTAs: they are errors at the
    op. Runs after tile-resolve-layouts (automatic layouts may resolve to
    split ones); modules without `#tile.cga` are left untouched.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TilePipelineAssignStagesPass
    : Pass<"tile-pipeline-assign-stages", "mlir::ModuleOp"> {
  let summary = "Choose the loads of a num_stages loop to pipeline and give every op a stage";
  let description = [{
    First step of software pipelining, for every `scf.for` with
    `tile.num_stages` N >= 2. A `tile.load` of the loop body is pipelined
    when it can become an asynchronous copy into shared memory: the target
    has one, the copy into a ring slot is legal (AsyncCopy.h, with the
    widths the pointer analysis allows), its address and mask are computed
    by pure ops of the body (and the values they carry around the loop),
    and its result goes either only into `tile.local_alloc`s of the body
    (the ring takes their shared layout) or into registers (the ring gets
    an unswizzled layout and the value comes back by `tile.local_load`).
    Those loads and the ops computing their operands get `tile.stage` 0,
    every other op of the body `tile.stage` N-1; ops of stage 0 that later
    stages also use are cloned for them. `tile.cluster` orders the stages
    in the body: copies first (their wait then leaves N-1 groups in
    flight) unless a ring slot is read by an op other than
    `tile.local_load` (an asynchronous read such as wgmma may still be
    reading the slot the next copy fills: consumers first).

    A loop that cannot be pipelined keeps its body and gets a remark at
    the loop saying why: a step that is not a positive constant, a
    distance-2 recurrence, a yield of a value from outside the loop, no
    target async copy, a copy the target cannot issue (the rule it breaks),
    an address computed by an op with memory effects, or a ring that does
    not fit in shared memory (with the largest num_stages that fits).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TilePipelineLowerLoadsPass
    : Pass<"tile-pipeline-lower-loads", "mlir::ModuleOp"> {
  let summary = "Turn the loads of stage 0 into async copies into a num_stages-slot ring";
  let description = [{
    Second step. Every loop whose ops carry `tile.stage` is first
    normalized to run from 0 by 1 (the old induction variable is rebuilt
    in the body), so slot `j % N` is a ring index the barrier and safety
    passes follow. Each `tile.load` of stage 0 gets a ring
    (`tile.local_alloc` of N slots before the loop) and becomes a
    `tile.async_copy_global_to_local` into slot `j % N`; the copies of one
    iteration share one commit group. In stage N-1 a `tile.async_wait` on
    that group precedes the first read of a slot, and the load's users read
    slot `j % N` (the local_allocs it fed are replaced by the slot; a
    register user gets a `tile.local_load`). After the loop every copy is
    waited for and the rings are freed. Counts are left to
    tile-insert-wait-counts.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TilePipelineExpandPass : Pass<"tile-pipeline-expand", "mlir::ModuleOp"> {
  let summary = "Expand staged loops into prologue and kernel with upstream MLIR's pipeliner";
  let description = [{
    Last step: each loop whose ops carry `tile.stage` / `tile.cluster` is
    handed to `mlir::scf::pipelineForLoop` (dynamic trip counts, epilogue
    not peeled). Ops run in (cluster, body order); the N-1 prologue
    iterations and the kernel's early stages are predicated: an async copy
    by its mask (a predicated-off copy moves nothing and zero-fills),
    pure ops and commits run unpredicated. Async copies, commits and waits
    are tagged `tile.pipeline_part` ("prologue" or "kernel"); the stage
    attributes are removed and the index arithmetic the expansion created
    is folded. A loop the expander refuses is left as it was with a remark.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TileAllocateSharedMemoryPass : Pass<"tile-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "Place every shared-memory buffer by live range and check the total";
  let description = [{
    Explicit buffers (`tile.local_alloc`) and the scratch that ops staging
    data through shared memory need (layout conversions that cross threads,
    non-trivial reshapes, reductions across warps) each get a byte offset,
    `tile.scratch_offset`. An allocation is live from its `local_alloc` to
    its last use (through views), over whole loops that use it; scratch is
    live at its op only. Largest buffers go first, each at the lowest
    offset, aligned as its users need, that no buffer live at the same time
    holds, so scratch reuses dead buffers' bytes. The module gets
    `tile.shared` (bytes), and the pass fails when the total exceeds the
    target's per-CTA limit, naming the buffers live at the peak.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose shared-memory limit applies (default: tile.target)">,
  ];
}

def TileInsertWaitCountsPass : Pass<"tile-insert-wait-counts", "mlir::ModuleOp"> {
  let summary = "Give token waits the count of groups they may leave in flight";
  let description = [{
    A `tile.async_wait` that names tokens but no `num` gets, as `num`, the
    fewest commit groups closed after the tokens' groups over every path to
    the wait (through `scf.for` iter_args and results and `scf.if`
    results; a loop with an unknown trip count adds no groups, an `scf.if`
    the smaller branch). The count never overestimates; what the pass
    cannot follow gets 0 with a remark, and a copy not committed on every
    path to its wait is an error. Waits with a count keep it.

    On targets whose waits count instructions (the target table says so),
    every wait also gets `instructions`: the fewest copy instructions
    issued after the awaited group on any path (loops walked 0 to count+1
    times, both branches), with each copy's instructions from the layouts.
    The loops of such functions get `llvm.loop_annotation` (no unrolling),
    so an op's count holds per iteration.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose wait counting applies (default: tile.target)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def TileInsertBarriersPass : Pass<"tile-insert-barriers", "mlir::ModuleOp"> {
  let summary = "Insert the CTA barriers that order shared-memory accesses";
  let description = [{
    A forward dataflow over the kernel (through `scf.for`, `scf.while` and
    `scf.if`) that tracks, since the last barrier, which byte ranges of
    shared memory were read and written, and inserts `tile.barrier` before
    an access that one thread may make to bytes another thread wrote (RAW)
    or read or wrote (WAR, WAW). Asynchronous copies write when the wait
    that covers their commit group returns (a wait orders only the issuing
    thread; other threads need a barrier after it), and a copy that
    overwrites bytes read or written since the last barrier needs one before
    it, even when the same thread made those accesses (an async copy is not
    ordered after the issuing thread's earlier accesses).

    No barrier separates two accesses in which every thread touches only
    bytes no other thread touches: the same view shape, element type and
    register layout without broadcast, on slots of the same allocation, so a
    thread reading back what it wrote (or copied and waited for) itself
    needs none. On targets whose waits order the whole warp (the
    wait counter belongs to the warp, whose lanes run in lockstep), a read after a wait needs no
    barrier either when each warp reads only bytes its own copies wrote;
    the write-after-read barrier before a refill is never dropped. Runs
    after `tile-allocate-shared-memory`, whose offsets say which buffers
    overlap; ops that stage data through scratch memory bring their own
    barriers and then read their scratch.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose wait semantics apply (default: tile.target)">,
  ];
}

def TileCheckAsyncSafetyPass : Pass<"tile-check-async-safety", "mlir::ModuleOp"> {
  let summary = "Report async copies, reads and barriers that hang or race, where certain";
  let description = [{
    Errors, on the kernel as written, for the mistakes that hang or race
    kernels built from async copies, barrier-completed copies (TMA) and
    asynchronous reads of shared memory (ops implementing the copy, barrier,
    async-read and fence interfaces):
    - a barrier wait with no arrival on that barrier anywhere in the
      function; an arrival announcing N transaction bytes while the writes
      completing on its barrier before the next wait on it deliver another
      number;
    - a barrier waited or arrived on but never initialized, first waited on
      at parity 1 right after its init (that returns at once), initialized
      for more arrivals than reach a phase, or used after its invalidate;
    - a write to a shared buffer that an asynchronous read (wgmma, TMA
      store) may still be reading because no wait on the read's counter
      leaves few enough groups in flight in between; a kernel that can end
      with such a read in flight;
    - a read or write of a buffer an async copy may still be writing: no
      wait covering its commit group on some path (uncommitted, no wait, a
      count leaving it in flight, a wait on one branch, a wait in another
      warp_specialize partition), or no wait on the barrier a TMA copy
      completes on;
    - an asynchronous read of bytes the CTA's threads wrote (stores, landed
      cp.async copies) with no async-proxy fence between;
    and a warning for a wait on more commit groups than can be in flight.
    Control flow is followed through `scf.for` iterations (ring indices
    `(iv + c) % S` of the induction variable across iterations), `scf.if`
    branches and warp_specialize partitions. Buffers are compared by
    allocation and index chain; what is not certain is not reported. Runs
    after tile-insert-wait-counts (waits on tokens need their counts).
  }];
}

def TileAnnotateLocalLoadAliasPass
    : Pass<"tile-annotate-local-load-alias", "mlir::ModuleOp"> {
  let summary = "Mark shared-memory loads that no in-flight async copy can write";
  let description = [{
    The barrier pass's dataflow (byte ranges per ring slot, async copies in
    flight until the wait that covers their group), run to mark every
    `tile.local_load` whose bytes no copy still in flight can write with
    `tile.synced_via_wait`. On targets whose hardware waits count every
    vector-memory instruction, the lowering puts marked loads in an
    alias scope declared not to alias direct-to-LDS copies, so LLVM keeps
    the computed `vmcnt(N)` instead of adding `vmcnt(0)` before the read.
    A load the user marked (`load_shared_relaxed`) keeps its mark; if a copy
    into its bytes may still be in flight, a warning names the copy.
  }];
}

#endif
