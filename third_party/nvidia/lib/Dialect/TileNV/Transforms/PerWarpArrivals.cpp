//===- PerWarpArrivals.cpp - Each warp arrives for its own threads --------===//
//
// tile-nv-per-warp-arrivals (Passes.td). A plain `mbarrier_arrive` is one
// thread's arrival made for its whole partition (on each CTA of its
// cta_mask's set, when it has one), so every thread's shared
// memory accesses before it must be complete first: tile-insert-barriers
// puts a CTA barrier in front of it (a consumer's slot release, inside the
// hot loop of every warp-specialized kernel). When every arrival on a
// barrier is such an arrival, the barrier can count warps instead: its
// counts are scaled so that each arrival of `count` by W warps becomes W
// arrivals of count * scale / W, one by each warp for its own threads
// (`{per_warp}`: the warp synchronizes, one lane arrives); scale is the
// least common multiple of W / gcd(W, count) over the arrivals, and a
// one-warp partition's arrival stays one thread's, of count * scale. A phase
// still completes when every partition's arrival is in, and no CTA barrier
// is needed: each warp's accesses are released by its own arrival.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVPERWARPARRIVALSPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// The ops of one barrier allocation (through any views of it).
struct BarrierUses {
  SmallVector<tile_nv::MBarrierInitOp> inits;
  SmallVector<tile_nv::MBarrierArriveOp> arrives;
  /// A use that is not an init, plain arrive, wait, invalidate or view: the
  /// barrier's arrivals cannot all be known.
  bool other = false;
};

void collectUses(Value memdesc, BarrierUses &uses) {
  for (OpOperand &use : memdesc.getUses()) {
    Operation *user = use.getOwner();
    if (isMemDescView(user) && use.getOperandNumber() == 0) {
      collectUses(user->getResult(0), uses);
    } else if (auto init = dyn_cast<tile_nv::MBarrierInitOp>(user)) {
      uses.inits.push_back(init);
    } else if (auto arrive = dyn_cast<tile_nv::MBarrierArriveOp>(user)) {
      uses.arrives.push_back(arrive);
    } else if (!isa<tile_nv::MBarrierWaitOp, tile_nv::MBarrierInvalidateOp>(
                   user)) {
      uses.other = true;
    }
  }
}

/// The factor the barrier's counts are scaled by so that each arrival's
/// warps can arrive for themselves (the least common multiple over the
/// arrivals of warps / gcd(warps, count)), or 0 when the barrier must keep
/// one-thread arrivals.
int64_t arrivalScale(BarrierUses &uses, int numWarps) {
  if (uses.other || uses.inits.empty() || uses.arrives.empty())
    return 0;
  int64_t scale = 1, maxCount = 0;
  for (tile_nv::MBarrierInitOp init : uses.inits)
    maxCount = std::max<int64_t>(maxCount, init.getCount());
  for (tile_nv::MBarrierArriveOp arrive : uses.arrives) {
    // A leader's arrivals stand for other CTAs' warps; the pipeliner's
    // rings are per-warp already. A predicate is the partition's (every
    // warp skips or every warp arrives), and with a cta_mask each warp
    // arrives on every barrier of the set.
    if (arrive.getPerWarp() || arrive.getFromLeader())
      return 0;
    int64_t warps = lookupNumWarps(arrive, numWarps);
    int64_t count = arrive.getCount();
    // A barrier counting fewer arrivals than one remote arrival brings is
    // the kernel's error, which the lowering reports in the kernel's counts.
    if (arrive.getCtaMask() && !arrive.getPred())
      for (tile_nv::MBarrierInitOp init : uses.inits)
        if (int64_t(init.getCount()) < arrive.getArrivalCount())
          return 0;
    scale = std::lcm(scale, warps / std::gcd(warps, count));
    maxCount = std::max(maxCount, count);
  }
  // The scaled counts must stay within the hardware's arrival count.
  if (scale <= 1 || maxCount * scale > (int64_t(1) << 20) - 1)
    return 0;
  return scale;
}

struct PerWarpArrivals
    : tile_nv::impl::TileNVPerWarpArrivalsPassBase<PerWarpArrivals> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return;
    // Every lane of a warp must reach its arrival (bar.warp.sync). Kiln's
    // scalars are the same in all threads, so any branch around an arrival
    // is taken by whole partitions -- except one on a scalar that inline
    // assembly computed in each thread: then nothing changes.
    bool threadScalars = false;
    module.walk([&](InlineAsmThreadOp op) {
      threadScalars |= llvm::any_of(op->getResultTypes(), [](Type t) {
        return !isa<RankedTensorType>(t);
      });
    });
    if (threadScalars)
      return;
    llvm::MapVector<Operation *, BarrierUses> barriers;
    module.walk([&](LocalAllocOp alloc) {
      auto type = alloc.getType();
      if (!type.getElementType().isInteger(64))
        return;
      BarrierUses uses;
      collectUses(alloc.getResult(), uses);
      barriers[alloc] = std::move(uses);
    });
    for (auto &[alloc, uses] : barriers) {
      int64_t scale = arrivalScale(uses, context->numWarps);
      if (!scale)
        continue;
      for (tile_nv::MBarrierInitOp init : uses.inits)
        init.setCount(init.getCount() * scale);
      // An arrival of `count` by W warps now brings count * scale: each
      // warp count * scale / W (a single warp's stays one thread's).
      for (tile_nv::MBarrierArriveOp arrive : uses.arrives) {
        int64_t warps = lookupNumWarps(arrive, context->numWarps);
        int64_t total = int64_t(arrive.getCount()) * scale;
        if (warps > 1) {
          arrive.setPerWarp(true);
          total /= warps;
        }
        arrive.setCount(total);
      }
    }
  }
};

} // namespace
