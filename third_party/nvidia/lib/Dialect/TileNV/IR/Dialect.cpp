//===- Dialect.cpp - The tile_nv dialect ---------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

#include "kiln/Dialect/TileNV/IR/TileNVDialect.cpp.inc"
#include "kiln/Dialect/TileNV/IR/TileNVEnums.cpp.inc"

void TileNVDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/TileNV/IR/TileNVAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/TileNV/IR/TileNVOps.cpp.inc"
      >();
}

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileNV/IR/TileNVAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/TileNV/IR/TileNVOps.cpp.inc"

namespace {

/// PTX: an mbarrier's arrival count and transaction bytes are 20-bit.
constexpr int64_t kMaxCount = (1 << 20) - 1;

} // namespace

/// The barrier operand: one mutable 64-bit word of shared memory; and the
/// chip (when known) at least `minArch` (80 = sm_80, 90 = sm_90).
LogicalResult kiln::tile_nv::verifyBarrier(Operation *op, Value barrier, unsigned minArch,
                            StringRef needs) {
  auto type = cast<MemDescType>(barrier.getType());
  int64_t elements = 1;
  for (int64_t d : type.getShape())
    elements *= d;
  if (!type.getElementType().isInteger(64) || elements != 1)
    return op->emitOpError()
           << "barrier must be a one-element i64 shared buffer (an mbarrier "
              "word, e.g. allocate_shared_memory(int64, [1], "
              "MBarrierLayout())), got "
           << type;
  if (!type.getMutableMemory())
    return op->emitOpError() << "barrier must be mutable, got " << type;
  return verifyArch(op, minArch, needs);
}

LogicalResult kiln::tile_nv::verifyArch(Operation *op, unsigned minArch,
                                        StringRef needs) {
  if (const TargetDesc *target = getEnclosingTarget(op))
    if (target->backend == "nvidia" && target->arch < minArch)
      return op->emitOpError()
             << needs << " needs sm_" << minArch << " or later; "
             << target->name << " has none";
  return success();
}

namespace {

LogicalResult verifyCount(Operation *op, StringRef what, int64_t v,
                          int64_t min) {
  if (v < min || v > kMaxCount)
    return op->emitOpError() << what << " must be in [" << min << ", "
                             << kMaxCount << "], got " << v;
  return success();
}

} // namespace

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier(), 80, "mbarrier.init")))
    return failure();
  return verifyCount(*this, "count", getCountAttr().getInt(), 1);
}

LogicalResult MBarrierInvalidateOp::verify() {
  return verifyBarrier(*this, getBarrier(), 80, "mbarrier.inval");
}

LogicalResult MBarrierExpectOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier(), 90,
                           "mbarrier.arrive.expect_tx")))
    return failure();
  if (getCtaMask() < 0 || getCtaMask() > 15)
    return emitOpError() << "cta_mask must be in [0, 15] (bits of a CTA's rank "
                            "in a cluster of at most 16), got "
                         << getCtaMask();
  if (getDynamicBytes() && getBytes() != 0)
    return emitOpError() << "takes its byte count once: the attribute is 0 "
                            "when a run-time count is given, got "
                         << getBytes();
  return verifyCount(*this, "bytes", getBytesAttr().getInt(), 0);
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier(),
                           getCtaMask() ? 90 : 80, "mbarrier.arrive")))
    return failure();
  if (getCtaMask() < 0 || getCtaMask() > 15)
    return emitOpError() << "cta_mask must be in [0, 15] (bits of a CTA's rank "
                            "in a cluster of at most 16), got "
                         << getCtaMask();
  if (getFromLeader() && !getCtaMask())
    return emitOpError() << "from_leader names the leader of a set of CTAs: it "
                            "needs a non-zero cta_mask";
  if (getPerWarp() && getFromLeader())
    return emitOpError() << "per_warp arrivals are made by every warp of "
                            "every CTA: not with from_leader";
  return verifyCount(*this, "count", getCountAttr().getInt(), 1);
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarrier(*this, getBarrier(), 80, "mbarrier.test_wait.parity");
}

LogicalResult AsyncCopyMBarrierArriveOp::verify() {
  return verifyBarrier(*this, getBarrier(), 80, "cp.async.mbarrier.arrive");
}

Value AsyncCopyMBarrierArriveOp::getCopiesBarrier() { return getBarrier(); }

int64_t AsyncCopyMBarrierArriveOp::getCopiesArrivalCount() {
  if (getIncrement())
    return 0;
  // .noinc: every thread of the warps that run it arrives once
  auto module = (*this)->getParentOfType<ModuleOp>();
  if (!module)
    return 0;
  return int64_t(tile::lookupNumWarps(*this, tile::getNumWarps(module))) *
         tile::getThreadsPerWarp(module);
}

Value MBarrierWaitOp::getWaitedBarrier() { return getBarrier(); }
Value MBarrierWaitOp::getWaitedParity() { return getPhase(); }

Value MBarrierInitOp::getInitializedBarrier() { return getBarrier(); }
int64_t MBarrierInitOp::getExpectedArrivals() { return getCount(); }

Value MBarrierInvalidateOp::getInvalidatedBarrier() { return getBarrier(); }

bool FenceAsyncSharedOp::fencesCluster() { return getCluster(); }

Value MBarrierExpectOp::getArrivedBarrier() { return getBarrier(); }
Value MBarrierExpectOp::getPredicate() { return getPred(); }
void MBarrierExpectOp::setPredicate(Value pred) { getPredMutable().assign(pred); }
int64_t MBarrierExpectOp::getExpectedBytes() {
  Value n = getDynamicBytes();
  if (!n)
    return getBytes();
  APInt value;
  if (matchPattern(n, m_ConstantInt(&value)))
    return value.getSExtValue();
  return -1; // known at run time only
}
unsigned MBarrierExpectOp::getArrivalCTABits() { return getCtaMask(); }
// With a cta_mask the set's leader arms every barrier of the set.
bool MBarrierExpectOp::arrivesFromLeaderOnly() { return getCtaMask() != 0; }
Value MBarrierExpectOp::getArrivePredicate() { return getPred(); }
int64_t MBarrierExpectOp::getArrivalCount() { return 1; }

Value MBarrierArriveOp::getArrivedBarrier() { return getBarrier(); }
int64_t MBarrierArriveOp::getExpectedBytes() { return 0; }
Value MBarrierArriveOp::getArrivePredicate() { return getPred(); }
int64_t MBarrierArriveOp::getArrivalCount() {
  // With a cta_mask every CTA of the mask's set arrives at the barrier of
  // each (the kernel's CTAs run the same code): each barrier's phase counts
  // an arrival from each of them -- or from the leader only (from_leader).
  if (!getPerWarp())
    return getFromLeader()
               ? int64_t(getCount())
               : int64_t(getCount()) << llvm::popcount(unsigned(getCtaMask()));
  // Every warp arrives, on each barrier of the mask's set.
  auto module = (*this)->getParentOfType<ModuleOp>();
  return (int64_t(getCount()) *
          tile::lookupNumWarps(*this, module ? tile::getNumWarps(module) : 1))
         << llvm::popcount(unsigned(getCtaMask()));
}
bool MBarrierArriveOp::arrivesPerWarp() { return getPerWarp(); }
unsigned MBarrierArriveOp::getArrivalCTABits() { return getCtaMask(); }
bool MBarrierArriveOp::arrivesFromLeaderOnly() { return getFromLeader(); }
bool ClusterArriveOp::isClusterArrival() { return true; }
bool ClusterWaitOp::isClusterArrival() { return false; }
Value MBarrierWaitOp::getWaitPredicate() { return getPred(); }
bool MBarrierWaitOp::waitsInElectedWarpOnly() { return getElectedWarp(); }

LogicalResult kiln::tile_nv::ClusterArriveOp::verify() {
  return verifyArch(*this, 90, "a cluster barrier");
}

LogicalResult kiln::tile_nv::ClusterWaitOp::verify() {
  return verifyArch(*this, 90, "a cluster barrier");
}

LogicalResult kiln::tile_nv::FenceMBarrierInitClusterOp::verify() {
  return verifyArch(*this, 90, "fence.mbarrier_init");
}

/// Ids 0-13 (the hardware's barriers 15 down to 2; 0 and 1 are Kiln's), and
/// a thread count of whole warps within a CTA.
static LogicalResult verifyNamedBarrier(Operation *op, int32_t id,
                                        int32_t numThreads) {
  if (id < 0 || id > kMaxNamedBarrierId)
    return op->emitOpError() << "barrier id " << id
                             << " is out of range: ids 0 to "
                             << kMaxNamedBarrierId
                             << " are the kernel's (the other hardware "
                                "barriers are Kiln's)";
  if (numThreads < 32 || numThreads > 1024 || numThreads % 32 != 0)
    return op->emitOpError()
           << "counts " << numThreads
           << " threads: a named barrier counts whole warps, 32 to 1024 "
              "threads";
  return success();
}

LogicalResult kiln::tile_nv::NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getId(), getNumThreads());
}

LogicalResult kiln::tile_nv::NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getId(), getNumThreads());
}
