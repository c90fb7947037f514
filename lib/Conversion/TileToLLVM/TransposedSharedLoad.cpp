//===- TransposedSharedLoad.cpp - local_load by a transposing LDS read ----===//
//
// Where a thread's consecutive registers lie along a strided dimension of a
// buffer and consecutive lanes along its contiguous one (a dot operand read
// from a buffer that is contiguous along M or N: a lane holds k_width
// consecutive K elements of one column), the element-wise path reads one
// element an instruction. A target with a transposing shared-memory load
// (TargetInfo::loadTransposed64, where the target has one) reads n
// = 64 / element bits of them at once: each lane of a group of 16 reads 8
// contiguous bytes, and the hardware hands lane i element i % n of the bytes
// of lane r * (16 / n) + (i % 16) / n as its element r.
//
// So the tensor fits when, with the buffer's offsets F2-linear in the
// register, lane and warp bits (SharedAccessPlan):
//  - lane bits 0 .. log2(n) - 1 move 1, 2, 4 elements (within the 8 bytes);
//  - register bits 0 .. log2(n) - 1 are the result's rows;
//  - every other bit, the view's offset and each padding interval move a
//    multiple of n elements (8-byte aligned reads).
// Lane j of a group then reads at the offset of its receivers' row
// r = (j % 16) / (16 / n), column group (j % 16) % (16 / n): the XOR of the
// offsets of register bits (r) and of lane bits log2(n) .. 3 (the column
// group), plus its own lane bits 4-5, warp bits and the register group's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

bool kiln::loadTransposedShared(
    OpBuilder &b, Location loc, Value base, RankedTensorType tensorType,
    Value view, Type memTy, Type regTy, SmallVectorImpl<Value> &regs,
    const LoweringContext &ctx, function_ref<void(Operation *)> mark) {
  auto memdesc = cast<MemDescType>(view.getType());
  unsigned elemBytes = getElementBytes(memdesc.getElementType());
  if (ctx.warpSize != 64 || !memTy.isIntOrFloat() ||
      memTy.getIntOrFloatBitWidth() != elemBytes * 8 ||
      !ctx.target.useTransposedLoad64(elemBytes * 8,
                                      tensorType.getEncoding()) ||
      getSharedBaseAlignment(view) < 8)
    return false;
  const int64_t n = 8 / elemBytes;
  const unsigned rowBits = llvm::Log2_64(n);
  int64_t xorOffset = getSharedXorOffset(view);
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, memdesc, getSharedBaseAlignment(view),
                       /*maxVectorBytes=*/elemBytes, xorOffset);
  if (failed(plan) || plan->vec != 1 || plan->laneBitOffsets.size() != 6)
    return false;
  ArrayRef<int64_t> offs = plan->registerOffsets;
  ArrayRef<int64_t> lanes = plan->laneBitOffsets;
  size_t numRegs = offs.size();
  if (numRegs < size_t(n) || !llvm::isPowerOf2_64(numRegs))
    return false;
  auto aligned = [&](int64_t o) { return o >= 0 && o % n == 0; };
  // XOR-linear in the register index, every bit 8-byte aligned.
  unsigned regBits = llvm::Log2_64(numRegs);
  if (!tile::isXorLinear(offs))
    return false;
  for (unsigned bit = 0; bit < regBits; ++bit)
    if (!aligned(offs[size_t(1) << bit]))
      return false;
  for (unsigned bit = 0; bit < 6; ++bit)
    if (bit < rowBits ? lanes[bit] != int64_t(1) << bit : !aligned(lanes[bit]))
      return false;
  if (!llvm::all_of(plan->warpBitOffsets, aligned) || !aligned(xorOffset))
    return false;
  for (auto [log2Interval, padding] : plan->paddings)
    if (log2Interval < rowBits || padding % n)
      return false;

  // The loading lane's bits: (j % 16) % (16 / n) picks the receivers' lane
  // bits rowBits .. 3, (j % 16) / (16 / n) their row (register bits), bits
  // 4-5 are its own.
  SmallVector<int64_t> loaderBits;
  for (unsigned bit = rowBits; bit < 4; ++bit)
    loaderBits.push_back(lanes[bit]);
  for (unsigned bit = 0; bit < rowBits; ++bit)
    loaderBits.push_back(offs[size_t(1) << bit]);
  loaderBits.push_back(lanes[4]);
  loaderBits.push_back(lanes[5]);
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value threadOffset = i32Const(b, loc, xorOffset);
  threadOffset = xorSetBits(b, loc, threadOffset, ids.lane, loaderBits);
  threadOffset =
      xorSetBits(b, loc, threadOffset, ids.warp, plan->warpBitOffsets);
  int64_t threadBits = xorOffset;
  for (int64_t o : loaderBits)
    threadBits |= o;
  for (int64_t o : plan->warpBitOffsets)
    threadBits |= o;

  auto resultTy = VectorType::get({n}, memTy);
  regs.assign(numRegs, Value());
  for (size_t g = 0; g < numRegs; g += n) {
    Value address = sharedElementAddress(b, loc, base, memTy, threadOffset,
                                         threadBits, offs[g], plan->paddings);
    Value rows = ctx.target.loadTransposed64(b, loc, address, memTy);
    if (mark)
      mark(rows.getDefiningOp());
    if (rows.getType() != resultTy)
      rows = LLVM::BitcastOp::create(b, loc, resultTy, rows);
    for (int64_t r = 0; r < n; ++r)
      regs[g + r] = fromMemory(
          b, loc,
          LLVM::ExtractElementOp::create(b, loc, rows, i32Const(b, loc, r)),
          regTy);
  }
  return true;
}
