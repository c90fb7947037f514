//===- ConvertLayoutScratch.cpp - Layout moves through a chosen scratch ---===//
//
// A convert_layout that exchanges elements between threads goes through
// shared memory. Written row-major element by element (moveThroughShared),
// the scratch costs an access per element on each side (where LLVM cannot
// merge them: a side that reads along the other order takes bytes one by
// one), and the usual moves (an MMA accumulator to a row-blocked layout for
// the stores) add bank conflicts on top. Here the scratch takes the layout
// (vec, perPhase, maxPhase, order) for which the accesses of both sides
// times their bank conflicts (countBankConflicts: what bank_conflicts
// reports) are fewest, and both sides move through it as local stores and
// loads do: vectors of up to 16 bytes at the addresses planSharedAccess
// gives, with the banks of the target (TargetDesc: their number, the lanes
// one pass of a 16-byte load serves, and whether swizzles are weighed). Only
// where the whole tile fits the scratch at once (one round), or in rounds
// that each move the elements of fixed register bits (getRoundLayout); the
// other moves take moveThroughShared's element-wise rounds.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/BankConflicts.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// Accesses one thread issues for `type` through `memdesc`, times one plus
/// their bank conflicts; none when the plan fails.
std::optional<int64_t> sideCost(RankedTensorType type, MemDescType memdesc,
                                const SharedBankModel &banks) {
  FailureOr<SharedAccessPlan> plan = planSharedAccess(type, memdesc, 16, 16);
  FailureOr<int64_t> conflicts = countBankConflicts(type, memdesc, banks);
  if (failed(plan) || failed(conflicts) || plan->vec == 0)
    return std::nullopt;
  int64_t accesses = int64_t(plan->registerOffsets.size()) / plan->vec;
  return accesses * (1 + *conflicts);
}

/// The scratch layout with the fewest accesses times conflicts over both
/// sides (ties: the earlier candidate, unswizzled and narrow first); only
/// unswizzled ones unless `swizzle`.
std::optional<MemDescType> pickScratch(RankedTensorType src,
                                       RankedTensorType dst,
                                       const SharedBankModel &banks,
                                       bool swizzle) {
  MLIRContext *ctx = src.getContext();
  unsigned rank = src.getRank();
  int64_t elemBytes = getElementBytes(src.getElementType());
  SmallVector<SmallVector<unsigned>> orders;
  SmallVector<unsigned> rowMajor;
  for (unsigned d = rank; d-- > 0;)
    rowMajor.push_back(d);
  orders.push_back(rowMajor);
  if (rank == 2)
    orders.push_back({0, 1});
  std::optional<MemDescType> best;
  int64_t bestCost = std::numeric_limits<int64_t>::max();
  unsigned maxPhases = rank > 1 && swizzle ? 32 : 1;
  for (ArrayRef<unsigned> order : orders)
    for (unsigned vec = 1; vec * elemBytes <= 16; vec *= 2)
      for (unsigned maxPhase = 1; maxPhase <= maxPhases;
           maxPhase *= 2)
        for (unsigned perPhase = 1; perPhase <= (maxPhase > 1 ? 8u : 1u);
             perPhase *= 2) {
          auto layout =
              SwizzledSharedEncodingAttr::get(ctx, vec, perPhase, maxPhase, order);
          auto memdesc =
              MemDescType::get(ctx, src.getShape(), src.getElementType(),
                               layout, /*mutableMemory=*/true, src.getShape());
          std::optional<int64_t> s = sideCost(src, memdesc, banks);
          std::optional<int64_t> d = sideCost(dst, memdesc, banks);
          if (!s || !d || *s + *d >= bestCost)
            continue;
          bestCost = *s + *d;
          best = memdesc;
        }
  return best;
}

} // namespace

/// The full register index of register `sub` of a round's layout in round
/// `round` (getRoundLayout: `regBits` are the dropped positions, bit j of
/// `round` the value of position regBits[j]).
static unsigned fullRegister(unsigned sub, unsigned round,
                             ArrayRef<unsigned> regBits) {
  SmallVector<std::pair<unsigned, unsigned>> fixed; // (position, value)
  for (auto [j, pos] : llvm::enumerate(regBits))
    fixed.push_back({pos, (round >> j) & 1});
  llvm::sort(fixed);
  unsigned full = 0, next = 0, bit = 0;
  for (auto [pos, value] : fixed) {
    for (; bit < pos; ++bit, ++next)
      full |= ((sub >> next) & 1) << bit;
    full |= value << bit++;
  }
  return full | ((sub >> next) << bit);
}

FailureOr<SmallVector<Value>> kiln::moveThroughSwizzledScratch(
    OpBuilder &b, Location loc, Operation *op, ArrayRef<Value> regs,
    RankedTensorType srcType, RankedTensorType dstType, Type regTy,
    const LoweringContext &ctx) {
  Type memTy = getMemoryType(regTy);
  if (srcType.getShape() != dstType.getShape() ||
      srcType.getElementType() != dstType.getElementType() || memTy != regTy)
    return failure();
  // In rounds (tile.scratch_rounds, where the whole tile does not fit): each
  // round moves the elements whose round bits (coordinate bits no thread
  // index sets) have its value, through a scratch of the tile without them.
  int64_t rounds = std::min(getScratchRounds(op), getMaxScratchRounds(op));
  SmallVector<unsigned> srcRegBits, dstRegBits;
  RankedTensorType srcPart = srcType, dstPart = dstType;
  if (rounds > 1) {
    auto layouts = getMoveLayouts(op);
    if (failed(layouts))
      return failure();
    auto bits = getScratchRoundBits(layouts->first, layouts->second);
    bits.resize(std::min<size_t>(bits.size(), llvm::Log2_64(rounds)));
    rounds = int64_t(1) << bits.size();
    FailureOr<LinearLayout> src =
        getRoundLayout(layouts->first, bits, srcRegBits);
    FailureOr<LinearLayout> dst =
        getRoundLayout(layouts->second, bits, dstRegBits);
    if (failed(src) || failed(dst))
      return failure();
    SmallVector<int64_t> shape(src->getOutSizes().begin(),
                               src->getOutSizes().end());
    MLIRContext *mctx = b.getContext();
    srcPart = RankedTensorType::get(shape, srcType.getElementType(),
                                    LinearEncodingAttr::get(mctx, *src));
    dstPart = RankedTensorType::get(shape, dstType.getElementType(),
                                    LinearEncodingAttr::get(mctx, *dst));
  }
  const TargetDesc &desc = ctx.target.getDesc();
  SharedBankModel banks;
  banks.numBanks = desc.sharedMemoryBanks;
  banks.laneBits16 = desc.sharedLoad16LaneBits;
  std::optional<MemDescType> memdesc =
      pickScratch(srcPart, dstPart, banks, desc.swizzledLayoutScratch);
  if (!memdesc)
    return failure();
  Value base = getScratchBase(b, loc, op);
  unsigned elemBytes = getElementBytes(srcType.getElementType());
  FailureOr<SharedAddresses> in = emitSharedAddressesFor(
      b, loc, base, srcPart, *memdesc, /*xorOffset=*/0, /*alignment=*/16,
      memTy, 16, ctx);
  int64_t srcPerRound = int64_t(regs.size()) / rounds;
  if (failed(in) || int64_t(in->addrs.size() * in->vec) != srcPerRound)
    return failure();
  // Both sides' registers split evenly over the rounds (checked before any
  // store is emitted: a failure after it would leave them behind).
  int64_t dstRegs = 0;
  if (FailureOr<LinearLayout> dl = getLinearLayout(dstType); succeeded(dl))
    dstRegs = dl->getInSize(LinearLayout::Register);
  FailureOr<LinearLayout> dstRound = getLinearLayout(dstPart);
  if (dstRegs == 0 || failed(dstRound) ||
      dstRound->getInSize(LinearLayout::Register) * rounds != dstRegs)
    return failure();
  SmallVector<Value> result(dstRegs);
  std::optional<SharedAddresses> out;
  for (int64_t r = 0; r < rounds; ++r) {
    SmallVector<Value> part;
    for (int64_t i = 0; i < srcPerRound; ++i)
      part.push_back(regs[rounds == 1 ? i : fullRegister(i, r, srcRegBits)]);
    // The scratch may still be read by its previous user (or round).
    ctx.target.barrier(b, loc);
    storeSharedVectors(b, loc, *in, part, memTy, elemBytes);
    ctx.target.barrier(b, loc);
    if (!out) {
      FailureOr<SharedAddresses> o = emitSharedAddressesFor(
          b, loc, base, dstPart, *memdesc, 0, 16, memTy, 16, ctx);
      if (failed(o))
        return failure();
      out = *o;
    }
    SmallVector<Value> got =
        loadSharedVectors(b, loc, *out, memTy, regTy, elemBytes);
    if (int64_t(got.size()) * rounds != dstRegs)
      return failure();
    for (auto [i, v] : llvm::enumerate(got))
      result[rounds == 1 ? i : fullRegister(i, r, dstRegBits)] = v;
  }
  return result;
}
