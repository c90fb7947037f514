//===- AllocateSharedMemory.cpp - Offsets by live range, and the limit ----===//
//
// Every buffer in shared memory gets a byte offset: explicit allocations
// (local_alloc) and the scratch that layout conversions and reductions stage
// data through. Ops are numbered in program order; an allocation is live
// from its local_alloc to its last use (through views), stretched over every
// loop that uses it without containing the allocation, and a scratch buffer
// only at its op; an asynchronous read keeps it live to the wait that
// retires the read, a write completing on a barrier to the last wait on that
// barrier. Buffers are placed largest first, each at the lowest
// offset (aligned as its users need) that no buffer live at the same time
// occupies, so scratch reuses the space of dead buffers. Placement is
// tile-insert-barriers' input: it orders accesses to bytes that two buffers
// share.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORYPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct Buffer {
  Operation *op;
  int64_t bytes;
  unsigned alignment;
  /// Live range, inclusive, in program-order numbers.
  int64_t start, end;
  int64_t offset = -1;
  /// A buffer live only inside one region of a warp_specialize: the op and
  /// the region's number. The regions run at the same time, so such a
  /// buffer is live beside every buffer of the op's other regions whatever
  /// the numbers say.
  Operation *ws = nullptr;
  unsigned region = 0;

  bool liveWith(const Buffer &o) const {
    return (start <= o.end && o.start <= end) ||
           (ws && ws == o.ws && region != o.region);
  }
  /// Whether this buffer is live at `o`'s start.
  bool liveAtStartOf(const Buffer &o) const {
    return (start <= o.start && o.start <= end) ||
           (ws && ws == o.ws && region != o.region);
  }
};

/// Program order: each op's number, and the last number inside it.
struct Numbering {
  DenseMap<Operation *, int64_t> index, last;

  explicit Numbering(Operation *root) {
    int64_t next = 0;
    number(root, next);
  }
  void number(Operation *op, int64_t &next) {
    index[op] = next++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          number(&inner, next);
    last[op] = next - 1;
  }
};

/// Where `op`'s live range must end for a use at `user`: the user itself,
/// or the end of the outermost loop around it that does not contain `op`
/// (the next iteration uses the buffer again).
int64_t useEnd(Operation *def, Operation *user, const Numbering &n) {
  int64_t end = n.index.lookup(user);
  for (Operation *p = user->getParentOp(); p && !p->isAncestor(def);
       p = p->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp>(p))
      end = std::max(end, n.last.lookup(p));
  return end;
}

Operation *enclosingFunction(Operation *op) {
  Operation *func = op->getParentOp();
  while (func && !isa<ModuleOp>(func->getParentOp()))
    func = func->getParentOp();
  return func;
}

/// Where an asynchronous read by `user` (of `counter`) is certainly over:
/// the first wait on the counter that leaves nothing in flight, after
/// `after`, in a block that holds `user` (so it runs whenever the read
/// did); the function's end if there is none.
int64_t asyncReadEnd(Operation *user, StringRef counter, int64_t after,
                     const Numbering &n) {
  Operation *func = enclosingFunction(user);
  int64_t end = func ? n.last.lookup(func) : after;
  if (!func)
    return end;
  func->walk([&](AsyncReadWaitOpInterface wait) {
    Operation *w = wait.getOperation();
    int64_t at = n.index.lookup(w);
    if (wait.getAsyncReadCounter() == counter &&
        wait.getMaxPendingGroups() == 0 && at > after && at < end &&
        w->getBlock()->findAncestorOpInBlock(*user))
      end = at;
  });
  return end;
}

/// Where a barrier-completed write by `user` has certainly landed: its
/// last wait on a barrier of the same allocation (stretched over loops, as
/// uses are); the function's end if none is found.
int64_t completedWriteEnd(Operation *def, BarrierCompletedWriteOpInterface user,
                          const Numbering &n) {
  Operation *func = enclosingFunction(def);
  LocalAllocOp barrier = getRootAllocation(user.getCompletionBarrier());
  if (!func)
    return n.index.lookup(user);
  if (!barrier)
    return n.last.lookup(func);
  int64_t end = -1;
  func->walk([&](BarrierWaitOpInterface wait) {
    if (getRootAllocation(wait.getWaitedBarrier()) == barrier)
      end = std::max(end, useEnd(def, wait.getOperation(), n));
  });
  return end < 0 ? n.last.lookup(func) : end;
}

/// The values a buffer passed at `use` becomes when scf.if or scf.for
/// chooses or carries it: an if's result, a loop's iteration argument and
/// result. Empty for any other use.
SmallVector<Value, 2> carriedTo(OpOperand &use) {
  Operation *user = use.getOwner();
  unsigned i = use.getOperandNumber();
  if (isa<scf::YieldOp>(user)) {
    Operation *parent = user->getParentOp();
    if (isa<scf::IfOp>(parent))
      return {parent->getResult(i)};
    if (auto loop = dyn_cast<scf::ForOp>(parent))
      return {loop.getRegionIterArgs()[i], loop.getResult(i)};
    return {};
  }
  if (auto loop = dyn_cast<scf::ForOp>(user);
      loop && i >= loop.getNumControlOperands()) {
    i -= loop.getNumControlOperands();
    return {loop.getRegionIterArgs()[i], loop.getResult(i)};
  }
  return {};
}

/// The live range of an allocation: to the last use of it or of a view of
/// it, through the values an scf.if or scf.for makes of it (a buffer chosen
/// at run time keeps every buffer it may be live while it is used); an
/// asynchronous read to the wait that retires it, a write completing on a
/// barrier to the last wait on that barrier. A use the allocator does not
/// follow (a memdesc passed to a call or through a while loop) keeps it
/// live to the end of the function.
void extendLiveRange(Buffer &buf, Value value, const Numbering &n,
                     llvm::SmallPtrSetImpl<void *> &seen) {
  if (!seen.insert(value.getAsOpaquePointer()).second)
    return;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    int64_t end = useEnd(buf.op, user, n);
    buf.end = std::max(buf.end, end);
    if (isMemDescView(user)) {
      extendLiveRange(buf, user->getResult(0), n, seen);
      continue;
    }
    if (SmallVector<Value, 2> next = carriedTo(use); !next.empty()) {
      for (Value v : next)
        extendLiveRange(buf, v, n, seen);
      continue;
    }
    if (isa<LocalLoadOp, LocalStoreOp, LocalDeallocOp, LocalGatherOp,
            LocalScatterOp, LocalAtomicRMWOp, AsyncCopyOpInterface>(
            user))
      continue;
    if (auto read = dyn_cast<AsyncReadOpInterface>(user)) {
      if (read.isAsyncReadInFlight())
        buf.end = std::max(
            buf.end, asyncReadEnd(user, read.getAsyncReadCounter(), end, n));
      continue;
    }
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(user);
        write && write.getDst() == value) {
      buf.end = std::max(buf.end, completedWriteEnd(buf.op, write, n));
      continue;
    }
    if (Operation *func = enclosingFunction(buf.op))
      buf.end = std::max(buf.end, n.last.lookup(func));
  }
}

/// Largest first, each at the lowest aligned offset free of buffers live at
/// the same time. Returns the total.
int64_t place(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->start < b->start;
  });
  SmallVector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *buf : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *o : placed)
      if (o->liveWith(*buf))
        busy.push_back({o->offset, o->offset + o->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + buf->bytes <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, buf->alignment));
    }
    buf->offset = offset;
    total = std::max(total, offset + buf->bytes);
    placed.push_back(buf);
  }
  return total;
}

std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (isa<LocalAllocOp>(op))
    os << "buffer";
  else if (isa<ModuleOp>(op))
    os << "warp specialization's dispatch word";
  else
    os << "scratch of " << op->getName().getStringRef();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getFilename().getValue() << ":" << loc.getLine();
  else if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
    for (Location inner : fused.getLocations())
      if (auto l = dyn_cast<FileLineColLoc>(inner)) {
        os << " at " << l.getFilename().getValue() << ":" << l.getLine();
        break;
      }
  return text;
}

struct AllocateSharedMemory
    : kiln::tile::impl::TileAllocateSharedMemoryPassBase<AllocateSharedMemory> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Without a target the limit is not checked (the lowering checks it).
    FailureOr<CompileContext> context =
        resolveCompileContext(module, target, /*numWarpsOption=*/0,
                              /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    const TargetDesc *desc = context->target;
    Builder b(module.getContext());
    Numbering numbering(module);

    SmallVector<Buffer> buffers;
    module.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        MemDescType type = alloc.getType();
        int64_t bytes = getAllocationBytes(type);
        int64_t at = numbering.index.lookup(op);
        Buffer buf{op, bytes, getRequiredAlignment(type), at, at};
        llvm::SmallPtrSet<void *, 8> seen;
        extendLiveRange(buf, alloc.getResult(), numbering, seen);
        buffers.push_back(buf);
        return;
      }
      if (int64_t bytes = getScratchBytes(op)) {
        int64_t at = numbering.index.lookup(op);
        buffers.push_back(Buffer{op, bytes, 16, at, at});
      }
    });
    // A kernel with a warp_specialize keeps one word for its whole run: the
    // kernel's warps write there which call comes next (or that they return)
    // before the barrier at which the worker warps wait, and the workers read
    // it after (tile-lower-warp-specialize). Its offset is the module's
    // scratch_offset.
    bool specializes = false;
    module.walk([&](WarpSpecializeOp) {
      specializes = true;
      return WalkResult::interrupt();
    });
    if (specializes)
      buffers.push_back(
          Buffer{module, 8, 16, 0, numbering.last.lookup(module)});
    // The regions of a warp_specialize run concurrently, each in program
    // order: a buffer live only inside one region keeps its live range there
    // (buffers of one region reuse each other's bytes, barriers between them
    // ordering that region's warps) and is live beside every buffer of the
    // other regions; any other buffer live anywhere inside the op is live
    // throughout it.
    module.walk([&](WarpSpecializeOp ws) {
      int64_t first = numbering.index.lookup(ws);
      int64_t last = numbering.last.lookup(ws);
      SmallVector<std::pair<int64_t, int64_t>> regions;
      for (Region &region : ws->getRegions()) {
        int64_t lo = last + 1, hi = first;
        for (Block &block : region)
          for (Operation &op : block) {
            lo = std::min(lo, numbering.index.lookup(&op));
            hi = std::max(hi, numbering.last.lookup(&op));
          }
        regions.push_back({lo, hi});
      }
      for (Buffer &buf : buffers) {
        if (buf.start > last || buf.end < first)
          continue;
        auto inside = llvm::find_if(regions, [&](auto r) {
          return r.first <= buf.start && buf.end <= r.second;
        });
        if (!buf.ws && inside != regions.end()) {
          buf.ws = ws;
          buf.region = inside - regions.begin();
          continue;
        }
        buf.start = std::min(buf.start, first);
        buf.end = std::max(buf.end, last);
      }
    });
    int64_t total = place(buffers);
    if (desc)
      total = splitIntoRounds(buffers, total, *desc);
    if (desc && desc->stageDominantLayoutMoves)
      total = shrinkDominantMoves(buffers, total);
    TileDialect::ScratchOffsetAttrHelper scratchOffset(&getContext());
    for (Buffer &buf : buffers)
      scratchOffset.setAttr(buf.op, b.getI32IntegerAttr(buf.offset));

    if (desc && total > desc->maxSharedBytes)
      return reportOverflow(module, buffers, total, *desc);
    TileDialect::SharedAttrHelper(&getContext())
        .setAttr(module, b.getI32IntegerAttr(total));
  }

  /// While the buffers do not fit, the largest layout move live beside a
  /// buffer past the limit stages through shared memory in twice as many
  /// rounds (each round barrier, store, barrier, load; half the scratch).
  /// Moves that fit keep one round: rounds cost barriers.
  int64_t splitIntoRounds(MutableArrayRef<Buffer> buffers, int64_t total,
                          const TargetDesc &desc) {
    TileDialect::ScratchRoundsAttrHelper rounds(&getContext());
    Builder b(&getContext());
    while (total > desc.maxSharedBytes) {
      Buffer *pick = nullptr;
      for (Buffer &over : buffers) {
        if (over.offset + over.bytes <= int64_t(desc.maxSharedBytes))
          continue;
        for (Buffer &buf : buffers)
          if (buf.liveWith(over) &&
              !isa<LocalAllocOp>(buf.op) &&
              getScratchRounds(buf.op) < getMaxScratchRounds(buf.op) &&
              (!pick || buf.bytes > pick->bytes))
            pick = &buf;
      }
      if (!pick)
        return total;
      rounds.setAttr(pick->op,
                     b.getI32IntegerAttr(getScratchRounds(pick->op) * 2));
      pick->bytes = getScratchBytes(pick->op);
      total = place(buffers);
    }
    return total;
  }

  /// While staging a layout move in twice as many rounds lowers the kernel's
  /// total (its scratch sets the total, or pushes a buffer live beside it up
  /// to it), the move does so, if its rounds still move vectors
  /// (roundsKeepVectors: an element-wise move costs far more than the bytes
  /// it saves); otherwise it is left as it was. The shared memory a kernel
  /// takes then follows its own buffers rather than one move's tile.
  int64_t shrinkDominantMoves(MutableArrayRef<Buffer> buffers, int64_t total) {
    TileDialect::ScratchRoundsAttrHelper rounds(&getContext());
    Builder b(&getContext());
    for (bool shrunk = true; shrunk;) {
      shrunk = false;
      for (Buffer &buf : buffers) {
        if (!isa<ConvertLayoutOp, ReshapeOp>(buf.op) ||
            getScratchRounds(buf.op) >= getMaxScratchRounds(buf.op) ||
            !roundsKeepVectors(buf.op, getScratchRounds(buf.op) * 2))
          continue;
        int64_t was = getScratchRounds(buf.op), wasBytes = buf.bytes;
        SmallVector<int64_t> offsets;
        for (Buffer &o : buffers)
          offsets.push_back(o.offset);
        rounds.setAttr(buf.op, b.getI32IntegerAttr(was * 2));
        buf.bytes = getScratchBytes(buf.op);
        int64_t smaller = place(buffers);
        if (smaller < total) {
          total = smaller;
          shrunk = true;
          break;
        }
        // No gain: as it was.
        if (was > 1)
          rounds.setAttr(buf.op, b.getI32IntegerAttr(was));
        else
          buf.op->removeAttr(
              TileDialect::ScratchRoundsAttrHelper::getNameStr());
        buf.bytes = wasBytes;
        for (auto [o, off] : llvm::zip(buffers, offsets))
          o.offset = off;
      }
    }
    return total;
  }

  /// The error names the buffers live where the most bytes are live, and
  /// sits on the largest of them.
  void reportOverflow(ModuleOp module, ArrayRef<Buffer> buffers, int64_t total,
                      const TargetDesc &desc) {
    const Buffer *peakAt = &buffers.front();
    int64_t peakBytes = -1;
    for (const Buffer &at : buffers) {
      int64_t live = 0;
      for (const Buffer &o : buffers)
        if (o.liveAtStartOf(at))
          live += o.bytes;
      if (live > peakBytes) {
        peakBytes = live;
        peakAt = &at;
      }
    }
    SmallVector<const Buffer *> live;
    for (const Buffer &o : buffers)
      if (o.liveAtStartOf(*peakAt))
        live.push_back(&o);
    llvm::stable_sort(live, [](const Buffer *a, const Buffer *b) {
      return a->bytes > b->bytes;
    });
    Builder b(module.getContext());
    InFlightDiagnostic diag = live.front()->op->emitError();
    diag << "out of resources: shared memory required " << total
         << " bytes, limit " << desc.maxSharedBytes << " bytes on "
         << desc.name << "; live at the peak: ";
    for (auto [i, buf] : llvm::enumerate(live))
      diag << (i ? ", " : "") << buf->bytes << " bytes (" << describe(buf->op)
           << ")";
    // The same facts as data, for callers that act on them (Python's
    // OutOfResources); metadata is not printed.
    diag.getUnderlyingDiagnostic()->getMetadata().push_back(
        DiagnosticArgument(b.getDictionaryAttr(
            {b.getNamedAttr("kind", b.getStringAttr("out_of_resources")),
             b.getNamedAttr("resource", b.getStringAttr("shared memory")),
             b.getNamedAttr("required", b.getI64IntegerAttr(total)),
             b.getNamedAttr("limit",
                            b.getI64IntegerAttr(desc.maxSharedBytes))})));
    signalPassFailure();
  }
};
} // namespace
