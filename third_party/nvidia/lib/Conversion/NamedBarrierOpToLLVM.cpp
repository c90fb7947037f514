//===- NamedBarrierOpToLLVM.cpp - bar.sync / bar.arrive with an id ---------===//
//
// tile_nv.named_barrier_sync / _arrive k, n become barrier.sync.aligned /
// barrier.arrive.aligned 15 - k, n (every thread of a warp executes them
// together, as the DSL's uniform code does). Kiln's own barriers count from
// 0 up (0 the CTA's; in a kernel with warp_specialize 1 its start barrier
// and 1 + i the CTA barrier of worker partition i), the kernel's from 15
// down; a kernel whose ids would meet is an error at the op.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile_nv;

namespace {

/// The highest barrier Kiln uses in `op`'s kernel: 0, or 1 + the most worker
/// partitions of one of its warp_specialize ops.
unsigned kilnsHighestBarrier(Operation *op) {
  unsigned highest = 0;
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return highest;
  func->walk([&](tile::WarpSpecializeOp ws) {
    highest = std::max<unsigned>(highest, 1 + ws.getPartitionRegions().size());
  });
  return highest;
}

template <typename OpT>
struct NamedBarrierConversion : TileOpConversion<OpT> {
  NamedBarrierConversion(TileTypeConverter &converter,
                         const LoweringContext &ctx, StringRef intrinsic)
      : TileOpConversion<OpT>(converter, ctx), intrinsic(intrinsic) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned hardware = namedBarrierHardwareId(op.getId());
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value id = LLVM::ConstantOp::create(rewriter, loc, i32, hardware);
    Value count =
        LLVM::ConstantOp::create(rewriter, loc, i32, op.getNumThreads());
    LLVM::CallIntrinsicOp::create(rewriter, loc,
                                  rewriter.getStringAttr(intrinsic),
                                  ValueRange{id, count});
    rewriter.eraseOp(op);
    return success();
  }

  StringRef intrinsic;
};

} // namespace

LogicalResult kiln::checkNamedBarrier(Operation *op) {
  int32_t id;
  if (auto sync = dyn_cast<NamedBarrierSyncOp>(op))
    id = sync.getId();
  else if (auto arrive = dyn_cast<NamedBarrierArriveOp>(op))
    id = arrive.getId();
  else
    return success();
  unsigned hardware = namedBarrierHardwareId(id);
  unsigned kilns = kilnsHighestBarrier(op);
  if (hardware > kilns)
    return success();
  return op->emitOpError()
         << "uses barrier id " << id << " (the hardware's barrier " << hardware
         << "), which this kernel's warp_specialize needs for " << kilns - 1
         << " worker partition(s): use ids below " << 15 - kilns;
}

void kiln::populateNamedBarrierOpToLLVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                const LoweringContext &ctx) {
  patterns.add<NamedBarrierConversion<NamedBarrierSyncOp>>(
      converter, ctx, "llvm.nvvm.barrier.cta.sync.aligned.count");
  patterns.add<NamedBarrierConversion<NamedBarrierArriveOp>>(
      converter, ctx, "llvm.nvvm.barrier.cta.arrive.aligned.count");
}
