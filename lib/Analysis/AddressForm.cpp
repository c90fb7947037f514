//===- AddressForm.cpp - Tensor addresses as polynomials of coordinates ----===//

#include "kiln/Analysis/AddressForm.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

//===----------------------------------------------------------------------===//
// Poly
//===----------------------------------------------------------------------===//

void Poly::add(const Monomial &m, int64_t c) {
  if (c == 0)
    return;
  auto [it, inserted] = terms.try_emplace(m, c);
  if (!inserted && (it->second += c) == 0)
    terms.erase(it);
}

Poly Poly::constant(int64_t c) {
  Poly p;
  p.add({}, c);
  return p;
}

Poly Poly::atom(Value v) {
  Poly p;
  p.add({v.getAsOpaquePointer()}, 1);
  return p;
}

Poly Poly::operator+(const Poly &o) const {
  Poly r = *this;
  for (auto &[m, c] : o.terms)
    r.add(m, c);
  return r;
}

Poly Poly::operator-(const Poly &o) const { return *this + o.scaled(-1); }

Poly Poly::scaled(int64_t k) const {
  Poly r;
  for (auto &[m, c] : terms)
    r.add(m, c * k);
  return r;
}

Poly Poly::substituted(Value v, const Poly &by) const {
  void *key = v.getAsOpaquePointer();
  Poly r;
  for (auto &[m, c] : terms) {
    Poly term = Poly::constant(c);
    Monomial rest;
    for (void *a : m) {
      if (a == key)
        term = term * by;
      else
        rest.push_back(a);
    }
    Poly kept;
    kept.add(rest, 1);
    r = r + term * kept;
  }
  return r;
}

Poly Poly::operator*(const Poly &o) const {
  Poly r;
  for (auto &[m1, c1] : terms)
    for (auto &[m2, c2] : o.terms) {
      Monomial m(m1);
      m.append(m2.begin(), m2.end());
      llvm::sort(m);
      r.add(m, c1 * c2);
    }
  return r;
}

bool Poly::isConstant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}

int64_t Poly::constantTerm() const {
  auto it = terms.find(Monomial());
  return it == terms.end() ? 0 : it->second;
}

SmallVector<Value> Poly::atoms() const {
  SmallVector<Value> out;
  for (auto &[m, c] : terms)
    for (void *a : m)
      out.push_back(Value::getFromOpaquePointer(a));
  return out;
}

void Poly::print(llvm::raw_ostream &os,
                 llvm::function_ref<std::string(Value)> name) const {
  if (terms.empty()) {
    os << "0";
    return;
  }
  llvm::interleave(
      terms, os,
      [&](const auto &term) {
        os << term.second;
        for (void *a : term.first)
          os << "*" << name(Value::getFromOpaquePointer(a));
      },
      " + ");
}

//===----------------------------------------------------------------------===//
// Forms
//===----------------------------------------------------------------------===//

namespace {

/// An integer tensor (or scalar, rank 0): scalar + sum_d coeff[d] * x_d.
struct IntForm {
  Poly scalar;
  SmallVector<Poly> coeff;
  bool uniform() const {
    return llvm::all_of(coeff, [](const Poly &p) {
      return p.isConstant() && p.constantTerm() == 0;
    });
  }
};

unsigned rankOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getRank() : 0;
}

std::optional<IntForm> intForm(Value v, unsigned depth = 0);

Poly scalarPoly(Value v, unsigned depth) {
  if (depth < 64)
    if (std::optional<IntForm> f = intForm(v, depth + 1); f && f->uniform())
      return f->scalar;
  return Poly::atom(v);
}

/// Same rank, coefficients combined elementwise.
std::optional<IntForm> combine(const IntForm &a, const IntForm &b, int64_t sign) {
  if (a.coeff.size() != b.coeff.size())
    return std::nullopt;
  IntForm r{a.scalar + b.scalar.scaled(sign), {}};
  for (auto [x, y] : llvm::zip(a.coeff, b.coeff))
    r.coeff.push_back(x + y.scaled(sign));
  return r;
}

/// `src` broadcast to `result`'s shape: a coordinate of a dimension of size
/// 1 in the source is 0, so the value does not depend on it.
IntForm broadcastForm(IntForm f, Value src, Value result) {
  auto from = cast<RankedTensorType>(src.getType());
  auto to = cast<RankedTensorType>(result.getType());
  for (unsigned d = 0; d < f.coeff.size(); ++d)
    if (from.getDimSize(d) == 1 && to.getDimSize(d) != 1)
      f.coeff[d] = Poly();
  return f;
}

std::optional<IntForm> intForm(Value v, unsigned depth) {
  unsigned rank = rankOf(v);
  auto uniform = [&](Poly p) {
    return IntForm{std::move(p), SmallVector<Poly>(rank)};
  };
  if (depth > 64)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return uniform(Poly::atom(v));
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return uniform(Poly::constant(value.getSExtValue()));
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
        dense && dense.isSplat())
      return uniform(Poly::constant(dense.getSplatValue<APInt>().getSExtValue()));
    return std::nullopt;
  }
  if (auto arange = dyn_cast<ArangeOp>(def)) {
    IntForm f = uniform(Poly::constant(arange.getStart()));
    f.coeff[0] = Poly::constant(1);
    return f;
  }
  if (auto splat = dyn_cast<SplatOp>(def))
    return uniform(scalarPoly(splat.getSrc(), depth));
  if (isa<ConvertLayoutOp, HintOp, arith::ExtSIOp, arith::ExtUIOp,
          arith::IndexCastOp>(def))
    return intForm(def->getOperand(0), depth + 1);
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    std::optional<IntForm> f = intForm(bc.getSrc(), depth + 1);
    if (!f)
      return std::nullopt;
    return broadcastForm(*f, bc.getSrc(), v);
  }
  if (auto e = dyn_cast<ExpandDimsOp>(def)) {
    std::optional<IntForm> f = intForm(e.getSrc(), depth + 1);
    if (!f)
      return std::nullopt;
    f->coeff.insert(f->coeff.begin() + e.getAxis(), Poly());
    return f;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    std::optional<IntForm> a = intForm(def->getOperand(0), depth + 1);
    std::optional<IntForm> b = intForm(def->getOperand(1), depth + 1);
    if (!a || !b)
      return rank == 0 ? std::optional<IntForm>(uniform(Poly::atom(v)))
                       : std::nullopt;
    if (isa<arith::AddIOp>(def))
      return combine(*a, *b, 1);
    if (isa<arith::SubIOp>(def))
      return combine(*a, *b, -1);
    if (!a->uniform() && !b->uniform())
      return std::nullopt;
    const IntForm &u = a->uniform() ? *a : *b;
    IntForm r = a->uniform() ? *b : *a;
    r.scalar = r.scalar * u.scalar;
    for (Poly &c : r.coeff)
      c = c * u.scalar;
    return r;
  }
  if (rank == 0)
    return uniform(Poly::atom(v));
  return std::nullopt;
}

} // namespace

std::optional<AddressForm> kiln::getAddressForm(Value ptr) {
  Operation *def = ptr.getDefiningOp();
  if (!def) {
    auto arg = dyn_cast<BlockArgument>(ptr);
    if (!arg || isa<ShapedType>(ptr.getType()) ||
        !arg.getOwner()->isEntryBlock() ||
        !isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp()))
      return std::nullopt;
    Type pointee = getPointeeType(ptr.getType());
    if (!pointee || !pointee.isIntOrFloat())
      return std::nullopt;
    return AddressForm{ptr, int64_t(getElementBytes(pointee)), Poly(), {}};
  }
  if (auto splat = dyn_cast<SplatOp>(def)) {
    std::optional<AddressForm> f = getAddressForm(splat.getSrc());
    if (f)
      f->coeff.assign(rankOf(ptr), Poly());
    return f;
  }
  if (isa<ConvertLayoutOp, HintOp>(def))
    return getAddressForm(def->getOperand(0));
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    std::optional<AddressForm> f = getAddressForm(bc.getSrc());
    if (!f)
      return std::nullopt;
    IntForm i = broadcastForm(IntForm{f->scalar, f->coeff}, bc.getSrc(), ptr);
    f->coeff = i.coeff;
    return f;
  }
  if (auto e = dyn_cast<ExpandDimsOp>(def)) {
    std::optional<AddressForm> f = getAddressForm(e.getSrc());
    if (f)
      f->coeff.insert(f->coeff.begin() + e.getAxis(), Poly());
    return f;
  }
  if (auto add = dyn_cast<AddPtrOp>(def)) {
    std::optional<AddressForm> f = getAddressForm(add.getPtr());
    std::optional<IntForm> off = intForm(add.getOffset());
    if (!f || !off || off->coeff.size() != f->coeff.size())
      return std::nullopt;
    f->scalar = f->scalar + off->scalar;
    for (auto [c, o] : llvm::zip(f->coeff, off->coeff))
      c = c + o;
    return f;
  }
  return std::nullopt;
}

std::optional<AddressForm> kiln::getAddressForm(Value base, Value offsets) {
  std::optional<AddressForm> f = getAddressForm(base);
  std::optional<IntForm> off = intForm(offsets);
  if (!f || !off || !f->coeff.empty() ||
      off->coeff.size() != rankOf(offsets))
    return std::nullopt;
  f->scalar = f->scalar + off->scalar;
  f->coeff = off->coeff;
  return f;
}

bool kiln::isOpaqueToLLVM(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa_and_nonnull<FunctionOpInterface>(owner))
      return arg.getOwner()->isEntryBlock();
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner))
      return v == loop.getInductionVar();
    return false;
  }
  return isa_and_nonnull<ProgramIdOp, NumProgramsOp>(v.getDefiningOp());
}

std::optional<SmallVector<unsigned>>
kiln::countUnmergeableAccesses(ArrayRef<Value> ptrs, ArrayRef<unsigned> vecs,
                               unsigned warpSize) {
  SmallVector<CountedAccesses> ops;
  for (auto [ptr, vec] : llvm::zip(ptrs, vecs)) {
    auto type = dyn_cast<RankedTensorType>(ptr.getType());
    std::optional<AddressForm> f = getAddressForm(ptr);
    if (!type || !f)
      return std::nullopt;
    ops.push_back({std::move(*f), type, vec});
  }
  return countUnmergeableAccesses(ops, warpSize);
}

std::optional<SmallVector<unsigned>>
kiln::countUnmergeableAccesses(ArrayRef<CountedAccesses> ops,
                               unsigned warpSize) {
  // One access: its tensor's form, its first register, its bytes.
  struct Access {
    const AddressForm *form;
    const LinearLayout *layout;
    int32_t reg;
    int64_t bytes;
  };
  std::vector<AddressForm> forms;
  std::vector<LinearLayout> layouts;
  SmallVector<unsigned> counts, vecs;
  for (const CountedAccesses &op : ops) {
    RankedTensorType type = op.type;
    const AddressForm *f = &op.form;
    unsigned vec = op.vec;
    vecs.push_back(vec);
    if (vec == 0)
      return std::nullopt;
    FailureOr<LinearLayout> ll = getLinearLayout(type);
    if (failed(ll) || ll->getInSize(LinearLayout::Lane) != warpSize)
      return std::nullopt;
    // A register that repeats another (a zero or dependent basis) is not
    // stored twice by the lowering: not modelled here.
    for (const LinearLayout::Basis &b : ll->getBases(LinearLayout::Register))
      if (llvm::all_of(b, [](int32_t x) { return x == 0; }))
        return std::nullopt;
    forms.push_back(*f);
    layouts.push_back(std::move(*ll));
    counts.push_back(
        unsigned(layouts.back().getInSize(LinearLayout::Register) / vec));
  }
  if (forms.empty() || llvm::any_of(forms, [&](const AddressForm &f) {
        return f.base != forms[0].base;
      }))
    return std::nullopt;
  SmallVector<Access> accesses;
  for (auto [i, vec] : llvm::enumerate(vecs))
    for (int32_t r = 0, e = layouts[i].getInSize(LinearLayout::Register);
         r < e; r += vec)
      accesses.push_back(
          {&forms[i], &layouts[i], r, int64_t(vec) * forms[i].elemBytes});
  if (accesses.size() > 64)
    return std::nullopt;

  // The byte address of an access at lane `lane` (warp 0; every warp runs
  // the same instructions, and a distance LLVM proves holds for all lanes).
  auto address = [&](const Access &a, int32_t lane) {
    LinearLayout::Basis c = a.layout->apply(a.reg, lane, 0);
    Poly p = a.form->scalar;
    for (auto [d, x] : llvm::enumerate(c))
      if (x)
        p = p + a.form->coeff[d].scaled(x);
    return p.scaled(a.form->elemBytes);
  };
  for (size_t i = 0; i < accesses.size(); ++i)
    for (size_t j = i + 1; j < accesses.size(); ++j) {
      const Access &a = accesses[i], &b = accesses[j];
      std::optional<int64_t> sameDistance;
      bool unprovable = false, varies = false;
      for (int32_t lane = 0; lane < int32_t(warpSize); ++lane) {
        Poly d = address(b, lane) - address(a, lane);
        if (!d.isConstant()) {
          if (!llvm::all_of(d.atoms(), isOpaqueToLLVM))
            return std::nullopt; // LLVM may know more of these values
          unprovable = true;
          continue;
        }
        int64_t dist = d.constantTerm();
        if (sameDistance && *sameDistance != dist)
          varies = true;
        sameDistance = dist;
      }
      if (unprovable || varies || !sameDistance)
        continue; // no one constant distance for LLVM to prove
      int64_t dist = *sameDistance;
      bool overlap = dist < a.bytes && dist + b.bytes > 0;
      bool adjacent = dist == a.bytes || dist + b.bytes == 0;
      int64_t span = std::max(a.bytes, dist + b.bytes) - std::min<int64_t>(0, dist);
      if (overlap || (adjacent && span <= 16))
        return std::nullopt;
    }
  return counts;
}
