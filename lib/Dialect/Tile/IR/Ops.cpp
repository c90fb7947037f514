//===- Ops.cpp - tile dialect operations ----------------------------------===//

#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

#include "kiln/Dialect/Tile/IR/TileOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// arange
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be 1-D, got " << type;
  // I32Attr accessors return unsigned; ranges may start below zero.
  int64_t start = static_cast<int32_t>(getStart());
  int64_t end = static_cast<int32_t>(getEnd());
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  int64_t n = end - start;
  if (!llvm::isPowerOf2_64(n))
    return emitOpError() << "range size end - start = " << n
                         << " must be a power of two";
  if (type.getDimSize(0) != n)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range has " << n;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  if (src.getRank() != dst.getRank())
    return emitOpError() << "source rank " << src.getRank()
                         << " differs from result rank " << dst.getRank();
  if (src.getEncoding() != dst.getEncoding())
    return emitOpError() << "layout mismatch in broadcast: "
                         << src.getEncoding() << " vs " << dst.getEncoding();
  for (int64_t i = 0; i < src.getRank(); ++i)
    if (src.getDimSize(i) != dst.getDimSize(i) && src.getDimSize(i) != 1)
      return emitOpError() << "dimension " << i << " of size "
                           << src.getDimSize(i) << " cannot broadcast to "
                           << dst.getDimSize(i);
  return success();
}

LogicalResult DotFmaOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   c = getC().getType();
  unsigned rank = c.getRank();
  if ((rank != 2 && rank != 3) || a.getRank() != rank || b.getRank() != rank)
    return emitOpError() << "operands must all be rank 2 (M x K, K x N, "
                            "M x N) or all rank 3 (batched)";
  auto sa = a.getShape(), sb = b.getShape(), sc = c.getShape();
  bool batchOk = rank == 2 || (sa[0] == sc[0] && sb[0] == sc[0]);
  if (!batchOk || sa[rank - 2] != sc[rank - 2] || sb[rank - 1] != sc[rank - 1] ||
      sa[rank - 1] != sb[rank - 2])
    return emitOpError() << "shapes do not form a matrix product: " << a
                         << " x " << b << " -> " << c;
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "a and b must share an element type, got "
                         << a.getElementType() << " and " << b.getElementType();
  Type ea = a.getElementType(), ec = c.getElementType();
  auto arithFloat = [](Type t) {
    return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(t);
  };
  bool floats = arithFloat(ea) && arithFloat(ec) &&
                ea.getIntOrFloatBitWidth() <= ec.getIntOrFloatBitWidth();
  bool ints = isa<IntegerType>(ea) && isa<IntegerType>(ec) &&
              ea.getIntOrFloatBitWidth() <= ec.getIntOrFloatBitWidth();
  if (!floats && !ints)
    return emitOpError() << "operands of " << ea << " cannot accumulate in "
                         << ec << " (floats into a float at least as wide, "
                                  "integers into an integer at least as wide; "
                                  "floats are f16, bf16, f32 or f64)";
  // A cluster-split accumulator (#tile.cga) has operands split the same way
  // except along K, which every CTA holds whole.
  auto parent =
      dyn_cast_or_null<BlockedEncodingAttr>(stripCluster(c.getEncoding()));
  if (!parent)
    return emitOpError() << "the accumulator needs a #tile.blocked layout, got "
                         << c.getEncoding();
  RankedTensorType operands[] = {a, b};
  for (auto [idx, t] : llvm::enumerate(operands)) {
    auto op = dyn_cast_or_null<BlockedDotOperandEncodingAttr>(
        stripCluster(t.getEncoding()));
    if (!op || op.getOpIdx() != idx || op.getParent() != parent)
      return emitOpError() << (idx ? "b" : "a")
                           << " needs the layout #tile.dot_operand<{opIdx = "
                           << idx << ", parent = " << parent << "}>, got "
                           << t.getEncoding();
  }
  return verifyDotClusterSplit(*this, a, b, c);
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << src.getRank();
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (dst.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError() << "result shape must be the source shape with a 1 "
                            "inserted at axis "
                         << axis;
  if (isUnresolvedLayout(src.getEncoding()) ||
      isUnresolvedLayout(dst.getEncoding())) {
    if (src.getEncoding() != dst.getEncoding())
      return emitOpError() << "an inferred source layout needs the same "
                              "inferred result layout, got "
                           << src.getEncoding() << " and "
                           << dst.getEncoding();
    return success();
  }
  auto slice = dyn_cast_or_null<SliceEncodingAttr>(src.getEncoding());
  if (!slice || slice.getDim() != axis || slice.getParent() != dst.getEncoding())
    return emitOpError() << "source layout must be #tile.slice<{dim = " << axis
                         << ", parent = <result layout>}>, got "
                         << src.getEncoding() << " and result layout "
                         << dst.getEncoding();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError() << "reshape must keep the element count: " << src
                         << " has " << src.getNumElements() << ", " << dst
                         << " has " << dst.getNumElements();
  return success();
}

/// What tile.split and tile.join ask of the pair tensor `pair` (last
/// dimension 2) and the halves `half`.
static LogicalResult verifyPairLayouts(Operation *op, RankedTensorType pair,
                                       RankedTensorType half,
                                       StringRef halves) {
  unsigned rank = pair.getRank();
  if (rank < 2 || pair.getShape().back() != 2)
    return op->emitOpError() << "needs a last dimension of size 2 (and "
                                "another dimension), got "
                             << pair;
  if (half.getShape() != pair.getShape().drop_back() ||
      half.getElementType() != pair.getElementType())
    return op->emitOpError() << halves
                             << " must be the pair tensor without its last "
                                "dimension, got "
                             << half;
  if (isUnresolvedLayout(pair.getEncoding()) ||
      isUnresolvedLayout(half.getEncoding()))
    return success(); // tile-resolve-layouts infers them
  FailureOr<LinearLayout> s = getLinearLayout(pair), d = getLinearLayout(half);
  if (failed(s) || failed(d))
    return success(); // the layouts' own verifiers speak
  if (!holdsPairInRegisters(*s))
    return op->emitOpError()
           << "needs both elements of each pair in one thread's registers (a "
              "register basis one step along the last dimension, no other "
              "basis along it), got "
           << pair.getEncoding();
  if (s->removeOutDim(rank - 1) != *d)
    return op->emitOpError()
           << halves
           << " must have the pair tensor's layout without the pair (the op "
              "moves no data), got "
           << half.getEncoding() << " for " << pair.getEncoding();
  return success();
}

LogicalResult SplitOp::verify() {
  return verifyPairLayouts(*this, getSrc().getType(), getLhs().getType(),
                           "results");
}

LogicalResult JoinOp::verify() {
  return verifyPairLayouts(*this, getResult().getType(), getLhs().getType(),
                           "operands");
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  ArrayRef<int32_t> order = getOrder();
  unsigned rank = src.getRank();
  SmallVector<bool> seen(rank, false);
  if (order.size() != rank)
    return emitOpError() << "order has " << order.size() << " entries for a rank-"
                         << rank << " tensor";
  for (int32_t o : order) {
    if (o < 0 || o >= int32_t(rank) || seen[o])
      return emitOpError() << "order must be a permutation of 0.."
                           << rank - 1;
    seen[o] = true;
  }
  if (dst.getRank() != rank)
    return emitOpError() << "result must have rank " << rank;
  for (unsigned i = 0; i < rank; ++i)
    if (dst.getDimSize(i) != src.getDimSize(order[i]))
      return emitOpError() << "result dimension " << i << " must be source "
                           << "dimension " << order[i] << " ("
                           << src.getDimSize(order[i]) << "), got "
                           << dst.getDimSize(i);
  FailureOr<LinearLayout> s = getLinearLayout(src), d = getLinearLayout(dst);
  if (failed(s) || failed(d))
    return success(); // layouts still to be resolved
  for (auto in : {LinearLayout::Register, LinearLayout::Lane,
                  LinearLayout::Warp}) {
    auto sb = s->getBases(in), db = d->getBases(in);
    bool same = sb.size() == db.size();
    for (unsigned k = 0; same && k < sb.size(); ++k)
      for (unsigned i = 0; same && i < rank; ++i)
        same = db[k][i] == sb[k][order[i]];
    if (!same)
      return emitOpError()
             << "the result layout must be the source layout with its "
                "dimensions permuted by the order (the op moves no data); "
                "use tile.convert_layout for another layout";
  }
  return success();
}

LogicalResult ConvertLayoutOp::verify() { return success(); }

LogicalResult HintOp::verify() {
  Type t = getSrc().getType();
  auto tensor = dyn_cast<RankedTensorType>(t);
  Type elem = tensor ? tensor.getElementType() : t;
  if (!isa<IntegerType, PointerType>(elem))
    return emitOpError() << "hints integers or pointers, got " << t;
  int64_t rank = tensor ? tensor.getRank() : 1;
  for (auto [name, values] :
       {std::pair<StringRef, std::optional<ArrayRef<int64_t>>>{
            "divisibility", getDivisibility()},
        {"contiguity", getContiguity()},
        {"constancy", getConstancy()}}) {
    if (!values)
      continue;
    if (int64_t(values->size()) != rank)
      return emitOpError() << name << " needs " << rank
                           << " value(s), one per dimension, got "
                           << values->size();
    for (int64_t v : *values)
      if (v < 1 || !llvm::isPowerOf2_64(v))
        return emitOpError() << name << " values must be powers of two, got "
                             << v;
  }
  return success();
}

LogicalResult SetAutoLayoutOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  if (!isa_and_nonnull<AutoEncodingAttr>(src.getEncoding()))
    return emitOpError() << "source must have the layout #tile.auto, got "
                         << src;
  if (!isa_and_nonnull<DistributedLayoutAttr, CoalescedEncodingAttr>(
          dst.getEncoding()))
    return emitOpError() << "result must have a distributed layout or "
                            "#tile.coalesced, got "
                         << dst;
  return success();
}

//===----------------------------------------------------------------------===//
// addptr / load / store
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptr = getPtr().getType(), off = getOffset().getType();
  auto pt = dyn_cast<RankedTensorType>(ptr);
  auto ot = dyn_cast<RankedTensorType>(off);
  if (bool(pt) != bool(ot))
    return emitOpError() << "pointer and offset must both be scalars or both "
                            "tensors, got "
                         << ptr << " and " << off;
  if (pt && (pt.getShape() != ot.getShape() ||
             pt.getEncoding() != ot.getEncoding()))
    return emitOpError() << "offset " << off
                         << " must have the shape and layout of " << ptr;
  return success();
}

LogicalResult PtrCastOp::verify() {
  Type from = getSrc().getType(), to = getType();
  auto ft = dyn_cast<RankedTensorType>(from);
  auto tt = dyn_cast<RankedTensorType>(to);
  if (bool(ft) != bool(tt) ||
      (ft && (ft.getShape() != tt.getShape() ||
              ft.getEncoding() != tt.getEncoding())))
    return emitOpError() << "result " << to
                         << " must have the shape and layout of " << from;
  auto fp = cast<PointerType>(getElementTypeOrSelf(from));
  auto tp = cast<PointerType>(getElementTypeOrSelf(to));
  if (fp.getAddressSpace() != tp.getAddressSpace())
    return emitOpError() << "cannot move pointers between address spaces ("
                         << fp.getAddressSpace() << " to "
                         << tp.getAddressSpace() << ")";
  Type fe = fp.getPointeeType(), te = tp.getPointeeType();
  if (!fe.isIntOrFloat() || !te.isIntOrFloat())
    return emitOpError() << "pointee types must be numbers, got " << fe
                         << " and " << te;
  return success();
}

static LogicalResult verifyPtrValue(Operation *op, Type ptrType, Type valueType,
                                    StringRef what) {
  Type expected = getPointeeType(ptrType);
  if (valueType != expected)
    return op->emitOpError() << what << " type " << valueType
                             << " does not match the pointee type " << expected
                             << " of " << ptrType;
  return success();
}

static LogicalResult verifyMask(Operation *op, Type ptrType, Value mask) {
  if (mask && mask.getType() != getI1SameShape(ptrType))
    return op->emitOpError() << "mask type " << mask.getType()
                             << " must be " << getI1SameShape(ptrType);
  return success();
}

void LoadOp::build(OpBuilder &b, OperationState &state, Value ptr, Value mask,
                   Value other, bool isVolatile) {
  build(b, state, getPointeeType(ptr.getType()), ptr, mask, other, isVolatile);
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  // A volatile read must neither be merged with another nor move across
  // a write: as a write it keeps its place (Triton models it so too).
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' needs a mask";
  if (failed(verifyPtrValue(*this, getPtr().getType(), getType(), "result")) ||
      failed(verifyMask(*this, getPtr().getType(), getMask())))
    return failure();
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "'other' type " << getOther().getType()
                         << " must match the result type " << getType();
  return success();
}

LogicalResult StoreOp::verify() {
  if (failed(verifyPtrValue(*this, getPtr().getType(), getValue().getType(),
                            "value")))
    return failure();
  return verifyMask(*this, getPtr().getType(), getMask());
}

//===----------------------------------------------------------------------===//
// atomic_rmw / atomic_cas
//===----------------------------------------------------------------------===//

static LogicalResult verifySemScope(Operation *op, StringRef sem,
                                    StringRef scope) {
  if (!llvm::is_contained({"relaxed", "acquire", "release", "acq_rel"}, sem))
    return op->emitOpError() << "sem must be relaxed, acquire, release or "
                                "acq_rel, got '"
                             << sem << "'";
  if (!llvm::is_contained({"cta", "gpu", "sys"}, scope))
    return op->emitOpError() << "scope must be cta, gpu or sys, got '" << scope
                             << "'";
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyPtrValue(*this, getPtr().getType(), getVal().getType(),
                            "value")) ||
      failed(verifyPtrValue(*this, getPtr().getType(), getType(), "result")) ||
      failed(verifyMask(*this, getPtr().getType(), getMask())) ||
      failed(verifySemScope(*this, getSem(), getScope())))
    return failure();
  Type e = getVal().getType().getElementType();
  StringRef kind = getKind();
  bool isInt = e.isInteger() && !e.isInteger(1);
  bool isFloat = isa<FloatType>(e) && e.getIntOrFloatBitWidth() >= 16;
  bool ok = llvm::is_contained({"add", "and", "or", "xor", "max", "min", "umax",
                                "umin"},
                               kind)
                ? isInt && e.getIntOrFloatBitWidth() >= 32
            : llvm::is_contained({"fadd", "fmax", "fmin"}, kind) ? isFloat
            : kind == "xchg" ? (isInt || isFloat) && e.getIntOrFloatBitWidth() >= 32
                             : false;
  if (!ok)
    return emitOpError() << "no atomic '" << kind << "' on " << e
                         << " (add, and, or, xor, max, min, umax, umin on 32- "
                            "and 64-bit integers; fadd, fmax, fmin on floats; "
                            "xchg on 32- and 64-bit values)";
  return success();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyPtrValue(*this, getPtr().getType(), getVal().getType(),
                            "value")) ||
      failed(verifyPtrValue(*this, getPtr().getType(), getCmp().getType(),
                            "cmp")) ||
      failed(verifyPtrValue(*this, getPtr().getType(), getType(), "result")) ||
      failed(verifySemScope(*this, getSem(), getScope())))
    return failure();
  Type e = getVal().getType().getElementType();
  unsigned bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 0;
  if (bits != 32 && bits != 64)
    return emitOpError() << "compare-and-swap needs 32- or 64-bit values, got "
                         << e;
  return success();
}

// A masked store is branched around by a wave whose lanes are all off, and
// a warp whose elements another warp also holds does not store them: both
// may issue nothing. A store through pointers another store also writes may
// be deleted by LLVM as dead (overwritten before it is read). Otherwise every
// wave issues its stores (stores are never scalar), at least one instruction
// per 16 bytes it writes.
unsigned StoreOp::getMinIssuedInstructions() {
  for (Operation *user : getPtr().getUsers())
    if (user != getOperation() && isa<StoreOp>(user))
      return 0;
  // Storing what was just loaded from the same pointers: LLVM may drop the
  // store as a no-op.
  if (auto load = getValue().getDefiningOp<LoadOp>())
    if (load.getPtr() == getPtr())
      return 0;
  if (Value mask = getMask()) {
    APInt one;
    if (!matchPattern(mask, m_ConstantInt(&one)) || one.isZero())
      return 0;
  }
  FailureOr<LinearLayout> ll = getLinearLayout(getValue().getType());
  if (failed(ll))
    return 0;
  for (const LinearLayout::Basis &b : ll->getBases(LinearLayout::Warp))
    if (llvm::all_of(b, [](int32_t x) { return x == 0; }))
      return 0;
  return getMinVectorMemoryInstructions(getValue().getType());
}

Value StoreOp::getCountedPointers() { return getPtr(); }

Value StoreOp::getCountedAddresses() { return getPtr(); }

RankedTensorType StoreOp::getCountedType() { return getValue().getType(); }

Value StoreOp::getCountedMask() { return getMask(); }

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// `types` as the verifier names them: one type quoted, several as a tuple.
static std::string describeTypes(TypeRange types) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (types.size() == 1) {
    os << "'" << types.front() << "'";
    return s;
  }
  os << "(";
  llvm::interleaveComma(types, os);
  os << ")";
  return s;
}

/// A reduce or scan combine region: the arguments `elems` twice (the first
/// tuple, then the second), ended by its return op (`Ret`) of `elems`.
template <typename Ret>
static LogicalResult verifyCombineRegion(Operation *op, Region &region,
                                         TypeRange elems) {
  Block &body = region.front();
  unsigned n = elems.size();
  bool argsOk = body.getNumArguments() == 2 * n;
  for (unsigned i = 0; argsOk && i < 2 * n; ++i)
    argsOk = body.getArgument(i).getType() == elems[i % n];
  if (!argsOk)
    return op->emitOpError()
           << "combine region must take two " << describeTypes(elems)
           << (n == 1 ? " arguments" : " tuples (a0, .., b0, ..)");
  auto ret = body.empty() ? Ret() : dyn_cast<Ret>(body.back());
  if (!ret)
    return op->emitOpError() << "combine region must end with "
                             << Ret::getOperationName();
  if (TypeRange(ret.getResults().getTypes()) != elems)
    return op->emitOpError() << "combine region must return "
                             << describeTypes(elems) << ", got "
                             << describeTypes(ret.getResults().getTypes());
  return success();
}

/// The sources of a reduce or scan: at least one, all of one shape and
/// layout; their element types.
static FailureOr<SmallVector<Type>> verifySources(Operation *op,
                                                  ValueRange srcs,
                                                  int64_t axis) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one tensor";
  auto first = cast<RankedTensorType>(srcs.front().getType());
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError() << "axis " << axis << " out of range for rank "
                             << first.getRank();
  SmallVector<Type> elems;
  for (Value v : srcs) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() != first.getShape() ||
        t.getEncoding() != first.getEncoding())
      return op->emitOpError() << "tensors must have one shape and layout, got "
                               << first << " and " << t;
    elems.push_back(t.getElementType());
  }
  return elems;
}

LogicalResult ReduceOp::verifyRegions() {
  int64_t axis = static_cast<int32_t>(getAxis());
  FailureOr<SmallVector<Type>> elems = verifySources(*this, getSrcs(), axis);
  if (failed(elems))
    return failure();
  if (getResults().size() != getSrcs().size())
    return emitOpError() << "has " << getSrcs().size() << " tensor(s) and "
                         << getResults().size() << " result(s)";
  auto src = getSrc().getType();
  for (auto [elem, result] : llvm::zip(*elems, getResults())) {
    Type resultType = result.getType();
    if (src.getRank() == 1) {
      if (resultType != elem)
        return emitOpError() << "reducing a 1-D tensor gives a scalar of type "
                             << elem << ", got " << resultType;
      continue;
    }
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    auto expected = RankedTensorType::get(
        shape, elem,
        !src.getEncoding() ? Attribute()
        : isUnresolvedLayout(src.getEncoding())
            ? src.getEncoding()
            : SliceEncodingAttr::get(getContext(), axis, src.getEncoding()));
    if (resultType != expected)
      return emitOpError() << "result type must be " << expected << ", got "
                           << resultType;
  }
  return verifyCombineRegion<ReduceReturnOp>(*this, getCombine(), *elems);
}

LogicalResult HistogramOp::verify() {
  auto src = getSrc().getType();
  auto res = getResult().getType();
  Type elem = src.getElementType();
  if (src.getRank() != 1 || !(elem.isInteger(32) || elem.isInteger(64)))
    return emitOpError() << "src must be a 1-D tensor of i32 or i64, got " << src;
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (!m.getElementType().isInteger(1) || m.getShape() != src.getShape() ||
        m.getEncoding() != src.getEncoding())
      return emitOpError() << "mask must be an i1 tensor of the source's shape "
                              "and layout, got "
                           << m;
  }
  if (res.getRank() != 1 || !res.getElementType().isInteger(32))
    return emitOpError() << "result must be a 1-D i32 tensor, got " << res;
  if (!llvm::isPowerOf2_64(res.getDimSize(0)))
    return emitOpError() << "the number of bins (" << res.getDimSize(0)
                         << ") must be a power of two";
  return success();
}

LogicalResult ExtractSliceOp::verify() {
  auto src = getSrc().getType();
  auto res = getResult().getType();
  ArrayRef<int64_t> offsets = getOffsets();
  int64_t rank = src.getRank();
  if (res.getRank() != rank || int64_t(offsets.size()) != rank)
    return emitOpError() << "result and offsets must have the source's rank " << rank;
  if (res.getElementType() != src.getElementType() ||
      res.getEncoding() != src.getEncoding())
    return emitOpError() << "result must have the source's element type and layout, got "
                         << res << " from " << src;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = res.getDimSize(d);
    if (offsets[d] < 0 || offsets[d] + n > src.getDimSize(d))
      return emitOpError() << "offset " << offsets[d] << " + size " << n
                           << " exceeds the source's " << src.getDimSize(d)
                           << " along dimension " << d;
    if (offsets[d] % n)
      return emitOpError() << "offset " << offsets[d] << " along dimension " << d
                           << " must be a multiple of the result's size " << n;
  }
  if (!src.getEncoding() || isUnresolvedLayout(src.getEncoding()))
    return success();
  FailureOr<LinearLayout> a = getLinearLayout(src), b = getLinearLayout(res);
  if (failed(a) || failed(b))
    return success(); // the layout's own checks report it
  for (LinearLayout::InDim dim : {LinearLayout::Lane, LinearLayout::Warp})
    if (a->getBases(dim) != b->getBases(dim))
      return emitOpError() << "layout " << src.getEncoding()
                           << " places the slice on other threads than the source "
                           << "(its " << LinearLayout::kInDimNames[dim]
                           << " bases differ): a slice keeps each element in its "
                              "thread, so it must span whole tiles of the layout's "
                              "lanes and warps";
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), idx = getIndices().getType();
  auto res = getResult().getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (src.getRank() != idx.getRank())
    return emitOpError() << "src and indices must have the same rank, got "
                         << src.getRank() << " and " << idx.getRank();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << src.getRank();
  if (!isa<IntegerType>(idx.getElementType()))
    return emitOpError() << "indices must be integers, got "
                         << idx.getElementType();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && src.getDimSize(d) != idx.getDimSize(d))
      return emitOpError() << "src and indices must agree on dimension " << d
                           << " (all but axis " << axis << "), got "
                           << src.getDimSize(d) << " and " << idx.getDimSize(d);
  if (res.getShape() != idx.getShape() ||
      res.getElementType() != src.getElementType() ||
      res.getEncoding() != idx.getEncoding())
    return emitOpError() << "result must have the shape and layout of indices "
                            "and the element type of src, got "
                         << res;
  return success();
}

/// Inline assembly that is not pure may read and write any memory.
static void addAsmEffects(
    bool pure,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (pure)
    return;
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

void InlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addAsmEffects(getPure(), effects);
}

void InlineAsmThreadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addAsmEffects(getPure(), effects);
}

// Once per thread: operands are tensors with a layout (every register the
// thread holds), scalars, or shared views (their address); results are
// tensors with a layout or scalars, of integers or floats.
LogicalResult InlineAsmThreadOp::verify() {
  if (getResults().empty() && getPure())
    return emitOpError() << "without results must not be pure (it would do "
                            "nothing)";
  auto scalarOk = [](Type t, bool ptrs) {
    return t.isIntOrFloat() || (ptrs && isa<PointerType>(t));
  };
  for (Type t : getArgs().getTypes()) {
    if (isa<MemDescType>(t)) {
      if (getPure())
        return emitOpError() << "with a shared-memory operand must not be "
                                "pure, got "
                             << t;
      continue;
    }
    if (auto r = dyn_cast<RankedTensorType>(t)) {
      if (!r.getEncoding())
        return emitOpError() << "tensor operands need a layout, got " << t;
      if (!scalarOk(r.getElementType(), /*ptrs=*/true))
        return emitOpError() << "operands must hold integers, floats or "
                                "pointers, got "
                             << t;
      continue;
    }
    if (!scalarOk(t, /*ptrs=*/true))
      return emitOpError() << "operands must be tensors, scalars or shared "
                              "views, got "
                           << t;
  }
  for (Type t : getResults().getTypes()) {
    if (auto r = dyn_cast<RankedTensorType>(t)) {
      if (!r.getEncoding())
        return emitOpError() << "tensor results need a layout, got " << t;
      if (!r.getElementType().isIntOrFloat())
        return emitOpError() << "results must hold integers or floats, got "
                             << t;
      continue;
    }
    if (!t.isIntOrFloat())
      return emitOpError() << "results must be tensors or scalars of "
                              "integers or floats, got "
                           << t;
  }
  return success();
}

LogicalResult InlineAsmOp::verify() {
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  int32_t pack = getPack();
  if (pack < 1 || !llvm::isPowerOf2_32(pack))
    return emitOpError() << "pack must be a power of two, got " << pack;
  auto first = cast<RankedTensorType>(getResults().front().getType());
  auto same = [&](Type t) {
    auto r = cast<RankedTensorType>(t);
    return r.getShape() == first.getShape() && r.getEncoding() == first.getEncoding();
  };
  // Operands may also be pointers (one address register per element).
  for (Type t : getArgs().getTypes()) {
    Type elt = cast<RankedTensorType>(t).getElementType();
    if (!elt.isIntOrFloat() && !isa<PointerType>(elt))
      return emitOpError() << "operands must hold integers, floats or "
                              "pointers, got "
                           << t;
  }
  for (Type t : getResults().getTypes())
    if (!cast<RankedTensorType>(t).getElementType().isIntOrFloat())
      return emitOpError() << "results must hold integers or floats, got "
                           << t;
  for (Type t : llvm::concat<const Type>(getArgs().getTypes(),
                                         getResults().getTypes())) {
    if (!same(t))
      return emitOpError() << "operands and results must have one shape and "
                              "layout, got "
                           << t << " and " << first;
  }
  int64_t numel = first.getNumElements();
  if (numel % pack)
    return emitOpError() << "pack " << pack << " does not divide the "
                         << numel << " elements";
  return success();
}

LogicalResult ExternElementwiseOp::verify() {
  StringRef symbol = getSymbol();
  if (symbol.empty() || !llvm::all_of(symbol, [](char c) {
        return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
      }))
    return emitOpError() << "symbol must be a function name, got \""
                         << symbol << "\"";
  Type result = getResult().getType();
  auto resultTensor = dyn_cast<RankedTensorType>(result);
  SmallVector<Type> types(getArgs().getTypes());
  types.push_back(result);
  for (Type t : types) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    Type element = tensor ? tensor.getElementType() : t;
    if (!element.isIntOrFloat())
      return emitOpError() << "operands and result must be integers or "
                              "floats, or tensors of them, got "
                           << t;
    if (bool(tensor) != bool(resultTensor) ||
        (tensor && (tensor.getShape() != resultTensor.getShape() ||
                    tensor.getEncoding() != resultTensor.getEncoding())))
      return emitOpError() << "operands and result must be scalars, or "
                              "tensors of one shape and layout, got "
                           << t << " and " << result;
  }
  return success();
}

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError() << "isSigned has " << getIsSigned().size()
                         << " entries for " << getArgs().size() << " operands";
  std::optional<ArrayRef<int64_t>> shape;
  for (Type t : getArgs().getTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    Type elt = tensor ? tensor.getElementType() : t;
    if (!elt.isIntOrFloat() && !isa<PointerType>(elt))
      return emitOpError() << "prints integers, floats and pointers, got " << t;
    if (!tensor)
      continue;
    if (shape && *shape != tensor.getShape())
      return emitOpError() << "tensor operands must have one shape";
    shape = tensor.getShape();
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  FailureOr<SmallVector<Type>> elems =
      verifySources(*this, getSrcs(), static_cast<int32_t>(getAxis()));
  if (failed(elems))
    return failure();
  return verifyCombineRegion<ScanReturnOp>(*this, getCombine(), *elems);
}

LogicalResult ScanOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// shared memory
//===----------------------------------------------------------------------===//

/// `tensor` holds what `memdesc` holds: the same shape and element type.
static LogicalResult verifySameContents(Operation *op, RankedTensorType tensor,
                                        MemDescType memdesc) {
  // A tensor split among a cluster's CTAs fills each CTA's buffer with its
  // part.
  if (ArrayRef<int64_t>(getCtaShape(tensor)) != memdesc.getShape() ||
      tensor.getElementType() != memdesc.getElementType())
    return op->emitOpError()
           << "tensor " << tensor << " and shared buffer " << memdesc
           << " must have the same shape and element type";
  if (!tensor.getEncoding())
    return op->emitOpError() << "tensor " << tensor
                             << " needs a layout encoding (e.g. #tile.blocked)";
  return success();
}

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getType();
  if (type.getAllocShape() != type.getShape())
    return emitOpError() << "result must be a whole allocation, not a view ("
                         << type << ")";
  if (!getSrc())
    return type.getMutableMemory()
               ? success()
               : emitOpError() << "an uninitialized buffer must be mutable";
  return verifySameContents(*this, cast<RankedTensorType>(getSrc().getType()),
                            type);
}

LogicalResult LocalDeallocOp::verify() {
  MemDescType type = getSrc().getType();
  if (type.getAllocShape() != type.getShape())
    return emitOpError() << "deallocates a whole allocation, not a view ("
                         << type << ")";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifySameContents(*this, getType(), getSrc().getType());
}

LogicalResult LocalStoreOp::verify() {
  if (!getDst().getType().getMutableMemory())
    return emitOpError() << "stores into an immutable buffer "
                         << getDst().getType();
  return verifySameContents(
      *this, cast<RankedTensorType>(getValue().getType()), getDst().getType());
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  unsigned layoutRank = src.getSharedLayout().getRank();
  if (src.getShape().size() <= layoutRank)
    return emitOpError() << "indexes a dimension the shared layout does not "
                            "cover; "
                         << src << " has none";
  if (result.getShape() != src.getShape().drop_front() ||
      result.getElementType() != src.getElementType() ||
      result.getEncoding() != src.getEncoding() ||
      result.getMutableMemory() != src.getMutableMemory() ||
      result.getAllocShape() != src.getAllocShape())
    return emitOpError() << "result must be " << src
                         << " without its leading dimension (same layout, "
                            "mutability and allocation shape), got "
                         << result;
  // A constant slot must be one of the ring's: -1 is not Python's last slot
  // but the bytes before the buffer.
  APInt index;
  if (matchPattern(getIndex(), m_ConstantInt(&index))) {
    int64_t slots = src.getShape().front();
    int64_t i = index.getSExtValue();
    if (i < 0 || i >= slots)
      return emitOpError() << "slot " << i << " is out of range for a ring of "
                           << slots << (slots == 1 ? " slot" : " slots")
                           << " (valid: 0 to " << slots - 1 << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// async copies
//===----------------------------------------------------------------------===//

RankedTensorType AsyncCopyGlobalToLocalOp::getPointerType() {
  return cast<RankedTensorType>(getPtr().getType());
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  auto ptrType = cast<RankedTensorType>(getPtr().getType());
  if (Value other = getOther()) {
    if (!getMask())
      return emitOpError() << "'other' needs a mask";
    Type want = inferPointeeType(ptrType);
    if (other.getType() != want)
      return emitOpError() << "'other' must be " << want << ", got "
                           << other.getType();
  }
  if (Value mask = getMask())
    if (cast<RankedTensorType>(mask.getType()) !=
        cast<RankedTensorType>(getI1SameShape(ptrType)))
      return emitOpError() << "mask must be " << getI1SameShape(ptrType)
                           << ", got " << mask.getType();
  StringRef cache = getCacheModifier();
  if (cache != "" && cache != ".ca" && cache != ".cg" && cache != ".cv")
    return emitOpError() << "cache_modifier must be \"\", \".ca\", \".cg\" "
                            "or \".cv\", got \""
                         << cache << "\"";
  // The width rule with what the layouts allow; the lowering checks it
  // again once the pointer analysis has narrowed the width.
  if (failed(checkAsyncCopy(getEnclosingTarget(*this), ptrType, getDst(),
                            std::nullopt, [&] { return emitOpError(); })))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// shared-memory views
//===----------------------------------------------------------------------===//

/// Element type, mutability and (for views that keep it) the layout of a
/// view must be its source's.
static LogicalResult verifySameBuffer(Operation *op, MemDescType src,
                                      MemDescType result, bool sameLayout) {
  if (src.getElementType() != result.getElementType() ||
      src.getMutableMemory() != result.getMutableMemory() ||
      (sameLayout && src.getEncoding() != result.getEncoding()))
    return op->emitOpError()
           << "result must keep the source's element type, mutability"
           << (sameLayout ? " and layout" : "") << "; source " << src
           << ", result " << result;
  return success();
}

LogicalResult MemDescSubsliceOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (failed(verifySameBuffer(*this, src, result, /*sameLayout=*/true)))
    return failure();
  ArrayRef<int64_t> shape = src.getShape(), sub = result.getShape();
  ArrayRef<int32_t> offsets = getOffsets();
  if (sub.size() != shape.size() || offsets.size() != shape.size())
    return emitOpError() << "needs one offset per dimension and a result of "
                            "the source's rank ("
                         << shape.size() << ")";
  if (result.getAllocShape() != src.getAllocShape())
    return emitOpError() << "result must keep the allocation shape of "
                         << src;
  unsigned lead = shape.size() - src.getSharedLayout().getRank();
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (offsets[d] < 0 || offsets[d] + sub[d] > shape[d])
      return emitOpError() << "slice [" << offsets[d] << ", "
                           << offsets[d] + sub[d] << ") of dimension " << d
                           << " is outside [0, " << shape[d] << ")";
    if (d >= lead && offsets[d] % sub[d] != 0)
      return emitOpError() << "offset " << offsets[d] << " of dimension " << d
                           << " must be a multiple of the slice's size there ("
                           << sub[d] << ")";
  }
  return success();
}

LogicalResult MemDescPermuteOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (failed(verifySameBuffer(*this, src, result, /*sameLayout=*/false)))
    return failure();
  ArrayRef<int32_t> order = getOrder();
  unsigned rank = src.getShape().size();
  SmallVector<bool> seen(rank, false);
  for (int32_t o : order) {
    if (order.size() != rank || o < 0 || o >= int32_t(rank) || seen[o])
      return emitOpError() << "order must be a permutation of [0, " << rank
                           << ")";
    seen[o] = true;
  }
  SharedLayoutAttr layout = src.getSharedLayout();
  unsigned lead = rank - layout.getRank();
  SmallVector<int32_t> layoutPerm;
  for (unsigned i = 0; i < rank; ++i) {
    if (i < lead && order[i] != int32_t(i))
      return emitOpError() << "cannot move leading dimension " << i
                           << " (ring slots, not covered by the layout)";
    if (i >= lead)
      layoutPerm.push_back(order[i] - lead);
  }
  Attribute permuted = layout.getPermuted(layoutPerm);
  ArrayRef<int64_t> alloc = src.getAllocShape();
  unsigned allocLead = alloc.size() - rank;
  SmallVector<int64_t> shape, allocShape(alloc.take_front(allocLead));
  for (int32_t o : order) {
    shape.push_back(src.getShape()[o]);
    allocShape.push_back(alloc[allocLead + o]);
  }
  if (!permuted)
    return emitOpError() << src.getEncoding()
                         << " cannot be seen with its dimensions permuted";
  if (result.getShape() != ArrayRef<int64_t>(shape) ||
      result.getAllocShape() != ArrayRef<int64_t>(allocShape) ||
      result.getEncoding() != permuted)
    return emitOpError() << "result must be the source with dimensions "
                            "permuted: shape "
                         << shape.size() << "-D as permuted, layout "
                         << permuted << ", got " << result;
  return success();
}

LogicalResult MemDescReshapeOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (failed(verifySameBuffer(*this, src, result, /*sameLayout=*/false)))
    return failure();
  if (src.getShape() != src.getAllocShape())
    return emitOpError() << "reshapes whole allocations only, not a view ("
                         << src << ")";
  if (result.getShape() != result.getAllocShape())
    return emitOpError() << "result must be a whole buffer (no allocation "
                            "shape of its own)";
  int64_t before = 1, after = 1;
  for (int64_t d : src.getShape())
    before *= d;
  for (int64_t d : result.getShape())
    after *= d;
  if (before != after)
    return emitOpError() << "changes the number of elements (" << before
                         << " -> " << after << ")";
  SharedLayoutAttr layout = src.getSharedLayout();
  unsigned newRank = result.getSharedLayout().getRank();
  Attribute reshaped = layout.getReshaped(
      src.getShape().take_back(layout.getRank()),
      result.getShape().take_back(newRank));
  if (!reshaped)
    return emitOpError() << src.getEncoding()
                         << " cannot be seen under another shape (only an "
                            "unswizzled row-major buffer can)";
  if (reshaped != result.getEncoding())
    return emitOpError() << "result layout must be " << reshaped << ", got "
                         << result.getEncoding();
  return success();
}

LogicalResult MemDescReinterpretOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getMutableMemory() != result.getMutableMemory())
    return emitOpError() << "result must keep the source's mutability";
  if (result.getShape() != result.getAllocShape())
    return emitOpError() << "result must be a whole buffer (no allocation "
                            "shape of its own)";
  SharedLayoutAttr layout = src.getSharedLayout();
  // A whole ring (Gluon reinterprets a multi-buffered allocation as one
  // buffer) is its slots one after another: contiguous when each slot is.
  int64_t slots = 1;
  if (src.getShape().size() != layout.getRank()) {
    if (src.getShape() != src.getAllocShape())
      return emitOpError() << "reinterprets one slot or a whole ring, not a "
                              "part of a ring ("
                           << src << ")";
    for (int64_t d : src.getShape().drop_back(layout.getRank()))
      slots *= d;
  }
  // A padded buffer's bytes are its layout's offsets [0, n) placed by its
  // paddings: the same bytes only for a result of the same element size and
  // paddings, as a reshape of one slot or buffer gives.
  if (!layout.getPaddingSteps().empty()) {
    SharedLayoutAttr to = result.getSharedLayout();
    if (slots != 1 || to.getPaddingSteps() != layout.getPaddingSteps() ||
        getElementBytes(src.getElementType()) !=
            getElementBytes(result.getElementType()))
      return emitOpError() << "reinterprets a padded buffer (" << src.getEncoding()
                           << ") only as one slot under the same paddings and "
                              "element size, got "
                           << result;
  }
  FailureOr<int64_t> elements = getContiguousViewElements(src);
  if (failed(elements))
    return emitOpError() << "the source view's elements are not one "
                            "contiguous range in "
                         << src.getEncoding();
  if (!layout.getPaddingSteps().empty()) {
    // The same paddings over offsets [0, n): fewer elements, fewer bytes.
    int64_t count = 1;
    for (int64_t d : result.getShape())
      count *= d;
    if (count > *elements)
      return emitOpError() << "the result has " << count
                           << " elements but the padded source view holds "
                           << *elements;
    return success();
  }
  int64_t have = slots * *elements * getElementBytes(src.getElementType());
  int64_t need = getAllocationBytes(result);
  if (need > have)
    return emitOpError() << "the result needs " << need
                         << " bytes but the source view holds " << have;
  return success();
}

//===----------------------------------------------------------------------===//
// warp_specialize
//===----------------------------------------------------------------------===//

int WarpSpecializeOp::getRegionNumWarps(unsigned index, int numWarps) {
  // A region partition_num_warps does not count, or no such property (IR
  // the op's verifier has not seen yet: the module's layout check runs
  // first), is judged as the kernel's; the op's verifier reports it.
  if (index == 0 || !getPartitionNumWarpsAttr())
    return numWarps;
  ArrayRef<int32_t> warps = getPartitionNumWarps();
  return index > warps.size() ? numWarps : warps[index - 1];
}

SmallVector<int> WarpSpecializeOp::getPartitionFirstWarps(int numWarps) {
  // Largest first (stable), each at the next multiple of min(n, 4) warps:
  // the warps of a partition of 4 (or 8, ...) are whole, aligned warp
  // groups, which wgmma and setmaxnreg act on; sizes are powers of two, so
  // after the largest little or no padding is left between partitions.
  ArrayRef<int32_t> warps = getPartitionNumWarps();
  SmallVector<unsigned> order(warps.size());
  for (unsigned k = 0; k < order.size(); ++k)
    order[k] = k;
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return warps[a] > warps[b]; });
  SmallVector<int> first(warps.size());
  int cursor = numWarps;
  for (unsigned k : order) {
    int align = std::min<int>(warps[k], kWarpGroupWarps);
    cursor = int(llvm::alignTo(cursor, align));
    first[k] = cursor;
    cursor += warps[k];
  }
  return first;
}

int WarpSpecializeOp::getRegionFirstWarp(unsigned index, int numWarps) {
  return index == 0 ? 0 : getPartitionFirstWarps(numWarps)[index - 1];
}

int WarpSpecializeOp::getTotalNumWarps(int numWarps) {
  int total = numWarps;
  for (auto [first, n] :
       llvm::zip(getPartitionFirstWarps(numWarps), getPartitionNumWarps()))
    total = std::max(total, first + n);
  return total;
}

LogicalResult WarpSpecializeOp::verifyRegions() {
  ArrayRef<int32_t> warps = getPartitionNumWarps();
  if (warps.empty())
    return emitOpError() << "needs at least one worker partition";
  if (warps.size() != getPartitionRegions().size())
    return emitOpError() << "has " << getPartitionRegions().size()
                         << " worker partitions but " << warps.size()
                         << " entries in partition_num_warps";
  for (auto [k, n] : llvm::enumerate(warps))
    if (n < 1 || n > 32 || !llvm::isPowerOf2_32(n))
      return emitOpError() << "worker partition " << k << " has " << n
                           << " warps; each must be a power of two between "
                              "1 and 32";
  if (std::optional<ArrayRef<int32_t>> regs = getPartitionNumRegs()) {
    if (regs->size() != warps.size())
      return emitOpError() << "partition_num_regs has " << regs->size()
                           << " entries for " << warps.size()
                           << " worker partitions";
    for (auto [k, r] : llvm::enumerate(*regs))
      if (r < 24 || r > 256 || r % 8)
        return emitOpError() << "worker partition " << k << " asks for " << r
                             << " registers; each count must be a multiple "
                                "of 8 between 24 and 256";
  }
  for (Region &region : (*this)->getRegions()) {
    if (region.empty())
      return emitOpError() << "region " << region.getRegionNumber()
                           << " is empty";
    if (region.front().getNumArguments())
      return emitOpError() << "region " << region.getRegionNumber()
                           << " takes arguments; partitions take none";
    for (Block &block : region) {
      auto yield =
          block.empty() ? WarpYieldOp() : dyn_cast<WarpYieldOp>(&block.back());
      if (!yield)
        continue;
      bool isDefault = region.getRegionNumber() == 0;
      if (!isDefault && !yield.getValues().empty())
        return yield.emitOpError()
               << "in worker partition " << region.getRegionNumber() - 1
               << " yields values; only the default partition returns values";
      if (isDefault &&
          !llvm::equal(yield.getValues().getTypes(), getResultTypes())) {
        InFlightDiagnostic diag = yield.emitOpError()
                                  << "yields " << yield.getValues().size()
                                  << " value(s) of types (";
        llvm::interleaveComma(yield.getValues().getTypes(), diag);
        diag << ") where the warp_specialize has result types (";
        llvm::interleaveComma(getResultTypes(), diag);
        return diag << ")";
      }
    }
  }
  // Anywhere in a kernel (a loop, a branch: the worker warps learn at each
  // call which one it is; outside a function the dialect's own check
  // speaks), but not inside another one's partition.
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError() << "cannot be inside another tile.warp_specialize";
  return success();
  return success();
}
