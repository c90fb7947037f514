//===- TileToLLVMPass.cpp - convert-tile-to-llvm driver -------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/BarrierRuns.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Target/Backend.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTTILETOLLVMPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// A shared buffer that control flow chooses or carries (`arg`): every
/// buffer reaching it must be followable and sit at the same place in its
/// slot.
LogicalResult checkSharedPhi(Operation *op, BlockArgument arg) {
  SmallVector<Value, 4> sources;
  if (arg.getOwner()->isEntryBlock() && isa<FunctionOpInterface>(op))
    return emitError(arg.getLoc())
           << "a shared-memory buffer passed as a function argument cannot be "
              "lowered: allocate buffers inside the kernel (helpers are "
              "inlined, so buffers pass to them freely)";
  if (failed(getSharedSources(arg, sources)))
    return emitError(arg.getLoc())
           << "a shared-memory buffer reaches this block argument along a "
              "path Kiln cannot follow (through a region of an op other than "
              "if, for and while): pass buffers through if / for / while "
              "only";
  for (Value s : sources)
    if (getSharedXorOffset(s) != getSharedXorOffset(sources.front()))
      return emitError(arg.getLoc())
             << "the shared-memory buffers chosen here at run time sit at "
                "different places within their slots (subslices at offsets "
                "of element "
             << getSharedXorOffset(sources.front()) << " and "
             << getSharedXorOffset(s)
             << "): choose between whole buffers or ring slots, or between "
                "subslices at the same offsets";
  return success();
}

/// Reports ops the lowering cannot handle, at the op, before any rewriting.
LogicalResult checkSupported(ModuleOp module) {
  WalkResult r = module.walk([](Operation *op) {
    // tf32 has no LLVM type: it is a precision of matrix instructions, not
    // a value format.
    auto isTF32 = [](Type t) { return getElementTypeOrSelf(t).isTF32(); };
    bool tf32 = llvm::any_of(op->getResultTypes(), isTF32);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        tf32 |= llvm::any_of(block.getArgumentTypes(), isTF32);
    if (tf32) {
      op->emitOpError() << "has tf32 values, which kernels cannot hold: use "
                           "f32 (tf32 is a precision of dot, not a type)";
      return WalkResult::interrupt();
    }
    // A shared buffer is an address; one that control flow chooses or
    // carries is a block argument, whose static part (where its elements
    // sit in their slot) every buffer reaching it must share.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments()) {
          if (!isa<MemDescType>(arg.getType()))
            continue;
          if (failed(checkSharedPhi(op, arg)))
            return WalkResult::interrupt();
        }
    if (isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::SinOp,
            math::CosOp, math::RsqrtOp>(op)) {
      Type t = getElementTypeOrSelf(op->getResult(0).getType());
      if (!t.isF16() && !t.isBF16() && !t.isF32()) {
        op->emitOpError() << "is only supported on f16, bf16 and f32 (no "
                             "device math library yet), got "
                          << t;
        return WalkResult::interrupt();
      }
    }
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      Type from = getElementTypeOrSelf(op->getOperand(0).getType());
      Type to = getElementTypeOrSelf(op->getResult(0).getType());
      for (Type t : {from, to})
        if (!LLVM::isCompatibleType(t) && !isFp8FloatCast(from, to)) {
          op->emitOpError() << "converts " << t
                            << ", which Kiln cannot convert (its fp8 "
                               "conversions: f8E4M3FN, f8E5M2, f8E4M3FNUZ, "
                               "f8E5M2FNUZ)";
          return WalkResult::interrupt();
        }
    }
    if (isa<math::ErfOp>(op) &&
        !getElementTypeOrSelf(op->getResult(0).getType()).isF32()) {
      op->emitOpError() << "is only supported on f32 (the DSL computes f16 "
                           "and bf16 in f32), got "
                        << getElementTypeOrSelf(op->getResult(0).getType());
      return WalkResult::interrupt();
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (isa<RankedTensorType>(c.getType()) &&
          !isa<SplatElementsAttr>(c.getValue())) {
        c.emitOpError() << "only splat tensor constants are supported in "
                           "kernels";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// scf-to-cf carries a loop's `llvm.loop_annotation` (set by
/// tile-insert-wait-counts: no unrolling where instruction counts assume it)
/// onto its back-edge branch as a discardable attribute; LLVM translation
/// reads the branch's own loop_annotation.
void adoptLoopAnnotations(ModuleOp module) {
  constexpr StringLiteral kName = "llvm.loop_annotation";
  module.walk([&](Operation *op) {
    auto annotation =
        dyn_cast_or_null<LLVM::LoopAnnotationAttr>(op->getDiscardableAttr(kName));
    if (!annotation)
      return;
    if (auto br = dyn_cast<LLVM::BrOp>(op))
      br.setLoopAnnotationAttr(annotation);
    else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
      condBr.setLoopAnnotationAttr(annotation);
    else
      return;
    op->removeDiscardableAttr(kName);
  });
}

/// The axis analysis reads the tile IR, so it runs before the IR changes.
void precomputeAxisInfo(ModuleOp module, AxisInfoAnalysis &axisInfo) {
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      axisInfo.get(load.getPtr());
      if (load.getMask())
        axisInfo.get(load.getMask());
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      axisInfo.get(store.getPtr());
      if (store.getMask())
        axisInfo.get(store.getMask());
    } else if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
      axisInfo.get(copy.getPtr());
      if (copy.getMask())
        axisInfo.get(copy.getMask());
    } else if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
      // Packed 16-bit float adds ask the pointers' vector width.
      axisInfo.get(rmw.getPtr());
      if (rmw.getMask())
        axisInfo.get(rmw.getMask());
    } else if (isa<AsyncCopyOpInterface, CountedMemoryOpInterface>(op)) {
      // Vendor copies, loads and stores (buffer ops): their addresses,
      // offsets and masks.
      for (Value v : op->getOperands()) {
        Type t = getElementTypeOrSelf(v.getType());
        if (isa<PointerType>(t) || t.isInteger())
          axisInfo.get(v);
      }
    } else if (llvm::any_of(op->getOperandTypes(), [](Type t) {
                 return isa<RankedTensorType>(t) &&
                        isa<PointerType>(getElementTypeOrSelf(t));
               })) {
      // Any other access through a tensor of pointers (a vendor's ordered
      // loads and stores): its pointers and masks.
      for (Value v : op->getOperands()) {
        Type t = getElementTypeOrSelf(v.getType());
        if (isa<RankedTensorType>(v.getType()) &&
            (isa<PointerType>(t) || t.isInteger(1)))
          axisInfo.get(v);
      }
    }
  });
}

/// The async-copy rules with the pointer analysis' widths, before anything
/// is rewritten, so an illegal copy is one diagnostic at the op.
LogicalResult checkAsyncCopies(ModuleOp module, const LoweringContext &lctx) {
  WalkResult r = module.walk([&](AsyncCopyGlobalToLocalOp op) {
    FailureOr<AsyncCopyWidth> width = checkAsyncCopyForLowering(
        op, op.getPointerType(), op.getDst(),
        getGlobalVectorWidth(op.getPtr(), op.getMask(), lctx), op.getOther(),
        lctx);
    if (failed(width))
      return WalkResult::interrupt();
    if (std::optional<std::string> why = lctx.target.asyncCopyCacheError(
            op.getCacheModifier(), width->bytes)) {
      op.emitOpError() << *why;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  r = module.walk([&](AsyncWaitOp op) {
    if (op.getNum())
      return WalkResult::advance();
    op.emitOpError() << "has no count; run tile-insert-wait-counts (part of "
                        "kiln-to-llvm) to compute it from its tokens";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

/// Ops of a vendor's tile dialect (tile_nv, tile_amd) reach the lowering only
/// for that vendor's targets: its TargetInfo marks its dialect illegal (it
/// lowers every op of it). Anywhere else the op is an error, not an op left
/// unconverted.
LogicalResult checkVendorOps(ModuleOp module, const TargetInfo &target) {
  LLVMConversionTarget conversionTarget(*module.getContext());
  target.configureConversionTarget(conversionTarget);
  WalkResult r = module.walk([&](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (!ns.starts_with("tile_") || conversionTarget.isIllegal(op))
      return WalkResult::advance();
    op->emitOpError() << "is an op of the " << ns
                      << " dialect, which targets of "
                      << target.getDesc().name.split(':').first
                      << " cannot lower (it is for another vendor's chips)";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

LogicalResult applyTileToLLVMConversion(ModuleOp module,
                                        const LoweringContext &lctx) {
  MLIRContext *ctx = module.getContext();
  TileTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateTileToLLVMPatterns(converter, patterns, lctx);
  LLVMConversionTarget conversionTarget(*ctx);
  conversionTarget.addLegalOp<ModuleOp>();
  lctx.target.configureConversionTarget(conversionTarget);
  configureWarpSpecializeLegality(conversionTarget);
  conversionTarget
      .addIllegalDialect<TileDialect, arith::ArithDialect, math::MathDialect,
                         cf::ControlFlowDialect, func::FuncDialect>();
  // Buffers chosen or carried by control flow: their static placement as
  // the IR is now, before the conversion detaches their blocks.
  SharedPhiSnapshot phis(module);
  return applyPartialConversion(module, conversionTarget, std::move(patterns));
}

constexpr llvm::StringLiteral kTensorDescArg = "tile.tensordesc";

/// Tensor descriptor parameters were checked and tagged by
/// tile-tag-tensor-desc-params; markKernels hands them to the target.
LogicalResult requireTaggedTensorDescParams(ModuleOp module) {
  WalkResult r = module.walk([&](func::FuncOp func) {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorDescType>(type) && !func.getArgAttr(i, kTensorDescArg)) {
        func.emitError() << "argument " << i << " is a tensor descriptor "
                         << "not checked for the target; run "
                            "tile-tag-tensor-desc-params (part of "
                            "kiln-to-llvm) first";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Kernels are the public functions that return nothing; divisibility hints
/// on their pointer arguments become alignment.
void markKernels(ModuleOp module, const TargetInfo &target,
                 unsigned numThreads) {
  MLIRContext *ctx = module.getContext();
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal() || func.isPrivate() ||
        !isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
      return;
    target.markKernel(func, numThreads);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (func.getArgAttr(i, kTensorDescArg)) {
        func.removeArgAttr(i, StringAttr::get(ctx, kTensorDescArg));
        target.markTensorDescParam(func, i);
      }
      // The pointer range was for the passes before (buffer resources); LLVM
      // has no attribute for it.
      func.removeArgAttr(
          i, StringAttr::get(
                 ctx, TileDialect::PointerRangeAttrHelper::getNameStr()));
      auto div = func.getArgAttrOfType<IntegerAttr>(
          i, TileDialect::DivisibilityAttrHelper::getNameStr());
      if (!div)
        continue;
      func.removeArgAttr(
          i, StringAttr::get(
                 ctx, TileDialect::DivisibilityAttrHelper::getNameStr()));
      if (isa<LLVM::LLVMPointerType>(func.getArgumentTypes()[i]))
        func.setArgAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(),
            IntegerAttr::get(IntegerType::get(ctx, 64), div.getInt()));
    }
  });
}

struct ConvertTileToLLVMPass
    : kiln::impl::ConvertTileToLLVMPassBase<ConvertTileToLLVMPass> {
  using Base::Base;

  /// LLVM plus every built-in backend's LLVM-level dialect: which one the
  /// lowering creates depends on the target, known only when it runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    for (const Backend *backend : getBackends())
      backend->registerDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context =
        resolveCompileContext(module, target, numWarps, /*requireTarget=*/true);
    if (failed(context))
      return signalPassFailure();
    const TargetDesc &desc = *context->target;
    // Legality before LLVM: layouts must match this target's warps, and
    // only what the lowering supports may reach it.
    if (failed(verifyModuleLayouts(module, context->numWarps, desc.warpSize,
                                   desc.maxTensorRegisters, desc.name)) ||
        failed(checkSupported(module)))
      return signalPassFailure();
    std::unique_ptr<TargetInfo> targetInfo = createTargetInfo(desc);
    if (!targetInfo) {
      module.emitError() << "the backend for " << desc.name
                         << " is not built into this Kiln";
      return signalPassFailure();
    }
    // tile-prepare-warp-specialize gave worker partitions their own copies
    // of the values they use, and recorded the warps the kernel launches.
    WalkResult unprepared = module.walk([&](WarpSpecializeOp op) {
      if (isWarpSpecializePrepared(op))
        return WalkResult::advance();
      op.emitOpError() << "is not prepared for the lowering: run "
                          "tile-prepare-warp-specialize first (kiln-to-llvm "
                          "does)";
      return WalkResult::interrupt();
    });
    if (unprepared.wasInterrupted())
      return signalPassFailure();
    IntegerAttr launched =
        TileDialect::TotalNumWarpsAttrHelper(&getContext()).getAttr(module);
    std::optional<int> totalWarps =
        launched ? int(launched.getInt()) : context->numWarps;
    int64_t shared = declareSharedMemory(module);
    AxisInfoAnalysis &axisInfo = getAnalysis<AxisInfoAnalysis>();
    precomputeAxisInfo(module, axisInfo);
    LoweringContext lctx{*targetInfo, context->numWarps, int(desc.warpSize),
                         axisInfo};
    if (failed(checkVendorOps(module, *targetInfo)) ||
        failed(requireTaggedTensorDescParams(module)) ||
        failed(checkAsyncCopies(module, lctx)) ||
        failed(targetInfo->checkBeforeLowering(module, lctx)))
      return signalPassFailure();
    // Runs of barrier inits and invalidates share one CTA barrier; which
    // ones do is decided on the ops' neighbours before they are converted.
    markBarrierRuns(module);
    if (failed(applyTileToLLVMConversion(module, lctx)))
      return signalPassFailure();
    adoptLoopAnnotations(module);
    markKernels(module, *targetInfo, *totalWarps * desc.warpSize);
    // The maxnreg launch option caps every kernel's registers (a cap never
    // raises one warp specialization already set).
    IntegerAttr cap =
        TileDialect::MaxnregAttrHelper(&getContext()).getAttr(module);
    if (cap && !targetInfo->hasKernelRegisterCap()) {
      module.emitError() << "maxnreg (tile.maxnreg): " << desc.name
                         << " has no per-kernel register cap";
      return signalPassFailure();
    }
    if (cap)
      module.walk([&](LLVM::LLVMFuncOp func) {
        if (func.isExternal() || func.isPrivate())
          return;
        targetInfo->limitKernelRegisters(func, cap.getInt());
      });
    TileDialect::SharedAttrHelper(&getContext())
        .setAttr(module,
                 IntegerAttr::get(IntegerType::get(&getContext(), 32), shared));
  }
};

} // namespace

/// Shared memory: one dynamically sized array; the launch passes its size.
/// Returns the module's byte count (tile.shared).
int64_t kiln::declareSharedMemory(ModuleOp module) {
  int64_t shared = 0;
  if (IntegerAttr a =
          TileDialect::SharedAttrHelper(module->getContext()).getAttr(module))
    shared = a.getInt();
  if (shared > 0 && !module.lookupSymbol(LoweringContext::kSharedGlobal)) {
    // The buffers' offsets are aligned as their layouts need; so must be
    // the base.
    unsigned alignment = 16;
    module.walk([&](LocalAllocOp alloc) {
      alignment = std::max(alignment, getRequiredAlignment(alloc.getType()));
    });
    OpBuilder b(module.getBodyRegion());
    auto arrTy = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    LLVM::GlobalOp::create(b, module.getLoc(), arrTy, /*isConstant=*/false,
                           LLVM::Linkage::External,
                           LoweringContext::kSharedGlobal, Attribute(),
                           alignment, /*addrSpace=*/3);
  }
  return shared;
}


FailureOr<AsyncCopyWidth> kiln::checkAsyncCopyForLowering(
    Operation *op, RankedTensorType ptrType, Value dst, unsigned pointerElements,
    Value other, const LoweringContext &lctx) {
  return checkAsyncCopyLowerable(
      lctx.target.getDesc(), ptrType, cast<MemDescType>(dst.getType()),
      getSharedBaseAlignment(dst), getSharedXorOffset(dst), pointerElements,
      other && !isZeroConstant(other), [&] { return op->emitOpError(); });
}

void kiln::populateTileToLLVMPatterns(TileTypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      const LoweringContext &ctx) {
  populateElementwiseOpToLLVMPatterns(converter, patterns, ctx);
  populateExternElementwiseOpToLLVMPatterns(converter, patterns, ctx);
  populateInlineAsmOpToLLVMPatterns(converter, patterns, ctx);
  populateMemoryOpToLLVMPatterns(converter, patterns, ctx);
  populateAtomicOpToLLVMPatterns(converter, patterns, ctx);
  populateLayoutOpToLLVMPatterns(converter, patterns, ctx);
  populateReduceOpToLLVMPatterns(converter, patterns, ctx);
  populateGatherOpToLLVMPatterns(converter, patterns, ctx);
  populateHistogramOpToLLVMPatterns(converter, patterns, ctx);
  populateDotFmaOpToLLVMPatterns(converter, patterns, ctx);
  populateSharedMemoryOpToLLVMPatterns(converter, patterns, ctx);
  populateSharedIndexOpToLLVMPatterns(converter, patterns, ctx);
  populateAsyncCopyOpToLLVMPatterns(converter, patterns, ctx);
  populateWarpSpecializeOpToLLVMPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  ctx.target.populatePatterns(converter, patterns, ctx);
}
