//===- ConvertLayoutScratch.cpp - Layout moves through a swizzled scratch --===//
//
// A convert_layout that exchanges elements between threads goes through
// shared memory. Written row-major element by element (moveThroughShared),
// the scratch costs an access per element on each side, and the usual moves
// (an MMA accumulator to a row-blocked layout for the stores) add bank
// conflicts on top. Here the scratch takes the swizzled layout (vec,
// perPhase, maxPhase, order) for which the accesses of both sides times
// their bank conflicts (countBankConflicts: what bank_conflicts reports) are
// fewest, and both sides move through it as local stores and loads do:
// vectors of up to 16 bytes at the addresses planSharedAccess gives. Only
// where the whole tile fits the scratch at once (one round) and warps have
// 32 lanes (the bank model's); otherwise the rounds of moveThroughShared.
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
std::optional<int64_t> sideCost(RankedTensorType type, MemDescType memdesc) {
  FailureOr<SharedAccessPlan> plan = planSharedAccess(type, memdesc, 16, 16);
  FailureOr<int64_t> conflicts = countBankConflicts(type, memdesc);
  if (failed(plan) || failed(conflicts) || plan->vec == 0)
    return std::nullopt;
  int64_t accesses = int64_t(plan->registerOffsets.size()) / plan->vec;
  return accesses * (1 + *conflicts);
}

/// The scratch layout with the fewest accesses times conflicts over both
/// sides (ties: the earlier candidate, unswizzled and narrow first).
std::optional<MemDescType> pickScratch(RankedTensorType src,
                                       RankedTensorType dst) {
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
  for (ArrayRef<unsigned> order : orders)
    for (unsigned vec = 1; vec * elemBytes <= 16; vec *= 2)
      for (unsigned maxPhase = 1; maxPhase <= (rank > 1 ? 32u : 1u);
           maxPhase *= 2)
        for (unsigned perPhase = 1; perPhase <= (maxPhase > 1 ? 8u : 1u);
             perPhase *= 2) {
          auto layout =
              SwizzledSharedEncodingAttr::get(ctx, vec, perPhase, maxPhase, order);
          auto memdesc =
              MemDescType::get(ctx, src.getShape(), src.getElementType(),
                               layout, /*mutableMemory=*/true, src.getShape());
          std::optional<int64_t> s = sideCost(src, memdesc);
          std::optional<int64_t> d = sideCost(dst, memdesc);
          if (!s || !d || *s + *d >= bestCost)
            continue;
          bestCost = *s + *d;
          best = memdesc;
        }
  return best;
}

} // namespace

FailureOr<SmallVector<Value>> kiln::moveThroughSwizzledScratch(
    OpBuilder &b, Location loc, Operation *op, ArrayRef<Value> regs,
    RankedTensorType srcType, RankedTensorType dstType, Type regTy,
    const LoweringContext &ctx) {
  Type memTy = getMemoryType(regTy);
  // The bank model is stated for 32-lane warps (bank_conflicts refuses the
  // others too).
  if (ctx.warpSize != 32 || getScratchRounds(op) != 1 ||
      srcType.getShape() != dstType.getShape() ||
      srcType.getElementType() != dstType.getElementType() || memTy != regTy)
    return failure();
  std::optional<MemDescType> memdesc = pickScratch(srcType, dstType);
  if (!memdesc)
    return failure();
  Value base = getScratchBase(b, loc, op);
  unsigned elemBytes = getElementBytes(srcType.getElementType());
  FailureOr<SharedAddresses> in = emitSharedAddressesFor(
      b, loc, base, srcType, *memdesc, /*xorOffset=*/0, /*alignment=*/16,
      memTy, 16, ctx);
  if (failed(in) || in->addrs.size() * in->vec != regs.size())
    return failure();
  // The scratch may still be read by its previous user.
  ctx.target.barrier(b, loc);
  storeSharedVectors(b, loc, *in, regs, memTy, elemBytes);
  ctx.target.barrier(b, loc);
  FailureOr<SharedAddresses> out = emitSharedAddressesFor(
      b, loc, base, dstType, *memdesc, 0, 16, memTy, 16, ctx);
  if (failed(out))
    return failure();
  return loadSharedVectors(b, loc, *out, memTy, regTy, elemBytes);
}
