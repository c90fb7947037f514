//===- InsertProxyFences.cpp - Async-proxy fences before async reads ------===//
//
// tile-nv-insert-proxy-fences (Passes.td): shared memory the threads write
// through the generic proxy (stores, buffers initialized from registers,
// cp.async copies) is seen by asynchronous reads (wgmma operands, TMA
// stores) only after `fence.proxy.async`. Gluon kernels often leave that to
// the compiler (Triton inserts the fences), so Kiln does too: before each
// asynchronous read of a buffer that a generic write may have touched since
// the last fence, a `tile_nv.fence_async_shared`. tile-insert-barriers later
// puts its barrier between the fence and the read, and
// tile-check-async-safety checks the result independently.
//
// "May have touched": walking back from the read through its block, a fence
// ends the search (none needed); a generic write to one of the read's
// allocations, an op whose regions hold one, or the start of the block
// (another iteration, the caller) where the function writes that
// allocation anywhere, needs a fence. A view control flow chooses (an
// scf.if result, a loop's carried buffer) may be any of the allocations
// its sources view.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVINSERTPROXYFENCESPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// The allocations `memdesc` may view: through views, and through the
/// buffers control flow chooses or carries (an scf.if / scf.for result, a
/// loop's iteration argument) to each of theirs. Ones that cannot be
/// followed (a function's or partition's argument) are left out, as a
/// buffer with no allocation is.
void addRoots(Value memdesc, DenseSet<Operation *> &roots, unsigned depth = 0) {
  while (Operation *def = memdesc.getDefiningOp()) {
    if (auto alloc = dyn_cast<LocalAllocOp>(def)) {
      roots.insert(alloc);
      return;
    }
    if (!isMemDescView(def))
      break;
    memdesc = def->getOperand(0);
  }
  SmallVector<Value> sources;
  if (depth > 8 || failed(getSharedSources(memdesc, sources)))
    return;
  for (Value source : sources)
    if (source != memdesc)
      addRoots(source, roots, depth + 1);
}

/// The allocations a generic (non-async-proxy) write of `op` touches: stores,
/// buffers initialized from registers, cp.async copies.
DenseSet<Operation *> genericWriteRoots(Operation *op) {
  DenseSet<Operation *> roots;
  if (auto store = dyn_cast<LocalStoreOp>(op))
    addRoots(store.getDst(), roots);
  else if (auto alloc = dyn_cast<LocalAllocOp>(op); alloc && alloc.getSrc())
    roots.insert(alloc);
  else if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op))
    addRoots(copy.getDst(), roots);
  return roots;
}

bool writesAny(Operation *op, const DenseSet<Operation *> &roots) {
  bool hit = false;
  op->walk([&](Operation *inner) {
    for (Operation *root : genericWriteRoots(inner))
      if (roots.contains(root))
        hit = true;
  });
  return hit;
}

/// Whether a generic write to `roots` may come between the last fence and
/// `read` (see the file comment).
bool needsFence(Operation *read, const DenseSet<Operation *> &roots,
                func::FuncOp func) {
  for (Operation *op = read->getPrevNode(); op; op = op->getPrevNode()) {
    if (isa<AsyncProxyFenceOpInterface>(op))
      return false;
    if (writesAny(op, roots))
      return true;
  }
  // The block's start: whatever runs before it (the previous iteration, the
  // code around) may have written these buffers.
  return writesAny(func, roots);
}

struct InsertProxyFences
    : tile_nv::impl::TileNVInsertProxyFencesPassBase<InsertProxyFences> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return;
    module.walk([&](func::FuncOp func) {
      // In program order, each fence placed before the next read looks back.
      func.walk([&](AsyncReadOpInterface read) {
        DenseSet<Operation *> roots;
        for (Value v : read.getAsyncReadBuffers())
          addRoots(v, roots);
        if (roots.empty() || !needsFence(read, roots, func))
          return;
        OpBuilder b(read);
        tile_nv::FenceAsyncSharedOp::create(b, read->getLoc(), false);
      });
    });
  }
};

} // namespace
