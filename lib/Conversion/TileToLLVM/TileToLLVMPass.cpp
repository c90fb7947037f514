//===- TileToLLVMPass.cpp - convert-tile-to-llvm driver -------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"

#include "kiln/Conversion/Passes.h"

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

struct ConvertTileToLLVMPass
    : kiln::impl::ConvertTileToLLVMPassBase<ConvertTileToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    FailureOr<CompileContext> context =
        resolveCompileContext(module, target, numWarps, /*requireTarget=*/true);
    if (failed(context))
      return signalPassFailure();
    const TargetDesc *desc = context->target;
    int warps = context->numWarps;
    // Legality before LLVM: layouts must match this target's warps, and
    // only what the lowering supports may reach it.
    if (failed(verifyModuleLayouts(module, warps, desc->warpSize)) ||
        failed(checkSupported(module)))
      return signalPassFailure();
    std::unique_ptr<TargetInfo> targetInfo = createTargetInfo(*desc);
    if (!targetInfo) {
      module.emitError() << "the backend for " << desc->name
                         << " is not built into this Kiln";
      return signalPassFailure();
    }

    // Shared memory: one dynamically sized array; the launch passes its size.
    int64_t shared = 0;
    if (auto a = module->getAttrOfType<IntegerAttr>(TileDialect::kSharedAttr))
      shared = a.getInt();
    if (shared > 0 && !module.lookupSymbol(LoweringContext::kSharedGlobal)) {
      OpBuilder b(module.getBodyRegion());
      auto arrTy = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
      LLVM::GlobalOp::create(b, module.getLoc(), arrTy, /*isConstant=*/false,
                             LLVM::Linkage::External,
                             LoweringContext::kSharedGlobal, Attribute(),
                             /*alignment=*/16, /*addrSpace=*/3);
    }

    AxisInfoAnalysis &axisInfo = getAnalysis<AxisInfoAnalysis>();
    // Compute the analysis before the IR changes under it.
    module.walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op)) {
        axisInfo.get(load.getPtr());
        if (load.getMask())
          axisInfo.get(load.getMask());
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        axisInfo.get(store.getPtr());
        if (store.getMask())
          axisInfo.get(store.getMask());
      }
    });
    LoweringContext lctx{*targetInfo, warps, int(desc->warpSize), axisInfo};

    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateElementwiseOpToLLVMPatterns(converter, patterns, lctx);
    populateMemoryOpToLLVMPatterns(converter, patterns, lctx);
    populateLayoutOpToLLVMPatterns(converter, patterns, lctx);
    populateReduceOpToLLVMPatterns(converter, patterns, lctx);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget conversionTarget(*ctx);
    conversionTarget.addLegalOp<ModuleOp>();
    conversionTarget.addLegalDialect<NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
    conversionTarget.addIllegalDialect<TileDialect, arith::ArithDialect,
                                       math::MathDialect, cf::ControlFlowDialect,
                                       func::FuncDialect>();
    if (failed(applyPartialConversion(module, conversionTarget,
                                      std::move(patterns))))
      return signalPassFailure();

    // Kernels: every public function. Divisibility hints become alignment.
    unsigned numThreads = warps * desc->warpSize;
    module.walk([&](LLVM::LLVMFuncOp func) {
      // Kernels are the public functions that return nothing.
      if (func.isExternal() || func.isPrivate() ||
          !isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
        return;
      targetInfo->markKernel(func, numThreads);
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        auto div = func.getArgAttrOfType<IntegerAttr>(
            i, TileDialect::kDivisibilityAttr);
        if (!div)
          continue;
        func.removeArgAttr(i, StringAttr::get(ctx, TileDialect::kDivisibilityAttr));
        if (isa<LLVM::LLVMPointerType>(func.getArgumentTypes()[i]))
          func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          IntegerAttr::get(IntegerType::get(ctx, 64),
                                           div.getInt()));
      }
    });
    module->setAttr(TileDialect::kSharedAttr,
                    IntegerAttr::get(IntegerType::get(ctx, 32), shared));
  }
};

} // namespace
