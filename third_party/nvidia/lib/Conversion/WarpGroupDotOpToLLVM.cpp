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

#include <set>

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

/// An operand in shared memory as a descriptor describes it: K-major
/// (K contiguous) or MN-major (M or N contiguous, 16-bit types only, read
/// transposed by the instruction), the swizzle (0 for none, or 32, 64, 128
/// bytes) and the leading and stride byte offsets; plus the element offsets
/// of (row, k) in its buffer (row = M for a, N for b).
struct Operand {
  SharedOffsets offsets;
  bool rowsFirst; // the view is [rows, K] (a) rather than [K, rows] (b)
  unsigned elemBytes;
  bool kMajor = true;
  unsigned swizzle = 0;
  int64_t lbo = 0, sbo = 0; // bytes
  int64_t rows = 0, ks = 0; // the buffer's extent
  int64_t start = 0;         // elements the view starts past its base

  int64_t offsetOf(int32_t row, int32_t k) const {
    return rowsFirst ? offsets.offsetOf({row, k}) : offsets.offsetOf({k, row});
  }
  /// Byte offset of (row, k), or -1 outside the buffer.
  int64_t bytesAt(int64_t row, int64_t k) const {
    if (row < 0 || k < 0 || row >= rows || k >= ks)
      return -1;
    return offsetOf(row, k) * elemBytes;
  }
  /// Byte offset of (row, k) from the buffer's (aligned) base: a
  /// subslice's start is XORed in, as its loads and stores do.
  int64_t absoluteBytesAt(int64_t row, int64_t k) const {
    if (row < 0 || k < 0 || row >= rows || k >= ks)
      return -1;
    return (offsetOf(row, k) ^ start) * elemBytes;
  }

  /// The byte address the hardware computes for element (mn, k) of a tile
  /// whose descriptor starts at 0, before the swizzle: the canonical layouts
  /// of the PTX ISA's wgmma shared-memory matrices, in units of T elements
  /// (16 bytes) and, with a swizzle, rows of `swizzle` bytes.
  int64_t canonical(int64_t mn, int64_t k) const {
    int64_t t = 16 / elemBytes, w = swizzle / 16;
    if (kMajor) {
      int64_t r0 = mn % 8, r1 = mn / 8, k0 = k % t, k1 = k / t;
      if (!w)
        return r0 * 16 + r1 * sbo + k0 * elemBytes + k1 * lbo;
      return r0 * 16 * w + r1 * sbo + k0 * elemBytes + k1 * 16;
    }
    int64_t k0 = k % 8, k1 = k / 8;
    if (!w) {
      int64_t m0 = mn % t, m1 = mn / t;
      return m0 * elemBytes + m1 * sbo + k0 * 16 + k1 * lbo;
    }
    int64_t m0 = mn % t, m1 = (mn / t) % w, m2 = mn / (t * w);
    return m0 * elemBytes + m1 * 16 + m2 * lbo + k0 * 16 * w + k1 * sbo;
  }

  /// The swizzle the hardware applies to a byte address.
  int64_t swizzled(int64_t addr) const {
    if (!swizzle)
      return addr;
    int64_t bits = llvm::Log2_32(swizzle / 16);
    return addr ^ (((addr >> 7) & ((int64_t(1) << bits) - 1)) << 4);
  }
};

std::string modeText(const Operand &o) {
  std::string s = o.kMajor ? "K-major" : "MN-major";
  return s + (o.swizzle ? ", " + std::to_string(o.swizzle) + "-byte swizzle"
                        : ", no swizzle");
}

/// Finds the descriptor form that reads `view` as wgmma does: for every
/// form the operand's type allows, the offsets follow from the layout, and
/// the form is taken when the address the hardware computes equals the
/// layout's for every element of every instruction tile (rows `tileRows`
/// from each of `rowStarts`, `kStep` K from each multiple of it).
FailureOr<Operand> getOperand(Operation *op, Value view, bool rowsFirst,
                              StringRef name, ArrayRef<int64_t> rowStarts,
                              int64_t tileRows, int64_t kStep) {
  auto type = cast<MemDescType>(view.getType());
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (!type.getSharedLayout().getPaddingSteps().empty()) {
    op->emitOpError() << name << " is in a padded layout, which wgmma "
                      << "descriptors cannot describe";
    return failure();
  }
  FailureOr<SharedOffsets> offsets = SharedOffsets::get(type);
  if (failed(offsets)) {
    op->emitOpError() << name << ": its layout is not a bijection";
    return failure();
  }
  unsigned align = getRequiredAlignment(type);
  // A subslice's elements sit at (layout offset XOR its start); the forms
  // are checked on those absolute offsets, as the hardware swizzles
  // absolute addresses.
  int64_t start = getSharedXorOffset(view);
  Operand o{*offsets, rowsFirst, bits / 8};
  o.start = start;
  o.rows = type.getShape()[rowsFirst ? 0 : 1];
  o.ks = type.getShape()[rowsFirst ? 1 : 0];
  int64_t t = 16 / o.elemBytes;
  std::string tried;
  for (bool kMajor : {true, false}) {
    if (!kMajor && bits != 16)
      continue;
    for (unsigned swizzle : {128u, 64u, 32u, 0u}) {
      if (swizzle && align < 8 * swizzle)
        continue; // the hardware swizzles absolute addresses
      o.kMajor = kMajor;
      o.swizzle = swizzle;
      int64_t lead, stride;
      if (kMajor) {
        stride = o.bytesAt(8, 0);
        lead = swizzle ? 16 : o.bytesAt(0, t);
      } else if (!swizzle) {
        stride = o.bytesAt(t, 0);
        lead = o.bytesAt(0, 8);
      } else {
        lead = o.bytesAt(t * (swizzle / 16), 0);
        stride = o.bytesAt(0, 8);
      }
      // Past the buffer: the instruction never moves that way.
      o.lbo = std::max<int64_t>(lead, 0);
      o.sbo = std::max<int64_t>(stride, 0);
      bool ok = o.lbo % 16 == 0 && o.sbo % 16 == 0 && o.lbo < (1 << 18) &&
                o.sbo < (1 << 18);
      for (int64_t r0 : rowStarts)
        for (int64_t k0 = 0; ok && k0 < o.ks; k0 += kStep) {
          int64_t first = o.absoluteBytesAt(r0, k0);
          ok = first % 16 == 0; // the descriptor holds address >> 4
          for (int64_t r = 0; ok && r < tileRows; ++r)
            for (int64_t k = 0; ok && k < kStep; ++k)
              ok = o.absoluteBytesAt(r0 + r, k0 + k) ==
                   o.swizzled(first + o.canonical(r, k));
        }
      if (ok)
        return o;
      tried += (tried.empty() ? "" : "; ") + modeText(o);
    }
  }
  if (start != 0) {
    op->emitOpError() << name << " is a subslice starting " << start * (bits / 8)
                      << " bytes into its buffer, which no wgmma descriptor "
                         "form reads (tried "
                      << tried
                      << "): a descriptor starts on a 16-byte unit, and the "
                         "hardware swizzles absolute addresses";
    return failure();
  }
  op->emitOpError() << name << "'s layout " << type.getEncoding()
                    << " is not one a wgmma descriptor can read (tried "
                    << tried
                    << "); use NVMMASharedLayout, or a SharedLinearLayout "
                       "of wgmma's core matrices";
  return failure();
}

/// Where `a` is a tensor: its layout must place the A fragment of each
/// warp's 16-row slice as mma.m16n8k16 does for 16-bit types and
/// mma.m16n8k32 for 8-bit ones (the lanes, the warpgroup's 4 warps 16 rows
/// apart), move with the accumulator's rows across warpgroups and hold all
/// of K; then the registers of each instruction's fragment are looked up by
/// their coordinates.
LogicalResult planRegisterA(WarpGroupDotOp op, ArrayRef<LinearLayout::Basis> accWarps,
                            WarpGroupDotPlan &plan) {
  auto type = cast<RankedTensorType>(op.getA().getType());
  FailureOr<LinearLayout> ll =
      getLinearLayout(type, [&] { return op.emitOpError(); });
  if (failed(ll))
    return failure();
  // 16-bit: pairs along K (k_width 2), 16 of K an instruction; 8-bit:
  // fours (k_width 4), 32 of K.
  bool bytes = type.getElementType().getIntOrFloatBitWidth() == 8;
  int32_t kWidth = bytes ? 4 : 2;
  auto fail = [&](const Twine &why) {
    op.emitOpError() << "a's layout is not the wgmma register operand's: "
                     << why
                     << " (use DotOperandLayout(0, the accumulator's layout, "
                        "k_width="
                     << kWidth << "))";
    return failure();
  };
  const LinearLayout::Basis laneWant[] = {
      {0, kWidth}, {0, 2 * kWidth}, {1, 0}, {2, 0}, {4, 0}};
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
    for (int32_t k0 = 0; k0 < k; k0 += 8 * kWidth) {
      SmallVector<Coord, 16> at;
      int32_t r0 = plan.rowOrigins[mi];
      if (bytes) { // lane 0's K values: k0..k0+3, k0+16..k0+19
        const int32_t ks[8] = {k0,      k0 + 1,  k0 + 2,  k0 + 3,
                               k0 + 16, k0 + 17, k0 + 18, k0 + 19};
        at = aFragment8(r0, ks);
      } else {
        for (Coord c : aFragment(r0, k0))
          at.push_back(c);
      }
      SmallVector<int64_t, 16> frag(at.size());
      for (size_t i = 0; i < at.size(); ++i) {
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
  // Warpgroups side by side split the block; a warpgroup bit that moves by
  // nothing (more warps than the block has 64-row blocks, as Gluon allows:
  // 8 warps on 64 rows) repeats warpgroup 0's work on the same tiles.
  int64_t distinctGroups = 1;
  for (const LinearLayout::Basis &b : warps.drop_front(2)) {
    if (!b[0] && !b[1])
      ;
    else if (b[0] && !b[1] && b[0] % 64 == 0)
      rowsPerGroup /= 2, distinctGroups *= 2;
    else if (b[1] && !b[0])
      colsPerGroup /= 2, distinctGroups *= 2;
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
  // The layout names the instruction's N (Gluon's instr_shape[1]): tiles of
  // that width, as Gluon issues them. Narrower tiles keep fewer accumulator
  // registers in flight per instruction, which ptxas needs when a thread's
  // accumulator approaches its 255 registers.
  if (auto nvmma = dyn_cast_or_null<tile_nv::NVMMADistributedEncodingAttr>(
          acc.getEncoding()))
    if (nvmma.getVersionMajor() == 3 && nvmma.getInstrShape().size() == 3) {
      int64_t want = nvmma.getInstrShape()[1];
      if (want >= 8 && want < plan.instrN && plan.instrN % want == 0)
        plan.instrN = want;
    }
  for (const auto &[r, c] : plan.groupBases) {
    if (c % plan.instrN)
      return fail("a warpgroup bit moves by " + Twine(c) +
                  " columns, not a multiple of the instruction's N = " +
                  Twine(plan.instrN));
    // The instructions' N where `cols` ends inside a tile is an immediate:
    // the same for every warpgroup only if they all hold the same columns.
    if (c && op.getCols() && *op.getCols() < n) {
      op.emitOpError() << "cols = " << *op.getCols()
                       << " needs every warpgroup to hold all of the "
                          "accumulator's columns (warps along M only), but "
                          "a warpgroup bit moves by "
                       << c << " columns";
      return failure();
    }
  }
  // Register index of every coordinate the thread's registers hold.
  ArrayRef<LinearLayout::Basis> regs = ll->getBases(LinearLayout::Register);
  int64_t numRegs = int64_t(1) << regs.size();
  if (numRegs * 128 * distinctGroups != m * n)
    return fail("its registers repeat elements (broadcast)");
  FailureOr<DenseMap<Coord, int64_t>> regOf = registersByCoord(*ll);
  if (failed(regOf))
    return fail("its registers repeat elements (broadcast)");
  // The instruction tiles of warpgroup 0: where its registers' 64-row and
  // N-column blocks start (the layout may interleave the warpgroups' blocks).
  std::set<int32_t> rowSet, colSet;
  for (const auto &[coord, reg] : *regOf) {
    rowSet.insert(coord.first - coord.first % 64);
    colSet.insert(coord.second - coord.second % plan.instrN);
  }
  plan.rowOrigins.assign(rowSet.begin(), rowSet.end());
  plan.colOrigins.assign(colSet.begin(), colSet.end());
  plan.instrM = plan.rowOrigins.size();
  plan.instrNCount = plan.colOrigins.size();
  if (plan.instrM * 64 != rowsPerGroup || plan.instrNCount * plan.instrN != colsPerGroup)
    return fail("a warpgroup's registers do not form whole 64 x " +
                Twine(plan.instrN) + " instruction tiles");
  for (int32_t r0 : plan.rowOrigins)
    for (int32_t c0 : plan.colOrigins)
      for (int64_t r = 0; r < plan.instrN / 2; ++r) {
        auto [dr, dc] = instructionRegister(r);
        auto it = regOf->find({r0 + dr, c0 + dc});
        if (it == regOf->end())
          return fail("no register holds row " + Twine(r0 + dr) +
                      ", column " + Twine(c0 + dc) + " of a warp's slice");
        plan.registers.push_back(it->second);
      }
  // The operands: every warpgroup's tiles.
  unsigned bytes = cast<ShapedType>(op.getA().getType())
                       .getElementType()
                       .getIntOrFloatBitWidth() / 8;
  plan.instrK = 32 / bytes;
  SmallVector<int64_t> rowStarts, colStarts;
  for (unsigned g = 0; g < (1u << plan.groupBases.size()); ++g) {
    int32_t dr = 0, dc = 0;
    for (unsigned bit = 0; bit < plan.groupBases.size(); ++bit)
      if (g >> bit & 1)
        dr ^= plan.groupBases[bit].first, dc ^= plan.groupBases[bit].second;
    for (int32_t r0 : plan.rowOrigins)
      rowStarts.push_back(r0 ^ dr);
    for (int32_t c0 : plan.colOrigins)
      colStarts.push_back(c0 ^ dc);
  }
  llvm::sort(rowStarts);
  rowStarts.erase(std::unique(rowStarts.begin(), rowStarts.end()), rowStarts.end());
  llvm::sort(colStarts);
  colStarts.erase(std::unique(colStarts.begin(), colStarts.end()), colStarts.end());
  plan.rowStarts = rowStarts;
  plan.colStarts = colStarts;
  if (failed(getOperand(op, op.getB(), false, "b", colStarts, plan.instrN,
                        plan.instrK)))
    return failure();
  if (!op.hasRegisterA()) {
    if (failed(getOperand(op, op.getA(), true, "a", rowStarts, 64,
                          plan.instrK)))
      return failure();
    return plan;
  }
  if (failed(planRegisterA(op, warps, plan)))
    return failure();
  return plan;
}

namespace {

/// The fields of an operand's 64-bit shared-memory matrix descriptor that
/// do not depend on the address: the leading and stride byte offsets (in
/// 16-byte units) and the swizzle mode.
int64_t descriptorFixedBits(const Operand &o) {
  int64_t mode = o.swizzle == 128 ? 1
                 : o.swizzle == 64 ? 2
                 : o.swizzle == 32 ? 3
                                   : 0;
  return ((o.lbo >> 4) << 16) | ((o.sbo >> 4) << 32) | (mode << 62);
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
    first = build(o.start ? LLVM::XOrOp::create(b, loc, groupOffset,
                                                i32Const(b, loc, o.start))
                          : groupOffset);
  }

  /// The descriptor of the element at `offset` (elements of the view) XOR
  /// this warpgroup's offset and the view's start.
  Value at(int64_t offset) {
    int64_t bytes = offset * o.elemBytes;
    if ((offset & (groupBits | o.start)) == 0 && bytes % 16 == 0) {
      if (bytes == 0)
        return first;
      return LLVM::AddOp::create(b, loc, first, i64(bytes >> 4));
    }
    return build(LLVM::XOrOp::create(b, loc, groupOffset,
                                     i32Const(b, loc, offset ^ o.start)));
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

/// The PTX name of a wgmma operand or accumulator type (f32 operands are
/// read as tf32).
StringRef ptxType(Type t, bool operand) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  return operand ? "tf32" : "f32";
}

/// One wgmma, as inline PTX: `acc` in and out (f32 registers, or f16 pairs
/// packed in b32), A by descriptor (`descA`) or as 4 b32 registers
/// (`aPacked`), B by descriptor. `accumulate` false is scale-d 0 (ignore
/// `acc`); the transpose immediates exist for 16-bit operands only.
SmallVector<Value> wgmma(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                         Value descA, ArrayRef<Value> aPacked, Value descB,
                         int64_t n, int64_t k, Type elem, Type accElem,
                         bool accumulate, bool transposeA, bool transposeB,
                         Value useAcc = Value()) {
  // Scale-d 0 reads no accumulator: outputs only, as Triton writes it. (Tied
  // inputs, even undefined ones, leave copies into the output registers that
  // ptxas may see reading an accumulator of a wgmma in flight, and it then
  // serializes every wgmma of the kernel.)
  bool readsAcc = accumulate || useAcc;
  size_t p = acc.size();
  SmallVector<Value> operands;
  if (readsAcc)
    operands.append(acc.begin(), acc.end());
  std::string text;
  llvm::raw_string_ostream os(text);
  // A runtime use_acc (an i32 operand after the others) is scale-d itself,
  // as Triton passes it: no select per accumulator register.
  std::string flag = accumulate ? "1" : "0";
  if (useAcc)
    flag = "$" + std::to_string(2 * p + (descA ? 1 : aPacked.size()) + 1);
  size_t next = readsAcc ? 2 * p : p;
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << flag
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n << "k" << k << "."
     << ptxType(accElem, false) << "." << ptxType(elem, true) << "."
     << ptxType(elem, true) << " {";
  for (size_t i = 0; i < p; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, ";
  std::string constraints;
  bool f32Acc = accElem.isF32();
  for (size_t i = 0; i < p; ++i)
    constraints += f32Acc ? "=f," : "=r,";
  for (size_t i = 0; readsAcc && i < p; ++i)
    constraints += std::to_string(i) + ",";
  if (descA) {
    operands.push_back(descA);
    os << "$" << next++;
    constraints += "l,";
  } else {
    operands.append(aPacked.begin(), aPacked.end());
    os << "{";
    for (size_t i = 0; i < aPacked.size(); ++i)
      os << (i ? ", " : "") << "$" << next++;
    os << "}";
    constraints += "r,r,r,r,";
  }
  operands.push_back(descB);
  os << ", $" << next++ << ", p, 1, 1";
  constraints += "l";
  if (useAcc) {
    operands.push_back(LLVM::ZExtOp::create(b, loc, b.getI32Type(), useAcc));
    constraints += ",r";
  }
  if (elem.getIntOrFloatBitWidth() == 16) {
    if (descA)
      os << ", " << (transposeA ? 1 : 0);
    os << ", " << (transposeB ? 1 : 0);
  }
  os << ";\n}";
  SmallVector<Type> types(p, f32Acc ? Type(b.getF32Type()) : Type(b.getI32Type()));
  auto structTy = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, structTy, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return unpackStruct(b, loc, asmOp.getResult(0));
}

/// f16 accumulator elements in instruction order, packed in pairs into the
/// b32 registers wgmma takes, and back.
SmallVector<Value> packHalves(OpBuilder &b, Location loc,
                              ArrayRef<Value> halves) {
  SmallVector<Value> out;
  for (size_t i = 0; i + 1 < halves.size(); i += 2)
    out.push_back(packPair(b, loc, halves[i], halves[i + 1], /*asI32=*/true));
  return out;
}

SmallVector<Value> unpackHalves(OpBuilder &b, Location loc,
                                ArrayRef<Value> words) {
  SmallVector<Value> out;
  auto pairTy = VectorType::get({2}, b.getF16Type());
  for (Value w : words) {
    Value v = LLVM::BitcastOp::create(b, loc, pairTy, w);
    for (int i = 0; i < 2; ++i)
      out.push_back(
          LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, i)));
  }
  return out;
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
    bool registerA = op.hasRegisterA();
    std::optional<Operand> a;
    if (!registerA)
      a = *getOperand(op, op.getA(), true, "a", plan->rowStarts, 64,
                      plan->instrK);
    Operand bop = *getOperand(op, op.getB(), false, "b", plan->colStarts,
                              plan->instrN, plan->instrK);
    int64_t k = cast<ShapedType>(op.getA().getType()).getShape()[1];
    int64_t kStep = plan->instrK;

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
    // useC false ignores c: scale-d of each chain's first instruction (a
    // runtime flag is passed to it as it is).
    bool ignoreC = false;
    Value runtimeUseC;
    if (Value useC = adaptor.getUseC()) {
      APInt cst;
      if (matchPattern(op.getUseC(), m_ConstantInt(&cst)))
        ignoreC = cst.isZero();
      else
        runtimeUseC = useC;
    }

    Type elem = cast<ShapedType>(op.getA().getType()).getElementType();
    Type accElem = cast<ShapedType>(op.getC().getType()).getElementType();
    bool f16Acc = accElem.isF16();
    int64_t perInstr = plan->instrN / 2;
    std::optional<Descriptors> descsA;
    if (a)
      descsA.emplace(rewriter, loc, adaptor.getA(), *a, aDyn, aBits);
    Descriptors descsB(rewriter, loc, adaptor.getB(), bop, bDyn, bBits);
    // A from registers: every fragment packed before the fence. Registers
    // written between the fence and the wgmma that reads them make ptxas
    // insert a warpgroup.arrive before each such wgmma (its C7519 remark),
    // which waits for the wgmmas issued before it.
    SmallVector<SmallVector<Value>> aFragments;
    if (registerA) {
      SmallVector<Value> aRegs = getRegisters(rewriter, loc, adaptor.getA());
      for (const SmallVector<int64_t, 16> &frag : plan->aRegisters) {
        SmallVector<Value> &packed = aFragments.emplace_back();
        if (frag.size() == 16) { // 8-bit: four to a word
          for (int w = 0; w < 4; ++w)
            packed.push_back(
                packQuad(rewriter, loc, aRegs, ArrayRef(frag).slice(4 * w, 4)));
          continue;
        }
        for (int i = 0; i < 8; i += 2)
          packed.push_back(packPair(rewriter, loc, aRegs[frag[i]],
                                    aRegs[frag[i + 1]], /*asI32=*/true));
      }
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    SmallVector<Value> out = accRegs;
    // `cols`: the tiles past it are skipped and the one it ends inside gets
    // an instruction of that width, on the tile's first registers (a
    // fragment's register r holds column 8 * (r / 4) + ...); the others
    // become constant zeros.
    int64_t cols = op.getCols() ? int64_t(*op.getCols()) : INT64_MAX;
    if (op.getCols()) {
      Value zero = LLVM::ConstantOp::create(rewriter, loc, accElem,
                                            rewriter.getZeroAttr(accElem));
      for (Value &r : out)
        r = zero;
    }
    int64_t idx = 0;
    for (int64_t mi = 0; mi < plan->instrM; ++mi)
      for (int64_t ni = 0; ni < plan->instrNCount; ++ni, idx += perInstr) {
        int64_t width = std::min(plan->instrN, cols - plan->colOrigins[ni]);
        if (width <= 0)
          continue;
        int64_t used = width / 2;
        SmallVector<Value> in;
        for (int64_t r = 0; r < used; ++r)
          in.push_back(accRegs[plan->registers[idx + r]]);
        if (f16Acc)
          in = packHalves(rewriter, loc, in);
        for (int64_t s = 0; s < k / kStep; ++s) {
          Value descB = descsB.at(
              bop.offsetOf(plan->colOrigins[ni], kStep * s));
          Value descA;
          SmallVector<Value> aPacked;
          if (registerA) {
            aPacked = aFragments[mi * (k / kStep) + s];
          } else {
            descA = descsA->at(a->offsetOf(plan->rowOrigins[mi], kStep * s));
          }
          in = wgmma(rewriter, loc, in, descA, aPacked, descB, width,
                     kStep, elem, accElem, s != 0 || !ignoreC,
                     /*transposeA=*/a && !a->kMajor,
                     /*transposeB=*/!bop.kMajor,
                     s == 0 ? runtimeUseC : Value());
        }
        if (f16Acc)
          in = unpackHalves(rewriter, loc, in);
        for (int64_t r = 0; r < used; ++r)
          out[plan->registers[idx + r]] = in[r];
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
    // f32, f16 or i32 (verified)
    constraints += t.isF32() ? "=f," : t.isF16() ? "=h," : "=r,";
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
