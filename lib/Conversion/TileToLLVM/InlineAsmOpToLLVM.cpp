//===- InlineAsmOpToLLVM.cpp - inline assembly once per thread ------------===//
//
// tile.inline_asm becomes one asm statement per thread. Its operands, in
// order: every register of each tensor operand (the layout's register
// order, repeated registers included), each scalar, and each shared view's
// 32-bit address (of its element 0: a subslice's offset added); its outputs likewise one per register of each tensor
// result, one per scalar result. The constraint string must name exactly
// that many operands (clobbers aside), and pass LLVM's own checks
// (checkInlineAsmConstraints): otherwise it is an error at the op, before
// LLVM sees the statement.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// Operands the constraint string names: its comma-separated entries that
/// are not clobbers (`~{...}`).
unsigned countConstraints(StringRef constraints) {
  if (constraints.trim().empty())
    return 0;
  SmallVector<StringRef> parts;
  constraints.split(parts, ',');
  unsigned n = 0;
  for (StringRef p : parts)
    if (!p.trim().starts_with("~"))
      ++n;
  return n;
}

struct InlineAsmThreadOpConversion
    : public TileOpConversion<InlineAsmThreadOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(InlineAsmThreadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    for (auto [orig, v] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      Type t = orig.getType();
      if (isa<RankedTensorType>(t)) {
        if (!isa<LLVM::LLVMStructType>(v.getType()))
          return op.emitOpError() << "cannot lower operand of type " << t;
        llvm::append_range(operands, unpackStruct(rewriter, loc, v));
      } else if (auto md = dyn_cast<MemDescType>(t)) {
        // The view's origin: its slot's address plus where its element 0
        // sits (a subslice's offset).
        Value addr = v;
        if (int64_t x = getSharedXorOffset(orig)) {
          int64_t bytes = applyPadding(md.getSharedLayout(), x) *
                          getElementBytes(md.getElementType());
          addr = LLVM::GEPOp::create(rewriter, loc, v.getType(),
                                     rewriter.getI8Type(), v,
                                     ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
        }
        operands.push_back(LLVM::PtrToIntOp::create(
            rewriter, loc, rewriter.getI32Type(), addr));
      } else {
        operands.push_back(v);
      }
    }
    // Output operands: the registers of each result.
    SmallVector<Type> asmTypes;
    SmallVector<unsigned> counts;
    for (Type t : op.getResults().getTypes()) {
      Type converted = convert(t);
      if (!converted)
        return op.emitOpError() << "cannot lower result of type " << t;
      if (auto st = dyn_cast<LLVM::LLVMStructType>(converted)) {
        llvm::append_range(asmTypes, st.getBody());
        counts.push_back(st.getBody().size());
      } else {
        asmTypes.push_back(converted);
        counts.push_back(1);
      }
    }
    unsigned named = countConstraints(op.getConstraints());
    if (named != asmTypes.size() + operands.size())
      return op.emitOpError()
             << "constraints name " << named << " operands, but each thread "
             << "passes " << asmTypes.size() << " outputs and "
             << operands.size()
             << " inputs (one per register of a tensor, one per scalar or "
                "shared view)";
    if (failed(checkInlineAsmConstraints(op, op.getConstraints(), asmTypes,
                                         ValueRange(operands).getTypes())))
      return failure();
    Type resultTy;
    if (asmTypes.size() == 1)
      resultTy = asmTypes.front();
    else if (asmTypes.size() > 1)
      resultTy = LLVM::LLVMStructType::getLiteral(getContext(), asmTypes);
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, resultTy, operands, op.getAsmString(),
        op.getConstraints(), /*has_side_effects=*/!op.getPure(),
        /*is_align_stack=*/false, LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr(), ArrayAttr());
    SmallVector<Value> results;
    unsigned field = 0;
    for (auto [r, t] : llvm::enumerate(op.getResults().getTypes())) {
      SmallVector<Value> regs;
      for (unsigned k = 0; k < counts[r]; ++k, ++field)
        regs.push_back(asmTypes.size() == 1
                           ? asmOp.getResult(0)
                           : LLVM::ExtractValueOp::create(
                                 rewriter, loc, asmOp.getResult(0), field)
                                 .getResult());
      Type converted = convert(t);
      if (isa<LLVM::LLVMStructType>(converted))
        results.push_back(packStruct(rewriter, loc, converted, regs));
      else
        results.push_back(regs.front());
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void kiln::populateInlineAsmOpToLLVMPatterns(TileTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             const LoweringContext &ctx) {
  patterns.add<InlineAsmThreadOpConversion>(converter, ctx);
}
