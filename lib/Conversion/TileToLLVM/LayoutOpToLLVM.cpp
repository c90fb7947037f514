//===- LayoutOpToLLVM.cpp - ids, ranges, shape ops and layout moves -------===//
//
// Shape ops map registers to registers by comparing the register-only
// coordinates of the two linear layouts; layout conversions that cross
// threads go through shared memory.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct ProgramIdOpConversion : public TileOpConversion<ProgramIdOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, ctx.target.programId(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct NumProgramsOpConversion : public TileOpConversion<NumProgramsOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, ctx.target.numPrograms(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct ArangeOpConversion : public TileOpConversion<ArangeOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LinearLayout ll = *getLinearLayout(op.getType());
    SmallVector<Value> regs;
    Value start = i32Const(rewriter, loc, static_cast<int32_t>(op.getStart()));
    for (auto &c : emitCoordinates(rewriter, loc, ll, ctx))
      regs.push_back(LLVM::AddOp::create(rewriter, loc, c[0], start));
    rewriter.replaceOp(op,
                       packStruct(rewriter, loc, convert(op.getType()), regs));
    return success();
  }
};

/// An assumption is llvm.intr.assume of each register.
struct AssumeOpConversion : public TileOpConversion<AssumeOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value c : getRegisters(rewriter, op.getLoc(), adaptor.getCond()))
      LLVM::AssumeOp::create(rewriter, op.getLoc(), c);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The file, line and column an op's location names, looking through
/// call sites (the user's line of an inlined helper), names and fusions.
static std::optional<FileLineColLoc> fileLine(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return f;
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return fileLine(c.getCallee());
  if (auto n = dyn_cast<NameLoc>(loc))
    return fileLine(n.getChildLoc());
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (auto got = fileLine(l))
        return got;
  return std::nullopt;
}

/// An assertion: a thread whose registers hold a false element reports it
/// (the target's assertFail) on a branch the others skip.
struct AssertOpConversion : public TileOpConversion<AssertOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ok;
    for (Value c : getRegisters(rewriter, loc, adaptor.getCond()))
      ok = ok ? LLVM::AndOp::create(rewriter, loc, ok, c).getResult() : c;
    if (!ok) { // an empty tensor asserts nothing
      rewriter.eraseOp(op);
      return success();
    }
    Value bad = LLVM::XOrOp::create(
        rewriter, loc, ok,
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                 rewriter.getBoolAttr(true)));
    std::optional<FileLineColLoc> where = fileLine(loc);
    std::string file = where ? where->getFilename().str() : "<unknown>";
    unsigned line = where ? where->getLine() : 0;
    std::string function = "<unknown>";
    if (auto fn = op->getParentOfType<FunctionOpInterface>())
      function = fn.getName().str();
    std::string message = op.getMessage().str();
    const TargetInfo &target = ctx.target;
    if (failed(emitIfElse(rewriter, op, bad, [&] {
          target.assertFail(rewriter, loc, message, file, line, function);
        }, nullptr)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// device_print: per element and operand, one printf of the program id, the
/// element's coordinates and the value (widened as C varargs are).
struct PrintOpConversion : public TileOpConversion<PrintOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetInfo &target = ctx.target;
    SmallVector<Value> pid;
    for (unsigned a = 0; a < 3; ++a)
      pid.push_back(target.programId(rewriter, loc, a));
    std::string head = "pid (%u, %u, %u)";
    auto emit = [&](const std::string &format, ArrayRef<Value> args) {
      return target.printf(rewriter, loc, format, args);
    };
    auto unsupported = [&] {
      return op.emitOpError() << "device_print: " << target.printfUnavailable();
    };
    if (op.getArgs().empty()) {
      if (!emit(head + " " + op.getPrefix().str() + "\n", pid))
        return unsupported();
      rewriter.eraseOp(op);
      return success();
    }
    unsigned n = op.getArgs().size();
    for (auto [i, pair] : llvm::enumerate(
             llvm::zip(op.getArgs(), adaptor.getArgs()))) {
      auto [orig, conv] = pair;
      bool isSigned = op.getIsSigned()[i];
      auto tensor = dyn_cast<RankedTensorType>(orig.getType());
      SmallVector<Value> regs =
          tensor ? getRegisters(rewriter, loc, conv) : SmallVector<Value>{conv};
      SmallVector<SmallVector<Value>> coords;
      if (tensor) {
        FailureOr<LinearLayout> ll =
            getLinearLayout(tensor, [&] { return op.emitOpError(); });
        if (failed(ll))
          return failure();
        coords = emitCoordinates(rewriter, loc, *ll, ctx);
      }
      for (unsigned r = 0; r < regs.size(); ++r) {
        std::string format = head;
        SmallVector<Value> args(pid);
        if (tensor) {
          format += " idx (";
          for (unsigned d = 0; d < coords[r].size(); ++d) {
            format += d ? ", %u" : "%u";
            args.push_back(coords[r][d]);
          }
          format += ")";
        }
        format += op.getPrefix().str();
        if (n > 1)
          format += "(operand " + std::to_string(i) + ") ";
        Value v = regs[r];
        Type t = v.getType();
        if (isa<LLVM::LLVMPointerType>(t)) {
          format += "%p";
        } else if (isa<FloatType>(t)) {
          format += "%f";
          if (!t.isF64())
            v = LLVM::FPExtOp::create(rewriter, loc, rewriter.getF64Type(), v);
        } else {
          unsigned bits = t.getIntOrFloatBitWidth();
          bool wide = bits > 32;
          format += op.getHex() ? (wide ? "0x%llx" : "0x%x")
                                : (wide ? (isSigned ? "%lld" : "%llu")
                                        : (isSigned ? "%d" : "%u"));
          if (!wide && bits < 32) {
            Type i32 = rewriter.getI32Type();
            v = isSigned && bits > 1 ? LLVM::SExtOp::create(rewriter, loc, i32, v).getResult()
                                     : LLVM::ZExtOp::create(rewriter, loc, i32, v).getResult();
          }
        }
        args.push_back(v);
        if (!emit(format + "\n", args))
          return unsupported();
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// An op that is its operand once lowered: a hint (the promise only informed
/// the axis analysis), a pointer cast (both pointer types are one LLVM
/// pointer).
template <typename Op> struct ForwardSrcConversion : public TileOpConversion<Op> {
  using TileOpConversion<Op>::TileOpConversion;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// Every thread keeps its registers (the verifier checked the layouts).
struct TransOpConversion : public TileOpConversion<TransOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type st = convert(op.getType());
    SmallVector<Value> regs = unpackStruct(rewriter, op.getLoc(), adaptor.getSrc());
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(), st, regs));
    return success();
  }
};

struct SplatOpConversion : public TileOpConversion<SplatOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type st = convert(op.getType());
    unsigned n = cast<LLVM::LLVMStructType>(st).getBody().size();
    SmallVector<Value> regs(n, adaptor.getSrc());
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(), st, regs));
    return success();
  }
};

/// Rebuilds the result from source registers chosen by `matchRegisters`.
LogicalResult remapRegisters(
    Operation *op, Value src, Value converted, const LinearLayout &srcLL,
    const LinearLayout &dstLL,
    function_ref<LinearLayout::Basis(const LinearLayout::Basis &)> map,
    Type structTy, ConversionPatternRewriter &rewriter) {
  FailureOr<SmallVector<unsigned>> idx = matchRegisters(srcLL, dstLL, map);
  if (failed(idx))
    return op->emitOpError()
           << "cannot map the registers of " << src.getType() << " to "
           << op->getResult(0).getType()
           << "; the layouts do not line up (insert tile.convert_layout)";
  SmallVector<Value> regs = unpackStruct(rewriter, op->getLoc(), converted);
  SmallVector<Value> out;
  for (unsigned i : *idx)
    out.push_back(regs[i]);
  rewriter.replaceOp(op, packStruct(rewriter, op->getLoc(), structTy, out));
  return success();
}

/// Each result register is the source register of its coordinates with the
/// last one 0 (lhs) or 1 (rhs): the pair sits in one thread's registers.
struct SplitOpConversion : public TileOpConversion<SplitOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto emit = [&] { return op.emitOpError(); };
    FailureOr<LinearLayout> srcLL =
        getLinearLayout(op.getSrc().getType(), emit);
    FailureOr<LinearLayout> dstLL = getLinearLayout(op.getLhs().getType(), emit);
    if (failed(srcLL) || failed(dstLL))
      return failure();
    SmallVector<Value> regs =
        unpackStruct(rewriter, op.getLoc(), adaptor.getSrc());
    Type st = convert(op.getLhs().getType());
    SmallVector<Value> halves;
    for (int32_t half : {0, 1}) {
      FailureOr<SmallVector<unsigned>> idx =
          matchRegisters(*srcLL, *dstLL, [&](const LinearLayout::Basis &c) {
            LinearLayout::Basis r(c);
            r.push_back(half);
            return r;
          });
      if (failed(idx))
        return op.emitOpError() << "cannot find each result element in the "
                                   "source's registers";
      SmallVector<Value> out;
      for (unsigned i : *idx)
        out.push_back(regs[i]);
      halves.push_back(packStruct(rewriter, op.getLoc(), st, out));
    }
    rewriter.replaceOp(op, halves);
    return success();
  }
};

/// Each result register is the register of lhs (last coordinate 0) or rhs
/// (1) at its other coordinates.
struct JoinOpConversion : public TileOpConversion<JoinOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(JoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto emit = [&] { return op.emitOpError(); };
    FailureOr<LinearLayout> halfLL = getLinearLayout(op.getLhs().getType(), emit);
    FailureOr<LinearLayout> pairLL = getLinearLayout(op.getType(), emit);
    if (failed(halfLL) || failed(pairLL))
      return failure();
    SmallVector<Value> halves[2] = {
        unpackStruct(rewriter, op.getLoc(), adaptor.getLhs()),
        unpackStruct(rewriter, op.getLoc(), adaptor.getRhs())};
    std::map<SmallVector<int32_t>, unsigned> byCoordinate =
        registersByCoordinate(*halfLL);
    SmallVector<Value> out;
    for (int32_t r = 0; r < pairLL->getInSize(LinearLayout::Register); ++r) {
      LinearLayout::Basis c = pairLL->applyOne(LinearLayout::Register, r);
      int32_t half = c.back();
      auto it = byCoordinate.find(SmallVector<int32_t>(c.begin(), c.end() - 1));
      if (it == byCoordinate.end())
        return op.emitOpError() << "cannot find each element in the operands' "
                                   "registers";
      out.push_back(halves[half][it->second]);
    }
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(),
                                      convert(op.getType()), out));
    return success();
  }
};

struct BroadcastOpConversion : public TileOpConversion<BroadcastOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcTy = op.getSrc().getType();
    LinearLayout srcLL = *getLinearLayout(srcTy);
    LinearLayout dstLL = *getLinearLayout(op.getType());
    auto srcShape = srcTy.getShape();
    auto map = [&](const LinearLayout::Basis &c) {
      LinearLayout::Basis r(c);
      for (unsigned k = 0; k < r.size(); ++k)
        if (srcShape[k] == 1)
          r[k] = 0;
      return r;
    };
    return remapRegisters(op, op.getSrc(), adaptor.getSrc(), srcLL, dstLL, map,
                          convert(op.getType()), rewriter);
  }
};

/// A slice keeps its elements in their threads (the verifier checks the lane
/// and warp bases agree): each result register is the source register at the
/// same register-only coordinates plus the offsets (a multiple of the
/// result's size, so adding them sets bits the result's coordinates do not).
struct ExtractSliceOpConversion : public TileOpConversion<ExtractSliceOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto emit = [&] { return op.emitOpError(); };
    FailureOr<LinearLayout> srcLL = getLinearLayout(op.getSrc().getType(), emit);
    FailureOr<LinearLayout> dstLL = getLinearLayout(op.getType(), emit);
    if (failed(srcLL) || failed(dstLL))
      return failure();
    ArrayRef<int64_t> offsets = op.getOffsets();
    auto map = [&](const LinearLayout::Basis &c) {
      LinearLayout::Basis r(c);
      for (unsigned k = 0; k < r.size(); ++k)
        r[k] += int32_t(offsets[k]);
      return r;
    };
    return remapRegisters(op, op.getSrc(), adaptor.getSrc(), *srcLL, *dstLL, map,
                          convert(op.getType()), rewriter);
  }
};

struct ExpandDimsOpConversion : public TileOpConversion<ExpandDimsOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout srcLL = *getLinearLayout(op.getSrc().getType());
    LinearLayout dstLL = *getLinearLayout(op.getType());
    unsigned axis = op.getAxis();
    auto map = [&](const LinearLayout::Basis &c) {
      LinearLayout::Basis r(c);
      r.erase(r.begin() + axis);
      return r;
    };
    return remapRegisters(op, op.getSrc(), adaptor.getSrc(), srcLL, dstLL, map,
                          convert(op.getType()), rewriter);
  }
};

/// convert_layout and reshape: identity, register permutation, or a trip
/// through shared memory, as classifyLayoutMove decides.
template <typename Op> struct LayoutMoveConversion : public TileOpConversion<Op> {
  using TileOpConversion<Op>::TileOpConversion;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto layouts = getMoveLayouts(op);
    if (failed(layouts))
      return failure();
    auto &[srcLL, dstLL] = *layouts;
    Type structTy = this->convert(op.getType());
    Location loc = op.getLoc();
    switch (classifyLayoutMove(srcLL, dstLL)) {
    case LayoutMove::Identity:
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    case LayoutMove::RegisterPermute:
      return remapRegisters(
          op, op.getSrc(), adaptor.getSrc(), srcLL, dstLL,
          [](const LinearLayout::Basis &c) { return c; }, structTy, rewriter);
    case LayoutMove::SharedMemory:
      break;
    }
    if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
      return op.emitOpError()
             << "needs shared memory but has none assigned; run "
                "tile-allocate-shared-memory first";
    SmallVector<Value> regs = unpackStruct(rewriter, loc, adaptor.getSrc());
    Type regTy = this->convert(op.getType().getElementType());
    if (isa<ConvertLayoutOp>(op.getOperation()))
      if (FailureOr<SmallVector<Value>> out = moveThroughSwizzledScratch(
              rewriter, loc, op, regs,
              cast<RankedTensorType>(op.getSrc().getType()), op.getType(),
              regTy, this->ctx);
          succeeded(out)) {
        rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, *out));
        return success();
      }
    SmallVector<Value> out = moveThroughShared(rewriter, loc, op, regs, srcLL,
                                               dstLL, regTy, this->ctx);
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, out));
    return success();
  }
};

} // namespace

void kiln::populateLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<ProgramIdOpConversion, NumProgramsOpConversion,
               ArangeOpConversion, SplatOpConversion, BroadcastOpConversion,
               ExpandDimsOpConversion, ExtractSliceOpConversion,
               LayoutMoveConversion<ConvertLayoutOp>,
               LayoutMoveConversion<ReshapeOp>, ForwardSrcConversion<HintOp>,
               ForwardSrcConversion<PtrCastOp>, TransOpConversion,
               SplitOpConversion, JoinOpConversion,
               AssumeOpConversion, AssertOpConversion, PrintOpConversion>(converter, ctx);
}
