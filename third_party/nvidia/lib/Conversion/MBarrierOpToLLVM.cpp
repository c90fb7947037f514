//===- MBarrierOpToLLVM.cpp - tile_nv mbarriers to NVVM -------------------===//
//
// An mbarrier is one 64-bit shared-memory word. One thread (lane 0 of warp
// 0: a pure test, computed once before a loop, where elect.sync is
// convergent and stays at every arrival) initializes it (then a CTA
// barrier) and invalidates it. An arrival
// is made by that thread on behalf of the CTA (tile-insert-barriers puts a
// CTA barrier before it when threads accessed shared memory since the last
// one, so that those accesses are ordered before the arrival's release;
// a single arrival from sm_90 on is a predicated
// arrive.expect_tx of 0 bytes, without a branch). A per-warp arrival is
// lane 0's of every warp, after a bar.warp.sync. Arming it with expected
// transaction bytes (for TMA) is that thread's alone. Waits spin on
// mbarrier.try_wait.parity (no suspend hint; test_wait.parity on sm_80) in
// every thread, a loop inside one inline PTX block. Everything goes through NVVM ops; the PTX-builder
// ones (init, arrive.expect_tx) become inline PTX in finishLowering.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/BarrierRuns.h"
#include "NVIDIALowering.h"

#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

Value kiln::isElectedThread(OpBuilder &b, Operation *op,
                            const LoweringContext &ctx, bool laneZero) {
  Location loc = op->getLoc();
  // elect.sync is sm_90's; before it (or where asked), lane 0.
  Value elected =
      ctx.target.getDesc().arch >= 90 && !laneZero
          ? Value(NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value()))
          : Value(LLVM::ICmpOp::create(
                b, loc, LLVM::ICmpPredicate::eq,
                NVVM::LaneIdOp::create(b, loc, b.getI32Type()),
                i32Const(b, loc, 0)));
  if (lookupNumWarps(op, ctx.numWarps) == 1)
    return elected;
  Value warpZero =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                           warpIdAtEntry(b, op, ctx), i32Const(b, loc, 0));
  return LLVM::AndOp::create(b, loc, warpZero, elected);
}

namespace {

Value andPred(OpBuilder &b, Location loc, Value a, Value pred) {
  return pred ? LLVM::AndOp::create(b, loc, a, pred).getResult() : a;
}

struct MBarrierInitOpConversion : TileOpConversion<MBarrierInitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierInitOp::create(rewriter, loc, adaptor.getBarrier(),
                                 i32Const(rewriter, loc, op.getCount()),
                                 isElectedThread(rewriter, op, ctx, /*laneZero=*/true));
    // No thread may arrive or wait before the word is initialized; waits
    // and arrivals are not shared-memory accesses to tile-insert-barriers.
    // A run of inits (a ring's barriers) shares the barrier after its last
    // (tile::markBarrierRuns marked the others).
    if (!sharesBarrier(op))
      ctx.target.barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierInvalidateOpConversion
    : TileOpConversion<MBarrierInvalidateOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MBarrierInvalidateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = adaptor.getBarrier();
    // Every thread is past its last use of the barrier (a wait may still be
    // polling it) before the one thread invalidates it. A run of invalidates
    // shares the barrier before its first (tile::markBarrierRuns marked the
    // others).
    if (!sharesBarrier(op))
      ctx.target.barrier(rewriter, loc);
    if (failed(emitIfElse(
            rewriter, op, isElectedThread(rewriter, op, ctx, /*laneZero=*/true),
            [&] { NVVM::MBarrierInvalOp::create(rewriter, loc, addr); },
            nullptr)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread: its own cp.async copies are what the barrier tracks.
struct AsyncCopyMBarrierArriveOpConversion
    : TileOpConversion<AsyncCopyMBarrierArriveOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncCopyMBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncMBarrierArriveOp::create(rewriter, op.getLoc(),
                                          adaptor.getBarrier(),
                                          /*noinc=*/!op.getIncrement());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierExpectOpConversion : TileOpConversion<MBarrierExpectOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MBarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // No CTA barrier first (unlike a plain arrival): arming a barrier for a
    // TMA copy publishes no thread's writes.
    Value pred = andPred(rewriter, loc, isElectedThread(rewriter, op, ctx, /*laneZero=*/true),
                         adaptor.getPred());
    Value bytes = adaptor.getDynamicBytes()
                      ? adaptor.getDynamicBytes()
                      : i32Const(rewriter, loc, op.getBytes());
    if (int64_t mask = op.getCtaMask()) {
      // The set's CTA with the mask's bits clear arrives on the barrier of
      // every CTA of the set: mapa to rank | k, k each combination of the
      // mask's bits, an arrive.expect_tx there (PTX's default release at
      // CTA scope, as the local one).
      Type i32 = rewriter.getI32Type();
      auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
      Value rank = NVVM::ClusterId::create(rewriter, loc, i32);
      Value own = LLVM::AndOp::create(rewriter, loc, rank,
                                      i32Const(rewriter, loc, mask));
      Value leader = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                          own, i32Const(rewriter, loc, 0));
      pred = LLVM::AndOp::create(rewriter, loc, pred, leader);
      for (int64_t k = 0; k < 16; ++k) {
        if (k & ~mask)
          continue;
        Value target =
            k ? Value(LLVM::OrOp::create(rewriter, loc, rank,
                                         i32Const(rewriter, loc, k)))
              : rank;
        Value remote = NVVM::MapaOp::create(rewriter, loc, clusterPtr,
                                            adaptor.getBarrier(), target);
        Value bits = LLVM::PtrToIntOp::create(rewriter, loc, i32, remote);
        LLVM::InlineAsmOp::create(
            rewriter, loc, LLVM::LLVMVoidType::get(rewriter.getContext()),
            ValueRange{bits, bytes, pred},
            "@$2 mbarrier.arrive.expect_tx.shared::cluster.b64 _, [$0], $1;",
            "r,r,b", /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
      }
      rewriter.eraseOp(op);
      return success();
    }
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, Type(), adaptor.getBarrier(), bytes,
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveOpConversion : TileOpConversion<MBarrierArriveOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The CTA barrier that orders the threads' earlier shared-memory
    // accesses before this one thread's release is tile-insert-barriers'
    // (only where there are such accesses).
    Value pred;
    if (op.getPerWarp()) {
      // Every warp for its own threads: bar.warp.sync orders the lanes'
      // accesses before lane 0's release, with no CTA barrier.
      NVVM::SyncWarpOp::create(rewriter, loc, i32Const(rewriter, loc, -1));
      // A predicate is the partition's (Kiln's scalars are the same in all
      // its threads): every warp skips or every warp arrives.
      pred = andPred(rewriter, loc,
                     LLVM::ICmpOp::create(
                         rewriter, loc, LLVM::ICmpPredicate::eq,
                         NVVM::LaneIdOp::create(rewriter, loc,
                                                rewriter.getI32Type()),
                         i32Const(rewriter, loc, 0)),
                     adaptor.getPred());
    } else {
      pred = andPred(rewriter, loc,
                     isElectedThread(rewriter, op, ctx, /*laneZero=*/true),
                     adaptor.getPred());
    }
    Value addr = adaptor.getBarrier();
    if (int64_t mask = op.getCtaMask()) {
      // The same place in each CTA whose rank differs only in `mask`'s
      // bits: mapa of the address to rank (rank & ~mask) | k, k each
      // combination of those bits, then an arrive there, predicated rather
      // than behind a branch. PTX's default semantics (release at CTA
      // scope), as a local arrive: what a consumer releases is its reads,
      // finished when it arrives (CUTLASS's cluster barriers do the same);
      // a cluster-scope release would fence every arrival.
      Type i32 = rewriter.getI32Type();
      auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
      std::string text = "@$1 mbarrier.arrive.shared::cluster.b64 _, [$0], " +
                         std::to_string(op.getCount()) + ";";
      Value rank = NVVM::ClusterId::create(rewriter, loc, i32);
      Value base = LLVM::AndOp::create(rewriter, loc, rank,
                                       i32Const(rewriter, loc, ~mask));
      if (op.getFromLeader()) {
        // Only the set's leader (the mask's bits of its rank clear) arrives.
        Value own = LLVM::AndOp::create(rewriter, loc, rank,
                                        i32Const(rewriter, loc, mask));
        pred = LLVM::AndOp::create(
            rewriter, loc, pred,
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, own,
                                 i32Const(rewriter, loc, 0)));
      }
      for (int64_t k = 0; k < 16; ++k) {
        if (k & ~mask)
          continue;
        Value target =
            k ? Value(LLVM::OrOp::create(rewriter, loc, base,
                                         i32Const(rewriter, loc, k)))
              : base;
        Value remote =
            NVVM::MapaOp::create(rewriter, loc, clusterPtr, addr, target);
        Value bits = LLVM::PtrToIntOp::create(rewriter, loc, i32, remote);
        LLVM::InlineAsmOp::create(
            rewriter, loc, LLVM::LLVMVoidType::get(rewriter.getContext()),
            ValueRange{bits, pred}, text, "r,b", /*has_side_effects=*/true,
            /*is_align_stack=*/false, LLVM::TailCallKind::None,
            LLVM::AsmDialectAttr(), ArrayAttr());
      }
      rewriter.eraseOp(op);
      return success();
    }
    // One arrival, from sm_90 on: a predicated arrive.expect_tx of 0 bytes
    // (the same arrive-on with release semantics; expecting 0 bytes changes
    // nothing). No branch, so the address is computed by every thread and
    // stays in uniform registers, as for the loop's other mbarrier ops.
    if (op.getCount() == 1 && ctx.target.getDesc().arch >= 90) {
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, Type(), addr, i32Const(rewriter, loc, 0),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, pred);
      rewriter.eraseOp(op);
      return success();
    }
    Value count = i32Const(rewriter, loc, op.getCount());
    bool sm80 = ctx.target.getDesc().arch < 90;
    if (failed(emitIfElse(
            rewriter, op, pred,
            [&] {
              if (!sm80) {
                NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), addr,
                                               count);
                return;
              }
              // sm_80's arrive has no count operand (and NVVM's op lowers
              // to sm_90's scoped form): `count` plain arrivals.
              std::string text = "{\n.reg .b64 st;\n";
              for (int64_t i = 0; i < op.getCount(); ++i)
                text += "mbarrier.arrive.shared.b64 st, [$0];\n";
              text += "}";
              Value shared = addr;
              LLVM::InlineAsmOp::create(
                  rewriter, loc, LLVM::LLVMVoidType::get(rewriter.getContext()),
                  ValueRange{shared}, text, "r", /*has_side_effects=*/true,
                  /*is_align_stack=*/false, LLVM::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr());
            },
            nullptr)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitOpConversion : TileOpConversion<MBarrierWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = adaptor.getBarrier();
    Value phase = LLVM::AndOp::create(rewriter, loc, adaptor.getPhase(),
                                      i32Const(rewriter, loc, 1));
    // Only the first warp (where the elected thread issues the copies)
    // waits with elected_warp.
    bool electedWarp =
        op.getElectedWarp() && lookupNumWarps(op, ctx.numWarps) > 1;
    if ((adaptor.getPred() || electedWarp) && !inControlFlowGraph(op))
      return op->emitOpError()
             << "with " << (adaptor.getPred() ? "a predicate" : "elected_warp")
             << " is lowered with a branch, so it must be in a function's "
                "control-flow graph: run convert-scf-to-cf first (kiln-to-llvm "
                "does)";
    // Spin on try_wait.parity without a suspend-time hint: with one (CUTLASS
    // passes 10 ms) ptxas puts a NANOSLEEP in the retry path, and a warp
    // that missed its slot by a little sleeps past the copy's arrival.
    // sm_80 has no try_wait: it spins on the non-blocking test_wait.parity.
    bool hasTryWait = ctx.target.getDesc().arch >= 90;
    // The spin is one inline PTX block with its own loop, not an LLVM loop:
    // LLVM would see a loop there and sink into its exit the arithmetic
    // computed before it but used after (indvars' sinking of unused loop
    // invariants), moving the use of a waited wgmma accumulator below the
    // next wgmma's issue, where ptxas then serializes every wgmma.
    std::string text = std::string("{\n.reg .pred complete;\nwaitLoop:\n") +
                       (hasTryWait ? "mbarrier.try_wait.parity.shared.b64"
                                   : "mbarrier.test_wait.parity.shared.b64") +
                       " complete, [$0], $1;\n@!complete bra.uni waitLoop;\n}";
    auto wait = [&] {
      LLVM::InlineAsmOp::create(
          rewriter, loc, LLVM::LLVMVoidType::get(rewriter.getContext()),
          ValueRange{addr, phase}, text, "r,r,~{memory}",
          /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr());
    };
    Value pred = adaptor.getPred();
    if (electedWarp) {
      Value warpZero = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::eq, warpIdAtEntry(rewriter, op, ctx),
          i32Const(rewriter, loc, 0));
      pred = andPred(rewriter, loc, warpZero, pred);
    }
    if (pred) {
      if (failed(emitIfElse(rewriter, op, pred, wait, nullptr)))
        return failure();
    } else {
      wait();
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateMBarrierOpToLLVMPatterns(TileTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            const LoweringContext &ctx) {
  patterns.add<AsyncCopyMBarrierArriveOpConversion, MBarrierInitOpConversion,
               MBarrierInvalidateOpConversion,
               MBarrierExpectOpConversion, MBarrierArriveOpConversion,
               MBarrierWaitOpConversion>(converter, ctx);
}
