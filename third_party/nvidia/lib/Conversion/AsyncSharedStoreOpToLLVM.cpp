//===- AsyncSharedStoreOpToLLVM.cpp - st.async stores ---------------------===//
//
// tile_nv.async_shared_store: each thread's vectors of the tensor, at the
// addresses an ordinary shared store would use, each with PTX's
// `st.async...mbarrier::complete_tx::bytes` of 4, 8 or 16 bytes into this
// CTA's buffer (a shared::cta address is the executing CTA's
// shared::cluster address: the same bits), counting its bytes on this CTA's
// barrier. Vectors that repeat another's elements, and threads that hold
// only elements other threads hold, store nothing: the barrier receives the
// buffer's bytes once.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

struct AsyncSharedStoreConversion : TileOpConversion<AsyncSharedStoreOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncSharedStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tensorType = cast<RankedTensorType>(op.getSrc().getType());
    Type regTy = getTypeConverter()->convertType(tensorType.getElementType());
    if (!regTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    unsigned elemBytes = tile::getElementBytes(tensorType.getElementType());
    FailureOr<SharedAddresses> access =
        emitSharedAddresses(rewriter, loc, adaptor.getBuffer(), tensorType,
                            op.getBuffer(), memTy, 16, ctx);
    if (failed(access))
      return op.emitOpError() << "cannot address " << op.getBuffer().getType()
                              << " with " << tensorType;
    unsigned vecBytes = access->vec * elemBytes;
    if (vecBytes < 4) // refused before lowering (NVIDIATargetInfo)
      return failure();
    SmallVector<Value> regs = getRegisters(rewriter, loc, adaptor.getSrc());
    Type i32 = rewriter.getI32Type();
    Value pred = access->redundantThread
                     ? LLVM::XOrOp::create(rewriter, loc,
                                           access->redundantThread,
                                           LLVM::ConstantOp::create(
                                               rewriter, loc,
                                               rewriter.getI1Type(),
                                               rewriter.getBoolAttr(true)))
                     : Value(LLVM::ConstantOp::create(
                           rewriter, loc, rewriter.getI1Type(),
                           rewriter.getBoolAttr(true)));
    Value bar = LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getBarrier());
    unsigned wordsPerVec = vecBytes / 4;
    auto vecTy = VectorType::get({int64_t(access->vec)}, memTy);
    auto wordsTy = VectorType::get({int64_t(wordsPerVec)}, i32);
    for (auto [g, addr] : llvm::enumerate(access->addrs)) {
      if (!access->duplicate.empty() && access->duplicate[g])
        continue;
      Value packed = LLVM::PoisonOp::create(rewriter, loc, vecTy);
      for (unsigned i = 0; i < access->vec; ++i)
        packed = LLVM::InsertElementOp::create(
            rewriter, loc, packed, toMemory(rewriter, loc, regs[g * access->vec + i]),
            i32Const(rewriter, loc, i));
      Value words = LLVM::BitcastOp::create(rewriter, loc, wordsTy, packed);
      Value base = LLVM::PtrToIntOp::create(rewriter, loc, i32, addr);
      // At most 4 words (16 bytes) a store.
      for (unsigned w = 0; w < wordsPerVec; w += 4) {
        unsigned n = std::min(4u, wordsPerVec - w);
        SmallVector<Value> operands = {
            w ? Value(LLVM::AddOp::create(rewriter, loc, base,
                                          i32Const(rewriter, loc, 4 * w)))
              : base};
        std::string list;
        for (unsigned k = 0; k < n; ++k) {
          operands.push_back(LLVM::ExtractElementOp::create(
              rewriter, loc, words, i32Const(rewriter, loc, w + k)));
          list += (k ? ", $" : "$") + std::to_string(1 + k);
        }
        operands.push_back(bar);
        operands.push_back(pred);
        std::string text =
            "@$" + std::to_string(n + 2) +
            " st.async.weak.shared::cluster.mbarrier::complete_tx::bytes" +
            (n == 1 ? std::string() : ".v" + std::to_string(n)) + ".b32 [$0], " +
            (n == 1 ? list : "{" + list + "}") + ", [$" +
            std::to_string(n + 1) + "];";
        std::string constraints = "r";
        for (unsigned k = 0; k < n + 1; ++k)
          constraints += ",r";
        constraints += ",b";
        LLVM::InlineAsmOp::create(
            rewriter, loc, LLVM::LLVMVoidType::get(rewriter.getContext()),
            operands, text, constraints, /*has_side_effects=*/true,
            /*is_align_stack=*/false, LLVM::TailCallKind::None,
            LLVM::AsmDialectAttr(), ArrayAttr());
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateAsyncSharedStoreOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    const LoweringContext &ctx) {
  patterns.add<AsyncSharedStoreConversion>(converter, ctx);
}
