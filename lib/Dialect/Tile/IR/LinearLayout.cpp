//===- LinearLayout.cpp - F2-linear register layouts ----------------------===//

#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace kiln;

int64_t LinearLayout::getNumElements() const {
  int64_t n = 1;
  for (int32_t s : outSizes)
    n *= s;
  return n;
}

LinearLayout::Basis LinearLayout::applyOne(InDim d, int32_t idx) const {
  Basis out(getRank(), 0);
  for (auto [bit, basis] : llvm::enumerate(bases[d]))
    if (idx & (int32_t(1) << bit))
      for (unsigned k = 0; k < getRank(); ++k)
        out[k] ^= basis[k];
  return out;
}

LinearLayout::Basis LinearLayout::apply(int32_t reg, int32_t lane,
                                        int32_t warp) const {
  Basis out = applyOne(Register, reg);
  Basis l = applyOne(Lane, lane), w = applyOne(Warp, warp);
  for (unsigned k = 0; k < getRank(); ++k)
    out[k] ^= l[k] ^ w[k];
  return out;
}

int64_t LinearLayout::linearIndex(llvm::ArrayRef<int32_t> coords) const {
  int64_t idx = 0;
  for (unsigned k = 0; k < getRank(); ++k)
    idx = idx * outSizes[k] + coords[k];
  return idx;
}

unsigned LinearLayout::getSpanRank() const {
  // Gaussian elimination over F2 on the flattened bases (at most 62 bits).
  llvm::SmallVector<uint64_t> rows;
  for (const Bases &bs : bases)
    for (const Basis &b : bs)
      rows.push_back(linearIndex(b));
  unsigned rank = 0;
  for (int bit = 62; bit >= 0; --bit) {
    uint64_t mask = uint64_t(1) << bit;
    auto *pivot = llvm::find_if(rows, [&](uint64_t r) { return r & mask; });
    if (pivot == rows.end())
      continue;
    uint64_t p = *pivot;
    rows.erase(pivot);
    for (uint64_t &r : rows)
      if (r & mask)
        r ^= p;
    ++rank;
  }
  return rank;
}

bool LinearLayout::isSurjective() const {
  for (int32_t s : outSizes)
    if (s <= 0 || !llvm::isPowerOf2_32(s))
      return false;
  return (int64_t(1) << getSpanRank()) == getNumElements();
}

LinearLayout LinearLayout::removeOutDim(unsigned dim) const {
  std::array<Bases, kNumInDims> nb;
  for (unsigned d = 0; d < kNumInDims; ++d) {
    for (const Basis &b : bases[d]) {
      Basis r(b);
      r.erase(r.begin() + dim);
      if (d == Register && llvm::all_of(r, [](int32_t v) { return v == 0; }))
        continue;
      nb[d].push_back(r);
    }
  }
  llvm::SmallVector<int32_t> sizes(outSizes.begin(), outSizes.end());
  sizes.erase(sizes.begin() + dim);
  return LinearLayout(std::move(nb), sizes);
}

LinearLayout LinearLayout::reshapeOuts(llvm::ArrayRef<int32_t> newSizes) const {
  std::array<Bases, kNumInDims> nb;
  for (unsigned d = 0; d < kNumInDims; ++d) {
    for (const Basis &b : bases[d]) {
      int64_t flat = linearIndex(b);
      Basis r(newSizes.size(), 0);
      for (int k = newSizes.size() - 1; k >= 0; --k) {
        r[k] = flat % newSizes[k];
        flat /= newSizes[k];
      }
      nb[d].push_back(r);
    }
  }
  return LinearLayout(std::move(nb), newSizes);
}

unsigned LinearLayout::getContiguousRegs(unsigned dim) const {
  unsigned n = 1;
  for (auto [i, b] : llvm::enumerate(bases[Register])) {
    for (unsigned k = 0; k < getRank(); ++k) {
      int32_t want = k == dim ? (int32_t(1) << i) : 0;
      if (b[k] != want)
        return n;
    }
    n *= 2;
  }
  return n;
}

LinearLayout LinearLayout::fromBlocked(llvm::ArrayRef<unsigned> sizePerThread,
                                       llvm::ArrayRef<unsigned> threadsPerWarp,
                                       llvm::ArrayRef<unsigned> warpsPerCTA,
                                       llvm::ArrayRef<unsigned> order,
                                       llvm::ArrayRef<int64_t> shape) {
  unsigned rank = shape.size();
  std::array<Bases, kNumInDims> nb;
  auto unit = [&](unsigned dim, int64_t v) {
    Basis b(rank, 0);
    b[dim] = v;
    return b;
  };
  // Bit position reached so far in each dimension.
  llvm::SmallVector<int64_t> used(rank, 1);
  auto addBits = [&](InDim in, unsigned dim, unsigned count, bool cap) {
    for (unsigned i = 0; i < count; ++i) {
      int64_t v = used[dim];
      used[dim] *= 2;
      if (v < shape[dim])
        nb[in].push_back(unit(dim, v));
      else if (!cap)
        nb[in].push_back(Basis(rank, 0));
    }
  };
  for (unsigned dim : order)
    addBits(Register, dim, llvm::Log2_32(sizePerThread[dim]), /*cap=*/true);
  for (unsigned dim : order)
    addBits(Lane, dim, llvm::Log2_32(threadsPerWarp[dim]), /*cap=*/false);
  for (unsigned dim : order)
    addBits(Warp, dim, llvm::Log2_32(warpsPerCTA[dim]), /*cap=*/false);
  for (unsigned dim : order)
    while (used[dim] < shape[dim])
      addBits(Register, dim, 1, /*cap=*/true);
  llvm::SmallVector<int32_t> sizes(shape.begin(), shape.end());
  return LinearLayout(std::move(nb), sizes);
}

void LinearLayout::print(llvm::raw_ostream &os) const {
  static const char *names[] = {"register", "lane", "warp"};
  os << "{";
  for (unsigned d = 0; d < kNumInDims; ++d) {
    if (d)
      os << ", ";
    os << names[d] << " = [";
    llvm::interleaveComma(bases[d], os, [&](const Basis &b) {
      os << "[";
      llvm::interleaveComma(b, os);
      os << "]";
    });
    os << "]";
  }
  os << "}";
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

llvm::hash_code kiln::hash_value(const LinearLayout &l) {
  llvm::hash_code h = llvm::hash_combine_range(l.getOutSizes().begin(),
                                               l.getOutSizes().end());
  for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d)
    for (const auto &b : l.getBases(LinearLayout::InDim(d)))
      h = llvm::hash_combine(h, d, llvm::hash_combine_range(b.begin(), b.end()));
  return h;
}
