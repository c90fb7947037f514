//===- WarpSpecializeOpToLLVM.cpp - tile.warp_specialize to a CFG ---------===//
//
// A kernel with a tile.warp_specialize is launched with its own warps plus
// every worker partition's. Three steps:
//
//  1. Before the conversion (prepareWarpSpecialize): each worker region gets
//     its own copy of what it uses from the default warps' code, recomputed
//     from kernel arguments (constants, program ids, integer arithmetic,
//     shared-memory allocations and views); an integer or float scalar it
//     cannot recompute comes through the op's shared-memory scratch
//     (passCaptures); anything else is an error at the use. The regions then read nothing the worker warps did not
//     compute, and their ops keep their place, so each pattern sees which
//     partition (warps, layouts) it lowers for.
//  2. During the conversion the op stays, its regions' block types
//     converted like a function body's.
//  3. After it (lowerWarpSpecialize): CTA barriers become named barriers of
//     their partition (id 0 for the kernel's warps, 2 + k for worker k),
//     worker threads count their ids from the partition's first warp, and
//     the regions are inlined into one control-flow graph: at entry, warps
//     past the kernel's own branch to the worker dispatch; both sides meet
//     at named barrier 1 (every warp) before and after the partitions, each
//     side at its own instructions (so not a barrier the target requires
//     one instruction of every thread to reach). Before the start barrier
//     the kernel's warps write the call's number (k for their k-th call, 0
//     before returning) into a word of shared memory that
//     tile-allocate-shared-memory keeps for the whole kernel (the module's
//     scratch_offset), so the workers, waiting in a loop, learn which call
//     comes next (a call may sit in a loop or a branch) or that the kernel
//     is done.
//
// With register counts (partition_num_regs) on a target that moves registers
// between warp groups (setmaxnreg), the worker warps are padded to whole
// groups, the kernel starts with its share of the register file (.maxnreg),
// each worker group drops (or raises) to what its partitions asked for before
// they start, and the kernel's warps take what is left (planRegisters).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/WarpSpecializeCaptures.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

constexpr unsigned kPartitionBarrier = 1;

/// Copies into a worker region what it uses from above, or reports why not.
struct Rematerializer {
  Region &region;
  unsigned index;
  IRMapping map;
  OpBuilder b;

  Rematerializer(Region &region, unsigned index, const IRMapping &passed)
      : region(region), index(index), map(passed),
        b(&region.front(), region.front().begin()) {
    // Copies go after the loads of the passed scalars they may use.
    for (Operation &op : region.front())
      if (llvm::any_of(op.getResults(),
                       [&](Value r) { return isPassedLoad(r, passed); }))
        b.setInsertionPointAfter(&op);
  }

  static bool isPassedLoad(Value r, const IRMapping &passed) {
    for (auto [from, to] : passed.getValueMap())
      if (to == r)
        return true;
    return false;
  }

  static bool recomputable(Operation *op) { return isRecomputableInWorker(op); }

  LogicalResult copy(Value v, OpOperand &use) {
    if (map.contains(v))
      return success();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<FunctionOpInterface>(owner) && arg.getOwner()->isEntryBlock())
        return success(); // kernel arguments: every warp has them
      return fail(use, v, nullptr);
    }
    Operation *def = v.getDefiningOp();
    if (!recomputable(def))
      return fail(use, v, def);
    for (Value operand : getRecomputedOperands(def))
      if (failed(copy(operand, use)))
        return failure();
    Operation *clone;
    if (auto alloc = dyn_cast<LocalAllocOp>(def); alloc && alloc.getSrc()) {
      // The buffer, not its initial value: the kernel's warps stored that.
      clone = b.clone(*def, map);
      clone->eraseOperands(0, clone->getNumOperands());
    } else {
      clone = b.clone(*def, map);
    }
    map.map(def->getResults(), clone->getResults());
    return success();
  }

  LogicalResult fail(OpOperand &use, Value v, Operation *def) {
    InFlightDiagnostic diag = use.getOwner()->emitOpError();
    diag << "in worker partition " << index - 1
         << " uses a value the kernel's warps compute ";
    // A loop's or branch's result: a block argument once scf is lowered,
    // an scf op's result before.
    bool controlFlow = !def || isa<RegionBranchOpInterface>(def);
    if (controlFlow)
      diag << "(a loop or branch result) ";
    else
      diag << "('" << def->getName() << "') ";
    diag << "and the partition cannot recompute: worker partitions may use "
            "kernel arguments, constants and what is computed from them "
            "without touching memory (shared-memory allocations and their "
            "views included), and integer or float scalars of any origin "
            "and tensor descriptors the kernel makes (passed through shared "
            "memory); pass a tensor as a shared-memory buffer";
    if (!controlFlow)
      diag.attachNote(def->getLoc()) << "defined here";
    return failure();
  }

  LogicalResult run() {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    for (Value v : above) {
      for (OpOperand &use : v.getUses()) {
        if (!region.isAncestor(use.getOwner()->getParentRegion()))
          continue;
        if (failed(copy(v, use)))
          return failure();
        break;
      }
    }
    for (Value v : above)
      if (Value copied = map.lookupOrNull(v))
        replaceAllUsesInRegionWith(v, copied, region);
    return success();
  }
};

/// Whether `v` is computed from `of` through ops a worker may recompute.
bool dependsOn(Value v, Value of) {
  if (v == of)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !isRecomputableInWorker(def))
    return false;
  return llvm::any_of(getRecomputedOperands(def),
                      [&](Value operand) { return dependsOn(operand, of); });
}

/// Scalars the worker partitions use and cannot recompute
/// (getPassedCaptures): the kernel's warps store them into the op's scratch
/// before it (after a barrier: earlier users of those bytes are done), and
/// each worker region loads the ones it uses at its entry, which follows the
/// partitions' start barrier.
LogicalResult passCaptures(WarpSpecializeOp op, const TargetInfo &target,
                           SmallVectorImpl<IRMapping> &loadedIn) {
  loadedIn.assign(op.getPartitionRegions().size(), IRMapping());
  SmallVector<Value> passed = getPassedCaptures(op);
  if (passed.empty())
    return success();
  if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
    return op.emitOpError()
           << "passes " << passed.size()
           << " scalar(s) to its worker partitions through shared memory "
              "but has none assigned; run tile-allocate-shared-memory first";
  Location loc = op.getLoc();
  declareSharedMemory(op->getParentOfType<ModuleOp>());
  auto ptrTy = LLVM::LLVMPointerType::get(op->getContext(), 3);
  auto slot = [&](OpBuilder &b, Value base, unsigned i) -> Value {
    if (i == 0)
      return base;
    return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{int32_t(8 * i)});
  };
  OpBuilder b(op);
  target.barrier(b, loc);
  Value base = getScratchBase(b, loc, op);
  // A tensor descriptor made in the kernel goes as its address (the type the
  // lowering gives it; the casts fold away once it has).
  auto genericPtr = LLVM::LLVMPointerType::get(op->getContext(), 0);
  for (auto [i, v] : llvm::enumerate(passed)) {
    Value stored = v;
    if (isa<TensorDescType>(v.getType()))
      stored = UnrealizedConversionCastOp::create(b, loc, genericPtr, v)
                   .getResult(0);
    LLVM::StoreOp::create(b, loc, stored, slot(b, base, i));
  }
  for (auto [r, region] : llvm::enumerate(op.getPartitionRegions())) {
    OpBuilder rb(&region.front(), region.front().begin());
    Value regionBase;
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    for (auto [i, v] : llvm::enumerate(passed)) {
      // Used in the region, or what a value it uses is computed from (then
      // the Rematerializer's copies use the load).
      bool used = above.contains(v) ||
                  llvm::any_of(above, [&](Value u) {
                    return !canRecomputeInWorker(u) && dependsOn(u, v);
                  });
      if (!used)
        continue;
      if (!regionBase)
        regionBase = getScratchBase(rb, loc, op);
      Value loaded;
      if (isa<TensorDescType>(v.getType())) {
        Value ptr = LLVM::LoadOp::create(rb, loc, genericPtr,
                                         slot(rb, regionBase, i));
        target.acquireTensorDescriptor(rb, loc, ptr);
        loaded = UnrealizedConversionCastOp::create(rb, loc, v.getType(), ptr)
                     .getResult(0);
      } else {
        loaded =
            LLVM::LoadOp::create(rb, loc, v.getType(), slot(rb, regionBase, i));
      }
      replaceAllUsesInRegionWith(v, loaded, region);
      loadedIn[r].map(v, loaded);
    }
  }
  return success();
}

/// The conversion visits the op before its regions' ops: their blocks'
/// argument types are converted here, as a function body's are.
struct WarpSpecializeRegionTypes
    : mlir::ConvertOpToLLVMPattern<WarpSpecializeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults()) {
      // Results (the default partition's values) take their lowered types:
      // a new op with the regions moved over.
      SmallVector<Type> types;
      if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
        return failure();
      OperationState state(op.getLoc(), op->getName());
      state.addTypes(types);
      state.addAttributes(op->getAttrs());
      for (unsigned i = 0; i < op->getNumRegions(); ++i)
        state.addRegion();
      Operation *replacement = rewriter.create(state);
      for (auto [from, to] :
           llvm::zip(op->getRegions(), replacement->getRegions()))
        rewriter.inlineRegionBefore(from, to, to.end());
      rewriter.replaceOp(op, replacement->getResults());
      op = cast<WarpSpecializeOp>(replacement);
    }
    for (Region &region : op->getRegions())
      if (failed(rewriter.convertRegionTypes(&region, *getTypeConverter())))
        return failure();
    rewriter.modifyOpInPlace(op, [&] {
      TileDialect::RegionsConvertedAttrHelper(op->getContext())
          .setAttr(op, rewriter.getUnitAttr());
    });
    return success();
  }
};

/// A default partition's yield takes its values' lowered types.
struct WarpYieldTypes : mlir::ConvertOpToLLVMPattern<WarpYieldOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WarpYieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<WarpYieldOp>(op, adaptor.getValues());
    return success();
  }
};

/// How a warp_specialize's warps share the register file.
struct RegisterPlan {
  /// Warps launched for the workers, padding included.
  int workerWarps = 0;
  /// Registers per thread at launch; 0 when nothing is reallocated.
  int kernelRegs = 0;
  /// What the kernel's own warps (the default partition) take.
  int defaultRegs = 0;
  /// What each worker warp group sets, in warp order.
  SmallVector<int> groupRegs;
};

/// Reallocation needs partition_num_regs, a target that can, and the
/// kernel's warps in whole groups (so no group mixes them with workers').
/// The worker warps are launched once for every warp_specialize of the
/// kernel (they run one after another), so the plan covers all of them:
/// every worker group takes the largest count among the partitions it holds
/// in any of them; a partition spanning groups makes them equal (it runs one
/// code, compiled for one count); groups of padding warps alone take the
/// minimum. The kernel's warps take the rest of the CTA's registers. Errors
/// (when `diag`) only when that rest is below the minimum, or when some but
/// not all of the ops give register counts.
FailureOr<RegisterPlan> planRegisters(ArrayRef<WarpSpecializeOp> ops,
                                      const TargetInfo &target, int numWarps,
                                      int warpSize, bool diag) {
  RegisterPlan plan;
  for (WarpSpecializeOp op : ops)
    plan.workerWarps =
        std::max(plan.workerWarps, op.getTotalNumWarps(numWarps) - numWarps);
  if (ops.empty())
    return plan;
  WarpSpecializeOp front = ops.front();
  int withRegs = llvm::count_if(
      ops, [](WarpSpecializeOp op) { return op.getPartitionNumRegs().has_value(); });
  if (withRegs && withRegs != int(ops.size())) {
    if (diag) {
      WarpSpecializeOp without = *llvm::find_if(ops, [](WarpSpecializeOp op) {
        return !op.getPartitionNumRegs().has_value();
      });
      without.emitOpError()
          << "has no partition_num_regs where another warp_specialize of "
             "this kernel has them: the worker warps are shared, so either "
             "every warp_specialize of a kernel gives register counts or none";
    }
    return failure();
  }
  TargetInfo::RegisterReallocation rr = target.registerReallocation();
  if (!withRegs || !rr.registersPerCTA || numWarps % rr.groupWarps)
    return plan;
  int group = rr.groupWarps;
  plan.workerWarps = llvm::alignTo(plan.workerWarps, group);
  int total = numWarps + plan.workerWarps;
  plan.kernelRegs = std::min(
      rr.maxRegs, rr.registersPerCTA / (total * warpSize) / rr.step * rr.step);
  // A kernel-wide cap (the maxnreg launch option) is what the CTA starts
  // with, so it is also the pool the partitions share: planning from the
  // register file instead would have the kernel's warps ask for registers
  // no one returns, and setmaxnreg.inc waits for them forever.
  auto module = front->getParentOfType<ModuleOp>();
  if (IntegerAttr cap = module ? TileDialect::MaxnregAttrHelper(front->getContext())
                                     .getAttr(module)
                               : IntegerAttr()) {
    int capped = int(cap.getInt()) / rr.step * rr.step;
    if (capped < rr.minRegs) {
      if (diag)
        front.emitOpError() << "partition_num_regs need at least " << rr.minRegs
                            << " registers per thread to start from, but the "
                               "kernel's maxnreg is "
                            << cap.getInt();
      return failure();
    }
    plan.kernelRegs = std::min(plan.kernelRegs, capped);
  }
  plan.groupRegs.assign(plan.workerWarps / group, rr.minRegs);
  SmallVector<SmallVector<int>> want;
  for (WarpSpecializeOp op : ops) {
    want.emplace_back();
    ArrayRef<int32_t> asked = *op.getPartitionNumRegs();
    for (int32_t r : asked)
      want.back().push_back(std::clamp<int>(llvm::alignTo(r, rr.step),
                                            rr.minRegs, rr.maxRegs));
  }
  // Counts only grow, so this settles.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [constOp, wants] : llvm::zip(ops, want)) {
      WarpSpecializeOp op = constOp;
      SmallVector<int> starts = op.getPartitionFirstWarps(numWarps);
      for (auto [k, n] : llvm::enumerate(op.getPartitionNumWarps())) {
        int first = starts[k] - numWarps;
        int lo = first / group, hi = (first + n - 1) / group;
        for (int g = lo; g <= hi; ++g)
          wants[k] = std::max(wants[k], plan.groupRegs[g]);
        for (int g = lo; g <= hi; ++g)
          if (plan.groupRegs[g] != wants[k]) {
            plan.groupRegs[g] = wants[k];
            changed = true;
          }
      }
    }
  }
  int64_t left = int64_t(plan.kernelRegs) * total * warpSize;
  for (int regs : plan.groupRegs)
    left -= int64_t(regs) * group * warpSize;
  int64_t each = left > 0 ? left / (numWarps * warpSize) / rr.step * rr.step
                          : 0;
  plan.defaultRegs = int(std::min<int64_t>(each, rr.maxRegs));
  if (plan.defaultRegs < rr.minRegs) {
    if (diag) {
      InFlightDiagnostic d = front.emitOpError()
                             << "partition_num_regs leave the kernel's "
                             << numWarps << " warps " << std::max<int64_t>(each, 0)
                             << " registers per thread, below the "
                             << rr.minRegs << " a warp group must keep: the "
                             << plan.groupRegs.size()
                             << " worker warp groups ask for";
      for (int regs : plan.groupRegs)
        d << " " << regs;
      d << " of the " << rr.registersPerCTA << " registers of a CTA";
      if (ops.size() > 1)
        d << " (the most any of the kernel's " << ops.size()
          << " warp_specialize ops asks of each)";
    }
    return failure();
  }
  return plan;
}

/// The kernel's warp_specialize ops in program order (none is inside
/// another's partition: the verifier says so).
SmallVector<WarpSpecializeOp> collectInOrder(Operation *root) {
  SmallVector<WarpSpecializeOp> ops;
  root->walk<WalkOrder::PreOrder>([&](WarpSpecializeOp op) {
    ops.push_back(op);
    return WalkResult::skip();
  });
  return ops;
}

} // namespace

FailureOr<int> kiln::prepareWarpSpecialize(ModuleOp module,
                                           const TargetInfo &target,
                                           int numWarps, int warpSize) {
  int total = numWarps;
  for (auto func : module.getOps<FunctionOpInterface>()) {
    SmallVector<WarpSpecializeOp> ops = collectInOrder(func);
    if (ops.empty())
      continue;
    if (!target.hasNamedBarriers())
      return ops.front().emitOpError()
             << "is not supported on " << target.getDesc().name
             << ": it needs barriers of a subset of the warps";
    FailureOr<RegisterPlan> plan =
        planRegisters(ops, target, numWarps, warpSize, /*diag=*/true);
    if (failed(plan))
      return failure();
    int warps = numWarps + plan->workerWarps;
    if (warps * warpSize > 1024) {
      // The op asking for the most warps.
      WarpSpecializeOp widest = ops.front();
      for (WarpSpecializeOp op : ops)
        if (op.getTotalNumWarps(numWarps) > widest.getTotalNumWarps(numWarps))
          widest = op;
      int workers = 0;
      for (int32_t n : widest.getPartitionNumWarps())
        workers += n;
      return widest.emitOpError()
             << "launches " << warps << " warps (" << numWarps
             << " of the kernel's plus the partitions'"
             << (warps != numWarps + workers ? ", padded to whole warp groups"
                                              : "")
             << "), over the 1024 threads of a CTA";
    }
    total = std::max(total, warps);
    for (WarpSpecializeOp op : ops) {
      if (op.getPartitionRegions().size() > 14)
        return op.emitOpError() << "has " << op.getPartitionRegions().size()
                                << " worker partitions; the 16 named barriers "
                                   "allow at most 14";
      SmallVector<IRMapping> loaded;
      if (failed(passCaptures(op, target, loaded)))
        return failure();
      for (auto [r, region] : llvm::enumerate(op.getPartitionRegions())) {
        Rematerializer remat(region, region.getRegionNumber(), loaded[r]);
        if (failed(remat.run()))
          return failure();
      }
      TileDialect::PartitionsPreparedAttrHelper(op->getContext())
          .setAttr(op, UnitAttr::get(op->getContext()));
    }
  }
  return total;
}

bool kiln::isWarpSpecializePrepared(Operation *op) {
  return TileDialect::PartitionsPreparedAttrHelper(op->getContext())
      .isAttrPresent(op);
}

void kiln::configureWarpSpecializeLegality(ConversionTarget &target) {
  target.addDynamicallyLegalOp<WarpSpecializeOp>(
      [](Operation *op) {
        return TileDialect::RegionsConvertedAttrHelper(op->getContext())
            .isAttrPresent(op);
      });
  target.addDynamicallyLegalOp<WarpYieldOp>([](WarpYieldOp op) {
    return llvm::all_of(op.getValues().getTypes(), [](Type t) {
      return LLVM::isCompatibleType(t);
    });
  });
}

void kiln::populateWarpSpecializeOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeRegionTypes, WarpYieldTypes>(converter);
}

/// Lowers the warp_specialize ops of one kernel (`ops`, in program order).
/// The worker warps branch off at entry, set their registers once, and then
/// wait at the start barrier, which tells them which op the kernel's warps
/// reached (or that they returned): their partition of it (or none), the end
/// barrier, and back to waiting. The kernel's warps meet them at the same
/// two barriers around each op's default region, however often it runs.
static LogicalResult lowerKernel(LLVM::LLVMFuncOp func,
                                 ArrayRef<WarpSpecializeOp> ops,
                                 const TargetInfo &target, int numWarps,
                                 int warpSize) {
  WarpSpecializeOp front = ops.front();
  Location loc = front.getLoc();
  FailureOr<RegisterPlan> plan =
      planRegisters(ops, target, numWarps, warpSize, /*diag=*/false);
  if (failed(plan))
    return front.emitOpError() << "has no register plan";
  int total = numWarps + plan->workerWarps;
  OpBuilder b(func->getContext());
  auto module = func->getParentOfType<ModuleOp>();
  if (!module->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
    return front.emitOpError()
           << "has no dispatch word in shared memory assigned; run "
              "tile-allocate-shared-memory first";
  declareSharedMemory(module);

  SmallVector<LLVM::ReturnOp> returns;
  for (Block &block : func.getBody())
    if (!block.empty())
      if (auto ret = dyn_cast<LLVM::ReturnOp>(block.back()))
        returns.push_back(ret);

  // CTA barriers order their partition only; threads count from its start.
  SmallVector<Operation *> barriers, threadIds;
  func.walk([&](Operation *inner) {
    if (target.isCTABarrier(inner))
      barriers.push_back(inner);
    else if (target.isThreadIdRead(inner))
      threadIds.push_back(inner);
  });
  for (Operation *barrier : barriers) {
    auto [ws, index] = enclosingWorkerPartition(barrier);
    b.setInsertionPoint(barrier);
    int warps = ws ? cast<WarpSpecializeOp>(ws).getRegionNumWarps(index, numWarps)
                   : numWarps;
    target.namedBarrier(b, barrier->getLoc(), index == 0 ? 0 : 1 + index,
                        warps * warpSize);
    barrier->erase();
  }
  for (Operation *read : threadIds) {
    auto [ws, index] = enclosingWorkerPartition(read);
    if (!ws || index == 0)
      continue;
    b.setInsertionPointAfter(read);
    Value tid = read->getResult(0);
    Value first = i32Const(
        b, read->getLoc(),
        cast<WarpSpecializeOp>(ws).getRegionFirstWarp(index, numWarps) *
            warpSize);
    auto rebased = LLVM::SubOp::create(b, read->getLoc(), tid, first);
    tid.replaceAllUsesExcept(rebased, rebased);
  }

  // A new entry block: the kernel's warps go on, the others dispatch.
  Region &body = func.getBody();
  Block *oldEntry = &body.front();
  auto *entry = new Block();
  body.push_front(entry);
  for (BlockArgument arg : oldEntry->getArguments())
    arg.replaceAllUsesWith(
        entry->addArgument(arg.getType(), arg.getLoc()));
  oldEntry->eraseArguments(0, oldEntry->getNumArguments());
  b.setInsertionPointToStart(entry);
  Value warp = target.warpId(b, loc);
  auto below = [&](int n) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, warp,
                                i32Const(b, loc, n));
  };
  auto *dispatch = new Block();
  body.push_back(dispatch);
  Value isKernelWarp = below(numWarps);
  target.atWorkerSplit(
      b, loc,
      LLVM::XOrOp::create(b, loc, isKernelWarp,
                          LLVM::ConstantOp::create(b, loc, b.getI1Type(),
                                                   b.getBoolAttr(true))),
      func);
  LLVM::CondBrOp::create(b, loc, isKernelWarp, oldEntry, dispatch);
  if (plan->kernelRegs) {
    target.limitKernelRegisters(func, plan->kernelRegs);
    if (plan->defaultRegs != plan->kernelRegs) {
      b.setInsertionPointToStart(oldEntry);
      target.setMaxRegisters(b, loc, plan->kernelRegs, plan->defaultRegs);
    }
  }

  auto yieldsTo = [&](Region &region, Block *dest) {
    SmallVector<WarpYieldOp> yields;
    for (Block &block : region)
      if (auto y = dyn_cast<WarpYieldOp>(block.getTerminator()))
        yields.push_back(y);
    for (WarpYieldOp y : yields) {
      OpBuilder at(y);
      LLVM::BrOp::create(at, y.getLoc(), y.getValues(), dest);
      y.erase();
    }
  };

  // The kernel's returns (collected before any block was added): before
  // each, the kernel's warps release the workers (call 0: return).
  unsigned bar = total * warpSize;
  auto i32Ty = b.getI32Type();
  // The kernel's warps name the call that comes next (1-based; 0: return):
  // their thread 0 writes it into the dispatch word, then they meet the
  // workers at the start barrier, after which the workers read it. Each side
  // reaches that barrier at its own instructions, so it is a plain barrier:
  // not one the target requires every thread to reach at one instruction,
  // nor a reduction barrier that counts the call (a synchronization checker
  // stops a kernel whose threads meet at one from different instructions;
  // docs/gpu-testing.md). The start is two barriers: a race checker reported
  // the word read after one alone as a race with its write before it, and
  // not after a second (the scalars passed through the op's scratch are
  // likewise stored before both and loaded after). The word is written again
  // only after the call's end barrier, which every worker reaches after
  // reading it.
  // Thread 0's store is predicated where the target can (a branch on the
  // thread index can make the target's assembler treat the default region
  // after it as divergent).
  auto announce = [&](OpBuilder &at, Location l, unsigned call) {
    Value first = LLVM::ICmpOp::create(at, l, LLVM::ICmpPredicate::eq,
                                       target.threadId(at, l),
                                       i32Const(at, l, 0));
    Value word = getScratchBase(at, l, module);
    if (!target.storeSharedPredicated(at, l, word, i32Const(at, l, call),
                                      first)) {
      Block *here = at.getBlock();
      Block *rest = here->splitBlock(at.getInsertionPoint());
      auto *write = new Block();
      body.getBlocks().insert(rest->getIterator(), write);
      at.setInsertionPointToEnd(here);
      LLVM::CondBrOp::create(at, l, first, write, rest);
      at.setInsertionPointToStart(write);
      LLVM::StoreOp::create(at, l, i32Const(at, l, call), word);
      LLVM::BrOp::create(at, l, rest);
      at.setInsertionPointToStart(rest);
    }
    target.namedBarrier(at, l, kPartitionBarrier, bar,
                        /*sameInstruction=*/false);
    target.namedBarrier(at, l, kPartitionBarrier, bar,
                        /*sameInstruction=*/false);
  };
  for (LLVM::ReturnOp ret : returns) {
    OpBuilder at(ret);
    announce(at, ret.getLoc(), 0);
  }

  // The kernel's warps, at each op: start barrier (announcing the call), the
  // default region, end barrier. The default region's yielded values reach
  // what follows as arguments of the block after it (the op's results).
  // Scalars passed through the op's scratch are stored by the kernel's warps
  // before the start barrier and loaded by the workers after it.
  for (size_t n = 0; n < ops.size(); ++n) {
    WarpSpecializeOp op = ops[n];
    Location opLoc = op.getLoc();
    Block *before = op->getBlock();
    Block *after = before->splitBlock(std::next(op->getIterator()));
    for (Value result : op->getResults())
      result.replaceAllUsesWith(after->addArgument(result.getType(), opLoc));
    Block *defaultEntry = &op.getDefaultRegion().front();
    yieldsTo(op.getDefaultRegion(), after);
    body.getBlocks().splice(after->getIterator(),
                            op.getDefaultRegion().getBlocks());
    OpBuilder k(op);
    announce(k, opLoc, n + 1);
    LLVM::BrOp::create(k, opLoc, defaultEntry);
    k.setInsertionPointToStart(after);
    target.namedBarrier(k, opLoc, kPartitionBarrier, bar,
                          /*sameInstruction=*/false);
  }

  // The worker warps, in components: warp groups that hold one partition (in
  // any op) share its code, the others get a copy each of the waiting loop
  // below with only their own partitions in it. The target's assembler
  // allocates a path's registers for every count that reaches it: a group's
  // count is kept only when the code after it is that group's alone (one loop
  // for all would carry a consumer's code past a producer's decrease, which
  // the assembler then ignores). Without reallocation, one component.
  int group = plan->kernelRegs ? target.registerReallocation().groupWarps
                               : plan->workerWarps;
  int numGroups = group ? plan->workerWarps / group : 0;
  SmallVector<int> joinedToNext(numGroups, 0);
  for (WarpSpecializeOp op : ops) {
    SmallVector<int> starts = op.getPartitionFirstWarps(numWarps);
    for (auto [k, n] : llvm::enumerate(op.getPartitionNumWarps())) {
      int lo = (starts[k] - numWarps) / group;
      int hi = (starts[k] - numWarps + n - 1) / group;
      for (int g = lo; g < hi; ++g)
        joinedToNext[g] = 1;
    }
  }
  struct Component {
    int first, end; // worker warps [first, end)
    int regs;
  };
  SmallVector<Component> components;
  for (int g = 0; g < numGroups; ++g) {
    int first = numWarps + g * group;
    if (g > 0 && joinedToNext[g - 1])
      components.back().end = first + group;
    else
      components.push_back(
          {first, first + group, plan->kernelRegs ? plan->groupRegs[g] : 0});
  }

  auto *done = new Block(); // placed after the first waiting loop's block

  b.setInsertionPointToStart(dispatch);
  // Without reallocation the workers' count is the kernel's from the start.
  if (!plan->kernelRegs)
    target.atWorkerEntry(b, loc, func);
  for (auto [c, comp] : llvm::enumerate(components)) {
    // Entry of this component: its register count, then its waiting loop.
    auto *wait = new Block();
    Block *entry = plan->kernelRegs ? new Block() : wait;
    if (entry != wait)
      body.push_back(entry);
    body.push_back(wait);
    if (c == 0) {
      body.push_back(done);
      OpBuilder ret = OpBuilder::atBlockEnd(done);
      LLVM::ReturnOp::create(ret, loc, ValueRange{});
    }
    if (c + 1 == components.size()) {
      LLVM::BrOp::create(b, loc, entry);
    } else {
      auto *nextComponent = new Block();
      body.push_back(nextComponent);
      LLVM::CondBrOp::create(b, loc, below(comp.end), entry, nextComponent);
      b.setInsertionPointToStart(nextComponent);
    }
    OpBuilder w = OpBuilder::atBlockEnd(entry);
    if (entry != wait) {
      target.setMaxRegisters(w, loc, plan->kernelRegs, comp.regs);
      target.atWorkerEntry(w, loc, func);
      LLVM::BrOp::create(w, loc, wait);
    }

    // The workers wait for the next call at its start barrier, which says
    // which call it is (any number of times, in any order: a call may sit in
    // a loop or a branch), take part in it and come back; on 0 they return.
    w.setInsertionPointToStart(wait);
    target.namedBarrier(w, loc, kPartitionBarrier, bar,
                        /*sameInstruction=*/false);
    target.namedBarrier(w, loc, kPartitionBarrier, bar,
                        /*sameInstruction=*/false);
    Value call =
        LLVM::LoadOp::create(w, loc, i32Ty, getScratchBase(w, loc, module));
    auto is = [&](OpBuilder &at, unsigned k) {
      return LLVM::ICmpOp::create(at, loc, LLVM::ICmpPredicate::eq, call,
                                  i32Const(at, loc, k));
    };
    auto *next = new Block();
    body.push_back(next);
    LLVM::CondBrOp::create(w, loc, is(w, 0), done, next);
    w.setInsertionPointToStart(next);

    for (size_t n = 0; n < ops.size(); ++n) {
      WarpSpecializeOp op = ops[n];
      Location opLoc = op.getLoc();
      unsigned number = n + 1;
      // The workers of this component, when the call is this one: their
      // partition by warp index (warps of no partition none), then the end
      // barrier and back to waiting.
      auto *start = new Block(), *exit = new Block();
      body.push_back(start);
      body.push_back(exit);
      if (number == ops.size()) {
        LLVM::BrOp::create(w, opLoc, start);
      } else {
        auto *other = new Block();
        body.push_back(other);
        LLVM::CondBrOp::create(w, opLoc, is(w, number), start, other);
        w.setInsertionPointToStart(other);
      }
      OpBuilder p = OpBuilder::atBlockEnd(start);
      SmallVector<int> starts = op.getPartitionFirstWarps(numWarps);
      SmallVector<unsigned> byStart;
      for (unsigned i = 0; i < starts.size(); ++i)
        if (starts[i] >= comp.first && starts[i] < comp.end)
          byStart.push_back(i);
      llvm::sort(byStart,
                 [&](unsigned x, unsigned y) { return starts[x] < starts[y]; });
      int cursor = comp.first;
      auto branchOn = [&](Value cond, Block *taken) {
        auto *nextCheck = new Block();
        body.getBlocks().insert(exit->getIterator(), nextCheck);
        LLVM::CondBrOp::create(p, opLoc, cond, taken, nextCheck);
        p.setInsertionPointToStart(nextCheck);
      };
      auto belowHere = [&](int count) {
        return LLVM::ICmpOp::create(p, opLoc, LLVM::ICmpPredicate::ult, warp,
                                    i32Const(p, opLoc, count));
      };
      for (unsigned i : byStart) {
        Region &region = op.getPartitionRegions()[i];
        Block *partitionEntry = &region.front();
        yieldsTo(region, exit);
        body.getBlocks().splice(exit->getIterator(), region.getBlocks());
        if (starts[i] > cursor)
          branchOn(belowHere(starts[i]), exit);
        cursor = starts[i] + op.getPartitionNumWarps()[i];
        if (cursor == comp.end && i == byStart.back()) {
          LLVM::BrOp::create(p, opLoc, partitionEntry);
          cursor = -1;
          break;
        }
        branchOn(belowHere(cursor), partitionEntry);
      }
      if (cursor != -1)
        LLVM::BrOp::create(p, opLoc, exit);
      OpBuilder e = OpBuilder::atBlockEnd(exit);
      target.namedBarrier(e, opLoc, kPartitionBarrier, bar,
                          /*sameInstruction=*/false);
      LLVM::BrOp::create(e, opLoc, wait);
    }
  }
  for (WarpSpecializeOp op : ops)
    op->erase();
  return success();
}

LogicalResult kiln::lowerWarpSpecialize(ModuleOp module,
                                        const TargetInfo &target, int numWarps,
                                        int warpSize) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    SmallVector<WarpSpecializeOp> ops = collectInOrder(func);
    if (!ops.empty() &&
        failed(lowerKernel(func, ops, target, numWarps, warpSize)))
      return failure();
  }
  // One left outside a function (the conversion keeps ops in functions).
  WalkResult r = module.walk([&](WarpSpecializeOp op) {
    op.emitOpError() << "is not in a kernel after lowering";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}
