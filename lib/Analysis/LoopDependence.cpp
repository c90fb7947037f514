//===- LoopDependence.cpp - May a load moved ahead read a loop's writes? --===//

#include "kiln/Analysis/LoopDependence.h"

#include "kiln/Analysis/AddressForm.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <unordered_set>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

bool isPointerLike(Type t) {
  return isa<PointerType, TensorDescType>(getElementTypeOrSelf(t));
}

bool collectRoots(Value v, llvm::SetVector<BlockArgument> &roots,
                  DenseSet<Value> &seen) {
  if (!seen.insert(v).second)
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa_and_nonnull<FunctionOpInterface>(owner) &&
        arg.getOwner()->isEntryBlock()) {
      roots.insert(arg);
      return true;
    }
    // A loop-carried pointer: its initial value and what each iteration
    // yields.
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner)) {
      if (arg == loop.getInductionVar())
        return false;
      unsigned i = arg.getArgNumber() - 1;
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      return collectRoots(loop.getInitArgs()[i], roots, seen) &&
             collectRoots(yield.getOperand(i), roots, seen);
    }
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    return collectRoots(loop.getInitArgs()[i], roots, seen) &&
           collectRoots(yield.getOperand(i), roots, seen);
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      if (!r->empty() &&
          !collectRoots(r->front().getTerminator()->getOperand(i), roots,
                        seen))
        return false;
    return true;
  }
  // Address arithmetic, shape and layout ops, selects, device-side
  // descriptors: the pointer operands are the sources. An op with none
  // (a load of pointers, a cast from an integer) is not traced.
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  bool any = false;
  for (Value operand : def->getOperands())
    if (isPointerLike(operand.getType())) {
      any = true;
      if (!collectRoots(operand, roots, seen))
        return false;
    }
  return any;
}

/// A global write in the loop and the pointer it writes through (null when
/// it writes through none Kiln follows).
struct Write {
  Operation *op;
  Value ptr;
};

bool isDebugOrHint(Operation *op) {
  return isa<AssumeOp, AssertOp, PrintOp>(op);
}

SmallVector<Write> collectWrites(scf::ForOp loop) {
  SmallVector<Write> writes;
  loop.getBody()->walk([&](Operation *op) {
    if (isDebugOrHint(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    if (auto store = dyn_cast<StoreOp>(op)) {
      writes.push_back({op, store.getPtr()});
      return;
    }
    if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
      writes.push_back({op, rmw.getPtr()});
      return;
    }
    if (auto cas = dyn_cast<AtomicCASOp>(op)) {
      writes.push_back({op, cas.getPtr()});
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    bool writesGlobal = false;
    if (!effects) {
      // An op that declares no effects may write through a pointer it takes;
      // one that takes none (a wait, a fence, a barrier) writes no memory a
      // load reads.
      writesGlobal = op->getNumRegions() == 0 && !isMemoryEffectFree(op) &&
                     llvm::any_of(op->getOperandTypes(), isPointerLike);
    } else {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &e : list)
        if (isa<MemoryEffects::Write>(e.getEffect()) &&
            isa<SideEffects::DefaultResource>(e.getResource()))
          writesGlobal = true;
    }
    if (!writesGlobal)
      return;
    Value ptr;
    for (Value operand : op->getOperands())
      if (isPointerLike(operand.getType()))
        ptr = operand;
    writes.push_back({op, ptr});
  });
  return writes;
}

/// The offsets (in elements, relative to the form's scalar part) of every
/// element of a tensor with these constant coefficients; nullopt when the
/// tensor is too large to enumerate or the offsets could wrap in 32 bits.
std::optional<std::vector<int64_t>> elementOffsets(ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> coeff) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  if (n > (1 << 20))
    return std::nullopt;
  std::vector<int64_t> out{0};
  for (auto [s, c] : llvm::zip(shape, coeff)) {
    if (c != 0 && (s > (int64_t(1) << 31) / std::abs(c)))
      return std::nullopt;
    std::vector<int64_t> next;
    next.reserve(out.size() * s);
    for (int64_t base : out)
      for (int64_t x = 0; x < s; ++x)
        next.push_back(base + c * x);
    out = std::move(next);
  }
  return out;
}

/// Whether the load's elements at iteration i + d and the write's at
/// iteration i can share a byte: Overlap, Unknown, or nullopt (proven apart).
std::optional<LoopHazard> compare(scf::ForOp loop, Value loadPtr,
                                  const Write &w, int64_t d) {
  std::optional<AddressForm> fl = getAddressForm(loadPtr);
  std::optional<AddressForm> fw = getAddressForm(w.ptr);
  auto unknown = [&](std::string why) {
    return LoopHazard{LoopHazard::Unknown, w.op, d, std::move(why)};
  };
  if (!fl || !fw)
    return unknown("an address Kiln cannot write as a kernel argument plus "
                   "integer arithmetic");
  if (fl->base != fw->base)
    return std::nullopt; // different arguments: assumed apart
  if (fl->elemBytes != fw->elemBytes)
    return unknown("elements of different sizes through one argument");
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step)
    return unknown("a step that is not a constant");
  Value iv = loop.getInductionVar();
  Poly shifted = Poly::atom(iv) + Poly::constant(d * *step);
  Poly diff = fl->scalar.substituted(iv, shifted) - fw->scalar;
  if (!diff.isConstant())
    return unknown("addresses whose distance depends on run-time values");
  auto constants = [&](const AddressForm &f,
                       SmallVector<int64_t> &out) -> bool {
    for (const Poly &p : f.coeff) {
      Poly q = p.substituted(iv, shifted);
      if (!q.isConstant())
        return false;
      out.push_back(q.constantTerm());
    }
    return true;
  };
  SmallVector<int64_t> cl, cw;
  if (!constants(*fl, cl) || !constants(*fw, cw))
    return unknown("a stride that is not a constant");
  auto shapeOf = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? SmallVector<int64_t>(t.getShape()) : SmallVector<int64_t>();
  };
  std::optional<std::vector<int64_t>> ol =
      elementOffsets(shapeOf(loadPtr), cl);
  std::optional<std::vector<int64_t>> ow = elementOffsets(shapeOf(w.ptr), cw);
  int64_t k = diff.constantTerm();
  // The offsets are i32 arithmetic: two elements coincide when their
  // polynomials agree modulo 2^32. Kept below 2^31 apart, only equal ones do.
  auto reach = [](const std::vector<int64_t> &v) {
    int64_t r = 0;
    for (int64_t x : v)
      r = std::max(r, std::abs(x));
    return r;
  };
  if (!ol || !ow || std::abs(k) >= (int64_t(1) << 30) ||
      reach(*ol) + reach(*ow) + std::abs(k) >= (int64_t(1) << 31))
    return unknown("tensors too large to compare element by element");
  // Same argument, same element size: two elements share a byte exactly
  // when their offsets are equal (elements are aligned to their size).
  std::unordered_set<int64_t> written(ow->begin(), ow->end());
  for (int64_t o : *ol)
    if (written.count(o + k))
      return LoopHazard{LoopHazard::Overlap, w.op, d,
                        "an element of the load is an element of the write"};
  return std::nullopt;
}

} // namespace

std::optional<SmallVector<BlockArgument>> kiln::getPointerRoots(Value ptr) {
  llvm::SetVector<BlockArgument> roots;
  DenseSet<Value> seen;
  if (!collectRoots(ptr, roots, seen))
    return std::nullopt;
  return SmallVector<BlockArgument>(roots.begin(), roots.end());
}

std::optional<LoopHazard> kiln::findLoopHazard(
    scf::ForOp loop, Value loadPtr, ArrayRef<int64_t> distances,
    function_ref<bool(Operation *)> countsInOwnIteration) {
  std::optional<SmallVector<BlockArgument>> loadRoots =
      getPointerRoots(loadPtr);
  std::optional<LoopHazard> unknown;
  for (const Write &w : collectWrites(loop)) {
    std::optional<SmallVector<BlockArgument>> writeRoots;
    if (w.ptr)
      writeRoots = getPointerRoots(w.ptr);
    if (loadRoots && writeRoots &&
        llvm::none_of(*writeRoots, [&](BlockArgument a) {
          return llvm::is_contained(*loadRoots, a);
        }))
      continue; // separate arguments
    for (int64_t d : distances) {
      if (d == 0 && !countsInOwnIteration(w.op))
        continue;
      std::optional<LoopHazard> h;
      if (!w.ptr)
        h = LoopHazard{LoopHazard::Unknown, w.op, d,
                       "a write through no pointer Kiln follows"};
      else if (!isa<RankedTensorType>(loadPtr.getType()))
        h = LoopHazard{LoopHazard::Unknown, w.op, d,
                       "a read with no address form (a scalar or a tensor "
                       "descriptor)"};
      else
        h = compare(loop, loadPtr, w, d);
      if (!h)
        continue;
      if (h->kind == LoopHazard::Overlap)
        return h;
      if (!unknown)
        unknown = h;
    }
  }
  return unknown;
}
