//===- Fp8Conversions.cpp - fp8 <-> f16 / bf16 / f32 in registers ---------===//
//
// LLVM has no fp8 float types: the type converter keeps fp8 values as their
// bits (i8). A conversion to or from them takes the target's packed
// instructions where it has them (TargetInfo::fp8Truncate / fp8Extend:
// round to nearest even between fp8 and f16 / bf16 / f32, in the formats
// the chip converts), and is integer arithmetic here otherwise, the same on
// every target:
//
//  * fp8 -> f32 is exact: the exponent rebiased and the mantissa moved up
//    for normal numbers, the mantissa times 2^(1 - bias - mantissa bits)
//    for subnormals; NaN (and inf for e5m2) as the format encodes them.
//    f16 / bf16 / f64 results are that f32, converted (exactly).
//  * f32 -> fp8 rounds to nearest even (or toward zero), saturating: a
//    finite value beyond the largest finite code, and +-inf, become that
//    code with their sign (the "satfinite" rounding Triton's conversion
//    uses); NaN stays NaN. f16 / bf16 sources go through f32 exactly, so
//    they are rounded once; f64 sources are rounded to f32 first.
//
// The targets' instructions give the same values; only a NaN's bits may
// differ (the emulation writes 0x7F, 0x7E or 0x80, and a quiet f32 NaN with
// the code's sign). Toward-zero rounding and f64 sources are always
// emulated; an f64 result is the f32 one, extended; an fp8 -> fp8 cast goes
// through f32.
//
// The formats: e4m3 (f8E4M3FN: bias 7, no inf, NaN S.1111.111), e5m2
// (f8E5M2: bias 15, IEEE inf/NaN) and the FNUZ forms (f8E4M3FNUZ,
// f8E5M2FNUZ: bias 8 / 16, no inf, no negative zero, NaN 0x80).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln;

namespace {

struct Fp8Format {
  unsigned expBits, manBits;
  int bias;
  enum Special { IEEE, FN, FNUZ } special;

  /// Bits of the largest finite value's magnitude.
  uint32_t maxCode() const {
    switch (special) {
    case IEEE:
      return ((1u << expBits) - 2) << manBits | ((1u << manBits) - 1);
    case FN:
      return 0x7E;
    case FNUZ:
      return 0x7F;
    }
    return 0;
  }
  /// The code a NaN converts to.
  uint32_t nanCode() const {
    switch (special) {
    case IEEE:
      return ((1u << expBits) - 1) << manBits | (1u << (manBits - 1));
    case FN:
      return 0x7F;
    case FNUZ:
      return 0x80;
    }
    return 0;
  }
};

std::optional<Fp8Format> getFp8Format(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return Fp8Format{4, 3, 7, Fp8Format::FN};
  if (isa<Float8E5M2Type>(t))
    return Fp8Format{5, 2, 15, Fp8Format::IEEE};
  if (isa<Float8E4M3FNUZType>(t))
    return Fp8Format{4, 3, 8, Fp8Format::FNUZ};
  if (isa<Float8E5M2FNUZType>(t))
    return Fp8Format{5, 2, 16, Fp8Format::FNUZ};
  return std::nullopt;
}

struct Emitter {
  OpBuilder &b;
  Location loc;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();

  Value c32(int64_t v) { return i32Const(b, loc, v); }
  Value cf(float v) {
    return LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(v));
  }
  Value and_(Value x, int64_t m) { return LLVM::AndOp::create(b, loc, x, c32(m)); }
  Value shl(Value x, int64_t s) { return LLVM::ShlOp::create(b, loc, x, c32(s)); }
  Value lshr(Value x, int64_t s) { return LLVM::LShrOp::create(b, loc, x, c32(s)); }
  Value or_(Value x, Value y) { return LLVM::OrOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
  Value cmp(LLVM::ICmpPredicate p, Value x, int64_t v) {
    return LLVM::ICmpOp::create(b, loc, p, x, c32(v));
  }
  Value select(Value c, Value x, Value y) {
    return LLVM::SelectOp::create(b, loc, c, x, y);
  }
  Value select(Value c, int64_t x, Value y) { return select(c, c32(x), y); }

  /// The f32 of an fp8 code (`bits`: i8).
  Value toF32(Value bits, const Fp8Format &f) {
    Value v = LLVM::ZExtOp::create(b, loc, i32, bits);
    Value sign = shl(and_(v, 0x80), 24);
    Value exp = and_(lshr(v, f.manBits), (1 << f.expBits) - 1);
    Value man = and_(v, (1 << f.manBits) - 1);
    Value normal = or_(shl(add(exp, c32(127 - f.bias)), 23),
                       shl(man, 23 - f.manBits));
    Value sub = LLVM::FMulOp::create(
        b, loc, LLVM::UIToFPOp::create(b, loc, f32, man),
        cf(std::ldexp(1.0f, 1 - f.bias - int(f.manBits))));
    Value mag = select(cmp(LLVM::ICmpPredicate::eq, exp, 0),
                       LLVM::BitcastOp::create(b, loc, i32, sub), normal);
    Value out = or_(sign, mag);
    switch (f.special) {
    case Fp8Format::IEEE: {
      Value top = cmp(LLVM::ICmpPredicate::eq, exp, (1 << f.expBits) - 1);
      Value inf = select(cmp(LLVM::ICmpPredicate::eq, man, 0), 0x7F800000,
                         c32(0x7FC00000));
      out = select(top, or_(sign, inf), out);
      break;
    }
    case Fp8Format::FN:
      out = select(cmp(LLVM::ICmpPredicate::eq, and_(v, 0x7F), 0x7F),
                   or_(sign, c32(0x7FC00000)), out);
      break;
    case Fp8Format::FNUZ:
      out = select(cmp(LLVM::ICmpPredicate::eq, v, 0x80), 0x7FC00000, out);
      break;
    }
    return LLVM::BitcastOp::create(b, loc, f32, out);
  }

  /// The fp8 code (i8) of an f32, rounded to nearest even or toward zero,
  /// saturating.
  Value fromF32(Value x, const Fp8Format &f, bool towardZero) {
    Value bits = LLVM::BitcastOp::create(b, loc, i32, x);
    Value sign = and_(lshr(bits, 24), 0x80);
    Value abs = and_(bits, 0x7FFFFFFF);
    unsigned shift = 23 - f.manBits;
    // Normal results: the f32 mantissa rounded to manBits, the exponent
    // rebiased (a carry out of the mantissa moves into the exponent).
    Value rounded = abs;
    if (!towardZero)
      rounded = add(add(abs, c32((1 << (shift - 1)) - 1)),
                    and_(lshr(abs, shift), 1));
    Value normal = LLVM::SubOp::create(b, loc, lshr(rounded, shift),
                                       c32((127 - f.bias) << f.manBits));
    // Below the smallest normal: the multiple of the smallest subnormal,
    // rounded (up to 2^manBits, the smallest normal's code).
    Value scaled = LLVM::FMulOp::create(
        b, loc, LLVM::FAbsOp::create(b, loc, x),
        cf(std::ldexp(1.0f, f.bias - 1 + int(f.manBits))));
    Value whole = towardZero
                      ? Value(LLVM::FTruncOp::create(b, loc, scaled))
                      : Value(LLVM::RoundEvenOp::create(b, loc, scaled));
    Value sub = LLVM::FPToUIOp::create(b, loc, i32, whole);
    int64_t minNormalBits = int64_t(127 + 1 - f.bias) << 23;
    Value code = select(cmp(LLVM::ICmpPredicate::ult, abs, minNormalBits), sub,
                        normal);
    code = select(cmp(LLVM::ICmpPredicate::ugt, code, f.maxCode()),
                  int64_t(f.maxCode()), code);
    // Infinities saturate too (their "normal" code is past the largest).
    code = select(cmp(LLVM::ICmpPredicate::uge, abs, 0x7F800000),
                  int64_t(f.maxCode()), code);
    Value withSign = or_(sign, code);
    if (f.special == Fp8Format::FNUZ) // no negative zero: 0x80 is NaN
      withSign = select(cmp(LLVM::ICmpPredicate::eq, code, 0), c32(0), withSign);
    Value out = select(cmp(LLVM::ICmpPredicate::ugt, abs, 0x7F800000),
                       int64_t(f.nanCode()), withSign);
    return LLVM::TruncOp::create(b, loc, b.getI8Type(), out);
  }
};

/// An f32 value from `v` of (converted) float type `from`.
Value toF32(Emitter &e, Value v, Type from) {
  if (from.isF32())
    return v;
  if (from.isF16() || from.isBF16())
    return LLVM::FPExtOp::create(e.b, e.loc, e.f32, v);
  return LLVM::FPTruncOp::create(e.b, e.loc, e.f32, v); // f64
}

/// `v` (f32) as float type `to`.
Value fromF32(Emitter &e, Value v, Type to) {
  if (to.isF32())
    return v;
  if (to.isF64())
    return LLVM::FPExtOp::create(e.b, e.loc, to, v);
  return LLVM::FPTruncOp::create(e.b, e.loc, to, v); // exact from fp8
}

} // namespace

bool kiln::isFp8FloatCast(Type from, Type to) {
  // Both sides a float Kiln lowers: an fp8 format it knows or an LLVM float.
  auto known = [](Type t) {
    return getFp8Format(t) || (isa<FloatType>(t) && LLVM::isCompatibleType(t));
  };
  return (getFp8Format(from) || getFp8Format(to)) && known(from) && known(to);
}

namespace {

/// One value, by integer arithmetic.
Value emulateCast(OpBuilder &b, Location loc, Value in, Type from, Type to,
                  bool towardZero) {
  Emitter e{b, loc};
  std::optional<Fp8Format> src = getFp8Format(from), dst = getFp8Format(to);
  Value f = src ? e.toF32(in, *src) : toF32(e, in, from);
  if (dst)
    return e.fromF32(f, *dst, towardZero);
  return fromF32(e, f, to);
}

bool isHalfOrSingle(Type t) { return t.isF16() || t.isBF16() || t.isF32(); }

/// fp8 codes `in` as `to` (not fp8): the target's instructions, else
/// integer arithmetic.
SmallVector<Value> extend(OpBuilder &b, Location loc, ValueRange in, Type from,
                          Type to, const TargetInfo &target) {
  Type f32 = b.getF32Type();
  Type hwTo = to.isF64() ? f32 : to;
  if (isHalfOrSingle(hwTo)) {
    SmallVector<Value> out = target.fp8Extend(b, loc, in, from, hwTo);
    if (!out.empty()) {
      assert(out.size() == in.size() && "one result per code");
      if (hwTo != to)
        for (Value &v : out)
          v = LLVM::FPExtOp::create(b, loc, to, v);
      return out;
    }
  }
  SmallVector<Value> out;
  for (Value v : in)
    out.push_back(emulateCast(b, loc, v, from, to, /*towardZero=*/false));
  return out;
}

/// `in` (not fp8) as codes of `to`: the target's instructions where they
/// round as asked, else integer arithmetic.
SmallVector<Value> truncate(OpBuilder &b, Location loc, ValueRange in,
                            Type from, Type to, bool towardZero,
                            const TargetInfo &target) {
  if (!towardZero && isHalfOrSingle(from)) {
    SmallVector<Value> out = target.fp8Truncate(b, loc, in, from, to);
    if (!out.empty()) {
      assert(out.size() == in.size() && "one code per value");
      return out;
    }
  }
  SmallVector<Value> out;
  for (Value v : in)
    out.push_back(emulateCast(b, loc, v, from, to, towardZero));
  return out;
}

} // namespace

SmallVector<Value> kiln::emitFp8FloatCasts(OpBuilder &b, Location loc,
                                           ValueRange in, Type from, Type to,
                                           bool towardZero,
                                           const TargetInfo &target) {
  bool src = getFp8Format(from).has_value(), dst = getFp8Format(to).has_value();
  if (src && dst) {
    Type f32 = b.getF32Type();
    SmallVector<Value> wide = extend(b, loc, in, from, f32, target);
    return truncate(b, loc, wide, f32, to, towardZero, target);
  }
  if (src)
    return extend(b, loc, in, from, to, target);
  return truncate(b, loc, in, from, to, towardZero, target);
}

namespace {

/// arith.extf / arith.truncf with an fp8 side, on a scalar or on each
/// register of a tensor.
template <typename CastOp> struct Fp8Cast : ConvertOpToLLVMPattern<CastOp> {
  Fp8Cast(TileTypeConverter &converter, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern<CastOp>(converter, /*benefit=*/20), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(CastOp op, typename CastOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getIn().getType());
    Type to = getElementTypeOrSelf(op.getType());
    if (!isFp8FloatCast(from, to))
      return failure();
    Type structTy; // a tensor's registers, or none for a scalar
    if (isa<RankedTensorType>(op.getType())) {
      structTy = this->getTypeConverter()->convertType(op.getType());
      if (!structTy)
        return rewriter.notifyMatchFailure(op, "unsupported tensor type");
    } else if (isa<ShapedType>(op.getType())) {
      return failure();
    }
    bool towardZero = false;
    if constexpr (std::is_same_v<CastOp, arith::TruncFOp>)
      towardZero = op.getRoundingmode() == arith::RoundingMode::toward_zero;
    Location loc = op.getLoc();
    SmallVector<Value> regs = getRegisters(rewriter, loc, adaptor.getIn());
    SmallVector<Value> out = emitFp8FloatCasts(rewriter, loc, regs, from, to,
                                               towardZero, ctx.target);
    rewriter.replaceOp(op, structTy ? packStruct(rewriter, loc, structTy, out)
                                    : out.front());
    return success();
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateFp8ConversionPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         const LoweringContext &ctx) {
  patterns.add<Fp8Cast<arith::ExtFOp>, Fp8Cast<arith::TruncFOp>>(converter,
                                                                 ctx);
}
