//===- ElementwiseOpToLLVM.cpp - arith / math on tensors ------------------===//
//
// An arith or math op on tensors becomes the same op once per register; the
// scalar ops are then lowered by the upstream arith/math patterns, except
// transcendental math, which goes through the target's fast f32 functions,
// and erf, expanded into a polynomial by MLIR's approximation pattern (a
// backend may outrank it with its device library's function).
// Inline assembly over elements runs once per `pack` registers.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// tile.inline_asm_elementwise: one asm statement per `pack` registers of
/// each operand; elements narrower than 32 bits travel packed, as vectors
/// of up to 32 bits, in the order outputs then inputs.
struct InlineAsmOpConversion : public TileOpConversion<InlineAsmOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(InlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned pack = op.getPack();
    auto type0 = cast<RankedTensorType>(op.getResults().front().getType());
    FailureOr<LinearLayout> ll =
        getLinearLayout(type0, [&] { return op.emitOpError(); });
    if (failed(ll))
      return failure();
    unsigned numRegs = ll->getInSize(LinearLayout::Register);
    if (numRegs % pack)
      return op.emitOpError()
             << "each thread holds " << numRegs << " elements of " << type0
             << ", which pack " << pack << " does not divide";
    SmallVector<SmallVector<Value>> ins;
    for (Value v : adaptor.getArgs())
      ins.push_back(unpackStruct(rewriter, loc, v));
    auto perReg = [&](Type t) -> unsigned {
      if (!t.isIntOrFloat())
        return 1; // a pointer: one address register per element
      unsigned bits = t.getIntOrFloatBitWidth();
      return bits < 32 && pack > 1 ? std::min(pack, 32 / bits) : 1;
    };
    auto regType = [&](Type t) -> Type {
      unsigned n = perReg(t);
      return n > 1 ? VectorType::get({int64_t(n)}, t) : t;
    };
    SmallVector<Type> outElems, asmTypes;
    for (Type t : op.getResults().getTypes()) {
      Type elt = getTypeConverter()->convertType(
          cast<RankedTensorType>(t).getElementType());
      outElems.push_back(elt);
      for (unsigned k = 0; k < pack / perReg(elt); ++k)
        asmTypes.push_back(regType(elt));
    }
    // One statement's inputs: each operand's registers of a pack.
    SmallVector<Type> inTypes;
    for (auto &regs : ins) {
      Type elt = regs.front().getType();
      for (unsigned k = 0; k < pack / perReg(elt); ++k)
        inTypes.push_back(regType(elt));
    }
    if (failed(checkInlineAsmConstraints(op, op.getConstraints(), asmTypes,
                                         inTypes)))
      return failure();
    Type resultTy = asmTypes.size() == 1
                        ? asmTypes.front()
                        : LLVM::LLVMStructType::getLiteral(getContext(), asmTypes);
    SmallVector<SmallVector<Value>> outs(outElems.size(),
                                         SmallVector<Value>(numRegs));
    for (unsigned g = 0; g < numRegs; g += pack) {
      SmallVector<Value> operands;
      for (auto &regs : ins) {
        Type elt = regs.front().getType();
        unsigned n = perReg(elt);
        for (unsigned k = 0; k < pack / n; ++k) {
          if (n == 1) {
            operands.push_back(regs[g + k]);
            continue;
          }
          Value vec = LLVM::PoisonOp::create(rewriter, loc, regType(elt));
          for (unsigned j = 0; j < n; ++j)
            vec = LLVM::InsertElementOp::create(rewriter, loc, vec,
                                                regs[g + k * n + j],
                                                i32Const(rewriter, loc, j));
          operands.push_back(vec);
        }
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, resultTy, operands, op.getAsmString(),
          op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr());
      unsigned field = 0;
      for (auto [r, elt] : llvm::enumerate(outElems)) {
        unsigned n = perReg(elt);
        for (unsigned k = 0; k < pack / n; ++k) {
          Value v = asmTypes.size() == 1
                        ? asmOp.getResult(0)
                        : LLVM::ExtractValueOp::create(rewriter, loc,
                                                       asmOp.getResult(0), field)
                              .getResult();
          ++field;
          for (unsigned j = 0; j < n; ++j)
            outs[r][g + k * n + j] =
                n == 1 ? v
                       : LLVM::ExtractElementOp::create(
                             rewriter, loc, v, i32Const(rewriter, loc, j))
                             .getResult();
        }
      }
    }
    SmallVector<Value> results;
    for (auto [r, t] : llvm::enumerate(op.getResults().getTypes()))
      results.push_back(packStruct(rewriter, loc,
                                   getTypeConverter()->convertType(t), outs[r]));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ElementwiseTensorOpConversion : public ConversionPattern {
  ElementwiseTensorOpConversion(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto resTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resTy)
      return failure();
    Type structTy = getTypeConverter()->convertType(resTy);
    if (!structTy)
      return rewriter.notifyMatchFailure(op, "unsupported tensor type");
    Location loc = op->getLoc();
    SmallVector<SmallVector<Value>> regs;
    for (Value v : operands)
      regs.push_back(getRegisters(rewriter, loc, v));
    unsigned n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    SmallVector<Value> results;
    if (isa<arith::SelectOp>(op) &&
        !LLVM::isCompatibleType(resTy.getElementType())) {
      // A pick between fp8 values: their bits (the upstream pattern wants an
      // LLVM float type).
      for (unsigned i = 0; i < n; ++i) {
        auto reg = [&](unsigned k) {
          return regs[k].size() == 1 ? regs[k][0] : regs[k][i];
        };
        results.push_back(
            LLVM::SelectOp::create(rewriter, loc, reg(0), reg(1), reg(2)));
      }
      rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, results));
      return success();
    }
    for (unsigned i = 0; i < n; ++i) {
      OperationState state(loc, op->getName());
      for (auto &r : regs)
        state.addOperands(r.size() == 1 ? r[0] : r[i]);
      state.addTypes(resTy.getElementType());
      state.addAttributes(op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, results));
    return success();
  }
};

struct TensorConstantConversion
    : public ConvertOpToLLVMPattern<arith::ConstantOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  /// A float constant of a type LLVM has no float for (fp8, which the
  /// lowering keeps as its bits, i8): the integer of the same bits. Folding
  /// a bitcast of an integer constant makes these.
  static Value bitsConstant(OpBuilder &b, Location loc, Type llvmType,
                            Attribute value) {
    auto f = dyn_cast<FloatAttr>(value);
    if (!f || LLVM::isCompatibleType(f.getType()) ||
        !isa<IntegerType>(llvmType))
      return Value();
    return LLVM::ConstantOp::create(
        b, loc, llvmType,
        b.getIntegerAttr(llvmType, f.getValue().bitcastToAPInt()));
  }

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ty = dyn_cast<RankedTensorType>(op.getType());
    if (!ty) {
      Type llvmType = getTypeConverter()->convertType(op.getType());
      Value bits = llvmType ? bitsConstant(rewriter, op.getLoc(), llvmType,
                                           op.getValue())
                            : Value();
      if (!bits)
        return failure();
      rewriter.replaceOp(op, bits);
      return success();
    }
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return op.emitOpError()
             << "only splat tensor constants are supported in kernels";
    Type structTy = getTypeConverter()->convertType(ty);
    if (!structTy)
      return failure();
    Type elemTy = cast<LLVM::LLVMStructType>(structTy).getBody().front();
    Value scalar =
        bitsConstant(rewriter, op.getLoc(), elemTy,
                     splat.getSplatValue<Attribute>());
    if (!scalar)
      scalar = LLVM::ConstantOp::create(rewriter, op.getLoc(),
                                        ty.getElementType(),
                                        splat.getSplatValue<Attribute>());
    unsigned n = cast<LLVM::LLVMStructType>(structTy).getBody().size();
    SmallVector<Value> regs(n, scalar);
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(), structTy, regs));
    return success();
  }
};

/// exp, exp2, log, log2, sin, cos, rsqrt on f16 / bf16 / f32 through the
/// target's f32 functions; exp and log by change of base.
template <typename MathOp>
struct FastMathConversion : public ConvertOpToLLVMPattern<MathOp> {
  FastMathConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx,
                     StringRef fn)
      : ConvertOpToLLVMPattern<MathOp>(tc, /*benefit=*/2), ctx(ctx), fn(fn) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type t = op.getType();
    if (isa<ShapedType>(t))
      return failure();
    // Other types are rejected before the conversion (checkSupported).
    if (!t.isF16() && !t.isBF16() && !t.isF32())
      return rewriter.notifyMatchFailure(op, "unsupported float type");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = adaptor.getOperand();
    if (t != f32)
      x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
    auto cst = [&](double v) {
      return LLVM::ConstantOp::create(rewriter, loc, f32,
                                      rewriter.getF32FloatAttr(v));
    };
    StringRef base = fn;
    if (fn == "exp") {
      x = LLVM::FMulOp::create(rewriter, loc, x, cst(1.4426950408889634));
      base = "exp2";
    } else if (fn == "log") {
      base = "log2";
    }
    Value r = ctx.target.mathF32(rewriter, loc, base, x);
    if (!r)
      return op.emitOpError() << "has no lowering on "
                              << ctx.target.getDesc().name;
    if (fn == "log")
      r = LLVM::FMulOp::create(rewriter, loc, r, cst(0.6931471805599453));
    if (t != f32)
      r = LLVM::FPTruncOp::create(rewriter, loc, t, r);
    rewriter.replaceOp(op, r);
    return success();
  }

  const LoweringContext &ctx;
  std::string fn;
};

/// An f32 division whose quotient may be approximate (fastmath `afn`, set by
/// the DSL's `/` as Triton allows) by the target's fast division; where the
/// target has none, or the flag is absent, an IEEE division (the flag is not
/// passed on: LLVM would pick its own approximation).
struct DivFConversion : public ConvertOpToLLVMPattern<arith::DivFOp> {
  DivFConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern<arith::DivFOp>(tc, /*benefit=*/2), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Value r;
    if (bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      r = ctx.target.divideF32Approx(rewriter, op.getLoc(), adaptor.getLhs(),
                                     adaptor.getRhs());
    if (!r)
      r = LLVM::FDivOp::create(rewriter, op.getLoc(), adaptor.getLhs(),
                               adaptor.getRhs());
    rewriter.replaceOp(op, r);
    return success();
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateElementwiseOpToLLVMPatterns(TileTypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               const LoweringContext &ctx) {
  MLIRContext *mctx = patterns.getContext();
  patterns.add<ElementwiseTensorOpConversion>(converter, mctx);
  populateFp8ConversionPatterns(converter, patterns, ctx);
  patterns.add<TensorConstantConversion>(converter, /*benefit=*/10);
  patterns.add<InlineAsmOpConversion>(converter, ctx);
  patterns.add<DivFConversion>(converter, ctx);
  patterns.add<FastMathConversion<math::ExpOp>>(converter, ctx, "exp");
  patterns.add<FastMathConversion<math::Exp2Op>>(converter, ctx, "exp2");
  patterns.add<FastMathConversion<math::LogOp>>(converter, ctx, "log");
  patterns.add<FastMathConversion<math::Log2Op>>(converter, ctx, "log2");
  patterns.add<FastMathConversion<math::SinOp>>(converter, ctx, "sin");
  patterns.add<FastMathConversion<math::CosOp>>(converter, ctx, "cos");
  patterns.add<FastMathConversion<math::RsqrtOp>>(converter, ctx, "rsqrt");
  // erf (f32; the DSL computes f16/bf16 in f32): MLIR's polynomial
  // approximation into arith/math ops the patterns above lower.
  populatePolynomialApproximateErfPattern(patterns);
}
