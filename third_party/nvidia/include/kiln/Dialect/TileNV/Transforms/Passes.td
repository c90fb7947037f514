//===- Passes.td - NVIDIA's tile-level passes --------------*- tablegen -*-===//
//
// Passes of the NVIDIA backend. NVIDIABackend::addPasses puts each in its
// stage of kiln-to-llvm (kiln/Pipelines/Pipelines.h); each leaves modules of
// other vendors' targets alone.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILENV_TRANSFORMS_PASSES
#define KILN_DIALECT_TILENV_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileNVAddGlobalScratchPass : Pass<"tile-nv-add-global-scratch", "mlir::ModuleOp"> {
  let summary = "Give device-side TMA descriptors their global scratch";
  let description = [{
    A `tile_nv.make_tensor_descriptor` writes its 128-byte tensor map to
    global memory. Each kernel that makes descriptors gets a last, hidden
    `!tile.ptr<i8>` argument, the base of a scratch buffer the launcher
    allocates (`tile.global_scratch` bytes per CTA, on the module), and each
    descriptor its slot in it (`tile_nv.scratch_offset`). Descriptors made
    outside a kernel, inside `tile.warp_specialize`, or on a chip without
    TMA are errors at the op, as is anything
    `checkMakeTensorDescriptor` refuses. Stage: pre-lowering.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
}

def TileNVPipelineTMAPass : Pass<"tile-nv-pipeline-tma", "mlir::ModuleOp"> {
  let summary = "TMA rings for num_stages loops written with one buffer and one mbarrier";
  let description = [{
    Stage: schedule, after core's pipelining passes (which leave loops with
    barrier-completed copies to the backend). A `tile.num_stages` loop
    whose body arms one mbarrier (`tile_nv.mbarrier_expect`), issues TMA
    copies into whole buffers allocated before the loop, waits on that
    barrier, and reads the buffers after the wait becomes an N-slot ring:
    N slots per buffer and N barriers (the init and invalidates repeated
    per slot); the expect and copies (and the pure ops computing their
    coordinates) go to stage 0 at slot j % N, the wait -- at parity
    (j / N) & 1 -- and the reads to stage N-1. The loop is then normalized
    and expanded by core's pipelining utilities (Pipelining.h), so copies
    and waits carry `tile.pipeline_part` and the async-safety check treats
    the ring as compiler-made. Any other loop with TMA copies keeps its
    body and gets a remark saying why.

    When more than one warpgroup reads the ring and every read is done when
    its op returns (local loads, synchronous wgmma; not a loop whose wgmma
    tile-nv-pipeline-wgmma keeps in flight), each slot also gets an "empty"
    barrier initialized for one arrival per warp: every warp arrives on
    slot j % N's after its reads (`mbarrier_arrive {per_warp}`), and the
    refill of the slot waits on it at parity ((j / N) & 1) ^ 1 (marked
    `tile.unpredicated`: past the loop's end it still returns; the
    prologue's waits, which return at once, are dropped). The refill then
    needs no CTA barrier, so the warpgroups need not meet every iteration.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "kiln::tile_nv::TileNVDialect"];
}

def TileNVInsertProxyFencesPass
    : Pass<"tile-nv-insert-proxy-fences", "mlir::ModuleOp"> {
  let summary = "Async-proxy fences before asynchronous reads of generically written shared memory";
  let description = [{
    Stage: schedule, after core's pipelining passes. Before each
    asynchronous shared-memory read (wgmma, TMA store) of a buffer that a
    generic write (`tile.local_store`, `tile.local_alloc` with a source,
    `tile.async_copy_global_to_local`) may have touched since the last
    async-proxy fence, a `tile_nv.fence_async_shared`, as Triton inserts
    them for Gluon kernels. Walking back through the read's block, a fence
    ends the search; a write to one of the read's allocations (also inside
    a nested op), or the block's start when the function writes that
    allocation anywhere, needs one. The barrier tile-insert-barriers adds
    before the read comes after the fence.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "kiln::tile_nv::TileNVDialect"];
}

def TileNVPipelineWGMMAPass
    : Pass<"tile-nv-pipeline-wgmma", "mlir::ModuleOp"> {
  let summary = "Keep one wgmma in flight in the loops the pipeliner expanded";
  let description = [{
    Stage: schedule, after core's pipelining passes. In a loop the
    pipeliner expanded (ops tagged `tile.pipeline_part = "kernel"`), the one
    synchronous `tile_nv.warpgroup_dot` whose accumulator is a loop-carried
    value it alone reads and whose result only goes back around the loop
    becomes `isAsync`, followed by `tile_nv.warpgroup_dot_wait` with
    `pendings = 1`; the loop's result goes through a wait with
    `pendings = 0`. Loops with other wgmma waits, several wgmmas or wgmmas
    in nested regions are left as they are.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "kiln::tile_nv::TileNVDialect"];
}

def TileNVCheckWGMMAOrderPass
    : Pass<"tile-nv-check-wgmma-order", "mlir::ModuleOp"> {
  let summary = "Warn where ptxas cannot follow the order of wgmmas around a loop";
  let description = [{
    Stage: async checks; changes nothing. A `tile_nv.warpgroup_dot_wait`
    with `pendings = N > 0` in a loop body that retires the result of an
    asynchronous `tile_nv.warpgroup_dot` of the previous iteration (the
    body's argument, yielded by that wgmma) while at least N wgmmas issued
    since in the same body stay in flight, and whose result an op other
    than a wgmma (as its accumulator), a wait or the yield then reads, gets
    a warning at the wait, with notes at the carried wgmma, the one in
    flight and the read: ptxas tells the retired wgmmas from the ones in
    flight by the order it sees them issued, does not follow that order
    around a loop, and serializes every wgmma of the kernel (remark C7514,
    which names only the function). The same wgmmas issued in one
    iteration keep their overlap. scf.for bodies and scf.while bodies.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
}

def TileNVPerWarpArrivalsPass
    : Pass<"tile-nv-per-warp-arrivals", "mlir::ModuleOp"> {
  let summary = "Barriers whose arrivals are whole partitions' count warps instead";
  let description = [{
    Stage: async checks, after tile-check-async-safety (whose messages
    speak of the counts the kernel wrote). A plain `tile_nv.mbarrier_arrive`
    is one thread's arrival for its whole partition, which needs a CTA
    barrier before it (tile-insert-barriers) so that every thread's shared
    memory accesses are complete. For each barrier allocation whose uses
    (through views) are only inits, waits, invalidates and such arrivals
    (predicated or not, local or to a cluster's CTAs; not a leader's), the
    counts are scaled: with
    `scale` the least common multiple over the arrivals of W / gcd(W, count)
    (W: the arrival's partition's warps), each init expects count * scale,
    and each arrival of W > 1 warps becomes `{per_warp}` with count
    count * scale / W (one-warp partitions arrive count * scale from one
    thread). Every warp arrives for its own threads, the phases complete as
    before, and no CTA barrier goes in front of the arrivals. Barriers
    that TMA or async copies complete, that expect bytes, or that flow
    through control flow are left alone, as are all barriers of a module
    where inline assembly computes a scalar in each thread.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
}

def TileNVNVVMToPTXPass : Pass<"tile-nv-nvvm-to-ptx", "mlir::ModuleOp"> {
  let summary = "NVVM ops without an LLVM intrinsic become inline PTX";
  let description = [{
    After the lowering (the lowering stage of kiln-to-llvm): the NVVM ops
    the conversion and warp specialization emit that have no LLVM intrinsic
    (mbarrier init with a predicate, arrive.expect_tx, try_wait.parity,
    wgmma and friends) become `llvm.inline_asm` with their PTX, one visit
    per op and nothing else rewritten (no folding, no dead-code removal).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif
