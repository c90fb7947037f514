//===- Utility.cpp - Layout questions shared by passes and lowering -------===//

#include "kiln/Dialect/Tile/IR/Traits.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/IR/WarpSpecializeCaptures.h"

#include "kiln/Dialect/Tile/IR/GatherLayout.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

LayoutMove kiln::tile::classifyLayoutMove(const LinearLayout &src,
                                          const LinearLayout &dst) {
  if (src == dst)
    return LayoutMove::Identity;
  if (src.getOutSizes() != dst.getOutSizes() ||
      src.getBases(LinearLayout::Lane) != dst.getBases(LinearLayout::Lane) ||
      src.getBases(LinearLayout::Warp) != dst.getBases(LinearLayout::Warp))
    return LayoutMove::SharedMemory;
  auto a = LinearLayout::Bases(src.getBases(LinearLayout::Register));
  auto b = LinearLayout::Bases(dst.getBases(LinearLayout::Register));
  llvm::sort(a);
  llvm::sort(b);
  return a == b ? LayoutMove::RegisterPermute : LayoutMove::SharedMemory;
}

FailureOr<std::pair<LinearLayout, LinearLayout>>
kiln::tile::getMoveLayouts(Operation *op) {
  auto srcTy = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto dstTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!srcTy || !dstTy)
    return failure();
  FailureOr<LinearLayout> src = getLinearLayout(srcTy);
  FailureOr<LinearLayout> dst = getLinearLayout(dstTy);
  if (failed(src) || failed(dst))
    return failure();
  SmallVector<int32_t> sizes(dstTy.getShape().begin(), dstTy.getShape().end());
  return std::make_pair(src->reshapeOuts(sizes), *dst);
}

SmallVector<std::pair<unsigned, unsigned>>
kiln::tile::getScratchRoundBits(const LinearLayout &src,
                                const LinearLayout &dst) {
  ArrayRef<int32_t> sizes = dst.getOutSizes();
  SmallVector<std::pair<unsigned, unsigned>> bits;
  for (unsigned d = 0; d < sizes.size(); ++d) {
    for (int k = llvm::Log2_32(sizes[d]) - 1; k >= 0; --k) {
      int32_t mask = int32_t(1) << k;
      bool threadBit = false;
      for (const LinearLayout *l : {&src, &dst})
        for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
          for (const auto &b : l->getBases(in))
            threadBit |= (b[d] & mask) != 0;
      if (!threadBit)
        bits.push_back({d, unsigned(k)});
    }
  }
  // Bits inside a side's leading consecutive registers (its vectors) last,
  // so that the first rounds leave the vectors whole.
  auto inVector = [&](std::pair<unsigned, unsigned> bit) {
    return (int64_t(1) << bit.second) < src.getContiguousRegs(bit.first) ||
           (int64_t(1) << bit.second) < dst.getContiguousRegs(bit.first);
  };
  std::stable_partition(bits.begin(), bits.end(),
                        [&](auto bit) { return !inVector(bit); });
  return bits;
}

FailureOr<LinearLayout>
kiln::tile::getRoundLayout(const LinearLayout &layout,
                           ArrayRef<std::pair<unsigned, unsigned>> bits,
                           SmallVector<unsigned> &regBits) {
  std::array<LinearLayout::Bases, LinearLayout::kNumInDims> bases;
  for (unsigned in = 0; in < LinearLayout::kNumInDims; ++in)
    bases[in] = LinearLayout::Bases(
        layout.getBases(LinearLayout::InDim(in)).begin(),
        layout.getBases(LinearLayout::InDim(in)).end());
  SmallVector<int32_t> sizes(layout.getOutSizes());
  regBits.clear();
  for (auto [d, k] : bits) {
    int32_t mask = int32_t(1) << k;
    std::optional<unsigned> owner;
    for (unsigned in = 0; in < LinearLayout::kNumInDims; ++in)
      for (auto [i, basis] : llvm::enumerate(bases[in])) {
        if (!(basis[d] & mask))
          continue;
        if (in != LinearLayout::Register || owner)
          return failure();
        owner = i;
      }
    if (!owner)
      return failure();
    const LinearLayout::Basis &own = bases[LinearLayout::Register][*owner];
    for (auto [e, x] : llvm::enumerate(own))
      if (x != (e == d ? mask : 0))
        return failure();
    regBits.push_back(*owner);
  }
  // Drop the owners (the highest index first), then remove the bits from the
  // coordinates (the highest bit of a dimension first: lower positions stay).
  SmallVector<unsigned> byIndex(regBits);
  llvm::sort(byIndex, std::greater<unsigned>());
  for (unsigned i : byIndex)
    bases[LinearLayout::Register].erase(bases[LinearLayout::Register].begin() +
                                        i);
  SmallVector<std::pair<unsigned, unsigned>> byBit(bits);
  llvm::sort(byBit, [](auto x, auto y) { return x.second > y.second; });
  for (auto [d, k] : byBit) {
    for (auto &in : bases)
      for (LinearLayout::Basis &basis : in) {
        int32_t low = basis[d] & ((int32_t(1) << k) - 1);
        basis[d] = ((basis[d] >> (k + 1)) << k) | low;
      }
    sizes[d] /= 2;
  }
  return LinearLayout(std::move(bases), sizes);
}

int64_t kiln::tile::getScratchRounds(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>(
          TileDialect::ScratchRoundsAttrHelper::getNameStr()))
    return std::max<int64_t>(1, a.getInt());
  return 1;
}

int64_t kiln::tile::getMaxScratchRounds(Operation *op) {
  if (!isa<ConvertLayoutOp, ReshapeOp>(op))
    return 1;
  auto layouts = getMoveLayouts(op);
  if (failed(layouts))
    return 1;
  return int64_t(1)
         << getScratchRoundBits(layouts->first, layouts->second).size();
}

bool kiln::tile::roundsKeepVectors(Operation *op, int64_t rounds) {
  auto layouts = getMoveLayouts(op);
  if (failed(layouts))
    return false;
  auto bits = getScratchRoundBits(layouts->first, layouts->second);
  if (rounds < 1 || int64_t(1) << bits.size() < rounds)
    return false;
  bits.resize(llvm::Log2_64(rounds));
  // A round bit inside either side's vectors (the consecutive elements of a
  // register group, up to 16 bytes) would narrow them.
  auto ty = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t vecElems =
      16 / std::max<int64_t>(1, getElementBytes(ty.getElementType()));
  for (auto [d, k] : bits)
    for (const LinearLayout *l : {&layouts->first, &layouts->second})
      if ((int64_t(1) << k) <
          std::min<int64_t>(vecElems, l->getContiguousRegs(d)))
        return false;
  SmallVector<unsigned> regBits;
  return succeeded(getRoundLayout(layouts->first, bits, regBits)) &&
         succeeded(getRoundLayout(layouts->second, bits, regBits));
}

unsigned kiln::tile::getVectorMemoryBytes(RankedTensorType type) {
  FailureOr<LinearLayout> ll = getLinearLayout(type);
  if (failed(ll))
    return 0;
  // Registers holding distinct elements: 2^(rank over F2 of the register
  // bases), coordinates packed into one integer. A register repeating
  // another (zero or dependent basis) is not accessed again.
  SmallVector<unsigned> shifts;
  unsigned shift = 0;
  for (int64_t s : type.getShape()) {
    shifts.push_back(shift);
    shift += llvm::Log2_64_Ceil(std::max<int64_t>(s, 2));
  }
  unsigned distinct = 1;
  SmallVector<uint64_t> pivots;
  for (const LinearLayout::Basis &b : ll->getBases(LinearLayout::Register)) {
    uint64_t v = 0;
    for (auto [d, x] : llvm::enumerate(b))
      v |= shift <= 63 ? uint64_t(uint32_t(x)) << shifts[d] : uint64_t(x != 0) << d;
    for (uint64_t p : pivots)
      v = std::min(v, v ^ p);
    if (v) {
      pivots.push_back(v);
      llvm::sort(pivots, std::greater<uint64_t>());
      distinct *= 2;
    }
  }
  return distinct * getElementBytes(type.getElementType());
}

unsigned kiln::tile::getMinVectorMemoryInstructions(RankedTensorType type) {
  return (getVectorMemoryBytes(type) + 15) / 16;
}

unsigned kiln::tile::getElementBytes(Type t) {
  if (isa<PointerType>(t))
    return 8;
  unsigned bits = t.getIntOrFloatBitWidth();
  // Integers occupy a power-of-two number of bytes in memory (see the
  // lowering's getMemoryType); floats are whole bytes or registers only.
  if (isa<IntegerType>(t))
    return llvm::PowerOf2Ceil(std::max(8u, bits)) / 8;
  return std::max(1u, bits / 8);
}

FailureOr<unsigned> kiln::tile::getReduceWarpBits(const LinearLayout &layout,
                                                  unsigned axis) {
  unsigned warpBits = 0;
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp}) {
    for (const auto &b : layout.getBases(in)) {
      bool alongAxis = b[axis] != 0;
      bool other = llvm::any_of(llvm::enumerate(b), [&](auto e) {
        return e.index() != axis && e.value() != 0;
      });
      if (alongAxis && other)
        return failure();
      if (alongAxis && in == LinearLayout::Warp)
        ++warpBits;
    }
  }
  return warpBits;
}

unsigned kiln::tile::ScanAxisBits::firstWarpBit() const {
  for (auto [b, owner] : llvm::enumerate(bits))
    if (owner.first == LinearLayout::Warp)
      return b;
  return bits.size();
}

FailureOr<ScanAxisBits> kiln::tile::getScanAxisBits(const LinearLayout &layout,
                                                    unsigned axis) {
  int32_t size = layout.getOutSizes()[axis];
  if (!llvm::isPowerOf2_32(size))
    return failure();
  unsigned k = llvm::Log2_32(size);
  SmallVector<std::optional<std::pair<LinearLayout::InDim, unsigned>>> owner(k);
  for (auto in :
       {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp}) {
    for (auto [i, b] : llvm::enumerate(layout.getBases(in))) {
      int32_t a = b[axis];
      bool other = llvm::any_of(llvm::enumerate(b), [&](auto e) {
        return e.index() != axis && e.value() != 0;
      });
      if (a == 0)
        continue;
      if (other || !llvm::isPowerOf2_32(a) || a >= size)
        return failure();
      auto &o = owner[llvm::Log2_32(a)];
      if (o)
        return failure();
      o = std::make_pair(in, unsigned(i));
    }
  }
  ScanAxisBits result;
  for (auto &o : owner) {
    if (!o)
      return failure();
    result.bits.push_back(*o);
  }
  return result;
}

FailureOr<RedundantThreadBits>
kiln::tile::getRedundantThreadBits(const LinearLayout &layout,
                                   ArrayRef<int64_t> shape) {
  SmallVector<unsigned> shifts;
  unsigned shift = 0;
  for (int64_t s : shape) {
    shifts.push_back(shift);
    shift += llvm::Log2_64_Ceil(std::max<int64_t>(s, 2));
  }
  if (shift > 63)
    return failure();
  auto pack = [&](const LinearLayout::Basis &b) {
    uint64_t v = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      v |= uint64_t(uint32_t(b[d])) << shifts[d];
    return v;
  };
  llvm::SmallDenseMap<unsigned, uint64_t> pivots; // by leading bit
  auto addIfIndependent = [&](uint64_t v) {
    while (v) {
      unsigned lead = llvm::Log2_64(v);
      auto it = pivots.find(lead);
      if (it == pivots.end()) {
        pivots[lead] = v;
        return true;
      }
      v ^= it->second;
    }
    return false;
  };
  for (const LinearLayout::Basis &b : layout.getBases(LinearLayout::Register))
    addIfIndependent(pack(b));
  RedundantThreadBits out;
  for (auto [in, mask] :
       {std::pair<LinearLayout::InDim, unsigned *>{LinearLayout::Lane,
                                                   &out.lanes},
        {LinearLayout::Warp, &out.warps}})
    for (auto [bit, b] : llvm::enumerate(layout.getBases(in)))
      if (!addIfIndependent(pack(b)))
        *mask |= 1u << bit;
  return out;
}

bool kiln::tile::oldValuesUsed(Value result) {
  return llvm::any_of(result.getUsers(), [](Operation *user) {
    return !(user->use_empty() && wouldOpBeTriviallyDead(user));
  });
}

/// An atomic whose old values are used, on a tensor several threads hold:
/// the acting thread passes each old value on through shared memory, one
/// slot per element (row-major).
static int64_t getAtomicBroadcastBytes(Operation *op) {
  if (!(isa<AtomicRMWOp, AtomicCASOp, LocalAtomicRMWOp>(op) ||
        op->hasTrait<OpTrait::TileAtomicResults>()) ||
      !oldValuesUsed(op->getResult(0)))
    return 0;
  auto ty = cast<RankedTensorType>(op->getResult(0).getType());
  // Old values several CTAs of a cluster hold: the acting CTA's pass to the
  // others through its scratch too (a vendor's op marks them).
  auto repeated = op->getAttrOfType<IntegerAttr>(kRepeatedCtasAttr);
  bool acrossCtas = repeated && repeated.getInt();
  FailureOr<LinearLayout> ll = getLinearLayout(ty);
  if (failed(ll))
    return 0;
  FailureOr<RedundantThreadBits> redundant =
      getRedundantThreadBits(*ll, ty.getShape());
  if (!acrossCtas &&
      (failed(redundant) || (!redundant->lanes && !redundant->warps)))
    return 0;
  return std::max<int64_t>(
      ty.getNumElements() * getElementBytes(ty.getElementType()), 16);
}

int64_t kiln::tile::getTupleScratchLayout(TypeRange elementTypes, int64_t count,
                                          SmallVectorImpl<int64_t> *offsets) {
  int64_t bytes = 0;
  for (Type t : elementTypes) {
    bytes = llvm::alignTo(bytes, 8);
    if (offsets)
      offsets->push_back(bytes);
    bytes += count * std::max<int64_t>(getElementBytes(t), 1);
  }
  return bytes;
}

bool kiln::tile::holdsPairInRegisters(const LinearLayout &layout) {
  bool found = false;
  for (auto in : {LinearLayout::Register, LinearLayout::Lane,
                  LinearLayout::Warp})
    for (const LinearLayout::Basis &b : layout.getBases(in)) {
      bool unit = b.back() == 1 &&
                  llvm::all_of(ArrayRef<int32_t>(b).drop_back(),
                               [](int32_t v) { return !v; });
      if (in == LinearLayout::Register && unit && !found)
        found = true;
      else if (b.back())
        return false;
    }
  return found;
}

int64_t kiln::tile::getScratchBytes(Operation *op) {
  if (int64_t bytes = getAtomicBroadcastBytes(op))
    return bytes;
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // Across warps the whole source passes through shared memory.
    FailureOr<GatherLayouts> g = analyzeGather(gather);
    if (failed(g) || g->warpLocal)
      return 0;
    auto ty = gather.getSrc().getType();
    return std::max<int64_t>(
        ty.getNumElements() * getElementBytes(ty.getElementType()), 16);
  }
  if (isa<ConvertLayoutOp, ReshapeOp>(op)) {
    auto layouts = getMoveLayouts(op);
    if (failed(layouts) ||
        classifyLayoutMove(layouts->first, layouts->second) !=
            LayoutMove::SharedMemory)
      return 0;
    auto ty = cast<RankedTensorType>(op->getResult(0).getType());
    return ty.getNumElements() * getElementBytes(ty.getElementType()) /
           std::min(getScratchRounds(op), getMaxScratchRounds(op));
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    // A step that reaches across warps passes the last element of each lower
    // half block through shared memory: numel / 2^(bit+1) elements at the
    // lowest such bit.
    auto ty = scan.getSrc().getType();
    FailureOr<LinearLayout> ll = getLinearLayout(ty);
    if (failed(ll))
      return 0;
    FailureOr<ScanAxisBits> bits = getScanAxisBits(*ll, scan.getAxis());
    if (failed(bits) || bits->firstWarpBit() == bits->bits.size())
      return 0;
    SmallVector<Type> elems;
    for (Value v : scan.getSrcs())
      elems.push_back(cast<RankedTensorType>(v.getType()).getElementType());
    return std::max<int64_t>(
        getTupleScratchLayout(elems, ty.getNumElements() >>
                                         (bits->firstWarpBit() + 1)),
        16);
  }
  if (auto ws = dyn_cast<WarpSpecializeOp>(op))
    return 8 * int64_t(getPassedCaptures(ws).size());
  if (auto hist = dyn_cast<HistogramOp>(op))
    return hist.getResult().getType().getNumElements() * 4;
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return getReduceScratch(reduce);
  return 0;
}

int64_t kiln::tile::getReduceScratch(ReduceOp reduce, int64_t *warpCount,
                                     int64_t *clusterCount,
                                     int64_t *clusterOffset) {
  int64_t warps = 0, cluster = 0, offset = 0;
  auto done = [&](int64_t bytes) {
    if (warpCount)
      *warpCount = warps;
    if (clusterCount)
      *clusterCount = cluster;
    if (clusterOffset)
      *clusterOffset = offset;
    return bytes;
  };
  auto ty = reduce.getSrc().getType();
  FailureOr<LinearLayout> ll = getLinearLayout(ty);
  if (failed(ll))
    return done(0);
  int64_t outElems = ty.getNumElements() / ty.getDimSize(reduce.getAxis());
  SmallVector<Type> elems;
  for (Value v : reduce.getSrcs())
    elems.push_back(cast<RankedTensorType>(v.getType()).getElementType());
  FailureOr<unsigned> bits = getReduceWarpBits(*ll, reduce.getAxis());
  if (succeeded(bits) && *bits > 0)
    warps = (int64_t(1) << *bits) * outElems;
  int64_t bytes = warps ? getTupleScratchLayout(elems, warps) : 0;
  if (TileDialect::ClusterPeersAttrHelper(reduce->getContext())
          .isAttrPresent(reduce)) {
    cluster = outElems;
    offset = llvm::alignTo(bytes, 16);
    bytes = offset + getTupleScratchLayout(elems, cluster);
  }
  return done(bytes);
}
