//===- AsyncCopyOpToLLVM.cpp - async copies, commit groups, waits ---------===//
//
// Each thread copies its elements of the pointer tensor into the buffer at
// the offsets the shared layout gives them, one copy per vector that
// checkAsyncCopy allows: the same helper the verifier calls, now with the
// pointer analysis' bound, so an illegal width is a diagnostic at the op and
// never an assembler error. Threads and registers that only repeat others'
// elements (broadcast layouts) copy nothing. Tokens carry no data: they lower
// to an i32 zero that folds away. Where the hardware does not zero-fill
// masked lanes itself (direct-to-LDS loads skip them), those lanes branch around the copy and store
// `other` (or zeros) at their destination. Where lane i of a warp writes one
// base + i x width (direct-to-LDS loads) and a swizzled layout orders the
// warp's slots otherwise, each lane takes the pointer (and mask) of the lane
// whose element its slot holds, by a shuffle where every lane is active.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

Value tokenValue(OpBuilder &b, Location loc) { return i32Const(b, loc, 0); }

} // namespace

SmallVector<Value> kiln::emitAsyncCopySourceLanes(OpBuilder &b, Location loc,
                                                  RankedTensorType tensorType,
                                                  Value view,
                                                  unsigned widthBytes,
                                                  const LoweringContext &ctx) {
  auto memdesc = cast<MemDescType>(view.getType());
  int64_t xorOffset = getSharedXorOffset(view);
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, memdesc, getSharedBaseAlignment(view),
                       widthBytes, xorOffset);
  if (failed(plan))
    return {};
  FailureOr<AsyncCopyLanes> lanes = getAsyncCopyLanes(
      *plan, widthBytes / getElementBytes(memdesc.getElementType()),
      xorOffset);
  if (failed(lanes) || lanes->identity)
    return {};
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value lane = i32Const(b, loc, lanes->viewLane);
  lane = xorSetBits(b, loc, lane, ids.lane, lanes->slotLanes);
  lane = xorSetBits(b, loc, lane, ids.warp, lanes->warpLanes);
  SmallVector<Value> out;
  for (int64_t c : lanes->copyLanes)
    out.push_back(c ? Value(LLVM::XOrOp::create(b, loc, lane,
                                                 i32Const(b, loc, c)))
                    : lane);
  return out;
}

Value kiln::shuffleSharedAddress(OpBuilder &b, Location loc, Value addr,
                                 Value srcLane, const LoweringContext &ctx) {
  Type i32 = b.getI32Type();
  Value asInt = LLVM::PtrToIntOp::create(b, loc, i32, addr);
  return LLVM::IntToPtrOp::create(
      b, loc, addr.getType(),
      ctx.target.shuffleIdxI32(b, loc, asInt, srcLane));
}

namespace {

struct AsyncCopyOpConversion : TileOpConversion<AsyncCopyGlobalToLocalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = cast<RankedTensorType>(op.getPtr().getType());
    MemDescType dst = op.getDst().getType();
    unsigned pointerElements =
        getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx);
    FailureOr<AsyncCopyWidth> width =
        checkAsyncCopy(&ctx.target.getDesc(), ptrType, op.getDst(),
                       pointerElements, [&] { return op.emitOpError(); });
    if (failed(width))
      return failure();
    Type regTy = getTypeConverter()->convertType(dst.getElementType());
    if (!regTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    FailureOr<SharedAddresses> addrs =
        emitSharedAddresses(rewriter, loc, adaptor.getDst(), ptrType,
                            op.getDst(), memTy, width->bytes, ctx);
    if (failed(addrs) || addrs->vec != width->elements)
      return op.emitOpError() << "cannot address " << dst
                              << " with the layout of " << ptrType;
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpackStruct(rewriter, loc, adaptor.getOther());
    unsigned vec = addrs->vec;
    bool branchMasked = !ctx.target.asyncCopyZeroFillsMasked();
    bool lowered = true;
    SmallVector<Value> from;
    if (ctx.target.getDesc().asyncCopyLaneContiguous)
      from = emitAsyncCopySourceLanes(
          rewriter, loc,
          RankedTensorType::get(ptrType.getShape(), dst.getElementType(),
                                ptrType.getEncoding()),
          op.getDst(), width->bytes, ctx);
    auto emitCopies = [&]() -> LogicalResult {
      for (auto [g, dstAddr] : llvm::enumerate(addrs->addrs)) {
        if (addrs->duplicate[g])
          continue;
        unsigned r = g * vec;
        Value own = masks.empty() ? Value() : masks[r];
        Value pred = own, src = ptrs[r], slot = dstAddr;
        if (!from.empty()) {
          // This lane's slot holds lane from[g]'s element.
          src = shuffleIdx(rewriter, loc, src, from[g], ctx);
          slot = shuffleSharedAddress(rewriter, loc, dstAddr, from[g], ctx);
          if (own)
            pred = shuffleIdx(rewriter, loc, own, from[g], ctx);
        }
        Value to =
            ctx.target.asyncCopyDestination(rewriter, loc, slot, width->bytes);
        if (!pred || !branchMasked) {
          lowered &= ctx.target.asyncCopy(rewriter, loc, to, src, width->bytes,
                                          pred, op.getCacheModifier());
          continue;
        }
        Value addr = dstAddr;
        auto copy = [&] {
          lowered &= ctx.target.asyncCopy(rewriter, loc, to, src, width->bytes,
                                          Value(), op.getCacheModifier());
        };
        auto fill = [&] {
          storeAsyncCopyFill(rewriter, loc, addr, others, r, vec, memTy,
                             width->bytes, ctx.target);
        };
        if (from.empty()) {
          if (failed(emitIfElse(rewriter, op, pred, copy, fill)))
            return failure();
          continue;
        }
        // The copy follows the slot's element's mask, the fill this lane's
        // own element's.
        Value one = LLVM::ConstantOp::create(
            rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
        if (failed(emitIfElse(rewriter, op, pred, copy, nullptr)) ||
            failed(emitIfElse(rewriter, op,
                              LLVM::XOrOp::create(rewriter, loc, own, one),
                              fill, nullptr)))
          return failure();
      }
      return success();
    };
    // Threads that only repeat others' elements (broadcast layouts) copy
    // nothing where the target counts groups (a zero-filling copy of theirs
    // would race with the owner's); where waits count each thread's
    // instructions, a repeating warp issues the same copy (the same bytes to
    // the same slots: checkAsyncCopyLowerable).
    LogicalResult emitted = success();
    if (addrs->redundantThread && ctx.target.getDesc().asyncCopyBroadcastLanes) {
      Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                           rewriter.getBoolAttr(true));
      Value active =
          LLVM::XOrOp::create(rewriter, loc, addrs->redundantThread, one);
      if (failed(emitIfElse(rewriter, op, active,
                            [&] { emitted = emitCopies(); }, nullptr)))
        return failure();
    } else {
      emitted = emitCopies();
    }
    if (failed(emitted))
      return failure();
    if (!lowered)
      return op.emitOpError() << "this async copy is not lowered for "
                              << ctx.target.getDesc().name << " yet";
    rewriter.replaceOp(op, tokenValue(rewriter, loc));
    return success();
  }
};

struct AsyncCommitGroupOpConversion : TileOpConversion<AsyncCommitGroupOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ctx.target.asyncCommitGroup(rewriter, op.getLoc());
    rewriter.replaceOp(op, tokenValue(rewriter, op.getLoc()));
    return success();
  }
};

struct AsyncWaitOpConversion : TileOpConversion<AsyncWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint32_t> num = op.getNum();
    if (!num)
      return op.emitOpError() << "has no count; run tile-insert-wait-counts "
                                 "(part of kiln-to-llvm) to compute it from "
                                 "its tokens";
    std::optional<unsigned> instructions;
    if (std::optional<uint32_t> n = op.getInstructions())
      instructions = *n;
    ctx.target.asyncWait(rewriter, op.getLoc(), *num, instructions);
    rewriter.replaceOp(op, tokenValue(rewriter, op.getLoc()));
    return success();
  }
};

} // namespace

void kiln::populateAsyncCopyOpToLLVMPatterns(TileTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             const LoweringContext &ctx) {
  patterns.add<AsyncCopyOpConversion, AsyncCommitGroupOpConversion,
               AsyncWaitOpConversion>(converter, ctx);
}
