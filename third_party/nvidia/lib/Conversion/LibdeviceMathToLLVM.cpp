//===- LibdeviceMathToLLVM.cpp - math ops as libdevice calls --------------===//
//
// math.erf on f32 is libdevice's erff on NVIDIA targets, as in Triton: a
// call of the declared __nv_erff, which the backend links from the CUDA
// toolkit's bitcode (Target/Libdevice.cpp) and inlines. It outranks the
// core's polynomial approximation (the AMD targets' erf).
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace kiln;

namespace {

struct ErfToLibdevice : public OpConversionPattern<math::ErfOp> {
  ErfToLibdevice(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(math::ErfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    if (op.getType() != f32)
      return failure(); // tensors are split into scalars first
    auto module = op->getParentOfType<ModuleOp>();
    auto fnType = LLVM::LLVMFunctionType::get(f32, {f32});
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>("__nv_erff");
    if (!fn) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), "__nv_erff", fnType);
    } else if (fn.getFunctionType() != fnType) {
      return op.emitOpError() << "'__nv_erff' is already declared as "
                              << fn.getFunctionType();
    }
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, fn, adaptor.getOperand());
    return success();
  }
};

} // namespace

void kiln::populateLibdeviceMathPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ErfToLibdevice>(converter, patterns.getContext());
}
