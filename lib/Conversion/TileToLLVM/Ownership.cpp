//===- Ownership.cpp - Which thread acts for an element several hold ------===//
//
// A tensor's layout may give one element to several registers, lanes or
// warps. A write of it (a store, an atomic) must happen once: the first
// register of a thread acts, and of the lanes and warps holding it the one
// whose redundant index bits are zero. Redundant bits are found by
// elimination over F2 (bases that are zero or depend on the others).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

FailureOr<Ownership> kiln::planOwnership(Operation *op, RankedTensorType type) {
  auto emit = [&] { return op->emitOpError(); };
  FailureOr<LinearLayout> ll = getLinearLayout(type, emit);
  if (failed(ll))
    return failure();
  Ownership own;
  std::map<SmallVector<int32_t>, unsigned> regs = registersByCoordinate(*ll);
  ArrayRef<LinearLayout::Basis> regBases = ll->getBases(LinearLayout::Register);
  unsigned n = 1u << regBases.size();
  unsigned rank = type.getRank();
  for (unsigned r = 0; r < n; ++r) {
    SmallVector<int32_t> c(rank, 0);
    for (unsigned bit = 0; bit < regBases.size(); ++bit)
      if (r >> bit & 1)
        for (unsigned d = 0; d < rank; ++d)
          c[d] ^= regBases[bit][d];
    own.canonical.push_back(regs.at(c));
  }
  FailureOr<RedundantThreadBits> redundant =
      getRedundantThreadBits(*ll, type.getShape());
  if (failed(redundant))
    return op->emitOpError()
           << "the tensor is too large to find which thread holds each "
              "element";
  own.redundantLanes = redundant->lanes;
  own.redundantWarps = redundant->warps;
  return own;
}

Value kiln::ownerPredicate(OpBuilder &b, Location loc, const Ownership &own,
                           const LoweringContext &ctx) {
  if (!own.redundantLanes && !own.redundantWarps)
    return {};
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value owner;
  for (auto [index, mask] :
       {std::pair<Value, unsigned>{ids.lane, own.redundantLanes},
        {ids.warp, own.redundantWarps}}) {
    if (!mask)
      continue;
    Value bits = LLVM::AndOp::create(b, loc, index, i32Const(b, loc, mask));
    Value none = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, bits,
                                      i32Const(b, loc, 0));
    owner = owner ? LLVM::AndOp::create(b, loc, owner, none) : none;
  }
  return owner;
}

/// `thenFn()`'s value where `cond` holds, undefined elsewhere, at the
/// rewriter's insertion point (which ends in the join block).
Value kiln::emitIfValue(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                  Type type, function_ref<Value()> thenFn) {
  Block *head = rewriter.getInsertionBlock();
  Block *join = rewriter.splitBlock(head, rewriter.getInsertionPoint());
  join->addArgument(type, loc);
  Block *thenBlock = rewriter.createBlock(join);
  Value v = thenFn();
  LLVM::BrOp::create(rewriter, loc, ValueRange{v}, join);
  rewriter.setInsertionPointToEnd(head);
  Value undef = LLVM::UndefOp::create(rewriter, loc, type);
  LLVM::CondBrOp::create(rewriter, loc, cond, thenBlock, ValueRange{}, join,
                         ValueRange{undef});
  rewriter.setInsertionPointToStart(join);
  return join->getArgument(0);
}


void kiln::emitIf(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                  function_ref<void()> thenFn) {
  Block *head = rewriter.getInsertionBlock();
  Block *join = rewriter.splitBlock(head, rewriter.getInsertionPoint());
  Block *thenBlock = rewriter.createBlock(join);
  thenFn();
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, join);
  rewriter.setInsertionPointToEnd(head);
  LLVM::CondBrOp::create(rewriter, loc, cond, thenBlock, ValueRange{}, join,
                         ValueRange{});
  rewriter.setInsertionPointToStart(join);
}
