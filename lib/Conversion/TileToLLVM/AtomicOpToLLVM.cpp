//===- AtomicOpToLLVM.cpp - tile.atomic_rmw / tile.atomic_cas -------------===//
//
// An atomic is performed once per element, however many threads hold it:
// a thread whose lane or warp bits only repeat elements other threads hold
// (bases that are zero or depend on the others, found by elimination over
// F2) skips, and of several registers holding one element only the first
// acts (the others take its result). Each remaining element is one atomic
// with the op's ordering at the target's sync scope (TargetInfo::atomicRMW /
// atomicCAS: LLVM's atomicrmw / cmpxchg, or an instruction the target writes
// out where its LLVM backend drops an atomicrmw's ordering), behind a branch
// where a mask or the thread test applies. A 16-bit float add of two
// adjacent elements is one packed instruction where the target has one.
// Where the old values of elements several threads hold are used, the acting
// thread also writes each old value to the op's shared-memory scratch (a
// slot per element, row-major), and after a barrier every holder reads it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringSwitch.h"

#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

LogicalResult kiln::lowerAtomic(Operation *op, RankedTensorType type,
                                Value result, ArrayRef<Value> masks, Type regTy,
                                ConversionPatternRewriter &rewriter,
                                const LoweringContext &ctx,
                                function_ref<Value(unsigned)> act,
                                Type structTy,
                                function_ref<Value(unsigned)> pairFn,
                                function_ref<Value(unsigned, Value)> actIf,
                                function_ref<void(MutableArrayRef<Value>)> finish) {
  if (!inControlFlowGraph(op))
    return op->emitOpError()
           << "is lowered with branches, so it must be in a function's "
              "control-flow graph: run convert-scf-to-cf first (kiln-to-llvm "
              "does)";
  FailureOr<Ownership> own = planOwnership(op, type);
  if (failed(own))
    return failure();
  Location loc = op->getLoc();
  bool broadcast =
      (own->redundantLanes || own->redundantWarps) && oldValuesUsed(result);
  // With `broadcast`: each register's slot in the scratch.
  SmallVector<Value> slots;
  Type memTy = getMemoryType(regTy);
  auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
  if (broadcast) {
    if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
      return op->emitOpError()
             << "uses the old values of elements several threads hold, which "
                "pass through shared memory, but has none assigned; run "
                "tile-allocate-shared-memory first";
    FailureOr<LinearLayout> ll = getLinearLayout(type);
    if (failed(ll))
      return op->emitOpError() << "has no linear layout";
    auto coords = emitCoordinates(rewriter, loc, *ll, ctx);
    SmallVector<int32_t> sizes(type.getShape().begin(), type.getShape().end());
    Value base = getScratchBase(rewriter, loc, op);
    for (auto &c : coords)
      slots.push_back(LLVM::GEPOp::create(
          rewriter, loc, ptrTy, memTy, base,
          ValueRange{emitLinearIndex(rewriter, loc, c, sizes)}));
    // Earlier readers of these bytes are done before the owners write.
    ctx.target.barrier(rewriter, loc);
  }
  auto publish = [&](unsigned r, Value old) {
    if (broadcast)
      LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, old),
                            slots[r]);
  };
  Value owner = ownerPredicate(rewriter, loc, *own, ctx);
  SmallVector<Value> out(own->canonical.size());
  for (unsigned r = 0; r < own->canonical.size(); ++r) {
    if (own->canonical[r] != r) {
      out[r] = out[own->canonical[r]];
      continue;
    }
    Value pred = owner;
    if (!masks.empty())
      pred = pred ? LLVM::AndOp::create(rewriter, loc, pred, masks[r])
                  : masks[r];
    if (pairFn && r % 2 == 0 && r + 1 < own->canonical.size() &&
        own->canonical[r + 1] == r + 1) {
      Type pairTy = VectorType::get({2}, regTy);
      auto actPair = [&] {
        Value pair = pairFn(r);
        for (unsigned i = 0; i < 2 && broadcast; ++i)
          publish(r + i, LLVM::ExtractElementOp::create(
                             rewriter, loc, pair, i32Const(rewriter, loc, i)));
        return pair;
      };
      Value pair = pred ? emitIfValue(rewriter, loc, pred, pairTy, actPair)
                        : actPair();
      for (unsigned i = 0; i < 2; ++i)
        out[r + i] = LLVM::ExtractElementOp::create(rewriter, loc, pair,
                                                    i32Const(rewriter, loc, i));
      ++r;
      continue;
    }
    if (actIf) {
      // Predicated by the instruction itself: every thread issues it; only
      // the acting ones publish.
      out[r] = actIf(r, pred);
      if (broadcast && pred)
        emitIf(rewriter, loc, pred, [&] { publish(r, out[r]); });
      else
        publish(r, out[r]);
      continue;
    }
    auto actOne = [&] {
      Value old = act(r);
      publish(r, old);
      return old;
    };
    out[r] = pred ? emitIfValue(rewriter, loc, pred, regTy, actOne) : actOne();
  }
  if (broadcast) {
    // Every holder reads the value its element's owner wrote.
    ctx.target.barrier(rewriter, loc);
    for (unsigned r = 0; r < out.size(); ++r)
      out[r] = own->canonical[r] != r
                   ? out[own->canonical[r]]
                   : fromMemory(rewriter, loc,
                                LLVM::LoadOp::create(rewriter, loc, memTy,
                                                     slots[r]),
                                regTy);
  }
  if (finish)
    finish(out);
  rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, out));
  return success();
}

LLVM::AtomicBinOp kiln::getAtomicBinOp(StringRef kind) {
  return llvm::StringSwitch<LLVM::AtomicBinOp>(kind)
      .Case("add", LLVM::AtomicBinOp::add)
      .Case("and", LLVM::AtomicBinOp::_and)
      .Case("or", LLVM::AtomicBinOp::_or)
      .Case("xor", LLVM::AtomicBinOp::_xor)
      .Case("max", LLVM::AtomicBinOp::max)
      .Case("min", LLVM::AtomicBinOp::min)
      .Case("umax", LLVM::AtomicBinOp::umax)
      .Case("umin", LLVM::AtomicBinOp::umin)
      .Case("fadd", LLVM::AtomicBinOp::fadd)
      .Case("fmax", LLVM::AtomicBinOp::fmax)
      .Case("fmin", LLVM::AtomicBinOp::fmin)
      .Default(LLVM::AtomicBinOp::xchg);
}

namespace {

struct AtomicRMWOpConversion : public ConvertOpToLLVMPattern<AtomicRMWOp> {
  AtomicRMWOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getVal().getType();
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getVal());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    LLVM::AtomicBinOp binOp = getAtomicBinOp(op.getKind());
    StringRef sem = op.getSem(), scope = op.getScope();
    unsigned align = getElementBytes(type.getElementType());
    // A 16-bit float add of two elements adjacent in memory and in the
    // thread's registers (4-byte aligned, one mask: the vector width the
    // loads would use) is one packed instruction where the target has it.
    function_ref<Value(unsigned)> pairFn;
    auto pair = [&](unsigned r) -> Value {
      auto pairTy = VectorType::get({2}, regTy);
      Value v = LLVM::UndefOp::create(rewriter, loc, pairTy);
      for (unsigned i = 0; i < 2; ++i)
        v = LLVM::InsertElementOp::create(rewriter, loc, v, vals[r + i],
                                          i32Const(rewriter, loc, i));
      return ctx.target.packedAtomicFAdd(rewriter, loc, ptrs[r], v, sem,
                                         scope);
    };
    if (binOp == LLVM::AtomicBinOp::fadd &&
        ctx.target.hasPackedAtomicFAdd(type.getElementType()) &&
        getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx) >= 2)
      pairFn = pair;
    return lowerAtomic(
        op, type, op.getResult(), masks, regTy, rewriter, ctx,
        [&](unsigned r) -> Value {
          return ctx.target.atomicRMW(rewriter, loc, binOp, ptrs[r], vals[r],
                                      sem, scope, align);
        },
        getTypeConverter()->convertType(op.getType()), pairFn);
  }

  const LoweringContext &ctx;
};

struct AtomicCASOpConversion : public ConvertOpToLLVMPattern<AtomicCASOp> {
  AtomicCASOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getVal().getType();
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> cmps = unpackStruct(rewriter, loc, adaptor.getCmp());
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getVal());
    unsigned bits = regTy.getIntOrFloatBitWidth();
    Type intTy = rewriter.getIntegerType(bits);
    unsigned align = bits / 8;
    return lowerAtomic(
        op, type, op.getResult(), {}, regTy, rewriter, ctx,
        [&](unsigned r) -> Value {
          // cmpxchg compares integers: floats go bitwise.
          Value c = cmps[r], v = vals[r];
          if (regTy != intTy) {
            c = LLVM::BitcastOp::create(rewriter, loc, intTy, c);
            v = LLVM::BitcastOp::create(rewriter, loc, intTy, v);
          }
          Value old = ctx.target.atomicCAS(rewriter, loc, ptrs[r], c, v,
                                           op.getSem(), op.getScope(), align);
          if (regTy != intTy)
            old = LLVM::BitcastOp::create(rewriter, loc, regTy, old);
          return old;
        },
        getTypeConverter()->convertType(op.getType()));
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateAtomicOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<AtomicRMWOpConversion, AtomicCASOpConversion>(converter, ctx);
}
