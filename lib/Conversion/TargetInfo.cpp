//===- TargetInfo.cpp - Vendor hook registry ------------------------------===//

#include "kiln/Conversion/TileToLLVM/TargetInfo.h"

#include "llvm/ADT/DenseMap.h"
#include <map>
#include <mutex>

using namespace mlir;
using namespace kiln;

TargetInfo::~TargetInfo() = default;

void TargetInfo::populatePatterns(TileTypeConverter &, RewritePatternSet &,
                                  const LoweringContext &) const {}

LogicalResult TargetInfo::checkBeforeLowering(ModuleOp,
                                              const LoweringContext &) const {
  return success();
}

/// The predicate as the all-lanes vector mask of llvm.masked.load/store.
/// With a splat mask LLVM emits one branch around one full-width access.
static Value splatMask(OpBuilder &b, Location loc, Value pred, int64_t n) {
  Type maskTy = VectorType::get({n}, b.getI1Type());
  Value m = LLVM::PoisonOp::create(b, loc, maskTy);
  for (int64_t i = 0; i < n; ++i)
    m = LLVM::InsertElementOp::create(
        b, loc, m, pred,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                 b.getI32IntegerAttr(i)));
  return m;
}

Value TargetInfo::loadGlobal(OpBuilder &b, Location loc, Value ptr, Type vecTy,
                             unsigned alignment, Value pred,
                             Value other) const {
  if (!pred)
    return LLVM::LoadOp::create(b, loc, vecTy, ptr, alignment);
  int64_t n = cast<VectorType>(vecTy).getNumElements();
  return LLVM::MaskedLoadOp::create(b, loc, vecTy, ptr,
                                    splatMask(b, loc, pred, n), other,
                                    b.getI32IntegerAttr(alignment),
                                    /*nontemporal=*/nullptr);
}

void TargetInfo::storeGlobal(OpBuilder &b, Location loc, Value ptr, Value value,
                             unsigned alignment, Value pred) const {
  if (!pred) {
    LLVM::StoreOp::create(b, loc, value, ptr, alignment);
    return;
  }
  int64_t n = cast<VectorType>(value.getType()).getNumElements();
  LLVM::MaskedStoreOp::create(b, loc, value, ptr, splatMask(b, loc, pred, n),
                              alignment);
}

static std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

static std::map<std::string, TargetInfoFactory, std::less<>> &registry() {
  static std::map<std::string, TargetInfoFactory, std::less<>> r;
  return r;
}

void kiln::registerTargetInfoFactory(llvm::StringRef backend,
                                     TargetInfoFactory factory) {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry()[backend.str()] = std::move(factory);
}

std::unique_ptr<TargetInfo> kiln::createTargetInfo(const TargetDesc &desc) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(desc.backend.str());
  if (it == registry().end())
    return nullptr;
  return it->second(desc);
}

// A target without asynchronous copies: the async-copy lowering reports it.
/// LLVM's ordering of Gluon's memory order `sem`.
static LLVM::AtomicOrdering atomicOrdering(StringRef sem) {
  if (sem == "acquire")
    return LLVM::AtomicOrdering::acquire;
  if (sem == "release")
    return LLVM::AtomicOrdering::release;
  if (sem == "acq_rel")
    return LLVM::AtomicOrdering::acq_rel;
  return LLVM::AtomicOrdering::monotonic;
}

Value TargetInfo::atomicRMW(OpBuilder &b, Location loc,
                            LLVM::AtomicBinOp kind, Value ptr, Value value,
                            StringRef sem, StringRef scope,
                            unsigned align) const {
  return LLVM::AtomicRMWOp::create(b, loc, kind, ptr, value,
                                   atomicOrdering(sem), atomicSyncScope(scope),
                                   align);
}

Value TargetInfo::atomicBetweenFences(OpBuilder &b, Location loc,
                                      StringRef sem, StringRef scope,
                                      function_ref<Value()> act) const {
  std::string s = atomicSyncScope(scope);
  if (sem == "release" || sem == "acq_rel")
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, s);
  Value old = act();
  if (sem == "acquire" || sem == "acq_rel")
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, s);
  return old;
}

Value TargetInfo::atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp,
                            Value value, StringRef sem, StringRef scope,
                            unsigned align) const {
  LLVM::AtomicOrdering success = atomicOrdering(sem);
  // A failed compare writes nothing: it cannot release.
  LLVM::AtomicOrdering failure =
      success == LLVM::AtomicOrdering::release   ? LLVM::AtomicOrdering::monotonic
      : success == LLVM::AtomicOrdering::acq_rel ? LLVM::AtomicOrdering::acquire
                                                 : success;
  auto x = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, cmp, value, success,
                                         failure, atomicSyncScope(scope),
                                         align);
  return LLVM::ExtractValueOp::create(b, loc, x, 0);
}

Value TargetInfo::packedAtomicFAdd(OpBuilder &b, Location loc, Value ptr,
                                   Value value, StringRef sem,
                                   StringRef scope) const {
  return atomicRMW(b, loc, LLVM::AtomicBinOp::fadd, ptr, value, sem, scope,
                   /*align=*/4);
}

bool TargetInfo::asyncCopy(OpBuilder &, Location, Value, Value, unsigned,
                           Value, StringRef) const {
  return false;
}
void TargetInfo::asyncCommitGroup(OpBuilder &, Location) const {}
void TargetInfo::annotateSyncedSharedAccess(Operation *) const {}

void TargetInfo::assertFail(OpBuilder &b, Location loc, StringRef, StringRef,
                            unsigned, StringRef) const {
  LLVM::Trap::create(b, loc);
}

Value TargetInfo::warpId(OpBuilder &b, Location loc) const {
  return LLVM::UDivOp::create(
      b, loc, threadId(b, loc),
      LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                               b.getI32IntegerAttr(desc.warpSize)));
}

void TargetInfo::asyncWait(OpBuilder &, Location, unsigned,
                           std::optional<unsigned>) const {}
