//===- MFMA.cpp - #tile_amd.mfma, #tile_amd.dot_op, tile_amd.mfma ---------===//
//
// The register layouts of AMD's matrix cores as F2-linear maps, the table of
// mfma forms (MFMA.h) and the op's verifier. The layouts place blocks,
// warps and repeats as Triton's AMDMfmaEncodingAttr does (N-contiguous
// blocks across the tensor), so a Gluon kernel's convert_layout moves the
// same registers; inside a block they are the CDNA ISAs' operand
// layouts (checked lane by lane in third_party/amd/test/python/test_amd_mfma_dsl.py).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/IR/MFMA.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_amd;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

using E = MfmaElem;
using P = MfmaPack;

// name, m, n, k, kBase, a, b, intAcc, pack, versions
const MfmaInstr kMfma[] = {
    // CDNA1 (gfx908) and later.
    {"mfma.f32.32x32x2f32", 32, 32, 2, 1, E::F32, E::F32, false, P::Scalar, 1, 4},
    {"mfma.f32.16x16x4f32", 16, 16, 4, 1, E::F32, E::F32, false, P::Scalar, 1, 4},
    {"mfma.f32.32x32x8f16", 32, 32, 8, 4, E::F16, E::F16, false, P::Vector, 1, 4},
    {"mfma.f32.16x16x16f16", 16, 16, 16, 4, E::F16, E::F16, false, P::Vector, 1, 4},
    // CDNA2 (gfx90a) and later: f64 and the `.1k` bf16 forms (four bf16 a
    // lane).
    {"mfma.f64.16x16x4f64", 16, 16, 4, 1, E::F64, E::F64, false, P::Scalar, 2, 4},
    {"mfma.f32.32x32x8bf16.1k", 32, 32, 8, 4, E::BF16, E::BF16, false, P::I16s, 2, 4},
    {"mfma.f32.16x16x16bf16.1k", 16, 16, 16, 4, E::BF16, E::BF16, false, P::I16s, 2, 4},
    // CDNA1 and CDNA2 only: bf16 two a lane, i8 four a lane (CDNA3 replaced
    // both).
    {"mfma.f32.32x32x4bf16", 32, 32, 4, 2, E::BF16, E::BF16, false, P::I16s, 1, 2},
    {"mfma.f32.16x16x8bf16", 16, 16, 8, 2, E::BF16, E::BF16, false, P::I16s, 1, 2},
    {"mfma.i32.32x32x8i8", 32, 32, 8, 4, E::I8, E::I8, true, P::I32, 1, 2},
    {"mfma.i32.16x16x16i8", 16, 16, 16, 4, E::I8, E::I8, true, P::I32, 1, 2},
    // CDNA3 (gfx942) and later.
    {"mfma.i32.32x32x16.i8", 32, 32, 16, 8, E::I8, E::I8, true, P::I64, 3, 4},
    {"mfma.i32.16x16x32.i8", 16, 16, 32, 8, E::I8, E::I8, true, P::I64, 3, 4},
    // CDNA3 (gfx942) only: fp8 in the FNUZ formats.
    {"mfma.f32.32x32x16.fp8.fp8", 32, 32, 16, 8, E::FP8NUZ, E::FP8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.32x32x16.fp8.bf8", 32, 32, 16, 8, E::FP8NUZ, E::BF8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.32x32x16.bf8.fp8", 32, 32, 16, 8, E::BF8NUZ, E::FP8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.32x32x16.bf8.bf8", 32, 32, 16, 8, E::BF8NUZ, E::BF8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.16x16x32.fp8.fp8", 16, 16, 32, 8, E::FP8NUZ, E::FP8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.16x16x32.fp8.bf8", 16, 16, 32, 8, E::FP8NUZ, E::BF8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.16x16x32.bf8.fp8", 16, 16, 32, 8, E::BF8NUZ, E::FP8NUZ, false, P::I64, 3, 3},
    {"mfma.f32.16x16x32.bf8.bf8", 16, 16, 32, 8, E::BF8NUZ, E::BF8NUZ, false, P::I64, 3, 3},
    // CDNA4 (gfx950): double-rate 16-bit and i8 forms; the same fp8
    // instructions read the OCP formats there.
    {"mfma.f32.32x32x16.f16", 32, 32, 16, 8, E::F16, E::F16, false, P::Vector, 4, 4},
    {"mfma.f32.16x16x32.f16", 16, 16, 32, 8, E::F16, E::F16, false, P::Vector, 4, 4},
    {"mfma.f32.32x32x16.bf16", 32, 32, 16, 8, E::BF16, E::BF16, false, P::Vector, 4, 4},
    {"mfma.f32.16x16x32.bf16", 16, 16, 32, 8, E::BF16, E::BF16, false, P::Vector, 4, 4},
    {"mfma.i32.32x32x32.i8", 32, 32, 32, 16, E::I8, E::I8, true, P::I32x4, 4, 4},
    {"mfma.i32.16x16x64.i8", 16, 16, 64, 16, E::I8, E::I8, true, P::I32x4, 4, 4},
    {"mfma.f32.32x32x16.fp8.fp8", 32, 32, 16, 8, E::FP8, E::FP8, false, P::I64, 4, 4},
    {"mfma.f32.32x32x16.fp8.bf8", 32, 32, 16, 8, E::FP8, E::BF8, false, P::I64, 4, 4},
    {"mfma.f32.32x32x16.bf8.fp8", 32, 32, 16, 8, E::BF8, E::FP8, false, P::I64, 4, 4},
    {"mfma.f32.32x32x16.bf8.bf8", 32, 32, 16, 8, E::BF8, E::BF8, false, P::I64, 4, 4},
    {"mfma.f32.16x16x32.fp8.fp8", 16, 16, 32, 8, E::FP8, E::FP8, false, P::I64, 4, 4},
    {"mfma.f32.16x16x32.fp8.bf8", 16, 16, 32, 8, E::FP8, E::BF8, false, P::I64, 4, 4},
    {"mfma.f32.16x16x32.bf8.fp8", 16, 16, 32, 8, E::BF8, E::FP8, false, P::I64, 4, 4},
    {"mfma.f32.16x16x32.bf8.bf8", 16, 16, 32, 8, E::BF8, E::BF8, false, P::I64, 4, 4},
    // The 4x4 instructions (16 blocks of 4 x 4) as Triton uses them: a 4 x 64
    // product whose 4 x K operand every block takes from one block (CBSZ 4,
    // ABID the K step's lane group), or its transpose, 64 x 4. K counts the
    // 16 lane groups: 16 x kBase.
    {"mfma.f32.4x4x1f32", 4, 64, 16, 1, E::F32, E::F32, false, P::Scalar, 1, 4},
    {"mfma.f32.4x4x1f32", 64, 4, 16, 1, E::F32, E::F32, false, P::Scalar, 1, 4},
    {"mfma.f32.4x4x4f16", 4, 64, 64, 4, E::F16, E::F16, false, P::Vector, 1, 4},
    {"mfma.f32.4x4x4f16", 64, 4, 64, 4, E::F16, E::F16, false, P::Vector, 1, 4},
    {"mfma.f32.4x4x4bf16.1k", 4, 64, 64, 4, E::BF16, E::BF16, false, P::I16s, 2, 4},
    {"mfma.f32.4x4x4bf16.1k", 64, 4, 64, 4, E::BF16, E::BF16, false, P::I16s, 2, 4},
    {"mfma.f32.4x4x2bf16", 4, 64, 32, 2, E::BF16, E::BF16, false, P::I16s, 1, 2},
    {"mfma.f32.4x4x2bf16", 64, 4, 32, 2, E::BF16, E::BF16, false, P::I16s, 1, 2},
    {"mfma.i32.4x4x4i8", 4, 64, 64, 4, E::I8, E::I8, true, P::I32, 1, 4},
    {"mfma.i32.4x4x4i8", 64, 4, 64, 4, E::I8, E::I8, true, P::I32, 1, 4},
};

const MfmaScaledInstr kMfmaScaled[] = {
    {"mfma.scale.f32.16x16x128.f8f6f4", 16, 16, 128},
    {"mfma.scale.f32.32x32x64.f8f6f4", 32, 32, 64},
};

bool accMatches(const MfmaInstr &i, Type acc) {
  return i.intAcc ? acc.isInteger(32) : isF64Mfma(i) ? acc.isF64() : acc.isF32();
}

} // namespace

std::optional<MfmaElem> kiln::tile_amd::getMfmaElem(Type t) {
  if (t.isF32())
    return E::F32;
  if (t.isF64())
    return E::F64;
  if (t.isF16())
    return E::F16;
  if (t.isBF16())
    return E::BF16;
  if (t.isInteger(8))
    return E::I8;
  if (isa<Float8E4M3FNType>(t))
    return E::FP8;
  if (isa<Float8E5M2Type>(t))
    return E::BF8;
  if (isa<Float8E4M3FNUZType>(t))
    return E::FP8NUZ;
  if (isa<Float8E5M2FNUZType>(t))
    return E::BF8NUZ;
  return std::nullopt;
}

const MfmaInstr *kiln::tile_amd::lookupMfma(unsigned version, unsigned m,
                                            unsigned n, unsigned k, Type a,
                                            Type b, Type acc) {
  std::optional<MfmaElem> ea = getMfmaElem(a), eb = getMfmaElem(b);
  if (!ea || !eb)
    return nullptr;
  for (const MfmaInstr &i : kMfma)
    if (i.m == m && i.n == n && i.k == k && i.a == *ea && i.b == *eb &&
        accMatches(i, acc) && i.minVersion <= version && version <= i.maxVersion)
      return &i;
  return nullptr;
}

std::string kiln::tile_amd::describeMfmaShapes(unsigned version, Type a,
                                               Type b, Type acc) {
  std::optional<MfmaElem> ea = getMfmaElem(a), eb = getMfmaElem(b);
  std::string out;
  if (!ea || !eb)
    return out;
  for (const MfmaInstr &i : kMfma)
    if (i.a == *ea && i.b == *eb && accMatches(i, acc) &&
        i.minVersion <= version && version <= i.maxVersion)
      out += (out.empty() ? "" : ", ") + ("[" + Twine(i.m) + ", " + Twine(i.n) +
                                          ", " + Twine(i.k) + "]")
                                             .str();
  return out;
}

const MfmaScaledInstr *kiln::tile_amd::lookupMfmaScaled(unsigned version,
                                                        unsigned m, unsigned n,
                                                        unsigned k) {
  if (version != 4)
    return nullptr;
  for (const MfmaScaledInstr &i : kMfmaScaled)
    if (i.m == m && i.n == n && i.k == k)
      return &i;
  return nullptr;
}

std::optional<unsigned> kiln::tile_amd::getMfmaScaledFormat(StringRef format) {
  return llvm::StringSwitch<std::optional<unsigned>>(format)
      .Case("e4m3", 0u)
      .Case("e5m2", 1u)
      .Case("e2m1", 4u)
      .Default(std::nullopt);
}

StringRef kiln::tile_amd::describeCdnaVersion(unsigned version) {
  switch (version) {
  case 1:
    return "CDNA1 (gfx908)";
  case 2:
    return "CDNA2 (gfx90a)";
  case 3:
    return "CDNA3 (gfx942)";
  default:
    return "CDNA4 (gfx950)";
  }
}

unsigned kiln::tile_amd::getCdnaVersion(unsigned arch) {
  if (arch == 908)
    return 1;
  if (arch == 910) // gfx90a
    return 2;
  if (arch >= 950 && arch < 960)
    return 4;
  if (arch >= 940 && arch < 950)
    return 3;
  return 0;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

namespace {

/// Bases of a layout under construction, of a 2-D tensor [M, N] or a
/// batched 3-D one [B, M, N] (`dim` 0 and 1 are M and N; the batch dimension,
/// if any, comes first in the tensor): a move past the tensor's extent is a
/// broadcast (zero); registers that only repeat others are dropped at the end.
struct Builder2D {
  llvm::SmallVector<int32_t, 3> extent; // the tensor's shape
  LinearLayout::Bases reg, lane, warp;

  Builder2D(ArrayRef<int64_t> shape) {
    for (int64_t s : shape)
      extent.push_back(int32_t(s));
  }
  unsigned batched() const { return extent.size() == 3; }
  LinearLayout::Basis zero() const { return LinearLayout::Basis(extent.size(), 0); }
  LinearLayout::Basis at(unsigned dim, int32_t step) const {
    LinearLayout::Basis b = zero();
    if (step < extent[dim + batched()])
      b[dim + batched()] = step;
    return b;
  }
  /// Batched: warps along the batch dimension, then register repeats of it
  /// (Triton's order: after every M and N basis).
  void batch(unsigned warps) {
    if (!batched())
      return;
    for (int32_t s = 1; s < int32_t(warps); s *= 2)
      warp.push_back(s < extent[0] ? LinearLayout::Basis{s, 0, 0} : zero());
    for (int32_t s = int32_t(warps); s < extent[0]; s *= 2)
      reg.push_back({s, 0, 0});
  }
  /// `count` (a power of two) bases of `in` along `dim`, from `step`.
  void add(LinearLayout::Bases &in, unsigned dim, int32_t step, int64_t count) {
    for (int64_t c = 1; c < count; c *= 2, step *= 2)
      in.push_back(at(dim, step));
  }
  /// Register bases along `dim` from `from` to the extent.
  void repeat(unsigned dim, int32_t from) {
    for (int32_t s = from; s < extent[dim + batched()]; s *= 2)
      reg.push_back(at(dim, s));
  }
  LinearLayout finish() {
    llvm::erase_if(reg, [](const LinearLayout::Basis &b) {
      return llvm::all_of(b, [](int32_t x) { return x == 0; });
    });
    return LinearLayout({reg, lane, warp}, extent);
  }
};

constexpr int32_t kWaveSize = 64;

} // namespace

LogicalResult MfmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       unsigned version, ArrayRef<unsigned> instr,
                                       bool transposed, ArrayRef<unsigned> warps,
                                       ArrayRef<unsigned> tiles, unsigned bits) {
  if (version < 1 || version > 4)
    return emitError() << "mfma: version must be 1 (CDNA1, gfx908), 2 "
                          "(CDNA2, gfx90a), 3 (CDNA3, gfx942) or 4 (CDNA4, "
                          "gfx950), got "
                       << version;
  if (instr.size() != 3 || !((instr[0] == 32 && instr[1] == 32) ||
                             (instr[0] == 16 && instr[1] == 16) ||
                             (instr[0] == 4 && instr[1] == 64) ||
                             (instr[0] == 64 && instr[1] == 4)))
    return emitError() << "mfma: instrShape must be [32, 32, k], [16, 16, "
                          "k], [4, 64, k] or [64, 4, k]";
  // The 4x4 instructions' block shapes: 4 x 64 broadcasts A to the blocks
  // and is not transposed; 64 x 4 broadcasts B and is (Triton's rule).
  if (instr[0] == 4 && transposed)
    return emitError() << "mfma: instrShape [4, 64, k] is not transposed "
                          "(transposed, use [64, 4, k])";
  if (instr[0] == 64 && !transposed)
    return emitError() << "mfma: instrShape [64, 4, k] must be transposed "
                          "(not transposed, use [4, 64, k])";
  if (!instr[2] || !llvm::isPowerOf2_32(instr[2]))
    return emitError() << "mfma: instrShape's k must be a power of two, got "
                       << instr[2];
  if (warps.size() != 2 && warps.size() != 3)
    return emitError() << "mfma: warpsPerCTA must have 2 entries, or 3 for a "
                          "batched (rank-3) accumulator";
  if (tiles.size() != warps.size())
    return emitError() << "mfma: tilesPerWarp must have as many entries as "
                          "warpsPerCTA";
  for (ArrayRef<unsigned> list : {warps, tiles})
    for (unsigned w : list)
      if (!w || !llvm::isPowerOf2_32(w))
        return emitError() << "mfma: warpsPerCTA and tilesPerWarp entries "
                              "must be powers of two";
  if (tiles.size() == 3 && tiles[0] != 1)
    return emitError() << "mfma: a batched layout's tilesPerWarp has 1 for "
                          "the batch dimension, got "
                       << tiles[0];
  if (bits != 32 && bits != 64)
    return emitError() << "mfma: elementBitWidth must be 32 (f32 or i32 "
                          "accumulators) or 64 (f64), got "
                       << bits;
  if (bits == 64 && !(instr[0] == 16 && instr[1] == 16))
    return emitError() << "mfma: 64-bit accumulators take instrShape [16, 16, "
                          "4] (v_mfma_f64_16x16x4_f64), got ["
                       << instr[0] << ", " << instr[1] << ", " << instr[2] << "]";
  return success();
}

unsigned MfmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }

LinearLayout MfmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  Builder2D l(shape);
  int32_t m = getInstrShape()[0], n = getInstrShape()[1];
  // warps and tiles of M and N (a batched layout's first entries are the
  // batch dimension's).
  ArrayRef<unsigned> warps = getWarpsPerCTA().take_back(2),
                     tiles = getTilesPerWarp().take_back(2);
  // Inside a block: `height` consecutive elements per register group along
  // the "row" dimension (4; 1 for f64), lanes along the "column" dimension,
  // then the rest of the rows (transposed swaps rows and columns).
  unsigned rows = getTransposed() ? 1 : 0, cols = 1 - rows;
  int32_t colSize = getTransposed() ? m : n;
  int32_t blockRows = getTransposed() ? n : m;
  int32_t height = mfmaAccHeight(getElementBitWidth());
  l.add(l.reg, rows, 1, height);
  l.add(l.lane, cols, 1, colSize);
  l.add(l.lane, rows, height, kWaveSize / colSize);
  int32_t rowsCovered = height * (kWaveSize / colSize);
  l.add(l.reg, rows, rowsCovered, blockRows / rowsCovered);
  // Blocks: tilesPerWarp and warps along N, N repeats, then along M.
  l.add(l.reg, 1, n, tiles[1]);
  l.add(l.warp, 1, n * tiles[1], warps[1]);
  l.repeat(1, n * tiles[1] * warps[1]);
  l.add(l.reg, 0, m, tiles[0]);
  l.add(l.warp, 0, m * tiles[0], warps[0]);
  l.repeat(0, m * tiles[0] * warps[0]);
  l.batch(getWarpsPerCTA().front());
  return l.finish();
}

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, Attribute parent, unsigned kWidth) {
  if (!isa<MfmaEncodingAttr>(parent))
    return emitError() << "dot_op: parent must be a #tile_amd.mfma layout, got "
                       << parent;
  if (opIdx > 1)
    return emitError() << "dot_op: opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (!kWidth || kWidth > 32 || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "dot_op: kWidth must be a power of two in [1, 32], got "
                       << kWidth;
  return success();
}

unsigned DotOperandEncodingAttr::getRank() const {
  return cast<MfmaEncodingAttr>(getParent()).getRank();
}

LinearLayout
DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  auto mfma = cast<MfmaEncodingAttr>(getParent());
  bool isA = getOpIdx() == 0;
  unsigned kDim = isA ? 1 : 0, otherDim = 1 - kDim;
  int32_t other = mfma.getInstrShape()[isA ? 0 : 1];
  int32_t kw = getKWidth();
  ArrayRef<unsigned> warps = mfma.getWarpsPerCTA().take_back(2);
  unsigned tiles = mfma.getTilesPerWarp().take_back(2)[otherDim];
  Builder2D l(shape);
  l.add(l.reg, kDim, 1, kw);
  l.add(l.lane, otherDim, 1, other);
  l.add(l.lane, kDim, kw, kWaveSize / other);
  int32_t kTile = kw * (kWaveSize / other);
  l.repeat(kDim, kTile);
  l.add(l.reg, otherDim, other, tiles);
  // Warps in the parent's order (N first, then M): along this operand's
  // own dimension they tile it, along K they hold the same elements.
  auto warpBits = [&](unsigned accDim) {
    bool own = accDim == otherDim;
    int32_t step = other * tiles;
    for (unsigned w = 1; w < warps[accDim]; w *= 2)
      l.warp.push_back(own ? l.at(otherDim, step * w) : l.zero());
  };
  warpBits(1);
  warpBits(0);
  l.repeat(otherDim, other * tiles * warps[otherDim]);
  l.batch(mfma.getWarpsPerCTA().front());
  return l.finish();
}

//===----------------------------------------------------------------------===//
// tile_amd.mfma
//===----------------------------------------------------------------------===//

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  return s + "]";
}

LogicalResult MfmaOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   c = getC().getType();
  int64_t rank = c.getRank();
  if ((rank != 2 && rank != 3) || a.getRank() != rank || b.getRank() != rank)
    return emitOpError() << "a, b and the accumulator must be all 2-D, or all "
                            "3-D (batched)";
  auto acc = dyn_cast_or_null<MfmaEncodingAttr>(c.getEncoding());
  if (!acc)
    return emitOpError() << "the accumulator must be in a #tile_amd.mfma "
                            "layout (Gluon's AMDMFMALayout), got "
                         << c.getEncoding();
  unsigned kWidth = 0;
  for (auto [idx, name, t] : {std::tuple<unsigned, StringRef, RankedTensorType>{
                                  0, "a", a},
                              {1, "b", b}}) {
    auto op = dyn_cast_or_null<DotOperandEncodingAttr>(t.getEncoding());
    if (!op || op.getOpIdx() != idx || op.getParent() != acc)
      return emitOpError() << name << " must be in #tile_amd.dot_op<{opIdx = "
                           << idx << ", parent = the accumulator's layout}>, got "
                           << t.getEncoding();
    if (kWidth && op.getKWidth() != kWidth)
      return emitOpError() << "a and b must have the same kWidth, got "
                           << kWidth << " and " << op.getKWidth();
    kWidth = op.getKWidth();
  }
  if (acc.getRank() != rank)
    return emitOpError() << "the accumulator is " << rank << "-D but its layout is "
                         << acc.getRank() << "-D (warpsPerCTA has "
                         << acc.getWarpsPerCTA().size() << " entries)";
  unsigned o = rank - 2; // a batched product's batch dimension comes first
  int64_t m = a.getShape()[o], k = a.getShape()[o + 1], n = b.getShape()[o + 1];
  if (b.getShape()[o] != k || c.getShape()[o] != m || c.getShape()[o + 1] != n ||
      (rank == 3 && (a.getShape()[0] != c.getShape()[0] ||
                     b.getShape()[0] != c.getShape()[0])))
    return emitOpError() << "shapes do not multiply: a " << shapeText(a.getShape())
                         << ", b " << shapeText(b.getShape()) << ", accumulator "
                         << shapeText(c.getShape());
  ArrayRef<unsigned> instr = acc.getInstrShape();
  Type ta = a.getElementType(), tb = b.getElementType(), tc = c.getElementType();
  if ((acc.getElementBitWidth() == 64) != tc.isF64())
    return emitOpError() << "the accumulator's layout has elementBitWidth = "
                         << acc.getElementBitWidth() << " but its elements are "
                         << tc << " (64 for f64 accumulators, 32 otherwise)";
  unsigned version = acc.getVersion();
  StringRef chip = describeCdnaVersion(version);
  const MfmaInstr *instrOp =
      lookupMfma(version, instr[0], instr[1], instr[2], ta, tb, tc);
  if (!instrOp) {
    std::string shapes = describeMfmaShapes(version, ta, tb, tc);
    InFlightDiagnostic d = emitOpError()
                           << chip << " has no " << instr[0] << "x" << instr[1]
                           << "x" << instr[2] << " mfma for " << ta << " x "
                           << tb << " -> " << tc;
    if (!shapes.empty())
      d << "; its shapes for these types are " << shapes;
    else if (getMfmaElem(ta) == MfmaElem::FP8 || getMfmaElem(ta) == MfmaElem::BF8)
      d << " (gfx942's fp8 mfma reads the FNUZ formats float8e4b8 / "
           "float8e5b16; gfx950's reads the OCP float8e4nv / float8e5)";
    else if (getMfmaElem(ta) == MfmaElem::FP8NUZ ||
             getMfmaElem(ta) == MfmaElem::BF8NUZ)
      d << " (gfx950's fp8 mfma reads the OCP formats float8e4nv / float8e5; "
           "gfx942's reads the FNUZ float8e4b8 / float8e5b16)";
    else
      d << " (f32, f16, bf16 and i8 operands into f32 or i32, f64 into f64; "
           "fp8: FNUZ on gfx942, OCP on gfx950)";
    return d;
  }
  // M, N and K may also be smaller than the instruction's (a power of two
  // dividing it): the layouts then repeat the tensor across the block's
  // lanes and registers. Along M and N those compute the same elements
  // twice, as in Triton; along K the lowering feeds zeros from the lanes
  // that repeat K, so each product is added once.
  for (auto [name, size, want, smaller] :
       {std::tuple<StringRef, int64_t, int64_t, bool>{"M", m, instr[0], true},
        {"N", n, instr[1], true},
        {"K", k, instr[2], true}})
    if (size % want && !(smaller && size < want && want % size == 0))
      return emitOpError() << name << " = " << size
                           << " is not a multiple of the instruction's " << name
                           << " (" << want << " for instrShape ["
                           << instr[0] << ", " << instr[1] << ", " << instr[2]
                           << "])" << (smaller ? " nor a power of two below it" : "");
  if (const TargetDesc *target = getEnclosingTarget(*this))
    if (target->backend == "amd") {
      unsigned has = getCdnaVersion(target->arch);
      if (has < version)
        return emitOpError() << "the layout is for " << chip << " (version "
                             << version << "); " << target->name
                             << " has CDNA version " << has;
      // gfx942's fp8 instructions (a version-3 layout) exist on gfx950 too,
      // but read the OCP formats there: FNUZ operands would be misread
      // (every product off by a factor of 2).
      auto fnuz = [](Type t) {
        std::optional<MfmaElem> e = getMfmaElem(t);
        return e == MfmaElem::FP8NUZ || e == MfmaElem::BF8NUZ;
      };
      if (has != 3 && (fnuz(ta) || fnuz(tb)))
        return emitOpError()
               << "FNUZ fp8 operands (" << ta << " x " << tb << ") on "
               << target->name
               << ", whose fp8 mfma reads the OCP formats float8e4nv / "
                  "float8e5: convert the operands to those, or compile for "
                  "gfx942 (CDNA3), whose fp8 mfma reads float8e4b8 / "
                  "float8e5b16";
      // An older generation's layout runs on a newer chip where its
      // instruction is still there (CDNA3 replaced CDNA1/CDNA2's i8 and
      // two-element bf16 forms).
      if (has > instrOp->maxVersion) {
        std::string there = describeMfmaShapes(has, ta, tb, tc);
        std::string isa = ("v_" + instrOp->name).str();
        llvm::replace(isa, '.', '_');
        InFlightDiagnostic d = emitOpError()
                               << "the " << instr[0] << "x" << instr[1] << "x"
                               << instr[2] << " mfma for " << ta << " x " << tb
                               << " (" << isa << ") is a "
                               << describeCdnaVersion(instrOp->maxVersion)
                               << " instruction that " << target->name
                               << " does not have";
        if (!there.empty())
          d << "; its shapes for these types are " << there
            << " (a version " << has << " layout)";
        return d;
      }
    }
  return success();
}

//===----------------------------------------------------------------------===//
// tile_amd.mfma_scaled
//===----------------------------------------------------------------------===//

LogicalResult MfmaScaledOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   c = getC().getType(), as = getAScale().getType(),
                   bs = getBScale().getType();
  for (RankedTensorType t : {a, b, c, as, bs})
    if (t.getRank() != 2)
      return emitOpError() << "a, b, their scales and the accumulator must be "
                              "2-D";
  auto acc = dyn_cast_or_null<MfmaEncodingAttr>(c.getEncoding());
  if (!acc)
    return emitOpError() << "the accumulator must be in a #tile_amd.mfma "
                            "layout (Gluon's AMDMFMALayout), got "
                         << c.getEncoding();
  if (!c.getElementType().isF32())
    return emitOpError() << "the accumulator must be f32, got "
                         << c.getElementType();
  ArrayRef<unsigned> instr = acc.getInstrShape();
  if (!lookupMfmaScaled(acc.getVersion(), instr[0], instr[1], instr[2]))
    return emitOpError() << "scaled mfma needs a version 4 (CDNA4, gfx950) "
                            "layout with instrShape [16, 16, 128] or [32, 32, "
                            "64], got version "
                         << acc.getVersion() << ", instrShape ["
                         << instr[0] << ", " << instr[1] << ", " << instr[2]
                         << "]";
  // Operands: format, element type, layout.
  for (auto [idx, name, t, format] :
       {std::tuple<unsigned, StringRef, RankedTensorType, StringRef>{
            0, "a", a, getAFormat()},
        {1, "b", b, getBFormat()}}) {
    if (!getMfmaScaledFormat(format))
      return emitOpError() << name << "'s format must be e2m1, e4m3 or e5m2, "
                                      "got '"
                           << format << "'";
    Type e = t.getElementType();
    bool ok = e.isInteger(8) ||
              (format == "e4m3" && isa<Float8E4M3FNType>(e)) ||
              (format == "e5m2" && isa<Float8E5M2Type>(e));
    if (!ok)
      return emitOpError() << name << " holds " << e << ", which is not "
                           << format << " data (i8 bytes"
                           << (format == "e4m3"   ? " or f8E4M3FN"
                               : format == "e5m2" ? " or f8E5M2"
                                                  : ", two values per byte")
                           << ")";
    auto op = dyn_cast_or_null<DotOperandEncodingAttr>(t.getEncoding());
    if (!op || op.getOpIdx() != idx || op.getParent() != acc)
      return emitOpError() << name << " must be in #tile_amd.dot_op<{opIdx = "
                           << idx << ", parent = the accumulator's layout}>, got "
                           << t.getEncoding();
    // kWidth 16 is the instruction's own K order; 32 (one-byte formats only)
    // hands it 32 consecutive K values a lane group, a reordering of K that
    // both operands must share (MFMAScaledOpToLLVM.cpp).
    bool oneByte = getMfmaScaledPacking(format) == 1;
    if (op.getKWidth() != 16 && !(oneByte && op.getKWidth() == 32))
      return emitOpError() << name
                           << "'s kWidth must be 16, or 32 for e4m3 / e5m2 "
                              "data, got "
                           << op.getKWidth() << " for " << format;
  }
  unsigned kwA = cast<DotOperandEncodingAttr>(a.getEncoding()).getKWidth(),
           kwB = cast<DotOperandEncodingAttr>(b.getEncoding()).getKWidth();
  if ((kwA == 32 || kwB == 32) && kwA != kwB)
    return emitOpError() << "a and b must both have kWidth 32 when one does "
                            "(kWidth 32 reorders the instruction's K, and the "
                            "two operands must pair the same K values), got "
                         << kwA << " and " << kwB;
  unsigned packA = getMfmaScaledPacking(getAFormat()),
           packB = getMfmaScaledPacking(getBFormat());
  int64_t m = a.getShape()[0], n = b.getShape()[1];
  int64_t k = a.getShape()[1] * packA;
  if (b.getShape()[0] * packB != k || c.getShape()[0] != m ||
      c.getShape()[1] != n)
    return emitOpError() << "shapes do not multiply: a " << shapeText(a.getShape())
                         << " (" << getAFormat() << "), b "
                         << shapeText(b.getShape()) << " (" << getBFormat()
                         << "), accumulator " << shapeText(c.getShape())
                         << " (e2m1 tensors hold two K values per byte)";
  // M and N below the instruction's (a power of two dividing it) repeat the
  // tensor across the instruction's rows, as mfma's do (and Triton's).
  for (auto [name, size, want, smaller] :
       {std::tuple<StringRef, int64_t, int64_t, bool>{"M", m, instr[0], true},
        {"N", n, instr[1], true},
        {"K", k, instr[2], false}})
    if (size % want && !(smaller && size < want && want % size == 0))
      return emitOpError() << name << " = " << size
                           << " is not a multiple of the instruction's " << name
                           << " (" << want << " for instrShape [" << instr[0]
                           << ", " << instr[1] << ", " << instr[2] << "])"
                           << (smaller ? " nor a power of two below it" : "");
  for (auto [name, t, rows] :
       {std::tuple<StringRef, RankedTensorType, int64_t>{"a_scale", as, m},
        {"b_scale", bs, n}}) {
    if (!t.getElementType().isInteger(8))
      return emitOpError() << name << " must hold E8M0 bytes (i8), got "
                           << t.getElementType();
    if (t.getShape()[0] != rows || t.getShape()[1] != k / 32)
      return emitOpError() << name << " must be " << rows << " x " << k / 32
                           << " (one scale per 32 K values of each "
                           << (name == "a_scale" ? "row of a" : "column of b")
                           << "), got " << shapeText(t.getShape());
    if (!isa_and_nonnull<DistributedLayoutAttr>(t.getEncoding())) {
      InFlightDiagnostic d = emitOpError()
                             << name << " must have a distributed layout "
                                        "(Gluon's get_mfma_scale_layout), got ";
      if (t.getEncoding())
        d << t.getEncoding();
      else
        d << "none";
      return d;
    }
  }
  if (const TargetDesc *target = getEnclosingTarget(*this))
    if (target->backend == "amd" && getCdnaVersion(target->arch) != 4)
      return emitOpError() << "scaled mfma is a CDNA4 instruction; "
                           << target->name << " does not have it";
  return success();
}
