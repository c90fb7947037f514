//===- ClusterOpToLLVM.cpp - cluster barriers and the mbarrier-init fence ===//
//
// tile_nv.cluster_arrive / cluster_wait become barrier.cluster.arrive
// [.relaxed].aligned / barrier.cluster.wait.aligned (every thread of a warp
// executes them together, as the DSL's uniform code does), and
// tile_nv.fence_mbarrier_init_cluster becomes
// fence.mbarrier_init.release.cluster. tile_nv.cluster_gather and
// cluster_scatter address each element in this CTA's part as local_gather
// does (cluster_load and cluster_store with every coordinate given), move
// the address to the target CTA's part with mapa and load or store there
// (ld / st.shared::cluster); cluster_atomic_rmw's atomics there are atom /
// red on .shared::cluster, relaxed at cluster scope.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Conversion/TileToLLVM/SharedIndex.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile_nv;

namespace {

struct ClusterArriveConversion : TileOpConversion<ClusterArriveOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterArriveOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    UnitAttr aligned = rewriter.getUnitAttr();
    if (op.getRelaxed())
      NVVM::ClusterArriveRelaxedOp::create(rewriter, op.getLoc(), aligned);
    else
      NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), aligned);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClusterWaitConversion : TileOpConversion<ClusterWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceMBarrierInitClusterConversion
    : TileOpConversion<FenceMBarrierInitClusterOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(FenceMBarrierInitClusterOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::FenceMbarrierInitOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

namespace {

/// The address in the CTA of rank `(rank & ~keep) | (own & keep)` of the
/// element at `local` in this CTA's part (`own`: this CTA's rank & keep).
Value remoteAddress(OpBuilder &b, Location loc, Value local, Value rank,
                    int32_t keep, Value own) {
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value target = rank;
  if (keep)
    target = LLVM::OrOp::create(
        b, loc, LLVM::AndOp::create(b, loc, rank, i32Const(b, loc, ~keep)), own);
  return NVVM::MapaOp::create(b, loc, clusterPtr, local, target);
}

/// This CTA's rank bits `keep` (null when there are none).
Value ownBits(OpBuilder &b, Location loc, int32_t keep) {
  if (!keep)
    return Value();
  return LLVM::AndOp::create(b, loc,
                             NVVM::ClusterId::create(b, loc, b.getI32Type()),
                             i32Const(b, loc, keep));
}

struct ClusterGatherConversion : TileOpConversion<ClusterGatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    FailureOr<Value> result = lowerIndexedGather(
        rewriter, op, adaptor.getSrc(), op.getSrc(), adaptor.getIndices(),
        {op.getAxis()}, cast<RankedTensorType>(op.getIndices().getType()),
        op.getType(), *getTypeConverter(), ctx, [&](unsigned r, Value p) {
          return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
        });
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct ClusterScatterConversion : TileOpConversion<ClusterScatterOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    if (failed(lowerIndexedScatter(
            rewriter, op, adaptor.getDst(), op.getDst(), adaptor.getValues(),
            cast<RankedTensorType>(op.getValues().getType()),
            adaptor.getIndices(), {op.getAxis()}, *getTypeConverter(), ctx,
            [&](unsigned r, Value p) {
              return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
            })))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every dimension of a rank-`n` buffer, in order: the axes cluster_load and
/// cluster_store give coordinates for.
SmallVector<unsigned> allAxes(unsigned n) {
  return llvm::to_vector(llvm::seq<unsigned>(0, n));
}

struct ClusterLoadConversion : TileOpConversion<ClusterLoadOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    FailureOr<Value> result = lowerIndexedGather(
        rewriter, op, adaptor.getSrc(), op.getSrc(), adaptor.getCoords(),
        allAxes(op.getType().getRank()), op.getType(), op.getType(),
        *getTypeConverter(), ctx, [&](unsigned r, Value p) {
          return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
        });
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct ClusterStoreConversion : TileOpConversion<ClusterStoreOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    auto type = cast<RankedTensorType>(op.getValues().getType());
    if (failed(lowerIndexedScatter(
            rewriter, op, adaptor.getDst(), op.getDst(), adaptor.getValues(),
            type, adaptor.getCoords(), allAxes(type.getRank()),
            *getTypeConverter(), ctx, [&](unsigned r, Value p) {
              return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
            })))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// The PTX operation and type of an atomic `kind` on `t` (the verifier
/// admits these): "add.u32", "max.s64", "exch.b32", ...
std::string atomOperation(StringRef kind, Type t) {
  std::string w = std::to_string(t.getIntOrFloatBitWidth());
  if (kind == "fadd")
    return "add.f" + w;
  if (kind == "add")
    return "add.u" + w;
  if (kind == "and" || kind == "or" || kind == "xor")
    return (kind + ".b").str() + w;
  if (kind == "max" || kind == "min")
    return (kind + ".s").str() + w;
  if (kind == "umax" || kind == "umin")
    return (kind.drop_front() + ".u").str() + w;
  return "exch.b" + w;
}

/// Whether `v` is a constant tensor of ones.
bool isSplatOne(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  auto elt = attr.getSplatValue<Attribute>();
  auto i = dyn_cast<IntegerAttr>(elt);
  return i && i.getValue().isOne();
}

struct ClusterAtomicRMWConversion : TileOpConversion<ClusterAtomicRMWOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterAtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto repeated = op->getAttrOfType<IntegerAttr>(tile::kRepeatedCtasAttr);
    int32_t repeatedBits = repeated ? repeated.getInt() : 0;
    auto type = cast<RankedTensorType>(op.getValues().getType());
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    if (!regTy)
      return failure();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    SmallVector<Value> values =
        unpackStruct(rewriter, loc, adaptor.getValues());
    FailureOr<SmallVector<Value>> addrs = indexedAddresses(
        rewriter, loc, op, adaptor.getDst(), op.getDst(), type,
        allAxes(type.getRank()), adaptor.getCoords(), getMemoryType(regTy),
        ctx);
    if (failed(addrs))
      return failure();
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    unsigned bits = regTy.getIntOrFloatBitWidth();
    std::string reg = regTy.isF32()   ? "f"
                      : regTy.isF64() ? "d"
                      : bits == 64    ? "l"
                                      : "r";
    std::string kindOp = atomOperation(op.getKind(), regTy);
    bool unused = !tile::oldValuesUsed(op.getResult());
    // An increment by one of a 32-bit counter whose old value nobody reads:
    // red.inc with the bound 2^32 - 1 (old + 1, wrapping).
    bool inc = unused && op.getKind() == "add" && bits == 32 &&
               isSplatOne(op.getValues());
    const char *head = "shared::cluster.cluster.relaxed.";
    Type i32 = rewriter.getI32Type();
    auto act = [&](unsigned r) -> Value {
      Value at = remoteAddress(rewriter, loc, (*addrs)[r], ranks[r], keep, own);
      auto asm_ = [&](Type resTy, ValueRange ops, std::string text,
                      std::string constraints) {
        return LLVM::InlineAsmOp::create(
            rewriter, loc, resTy, ops, text, constraints,
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
      };
      auto voidTy = LLVM::LLVMVoidType::get(rewriter.getContext());
      if (inc) {
        asm_(voidTy, ValueRange{at, i32Const(rewriter, loc, -1)},
             std::string("red.") + head + "inc.u32 [$0], $1;", "l,r");
        return LLVM::UndefOp::create(rewriter, loc, regTy);
      }
      if (unused && op.getKind() != "xchg") {
        asm_(voidTy, ValueRange{at, values[r]},
             std::string("red.") + head + kindOp + " [$0], $1;", "l," + reg);
        return LLVM::UndefOp::create(rewriter, loc, regTy);
      }
      return asm_(regTy, ValueRange{at, values[r]},
                  std::string("atom.") + head + kindOp + " $0, [$1], $2;",
                  "=" + reg + ",l," + reg)
          .getResult(0);
    };
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    // Elements several CTAs hold: one CTA acted (the mask); its old values
    // reach the others through its scratch: every CTA writes its values
    // there, the cluster waits, each reads the acting CTA's (its rank with
    // the repeated bits clear), and the cluster waits again before the
    // scratch is reused.
    auto acrossCtas = [&](MutableArrayRef<Value> out) {
      FailureOr<LinearLayout> ll = tile::getLinearLayout(type);
      Type memTy = getMemoryType(regTy);
      auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
      auto coordinates = emitCoordinates(rewriter, loc, *ll, ctx);
      SmallVector<int32_t> sizes(type.getShape().begin(),
                                 type.getShape().end());
      Value base = getScratchBase(rewriter, loc, op);
      SmallVector<Value> slots;
      for (auto &c : coordinates)
        slots.push_back(LLVM::GEPOp::create(
            rewriter, loc, ptrTy, memTy, base,
            ValueRange{emitLinearIndex(rewriter, loc, c, sizes)}));
      for (auto [r, v] : llvm::enumerate(out))
        LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, v),
                              slots[r]);
      UnitAttr aligned = rewriter.getUnitAttr();
      NVVM::ClusterArriveOp::create(rewriter, loc, aligned);
      NVVM::ClusterWaitOp::create(rewriter, loc, aligned);
      Value actor = LLVM::AndOp::create(
          rewriter, loc, NVVM::ClusterId::create(rewriter, loc, i32),
          i32Const(rewriter, loc, ~repeatedBits));
      auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
      for (unsigned r = 0; r < out.size(); ++r) {
        Value at = NVVM::MapaOp::create(rewriter, loc, clusterPtr, slots[r],
                                        actor);
        out[r] = fromMemory(
            rewriter, loc, LLVM::LoadOp::create(rewriter, loc, memTy, at),
            regTy);
      }
      NVVM::ClusterArriveOp::create(rewriter, loc, aligned);
      NVVM::ClusterWaitOp::create(rewriter, loc, aligned);
    };
    bool broadcast = repeatedBits && tile::oldValuesUsed(op.getResult());
    if (broadcast &&
        (!op->hasAttr(tile::TileDialect::ScratchOffsetAttrHelper::getNameStr()) ||
         failed(tile::getLinearLayout(type))))
      return op.emitOpError()
             << "passes old values between the CTAs of the cluster through "
                "shared memory, but has none assigned; run "
                "tile-allocate-shared-memory first";
    return lowerAtomic(op, type, op.getResult(), masks, regTy, rewriter, ctx,
                       act, getTypeConverter()->convertType(op.getType()), {},
                       {}, broadcast ? function_ref<void(MutableArrayRef<Value>)>(
                                           acrossCtas)
                                     : nullptr);
  }
};

} // namespace

void kiln::populateClusterOpToLLVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const LoweringContext &ctx) {
  patterns.add<ClusterArriveConversion, ClusterWaitConversion,
               FenceMBarrierInitClusterConversion, ClusterGatherConversion,
               ClusterScatterConversion, ClusterLoadConversion,
               ClusterStoreConversion, ClusterAtomicRMWConversion>(
      converter, ctx);
}
