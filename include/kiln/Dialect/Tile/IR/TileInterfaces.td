#ifndef KILN_TILE_INTERFACES_TD
#define KILN_TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

// What the target-neutral passes (allocation, barriers, wait counts, the
// oracle) need to know of an asynchronous global -> shared copy, whichever
// dialect defines it: tile.async_copy_global_to_local, and vendor copies such
// as tile_amd.buffer_load_to_local.
def Tile_AsyncCopyOpInterface : OpInterface<"AsyncCopyOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let description = [{
    An asynchronous copy from global memory into a shared buffer. Each
    thread copies the elements a tensor of pointers of `getPointerType()`
    would address into the same elements of `getDst()`; the copy is in
    flight until a `tile.async_wait` covers its commit group. Its result is
    the copy's async token.
  }];
  let methods = [
    InterfaceMethod<"The shared buffer (a !tile.memdesc value) written.",
      "::mlir::Value", "getDst", (ins)>,
    InterfaceMethod<[{The addresses read, as the type of a tensor of global
      pointers (shape, pointee type, register layout).}],
      "::mlir::RankedTensorType", "getPointerType", (ins)>,
    InterfaceMethod<"The mask (i1 tensor), or null.",
      "::mlir::Value", "getMask", (ins)>,
    InterfaceMethod<"The copy's async token.",
      "::mlir::Value", "getToken", (ins)>,
    InterfaceMethod<[{The value masked lanes get (a tensor shaped like the
      pointers), or null for zeros.}],
      "::mlir::Value", "getOther", (ins)>,
    InterfaceMethod<[{Whether a thread issues the copy instruction even where
      its mask is false (the lane pointed out of range, so the hardware
      writes zeros), rather than branching around it. Only such a copy
      counts as issued by every wave when masked.}],
      "bool", "masksByAddress", (ins), "", [{ return !$_op.getMask(); }]>,
  ];
}

// Ops whose lowering pins how many vector-memory instructions each thread
// issues at least, so that wait counts on targets whose counter also sees
// ordinary loads and stores may count them (never more than are issued).
def Tile_CountedMemoryOpInterface : OpInterface<"CountedMemoryOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let description = [{
    A global load or store whose lowering issues at least
    `getMinIssuedInstructions()` vector-memory instructions per thread, on
    every path, whatever its mask: tile-insert-wait-counts counts them
    between a copy and its wait on targets whose wait counts instructions.
  }];
  let methods = [
    InterfaceMethod<[{The fewest memory instructions one thread issues, as
      long as LLVM cannot merge them with another op's (see
      getCountedPointers).}],
      "unsigned", "getMinIssuedInstructions", (ins)>,
    InterfaceMethod<[{The pointers it accesses through: a tensor of
      pointers, or a scalar base. LLVM merges the instructions of two ops of
      the same kind only when it proves their addresses adjacent, which needs
      a common base; tile-insert-wait-counts traces this value to a kernel
      argument to tell ops that cannot merge apart.}],
      "::mlir::Value", "getCountedPointers", (ins)>,
    InterfaceMethod<"The tensor of the data it moves.",
      "::mlir::RankedTensorType", "getCountedType", (ins)>,
    InterfaceMethod<[{Each element's address as a tensor the axis analysis
      reads: pointers, or element offsets from the scalar base. Registers
      whose addresses may coincide (constancy) may be deleted as dead by LLVM
      except the last, so they count at most once.}],
      "::mlir::Value", "getCountedAddresses", (ins)>,
    InterfaceMethod<[{The mask the lowering's vector width depends on (null:
      unmasked, or not a store tile-insert-wait-counts may count exactly).}],
      "::mlir::Value", "getCountedMask", (ins), [{}], [{ return {}; }]>,
  ];
}

// A shared-memory write that the hardware performs asynchronously and that
// completes on a barrier in shared memory (a vendor's bulk tensor copies
// completing on a barrier word): tile-insert-barriers orders it with earlier accesses and
// takes it as landed, for every thread, where a wait on that barrier
// returns.
def Tile_BarrierCompletedWriteOpInterface
    : OpInterface<"BarrierCompletedWriteOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The shared buffer (a !tile.memdesc value) written.",
      "::mlir::Value", "getDst", (ins)>,
    InterfaceMethod<"The barrier (a !tile.memdesc value) the write completes on.",
      "::mlir::Value", "getCompletionBarrier", (ins)>,
    InterfaceMethod<[{Bytes the write counts against the barrier's phase (what
      an arrival expecting transaction bytes must announce).}],
      "int64_t", "getCompletedBytes", (ins)>,
    InterfaceMethod<"The i1 predicate guarding the write, or null (always).",
      "::mlir::Value", "getCompletionPredicate", (ins)>,
    InterfaceMethod<[{Whether one elected thread of the partition's first warp
      issues it (the thread that makes the one-thread barrier ops), rather
      than every thread its own part.}],
      "bool", "issuedByElectedThread", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{The CTAs of the cluster the write lands in (an i32, bit
      k: the CTA of rank k), each at the buffer's offset and counting its
      bytes on its barrier at the barrier's offset; every CTA of the set runs
      the op and the one of lowest rank issues it. Null: the executing CTA
      only.}],
      "::mlir::Value", "getLandingCTAs", (ins), [{}], [{ return {}; }]>,
  ];
}

// An arrival on a barrier in shared memory, possibly announcing transaction
// bytes that barrier-completed writes will deliver to the same phase.
def Tile_BarrierArriveOpInterface : OpInterface<"BarrierArriveOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The barrier (a !tile.memdesc value) arrived on.",
      "::mlir::Value", "getArrivedBarrier", (ins)>,
    InterfaceMethod<[{Transaction bytes the arrival announces (0 for a plain
      arrival).}], "int64_t", "getExpectedBytes", (ins)>,
    InterfaceMethod<"The i1 predicate guarding the arrival, or null (always).",
      "::mlir::Value", "getArrivePredicate", (ins)>,
    InterfaceMethod<[{Arrivals the op counts against the phase (of the
      barrier in each CTA it reaches, when every CTA of a set arrives on the
      same barrier of each: a cluster mask's; when only the set's leader
      arrives, `arrivesFromLeaderOnly`, its arrivals on each).}],
      "int64_t", "getArrivalCount", (ins)>,
    InterfaceMethod<[{Whether every warp that runs the op arrives (each for
      its own threads, unpredicated) rather than one thread for them all: what
      a warp accessed before its arrival is ordered before whatever a wait on
      the completed phase returns to, with no CTA barrier.}],
      "bool", "arrivesPerWarp", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{The bits of a CTA's rank in its cluster in which the
      CTAs whose barrier (at this one's offset) the arrivals reach differ
      from the executing CTA (its own included); 0: its own barrier only.}],
      "unsigned", "getArrivalCTABits", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{With CTA bits: whether only the set's leader (the CTA
      whose rank has those bits clear) arrives, for the whole set, on the
      barrier of each CTA of the set; the others run the op and arrive
      nowhere. False: every CTA of the set arrives on each barrier.}],
      "bool", "arrivesFromLeaderOnly", (ins), [{}], [{ return false; }]>,
  ];
}

// A barrier across the CTAs of a cluster: every thread of every CTA of the
// cluster arrives; a wait returns once all have arrived since the
// waiter's previous wait.
def Tile_ClusterBarrierOpInterface : OpInterface<"ClusterBarrierOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"Whether the op arrives (else it waits).",
      "bool", "isClusterArrival", (ins)>,
  ];
}

// Sets up a barrier in shared memory for a number of arrivals per phase;
// its first phase (parity 0) starts.
def Tile_BarrierInitOpInterface : OpInterface<"BarrierInitOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The barrier (a !tile.memdesc value) initialized.",
      "::mlir::Value", "getInitializedBarrier", (ins)>,
    InterfaceMethod<"Arrivals that complete a phase.",
      "int64_t", "getExpectedArrivals", (ins)>,
  ];
}

// Ends a barrier's life: its word is ordinary shared memory again.
def Tile_BarrierInvalidateOpInterface
    : OpInterface<"BarrierInvalidateOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The barrier (a !tile.memdesc value) invalidated.",
      "::mlir::Value", "getInvalidatedBarrier", (ins)>,
  ];
}

// Makes the async copies (AsyncCopyOpInterface) the executing thread issued
// before it complete on a barrier: a wait on the barrier's phase sees them
// landed, whatever their commit groups.
def Tile_AsyncCopyArriveOpInterface : OpInterface<"AsyncCopyArriveOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The barrier (a !tile.memdesc value) the copies complete on.",
      "::mlir::Value", "getCopiesBarrier", (ins)>,
    InterfaceMethod<[{Arrivals the op counts against the barrier's phase: 0
      where each thread's arrival is added to the phase's pending count first
      (it only delays the phase until the copies land), else one per thread
      that runs it (an arrival without increment).}],
      "int64_t", "getCopiesArrivalCount", (ins), [{}], [{ return 0; }]>,
  ];
}

// Makes the calling thread's earlier ordinary (generic-proxy) writes to
// shared memory visible to later asynchronous reads of it (TMA stores,
// wgmma operands).
def Tile_AsyncProxyFenceOpInterface : OpInterface<"AsyncProxyFenceOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"Whether the fence reaches the cluster's shared memory.",
      "bool", "fencesCluster", (ins)>,
  ];
}

// An op that starts reading shared memory asynchronously: the read stays in
// flight, as one group of an in-order counter, until a wait on that counter
// leaves fewer groups pending (tile-check-async-safety finds writes to the
// buffers before that).
def Tile_AsyncReadOpInterface : OpInterface<"AsyncReadOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The shared buffers (!tile.memdesc values) read.",
      "::llvm::SmallVector<::mlir::Value>", "getAsyncReadBuffers", (ins)>,
    InterfaceMethod<"The counter whose groups track the read (a name).",
      "::llvm::StringRef", "getAsyncReadCounter", (ins)>,
    InterfaceMethod<[{Whether the read is still in flight when the op returns
      (false: the op waits for it itself).}], "bool", "isAsyncReadInFlight", (ins)>,
    InterfaceMethod<[{How many consecutive threads issue the read together
      (0: the CTA's; a warpgroup's 128 for a wgmma; 1 where one elected
      thread issues it, as a TMA store). A wait retires only the reads its
      own group issued: where the CTA has more threads, another group's may
      still be in flight until every thread has passed a CTA barrier after
      its wait.}],
      "unsigned", "getAsyncReadGroupThreads", (ins), [{}],
      [{ return 0; }]>,
  ];
}

// A wait until at most `getMaxPendingGroups()` groups of a counter are in
// flight (the oldest retire first).
def Tile_AsyncReadWaitOpInterface : OpInterface<"AsyncReadWaitOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The counter waited on (a name).",
      "::llvm::StringRef", "getAsyncReadCounter", (ins)>,
    InterfaceMethod<"The most groups left in flight.",
      "unsigned", "getMaxPendingGroups", (ins)>,
  ];
}

// Every thread waits on a barrier in shared memory until its phase
// completes: the writes that complete on it are visible afterwards.
// An op a thread performs only where its optional i1 predicate holds: the
// pipeliner predicates such vendor ops in the iterations past the end.
def Tile_PredicatedOpInterface : OpInterface<"PredicatedOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The predicate (an i1 value), or null: always.",
      "::mlir::Value", "getPredicate", (ins)>,
    InterfaceMethod<"Replaces the predicate (an i1 value).",
      "void", "setPredicate", (ins "::mlir::Value":$pred)>,
  ];
}

def Tile_BarrierWaitOpInterface : OpInterface<"BarrierWaitOpInterface"> {
  let cppNamespace = "::kiln::tile";
  let methods = [
    InterfaceMethod<"The barrier (a !tile.memdesc value) waited on.",
      "::mlir::Value", "getWaitedBarrier", (ins)>,
    InterfaceMethod<"The parity of the phase waited for (an integer value).",
      "::mlir::Value", "getWaitedParity", (ins)>,
    InterfaceMethod<"The i1 predicate guarding the wait, or null (always).",
      "::mlir::Value", "getWaitPredicate", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<[{Whether only the partition's first warp waits (the one
      whose elected thread issues the one-thread ops); the others go on.}],
      "bool", "waitsInElectedWarpOnly", (ins), [{}], [{ return false; }]>,
  ];
}

#endif
