//===- ExternElementwiseOpToLLVM.cpp - library functions over elements ----===//
//
// tile.extern_elementwise becomes one call of its symbol per register the
// thread holds (one call for scalars), to a function declared once in the
// module; the backend links the library that defines it
// (Backend::linkLibraries). A symbol declared earlier with another
// signature is an error at the op.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct ExternElementwiseOpConversion
    : public TileOpConversion<ExternElementwiseOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto elementOf = [&](Type t) {
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        t = tensor.getElementType();
      return getTypeConverter()->convertType(t);
    };
    SmallVector<Type> argTypes;
    for (Value v : op.getArgs())
      argTypes.push_back(elementOf(v.getType()));
    Type resultElement = elementOf(op.getType());
    auto fnType = LLVM::LLVMFunctionType::get(resultElement, argTypes);
    auto module = op->getParentOfType<ModuleOp>();
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(op.getSymbol());
    if (fn && fn.getFunctionType() != fnType)
      return op.emitOpError()
             << "'" << op.getSymbol() << "' is already declared as "
             << fn.getFunctionType() << ", not " << fnType;
    if (!fn) {
      if (module.lookupSymbol(op.getSymbol()))
        return op.emitOpError() << "'" << op.getSymbol()
                                << "' names something else in the module";
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(rewriter, loc, op.getSymbol(), fnType);
    }
    auto call = [&](ValueRange args) {
      return LLVM::CallOp::create(rewriter, loc, fn, args).getResult();
    };
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, call(adaptor.getArgs()));
      return success();
    }
    SmallVector<SmallVector<Value>> ins;
    for (Value v : adaptor.getArgs())
      ins.push_back(unpackStruct(rewriter, loc, v));
    auto structTy = dyn_cast_or_null<LLVM::LLVMStructType>(
        getTypeConverter()->convertType(op.getType()));
    if (!structTy)
      return op.emitOpError() << "cannot lower a result of type " << op.getType()
                              << " (no distributed layout)";
    unsigned n = structTy.getBody().size();
    SmallVector<Value> outs;
    for (unsigned r = 0; r < n; ++r) {
      SmallVector<Value> args;
      for (auto &regs : ins)
        args.push_back(regs[r]);
      outs.push_back(call(args));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, outs));
    return success();
  }
};

} // namespace

void kiln::populateExternElementwiseOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    const LoweringContext &ctx) {
  patterns.add<ExternElementwiseOpConversion>(converter, ctx);
}
