//===- OrderedOpToLLVM.cpp - ld.relaxed / st.relaxed with fences ----------===//
//
// tile_nv.atomic_load / atomic_store: the vector width is tile.load's (the
// layout's consecutive registers, the pointers' contiguity and alignment,
// the mask's constancy), and each vector is one `ld.relaxed` /
// `st.relaxed` at the op's scope, of words as wide as the vector allows up
// to 32 bits, or of 64-bit elements (`.v4.b32` for 16 bytes, `.b16` for two
// bytes). Masked accesses are predicated; a masked-off load yields 0.
// Acquire is the relaxed loads followed by one `fence.acq_rel`, release one
// `fence.acq_rel` followed by the relaxed stores (the fence-based patterns
// of PTX's memory model). A store is issued once per element, by the thread
// that owns it.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// How one vector of `vec` elements of `bits` bits travels: `words` words of
/// `wordBits` bits, each in a register of `regBits` bits.
struct WordPlan {
  unsigned bits, vec, wordBits, words, regBits;
  char constraint;

  WordPlan(unsigned bits, unsigned vec) : bits(bits), vec(vec) {
    wordBits = std::max(bits, std::min(32u, vec * bits));
    words = vec * bits / wordBits;
    regBits = std::max(16u, wordBits);
    constraint = regBits == 16 ? 'h' : regBits == 32 ? 'r' : 'l';
  }

  /// e.g. "ld.relaxed.gpu.global.v4.b32"
  std::string opcode(StringRef op, StringRef scope) const {
    std::string s = (op + ".relaxed." + scope + ".global").str();
    if (words > 1)
      s += ".v" + std::to_string(words);
    return s + ".b" + std::to_string(wordBits);
  }

  /// "{$a, $b, ...}" or "$a" for `words` operands from `first`.
  std::string operandList(unsigned first) const {
    std::string s = words > 1 ? "{" : "";
    for (unsigned w = 0; w < words; ++w)
      s += (w ? ", $" : "$") + std::to_string(first + w);
    return words > 1 ? s + "}" : s;
  }
};

void emitFence(OpBuilder &b, Location loc, StringRef scope) {
  std::string asmText = ("fence.acq_rel." + scope + ";").str();
  LLVM::InlineAsmOp::create(b, loc, Type(), ValueRange{}, asmText, "",
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false, LLVM::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

/// i1 (as a byte) and the other element types as their bits in memory.
Type bitsType(OpBuilder &b, unsigned bits) { return b.getIntegerType(bits); }

struct AtomicLoadConversion : TileOpConversion<tile_nv::AtomicLoadOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(tile_nv::AtomicLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    Type regTy = convert(resTy.getElementType());
    Type memTy = getMemoryType(regTy);
    unsigned bits = getElementBytes(resTy.getElementType()) * 8;
    unsigned vec = getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx);
    WordPlan plan(bits, vec);
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    Type regWord = rewriter.getIntegerType(plan.regBits);
    SmallVector<Type> outTypes(plan.words, regWord);
    Type asmTy = plan.words == 1
                     ? regWord
                     : LLVM::LLVMStructType::getLiteral(getContext(), outTypes);
    std::string access = plan.opcode("ld", op.getScope()) + " " +
                         plan.operandList(0) + ", [$" +
                         std::to_string(plan.words) + "];";
    SmallVector<Value> out;
    for (unsigned g = 0; g < ptrs.size(); g += vec) {
      SmallVector<Value> operands{ptrs[g]};
      std::string asmText, constraints;
      for (unsigned w = 0; w < plan.words; ++w)
        constraints += std::string(w ? "," : "") + "=&" + plan.constraint;
      constraints += ",l";
      if (masks.empty()) {
        asmText = access;
      } else {
        for (unsigned w = 0; w < plan.words; ++w)
          asmText += "mov.b" + std::to_string(plan.regBits) + " $" +
                     std::to_string(w) + ", 0;\n";
        asmText += "@$" + std::to_string(plan.words + 1) + " " + access;
        operands.push_back(masks[g]);
        constraints += ",b";
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmTy, operands, asmText, constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
      unsigned per = plan.wordBits / bits;
      for (unsigned w = 0; w < plan.words; ++w) {
        Value word = plan.words == 1
                         ? asmOp.getResult(0)
                         : LLVM::ExtractValueOp::create(
                               rewriter, loc, asmOp.getResult(0), w)
                               .getResult();
        if (plan.regBits != plan.wordBits)
          word = LLVM::TruncOp::create(
              rewriter, loc, bitsType(rewriter, plan.wordBits), word);
        if (per == 1) {
          Value e = word;
          if (memTy != word.getType())
            e = LLVM::BitcastOp::create(rewriter, loc, memTy, word);
          out.push_back(fromMemory(rewriter, loc, e, regTy));
          continue;
        }
        Value v = LLVM::BitcastOp::create(
            rewriter, loc, VectorType::get({int64_t(per)}, memTy), word);
        for (unsigned i = 0; i < per; ++i)
          out.push_back(fromMemory(
              rewriter, loc,
              LLVM::ExtractElementOp::create(rewriter, loc, v,
                                             i32Const(rewriter, loc, i)),
              regTy));
      }
    }
    if (op.getSem() == "acquire")
      emitFence(rewriter, loc, op.getScope());
    rewriter.replaceOp(op,
                       packStruct(rewriter, loc, convert(resTy), out));
    return success();
  }
};

struct AtomicStoreConversion : TileOpConversion<tile_nv::AtomicStoreOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(tile_nv::AtomicStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto valTy = cast<RankedTensorType>(op.getValue().getType());
    Type regTy = convert(valTy.getElementType());
    Type memTy = getMemoryType(regTy);
    unsigned bits = getElementBytes(valTy.getElementType()) * 8;
    unsigned vec = getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx);
    WordPlan plan(bits, vec);
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    FailureOr<Ownership> own = planOwnership(op, valTy);
    if (failed(own))
      return failure();
    Value owner = ownerPredicate(rewriter, loc, *own, ctx);
    if (op.getSem() == "release")
      emitFence(rewriter, loc, op.getScope());
    std::string access = plan.opcode("st", op.getScope()) + " [$0], " +
                         plan.operandList(1) + ";";
    unsigned per = plan.wordBits / bits;
    for (unsigned g = 0; g < ptrs.size(); g += vec) {
      if (own->canonical[g] != g)
        continue;
      Value pred = masks.empty() ? Value() : masks[g];
      if (owner)
        pred = pred ? LLVM::AndOp::create(rewriter, loc, pred, owner) : owner;
      SmallVector<Value> operands{ptrs[g]};
      std::string constraints = "l";
      for (unsigned w = 0; w < plan.words; ++w) {
        Value word;
        if (per == 1) {
          word = toMemory(rewriter, loc, vals[g + w]);
          if (word.getType() != bitsType(rewriter, plan.wordBits))
            word = LLVM::BitcastOp::create(
                rewriter, loc, bitsType(rewriter, plan.wordBits), word);
        } else {
          Value v = LLVM::UndefOp::create(
              rewriter, loc, VectorType::get({int64_t(per)}, memTy));
          for (unsigned i = 0; i < per; ++i)
            v = LLVM::InsertElementOp::create(
                rewriter, loc, v, toMemory(rewriter, loc, vals[g + w * per + i]),
                i32Const(rewriter, loc, i));
          word = LLVM::BitcastOp::create(
              rewriter, loc, bitsType(rewriter, plan.wordBits), v);
        }
        if (plan.regBits != plan.wordBits)
          word = LLVM::ZExtOp::create(
              rewriter, loc, rewriter.getIntegerType(plan.regBits), word);
        operands.push_back(word);
        constraints += std::string(",") + plan.constraint;
      }
      std::string asmText = access;
      if (pred) {
        asmText = "@$" + std::to_string(plan.words + 1) + " " + access;
        operands.push_back(pred);
        constraints += ",b";
      }
      LLVM::InlineAsmOp::create(rewriter, loc, Type(), operands, asmText,
                                constraints, /*has_side_effects=*/true,
                                /*is_align_stack=*/false,
                                LLVM::TailCallKind::None,
                                LLVM::AsmDialectAttr(), ArrayAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateOrderedOpToLLVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const LoweringContext &ctx) {
  patterns.add<AtomicLoadConversion, AtomicStoreConversion>(converter, ctx);
}
