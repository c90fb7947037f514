//===- WarpGroupDotOpToLLVM.cpp - wgmma to NVVM ---------------------------===//
//
// Each warpgroup computes its part of the accumulator as a grid of
// m64nNk16 instructions: the accumulator's layout must be the wgmma (v3)
// one, which is checked on its F2-linear form (lanes and the first two warp
// bits as the instruction places them; the warpgroup bits move whole
// 64-row or N-column blocks), and each instruction's registers are found by
// their coordinates among the thread's registers. Operands are read through
// shared-memory matrix descriptors: the unswizzled start address of the
// instruction's first row and K step (rows start at multiples of 8, where
// the swizzle phase is 0), the stride of 8 rows, and the swizzle mode.
//
//===----------------------------------------------------------------------===//

#include "MMAFragments.h"
#include "NVIDIALowering.h"
#include "WarpGroupDot.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// Coordinates [row, col] of register r of one m64nNk16 f32 instruction,
/// relative to the warp's 16-row slice (PTX's wgmma D fragment).
std::pair<int32_t, int32_t> instructionRegister(int r) {
  return {8 * ((r >> 1) & 1), (r & 1) + 8 * (r >> 2)};
}

/// An operand in shared memory: its nvmma layout and the element offsets of
/// (row, k) in its buffer (row = M for a, N for b). K-major operands have K
/// contiguous; MN-major ones (16-bit types only) have M or N contiguous, as
/// a row-major B [K, N] does, and are read transposed by the instruction.
struct Operand {
  NVMMASharedEncodingAttr layout;
  SharedOffsets offsets;
  bool rowsFirst; // the view is [rows, K] (a) rather than [K, rows] (b)
  unsigned elemBytes;
  bool kMajor = true;

  int64_t offsetOf(int32_t row, int32_t k) const {
    return rowsFirst ? offsets.offsetOf({row, k}) : offsets.offsetOf({k, row});
  }
};

FailureOr<Operand> getOperand(Operation *op, Value view, bool rowsFirst,
                              StringRef name) {
  auto type = cast<MemDescType>(view.getType());
  auto layout = cast<NVMMASharedEncodingAttr>(type.getEncoding());
  // K is dimension 1 of a and dimension 0 of b.
  unsigned kDim = rowsFirst ? 1 : 0;
  bool kMajor = layout.getContiguousDim() == kDim;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (!kMajor && bits != 16) {
    op->emitOpError() << name << " has " << (rowsFirst ? "M" : "N")
                      << " contiguous, which wgmma reads (transposed) only "
                         "for 16-bit types; a "
                      << bits << "-bit operand must have K contiguous";
    return failure();
  }
  if (layout.getSwizzle() == 0) {
    op->emitOpError() << name
                      << ": wgmma reads of unswizzled (swizzle 0) buffers are "
                         "not lowered yet; use a 32, 64 or 128-byte swizzle";
    return failure();
  }
  if (getSharedXorOffset(view) != 0) {
    op->emitOpError() << name
                      << " is a subslice that does not start a swizzle atom; "
                         "wgmma descriptors need whole atoms";
    return failure();
  }
  FailureOr<SharedOffsets> offsets = SharedOffsets::get(type);
  if (failed(offsets)) {
    op->emitOpError() << name << ": its layout is not a bijection";
    return failure();
  }
  return Operand{layout, *offsets, rowsFirst, bits / 8, kMajor};
}

/// Where `a` is a tensor: its layout must place the A fragment of each
/// warp's 16-row slice as mma.m16n8k16 does (the lanes, the warpgroup's 4
/// warps 16 rows apart), move with the accumulator's rows across
/// warpgroups and hold all of K; then the registers of each instruction's
/// fragment are looked up by their coordinates.
LogicalResult planRegisterA(WarpGroupDotOp op, ArrayRef<LinearLayout::Basis> accWarps,
                            WarpGroupDotPlan &plan) {
  auto type = cast<RankedTensorType>(op.getA().getType());
  FailureOr<LinearLayout> ll =
      getLinearLayout(type, [&] { return op.emitOpError(); });
  if (failed(ll))
    return failure();
  auto fail = [&](const Twine &why) {
    op.emitOpError() << "a's layout is not the wgmma register operand's: "
                     << why
                     << " (use DotOperandLayout(0, the accumulator's layout, "
                        "k_width=2))";
    return failure();
  };
  const LinearLayout::Basis laneWant[] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  ArrayRef<LinearLayout::Basis> lanes = ll->getBases(LinearLayout::Lane);
  if (lanes.size() != 5)
    return fail("it is not for 32-lane warps");
  for (unsigned i = 0; i < 5; ++i)
    if (lanes[i] != laneWant[i])
      return fail("lane bit " + Twine(i) + " moves by " + basisText(lanes[i]) +
                  ", the instruction's by " + basisText(laneWant[i]));
  ArrayRef<LinearLayout::Basis> warps = ll->getBases(LinearLayout::Warp);
  if (warps.size() != accWarps.size())
    return fail("its warps are not the accumulator's");
  for (unsigned i = 0; i < warps.size(); ++i) {
    LinearLayout::Basis want = {accWarps[i][0], 0};
    if (warps[i] != want)
      return fail("warp bit " + Twine(i) + " moves by " + basisText(warps[i]) +
                  ", the accumulator's rows by " + basisText(want));
  }
  FailureOr<DenseMap<Coord, int64_t>> regOf = registersByCoord(*ll);
  if (failed(regOf))
    return fail("two registers hold the same element");
  int64_t k = type.getShape()[1];
  for (int32_t mi = 0; mi < plan.instrM; ++mi)
    for (int32_t k0 = 0; k0 < k; k0 += 16) {
      std::array<int64_t, 8> frag;
      const std::array<Coord, 8> at = aFragment(64 * mi, k0);
      for (int i = 0; i < 8; ++i) {
        auto it = regOf->find(at[i]);
        if (it == regOf->end())
          return fail("no register holds row " + Twine(at[i].first) +
                      ", column " + Twine(at[i].second) +
                      " of a warp's slice");
        frag[i] = it->second;
      }
      plan.aRegisters.push_back(frag);
    }
  return success();
}

} // namespace

FailureOr<WarpGroupDotPlan> kiln::planWarpGroupDot(WarpGroupDotOp op,
                                                   unsigned numWarps) {
  auto acc = cast<RankedTensorType>(op.getC().getType());
  int64_t m = acc.getShape()[0], n = acc.getShape()[1];
  if (numWarps % 4) {
    auto [ws, index] = tile::enclosingWorkerPartition(op);
    op.emitOpError() << "wgmma runs on warpgroups of 4 warps; "
                     << (ws && index > 0 ? "this worker partition" : "the kernel")
                     << " has "
                     << numWarps << " warps";
    return failure();
  }
  FailureOr<LinearLayout> ll =
      getLinearLayout(acc, [&] { return op.emitOpError(); });
  if (failed(ll))
    return failure();
  auto fail = [&](const Twine &why) {
    op.emitOpError() << "the accumulator's layout is not the wgmma (v3) "
                        "layout: "
                     << why
                     << " (use NVMMADistributedLayout(version=[3, 0], ...))";
    return failure();
  };
  const LinearLayout::Basis laneWant[] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  ArrayRef<LinearLayout::Basis> lanes = ll->getBases(LinearLayout::Lane);
  if (lanes.size() != 5)
    return fail("it is not for 32-lane warps");
  for (unsigned i = 0; i < 5; ++i)
    if (lanes[i] != laneWant[i])
      return fail("lane bit " + Twine(i) + " moves by " + basisText(lanes[i]) +
                  ", the instruction's by " + basisText(laneWant[i]));
  ArrayRef<LinearLayout::Basis> warps = ll->getBases(LinearLayout::Warp);
  if (warps.size() < 2 || warps[0] != LinearLayout::Basis{16, 0} ||
      warps[1] != LinearLayout::Basis{32, 0})
    return fail("the 4 warps of a warpgroup must take rows 16 apart");
  WarpGroupDotPlan plan;
  int64_t rowsPerGroup = m, colsPerGroup = n;
  for (const LinearLayout::Basis &b : warps.drop_front(2)) {
    if (b[0] && !b[1] && b[0] % 64 == 0)
      rowsPerGroup /= 2;
    else if (b[1] && !b[0])
      colsPerGroup /= 2;
    else
      return fail("a warpgroup bit moves by " + basisText(b) +
                  ", not by whole 64-row or column blocks");
    plan.groupBases.push_back({b[0], b[1]});
  }
  if (rowsPerGroup < 64 || colsPerGroup < 8) {
    op.emitOpError() << "each warpgroup gets a " << rowsPerGroup << " x "
                     << colsPerGroup
                     << " block of the accumulator; wgmma needs at least 64 x "
                        "8 (M = 64 per instruction)";
    return failure();
  }
  plan.instrN = std::min<int64_t>(colsPerGroup, 256);
  for (const auto &[r, c] : plan.groupBases)
    if (c % plan.instrN)
      return fail("a warpgroup bit moves by " + Twine(c) +
                  " columns, not a multiple of the instruction's N = " +
                  Twine(plan.instrN));
  plan.instrM = rowsPerGroup / 64;
  plan.instrNCount = colsPerGroup / plan.instrN;
  // Register index of every coordinate the thread's registers hold.
  ArrayRef<LinearLayout::Basis> regs = ll->getBases(LinearLayout::Register);
  int64_t numRegs = int64_t(1) << regs.size();
  if (numRegs * 128 * (numWarps / 4) != m * n)
    return fail("its registers repeat elements (broadcast)");
  FailureOr<DenseMap<Coord, int64_t>> regOf = registersByCoord(*ll);
  if (failed(regOf))
    return fail("its registers repeat elements (broadcast)");
  for (int64_t mi = 0; mi < plan.instrM; ++mi)
    for (int64_t ni = 0; ni < plan.instrNCount; ++ni)
      for (int64_t r = 0; r < plan.instrN / 2; ++r) {
        auto [dr, dc] = instructionRegister(r);
        auto it = regOf->find({int32_t(64 * mi + dr), int32_t(plan.instrN * ni + dc)});
        if (it == regOf->end())
          return fail("no register holds row " + Twine(64 * mi + dr) +
                      ", column " + Twine(plan.instrN * ni + dc) +
                      " of a warp's slice");
        plan.registers.push_back(it->second);
      }
  // The operands.
  if (failed(getOperand(op, op.getB(), false, "b")))
    return failure();
  if (!op.hasRegisterA()) {
    if (failed(getOperand(op, op.getA(), true, "a")))
      return failure();
    return plan;
  }
  if (failed(planRegisterA(op, warps, plan)))
    return failure();
  return plan;
}

namespace {

constexpr int64_t kDescriptorLBO = 1; // ignored for swizzled K-major operands

/// The fields of an operand's 64-bit shared-memory matrix descriptor that
/// do not depend on the address. K-major: the stride byte offset (SBO) is
/// the distance of 8 rows (M or N); the leading one is unused. MN-major:
/// SBO is the distance of 8 K, and the leading byte offset (LBO) that from
/// one swizzle-wide chunk of M or N to the next.
int64_t descriptorFixedBits(const Operand &o) {
  int64_t sbo, lbo = kDescriptorLBO;
  if (o.kMajor) {
    sbo = o.offsetOf(8, 0) * o.elemBytes;
  } else {
    sbo = o.offsetOf(0, 8) * o.elemBytes;
    // A one-chunk operand has no next chunk: offsetOf drops the coordinate
    // bit past the buffer and gives 0, and the hardware reads no LBO then.
    lbo = (o.offsetOf(o.layout.getChunkElements(), 0) * o.elemBytes) >> 4;
  }
  int64_t mode = o.layout.getSwizzle() == 128 ? 1
                 : o.layout.getSwizzle() == 64 ? 2
                                               : 3;
  return (lbo << 16) | ((sbo >> 4) << 32) | (mode << 62);
}

/// The descriptors of one operand, built the way the hardware likes them:
/// the start address of this warpgroup's part is computed once (from a
/// warp index the compiler sees uniform, in 32 bits), and each instruction's
/// descriptor is that one plus a constant, where the instruction's offset
/// adds to (rather than XORs into) the warpgroup's; elsewhere a descriptor
/// of its own.
class Descriptors {
public:
  Descriptors(OpBuilder &b, Location loc, Value base, const Operand &o,
              Value groupOffset, int64_t groupBits)
      : b(b), loc(loc), base(base), o(o), groupOffset(groupOffset),
        groupBits(groupBits), fixed(descriptorFixedBits(o)) {
    first = build(groupOffset);
  }

  /// The descriptor of the element at `offset` (elements) XOR this
  /// warpgroup's offset.
  Value at(int64_t offset) {
    int64_t bytes = offset * o.elemBytes;
    if ((offset & groupBits) == 0 && bytes % 16 == 0) {
      if (bytes == 0)
        return first;
      return LLVM::AddOp::create(b, loc, first, i64(bytes >> 4));
    }
    return build(LLVM::XOrOp::create(b, loc, groupOffset,
                                     i32Const(b, loc, offset)));
  }

private:
  OpBuilder &b;
  Location loc;
  Value base;
  const Operand &o;
  Value groupOffset;
  int64_t groupBits;
  int64_t fixed;
  Value first;

  Value i64(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                    b.getI64IntegerAttr(v));
  }

  /// (address >> 4) & 0x3FFF in the low bits, with the fixed fields. The
  /// shared window is below 256 KiB, so the 14 bits never wrap and adding
  /// to them is adding to the address.
  Value build(Value offset) {
    Type i32 = b.getI32Type();
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32, base);
    addr = LLVM::AddOp::create(
        b, loc, addr,
        LLVM::MulOp::create(b, loc, offset, i32Const(b, loc, o.elemBytes)));
    Value field = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, addr, i32Const(b, loc, 4)),
        i32Const(b, loc, 0x3FFF));
    Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
    return LLVM::OrOp::create(b, loc, wide, i64(fixed));
  }
};

NVVM::WGMMATypes wgmmaType(Type t) {
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  return NVVM::WGMMATypes::f32;
}

/// One m64nNk16 wgmma with A in registers: `acc` (N / 2 f32) in and out,
/// A's fragment (elements `frag` of `aRegs`, packed in pairs into 4 b32),
/// B by descriptor. NVVM's wgmma op takes A only by descriptor, hence inline
/// PTX here; `accumulate` false is scale-d 0 (ignore `acc`).
SmallVector<Value> wgmmaRegisterA(OpBuilder &b, Location loc,
                                  ArrayRef<Value> acc, ArrayRef<Value> aRegs,
                                  const std::array<int64_t, 8> &frag,
                                  Value descB, int64_t n, Type elem,
                                  bool accumulate, bool transposeB) {
  SmallVector<Value> operands(acc.begin(), acc.end());
  for (int i = 0; i < 8; i += 2)
    operands.push_back(
        packPair(b, loc, aRegs[frag[i]], aRegs[frag[i + 1]], /*asI32=*/true));
  operands.push_back(descB);
  size_t p = acc.size();
  std::string type = elem.isBF16() ? "bf16" : "f16";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (accumulate ? 1 : 0)
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << type
     << "." << type << " {";
  for (size_t i = 0; i < p; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, {$" << 2 * p << ", $" << 2 * p + 1 << ", $" << 2 * p + 2 << ", $"
     << 2 * p + 3 << "}, $" << 2 * p + 4 << ", p, 1, 1, " << (transposeB ? 1 : 0)
     << ";\n}";
  std::string constraints;
  for (size_t i = 0; i < p; ++i)
    constraints += "=f,";
  for (size_t i = 0; i < p; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  SmallVector<Type> types(p, b.getF32Type());
  auto structTy = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, structTy, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return unpackStruct(b, loc, asmOp.getResult(0));
}

struct WarpGroupDotConversion : TileOpConversion<WarpGroupDotOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<WarpGroupDotPlan> plan = planWarpGroupDot(op, lookupNumWarps(op, ctx.numWarps));
    if (failed(plan))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *mctx = rewriter.getContext();
    bool registerA = op.hasRegisterA();
    std::optional<Operand> a;
    if (!registerA)
      a = *getOperand(op, op.getA(), true, "a");
    Operand bop = *getOperand(op, op.getB(), false, "b");
    int64_t k = cast<ShapedType>(op.getA().getType()).getShape()[1];

    // This warpgroup's row and column offsets (XOR of its bits' moves),
    // from the uniform warp index, as the descriptors must be uniform.
    Value group = LLVM::LShrOp::create(
        rewriter, loc, warpIdAtEntry(rewriter, op, ctx),
        i32Const(rewriter, loc, 2));
    SmallVector<int64_t> aMoves, bMoves;
    int64_t aBits = 0, bBits = 0; // the bits the warpgroup offsets may set
    for (auto [rows, cols] : plan->groupBases) {
      aMoves.push_back(rows && a ? a->offsetOf(rows, 0) : 0);
      bMoves.push_back(cols ? bop.offsetOf(cols, 0) : 0);
      aBits |= aMoves.back(), bBits |= bMoves.back();
    }
    Value aDyn =
        xorSetBits(rewriter, loc, i32Const(rewriter, loc, 0), group, aMoves);
    Value bDyn =
        xorSetBits(rewriter, loc, i32Const(rewriter, loc, 0), group, bMoves);

    SmallVector<Value> accRegs = getRegisters(rewriter, loc, adaptor.getC());
    // useC false ignores c: a runtime flag zeroes the registers first.
    NVVM::WGMMAScaleOut scaleD = NVVM::WGMMAScaleOut::one;
    if (Value useC = adaptor.getUseC()) {
      APInt cst;
      if (matchPattern(op.getUseC(), m_ConstantInt(&cst))) {
        if (cst.isZero())
          scaleD = NVVM::WGMMAScaleOut::zero;
      } else {
        Value zero = LLVM::ConstantOp::create(
            rewriter, loc, accRegs[0].getType(),
            rewriter.getZeroAttr(accRegs[0].getType()));
        for (Value &r : accRegs)
          r = LLVM::SelectOp::create(rewriter, loc, useC, r, zero);
      }
    }

    Type elem = cast<ShapedType>(op.getA().getType()).getElementType();
    int64_t perInstr = plan->instrN / 2;
    SmallVector<Type> fields(perInstr, accRegs[0].getType());
    auto structTy = LLVM::LLVMStructType::getLiteral(mctx, fields);
    std::optional<Descriptors> descsA;
    if (a)
      descsA.emplace(rewriter, loc, adaptor.getA(), *a, aDyn, aBits);
    Descriptors descsB(rewriter, loc, adaptor.getB(), bop, bDyn, bBits);
    SmallVector<Value> aRegs;
    if (registerA)
      aRegs = getRegisters(rewriter, loc, adaptor.getA());
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    SmallVector<Value> out = accRegs;
    int64_t idx = 0;
    for (int64_t mi = 0; mi < plan->instrM; ++mi)
      for (int64_t ni = 0; ni < plan->instrNCount; ++ni, idx += perInstr) {
        SmallVector<Value> in;
        for (int64_t r = 0; r < perInstr; ++r)
          in.push_back(accRegs[plan->registers[idx + r]]);
        if (registerA) {
          for (int64_t s = 0; s < k / 16; ++s) {
            Value descB = descsB.at(bop.offsetOf(plan->instrN * ni, 16 * s));
            in = wgmmaRegisterA(
                rewriter, loc, in,
                aRegs, plan->aRegisters[mi * (k / 16) + s], descB,
                plan->instrN, elem,
                s != 0 || scaleD == NVVM::WGMMAScaleOut::one, !bop.kMajor);
          }
          for (int64_t r = 0; r < perInstr; ++r)
            out[plan->registers[idx + r]] = in[r];
          continue;
        }
        Value d = packStruct(rewriter, loc, structTy, in);
        for (int64_t s = 0; s < k / 16; ++s) {
          Value descA = descsA->at(a->offsetOf(64 * mi, 16 * s));
          Value descB = descsB.at(bop.offsetOf(plan->instrN * ni, 16 * s));
          d = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, structTy, d, descA, descB,
              NVVM::MMAShapeAttr::get(mctx, 64, plan->instrN, 16),
              NVVM::WGMMATypesAttr::get(mctx, wgmmaType(elem)),
              NVVM::WGMMATypesAttr::get(mctx, wgmmaType(elem)),
              NVVM::WGMMATypesAttr::get(mctx, NVVM::WGMMATypes::f32),
              NVVM::WGMMAScaleOutAttr::get(mctx, s == 0 ? scaleD
                                                        : NVVM::WGMMAScaleOut::one),
              NVVM::WGMMAScaleInAttr::get(mctx, NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(mctx, NVVM::WGMMAScaleIn::one),
              // K-major: A row, B col; MN-major operands are transposed.
              NVVM::MMALayoutAttr::get(mctx, a->kMajor ? NVVM::MMALayout::row
                                                       : NVVM::MMALayout::col),
              NVVM::MMALayoutAttr::get(mctx, bop.kMajor ? NVVM::MMALayout::col
                                                        : NVVM::MMALayout::row),
              NVVM::MMAIntOverflowAttr());
        }
        SmallVector<Value> res = unpackStruct(rewriter, loc, d);
        for (int64_t r = 0; r < perInstr; ++r)
          out[plan->registers[idx + r]] = res[r];
      }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (!op.getIsAsync())
      out = waitGroup(rewriter, loc, 0, out);
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

struct WarpGroupDotWaitConversion : TileOpConversion<WarpGroupDotWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(WarpGroupDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> all;
    SmallVector<size_t> counts;
    for (Value v : adaptor.getInputs()) {
      SmallVector<Value> regs = getRegisters(rewriter, loc, v);
      counts.push_back(regs.size());
      all.append(regs);
    }
    all = waitGroup(rewriter, loc, op.getPendings(), all);
    SmallVector<Value> results;
    size_t at = 0;
    for (auto [v, count] : llvm::zip(op.getOutputs(), counts)) {
      Type t = getTypeConverter()->convertType(v.getType());
      ArrayRef<Value> regs = ArrayRef<Value>(all).slice(at, count);
      at += count;
      results.push_back(isa<LLVM::LLVMStructType>(t)
                            ? packStruct(rewriter, loc, t, regs)
                            : regs[0]);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

/// wgmma.wait_group with `regs` passed through it (tied in and out), so that
/// no use of a register an unfinished wgmma writes moves above the wait.
/// NVVM's wait op has no operands to tie, hence inline PTX here.
SmallVector<Value> kiln::waitGroup(OpBuilder &b, Location loc, int64_t pendings,
                                   ArrayRef<Value> regs) {
  std::string text =
      "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";";
  if (regs.empty()) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pendings);
    return {};
  }
  std::string constraints;
  SmallVector<Type> types;
  for (Value r : regs) {
    Type t = r.getType();
    types.push_back(t);
    constraints += t.isF32() ? "=f," : "=r,"; // f32 or i32 (verified)
  }
  for (size_t i = 0; i < regs.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < regs.size() ? "," : "");
  auto structTy = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, structTy, regs, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return unpackStruct(b, loc, asmOp.getResult(0));
}

void kiln::populateWarpGroupDotOpToLLVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                const LoweringContext &ctx) {
  patterns.add<WarpGroupDotConversion, WarpGroupDotWaitConversion>(converter,
                                                                   ctx);
}
