//===- TMAAndDotOps.cpp - Verifiers of the TMA and tensor-core ops -------===//

#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// A TMA copy between `desc`'s block and the shared buffer `buf` at
/// `coords`: one coordinate per block dimension (per tensor dimension for an
/// im2col descriptor, which only loads take), the buffer shaped and laid out
/// as the block.
LogicalResult verifyTMA(Operation *op, TensorDescType desc, size_t coords,
                        MemDescType buf, StringRef bufName,
                        bool isLoad = false) {
  RankedTensorType block = desc.getBlockType();
  if (desc.isIm2Col() && !isLoad)
    return op->emitOpError() << "im2col descriptors are for TMA loads only";
  if (desc.isIm2Col() && coords != desc.getIm2colRank())
    return op->emitOpError()
           << "the im2col descriptor's tensor has rank " << desc.getIm2colRank()
           << ", but " << coords << " coordinates are given";
  if (!desc.isIm2Col() && coords != size_t(block.getRank()))
    return op->emitOpError()
           << "the descriptor's block has rank " << block.getRank() << ", but "
           << coords << " coordinates are given";
  if (buf.getShape() != block.getShape())
    return op->emitOpError()
           << bufName << " has shape " << shapeText(buf.getShape())
           << ", the descriptor's block " << shapeText(block.getShape());
  if (buf.getElementType() != block.getElementType())
    return op->emitOpError() << bufName << " holds " << buf.getElementType()
                             << ", the descriptor " << block.getElementType();
  if (buf.getEncoding() != block.getEncoding())
    return op->emitOpError()
           << bufName << "'s layout " << buf.getEncoding()
           << " is not the descriptor's " << block.getEncoding();
  if (!isa<NVMMASharedEncodingAttr>(block.getEncoding()))
    return op->emitOpError() << "TMA copies need a #tile_nv.nvmma_shared "
                                "descriptor layout, got "
                             << block.getEncoding();
  return verifyArch(op, 90, "TMA (cp.async.bulk.tensor)");
}

} // namespace

/// An L2 eviction policy on a TMA copy: PTX's createpolicy.fractional
/// priorities, a fraction in (0, 1], nothing without a primary.
static LogicalResult verifyL2Policy(Operation *op, StringAttr primary,
                                    StringAttr secondary, FloatAttr fraction) {
  if (!primary) {
    if (secondary || fraction)
      return op->emitOpError()
             << "l2_secondary and l2_fraction need an l2_primary";
    return success();
  }
  if (!llvm::is_contained({"evict_normal", "evict_unchanged", "evict_first",
                           "evict_last"},
                          primary.getValue()))
    return op->emitOpError() << "l2_primary must be evict_normal, "
                                "evict_unchanged, evict_first or evict_last, "
                                "got '"
                             << primary.getValue() << "'";
  if (secondary && secondary.getValue() != "evict_unchanged" &&
      secondary.getValue() != "evict_first")
    return op->emitOpError()
           << "l2_secondary must be evict_unchanged or evict_first, got '"
           << secondary.getValue() << "'";
  if (fraction) {
    double f = fraction.getValueAsDouble();
    if (!(f > 0.0 && f <= 1.0))
      return op->emitOpError() << "l2_fraction must be in (0, 1], got " << f;
  }
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  if (failed(verifyL2Policy(*this, getL2PrimaryAttr(), getL2SecondaryAttr(),
                            getL2FractionAttr())))
    return failure();
  if (failed(verifyBarrier(*this, getBarrier(), 90, "TMA completion")))
    return failure();
  MemDescType result = getResult().getType();
  if (!result.getMutableMemory())
    return emitOpError() << "result must be a mutable buffer, got " << result;
  TensorDescType desc = getDesc().getType();
  if (failed(verifyTMA(*this, desc, getCoord().size(), result, "result",
                       /*isLoad=*/true)))
    return failure();
  size_t offsets = getOffsets().size();
  if (!desc.isIm2Col()) {
    if (offsets)
      return emitOpError() << "im2col offsets need an im2col descriptor";
    return success();
  }
  unsigned rank = desc.getIm2colRank();
  if (offsets != rank - 2)
    return emitOpError() << "an im2col copy of a rank-" << rank
                         << " tensor takes " << rank - 2
                         << " offsets, got " << offsets;
  // PTX ISA (tensor im2col mode): the offsets are unsigned, as wide as the
  // rank leaves room for in 16 bits.
  int64_t limit = rank == 3 ? 65535 : rank == 4 ? 255 : 31;
  for (auto [i, v] : llvm::enumerate(getOffsets())) {
    APInt value;
    if (!matchPattern(v, m_ConstantInt(&value)))
      continue;
    uint64_t u = value.getZExtValue();
    if (u > uint64_t(limit))
      return emitOpError() << "im2col offset " << i << " is " << u
                           << ", outside [0, " << limit << "] (a rank-" << rank
                           << " tensor)";
  }
  return success();
}

Value AsyncTMACopyGlobalToLocalOp::getDst() { return getResult(); }
Value AsyncTMACopyGlobalToLocalOp::getCompletionBarrier() { return getBarrier(); }
Value AsyncTMACopyGlobalToLocalOp::getPredicate() { return getPred(); }
void AsyncTMACopyGlobalToLocalOp::setPredicate(Value pred) {
  getPredMutable().assign(pred);
}
// The whole box counts, elements past the tensor's edge (filled) included.
int64_t AsyncTMACopyGlobalToLocalOp::getCompletedBytes() {
  RankedTensorType block = getDesc().getType().getBlockType();
  return block.getNumElements() *
         tile::getElementBytes(block.getElementType());
}
Value AsyncTMACopyGlobalToLocalOp::getCompletionPredicate() { return getPred(); }
bool AsyncTMACopyGlobalToLocalOp::issuedByElectedThread() { return true; }
Value AsyncTMACopyGlobalToLocalOp::getLandingCTAs() { return getMulticast(); }

// Bulk stores are tracked by the bulk async-group counter, one group each;
// warpgroup dots by the wgmma group counter, one group each.
SmallVector<Value> AsyncTMACopyLocalToGlobalOp::getAsyncReadBuffers() {
  return {getSrc()};
}
StringRef AsyncTMACopyLocalToGlobalOp::getAsyncReadCounter() {
  return "cp.async.bulk";
}
bool AsyncTMACopyLocalToGlobalOp::isAsyncReadInFlight() { return true; }
// One elected thread issues the copy, and only its own wait_group waits for
// it: the other threads may write the buffer after a CTA barrier that
// follows the waits.
unsigned AsyncTMACopyLocalToGlobalOp::getAsyncReadGroupThreads() { return 1; }
// A reduce-store reads its source as a store does, in the same bulk groups.
SmallVector<Value> AsyncTMAReduceOp::getAsyncReadBuffers() {
  return {getSrc()};
}
StringRef AsyncTMAReduceOp::getAsyncReadCounter() { return "cp.async.bulk"; }
bool AsyncTMAReduceOp::isAsyncReadInFlight() { return true; }
unsigned AsyncTMAReduceOp::getAsyncReadGroupThreads() { return 1; }
StringRef AsyncTMAStoreWaitOp::getAsyncReadCounter() { return "cp.async.bulk"; }
unsigned AsyncTMAStoreWaitOp::getMaxPendingGroups() { return getPendings(); }

SmallVector<Value> WarpGroupDotOp::getAsyncReadBuffers() {
  if (hasRegisterA())
    return {getB()};
  return {getA(), getB()};
}
StringRef WarpGroupDotOp::getAsyncReadCounter() { return "wgmma"; }
bool WarpGroupDotOp::isAsyncReadInFlight() { return getIsAsync(); }
// A warpgroup (4 warps) issues a wgmma and its wait retires only its own.
unsigned WarpGroupDotOp::getAsyncReadGroupThreads() { return 128; }
StringRef WarpGroupDotWaitOp::getAsyncReadCounter() { return "wgmma"; }
unsigned WarpGroupDotWaitOp::getMaxPendingGroups() { return getPendings(); }

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  if (failed(verifyL2Policy(*this, getL2PrimaryAttr(), getL2SecondaryAttr(),
                            getL2FractionAttr())))
    return failure();
  return verifyTMA(*this, getDesc().getType(), getCoord().size(),
                   getSrc().getType(), "src");
}

/// Whether `cp.reduce.async.bulk.tensor` does `kind` on elements of `type`
/// (PTX ISA: add on f16, bf16, f32, u32, s32, u64; min and max on f16,
/// bf16, u32, s32, u64, s64; and, or, xor on b32, b64). Integers are
/// signless here: their signedness is the tensor map's, and a 64-bit add
/// needs an unsigned one (no s64 add), which the DSL checks.
static bool isTMAReducible(TMAReduceKind kind, Type type) {
  bool int32or64 = type.isInteger(32) || type.isInteger(64);
  bool half = type.isF16() || type.isBF16();
  switch (kind) {
  case TMAReduceKind::Add:
    return int32or64 || half || type.isF32();
  case TMAReduceKind::Min:
  case TMAReduceKind::Max:
    return int32or64 || half;
  case TMAReduceKind::And:
  case TMAReduceKind::Or:
  case TMAReduceKind::Xor:
    return int32or64;
  }
  return false;
}

LogicalResult AsyncTMAReduceOp::verify() {
  Type elem = getDesc().getType().getBlockType().getElementType();
  if (!isTMAReducible(getKind(), elem))
    return emitOpError()
           << "TMA reduce-stores have no " << stringifyTMAReduceKind(getKind())
           << " on " << elem
           << " (add: f16, bf16, f32, 32-bit and unsigned 64-bit integers; "
              "min, max: f16, bf16, 32- and 64-bit integers; and, or, xor: "
              "32- and 64-bit integers)";
  return verifyTMA(*this, getDesc().getType(), getCoord().size(),
                   getSrc().getType(), "src");
}

LogicalResult MakeTensorDescriptorOp::verify() {
  tile::TensorDescType desc = getResult().getType();
  if (desc.isIm2Col())
    return emitOpError() << "builds tiled descriptors only, not im2col ones";
  RankedTensorType block = desc.getBlockType();
  unsigned rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "needs one shape and one stride per dimension of "
                            "the block ("
                         << rank << "), got " << getShape().size() << " and "
                         << getStrides().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "TMA tensors have 1 to 5 dimensions, got " << rank;
  auto ptr = cast<tile::PointerType>(getBase().getType());
  if (ptr.getPointeeType() != block.getElementType())
    return emitOpError() << "base points to " << ptr.getPointeeType()
                         << " but the descriptor's blocks hold "
                         << block.getElementType();
  if (getPadding() != "zero" && getPadding() != "nan")
    return emitOpError() << "padding must be \"zero\" or \"nan\", got \""
                         << getPadding() << "\"";
  if (getPadding() == "nan" && !isa<FloatType>(block.getElementType()))
    return emitOpError() << "NaN padding needs a float element type, got "
                         << block.getElementType();
  return success();
}

LogicalResult WarpGroupDotWaitOp::verify() {
  if (getInputs().getTypes() != getOutputs().getTypes())
    return emitOpError() << "results must have the inputs' types";
  // The values pass through the wait in registers of the accumulators'
  // kind (tied operands of wgmma.wait_group).
  for (Type t : getInputs().getTypes()) {
    Type elem = cast<RankedTensorType>(t).getElementType();
    if (!elem.isF32() && !elem.isF16() && !elem.isInteger(32))
      return emitOpError() << "waits on wgmma accumulators (f32, f16 or i32 "
                              "tensors), got "
                           << t;
  }
  return success();
}

LogicalResult WarpGroupDotOp::verify() {
  auto a = cast<ShapedType>(getA().getType());
  MemDescType b = getB().getType();
  auto c = cast<RankedTensorType>(getC().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "a, b and the accumulator must be 2-D";
  // Tensors split among a cluster's CTAs: each CTA multiplies its parts.
  SmallVector<int64_t> aShape(a.getShape()), cShape = getCtaShape(c);
  if (auto ta = dyn_cast<RankedTensorType>(a))
    aShape = getCtaShape(ta);
  int64_t m = aShape[0], k = aShape[1];
  if (b.getShape()[0] != k || cShape[0] != m || cShape[1] != b.getShape()[1])
    return emitOpError() << "shapes do not multiply: a "
                         << shapeText(a.getShape()) << ", b "
                         << shapeText(b.getShape()) << ", accumulator "
                         << shapeText(c.getShape());
  Type ta = a.getElementType(), tb = b.getElementType(),
       tc = c.getElementType();
  if (ta != tb)
    return emitOpError() << "a and b must hold the same type, got " << ta
                         << " and " << tb;
  // The forms of wgmma.mma_async: f16 x f16 -> f16 or f32, bf16 x bf16 ->
  // f32, tf32 (f32 operands) -> f32, fp8 (e4m3, e5m2) -> f16 or f32.
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(ta);
  bool ok = (ta.isF16() && (tc.isF16() || tc.isF32())) ||
            ((ta.isBF16() || ta.isF32()) && tc.isF32()) ||
            (fp8 && (tc.isF16() || tc.isF32()));
  if (!ok)
    return emitOpError() << "wgmma has no " << ta << " x " << tb << " -> "
                         << tc
                         << " form (f16 -> f16/f32, bf16 -> f32, tf32 (f32) "
                            "-> f32, fp8 -> f16/f32)";
  unsigned bits = ta.getIntOrFloatBitWidth();
  int64_t instrK = 256 / bits;
  if (k % instrK)
    return emitOpError() << "K = " << k
                         << " is not a multiple of the instruction's K ("
                         << instrK << " for " << ta << ")";
  if (std::optional<uint32_t> cols = getCols()) {
    if (*cols < 8 || *cols % 8 || *cols > cShape[1])
      return emitOpError() << "cols = " << *cols
                           << " must be a multiple of 8 from 8 to the "
                              "accumulator's "
                           << cShape[1] << " columns (wgmma's N)";
    if (cShape[1] != c.getShape()[1])
      return emitOpError() << "cols with an accumulator split among a "
                              "cluster's CTAs along N is not supported";
  }
  return verifyArch(*this, 90, "wgmma");
}

LogicalResult MMAv2Op::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "a, b and the accumulator must be 2-D";
  int64_t m = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[1];
  if (b.getShape()[0] != k || c.getShape()[0] != m || c.getShape()[1] != n)
    return emitOpError() << "shapes do not multiply: a "
                         << shapeText(a.getShape()) << ", b "
                         << shapeText(b.getShape()) << ", accumulator "
                         << shapeText(c.getShape());
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "a and b must hold the same type, got "
                         << a.getElementType() << " and " << b.getElementType();
  Type ta = a.getElementType(), tc = c.getElementType();
  bool int8 = ta.isInteger(8);
  if (int8 ? !tc.isInteger(32) : !(tc.isF32() || (tc.isF16() && ta.isF16())))
    return emitOpError() << "mma.sync has no " << ta << " x " << ta << " -> "
                         << tc
                         << " form (bf16/f16 -> f32, f16 -> f16, tf32 (f32) "
                            "-> f32, i8 -> i32)";
  if (failed(tile::verifyDotClusterSplit(*this, a, b, c)))
    return failure();
  int64_t instrK = ta.isF32() ? 8 : int8 ? 32 : 16;
  StringRef instr = ta.isF32() ? "m16n8k8" : int8 ? "m16n8k32" : "m16n8k16";
  for (auto [name, size, want] :
       {std::tuple<StringRef, int64_t, int64_t>{"M", m, 16}, {"N", n, 8},
        {"K", k, instrK}})
    if (size % want)
      return emitOpError() << name << " = " << size
                           << " is not a multiple of the " << instr
                           << " instruction's " << name << " (" << want
                           << ")";
  return verifyArch(*this, 80, "mma.sync (mma_v2)");
}

LogicalResult AsyncSharedStoreOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier(), 90, "st.async")))
    return failure();
  MemDescType dst = getBuffer().getType();
  if (!dst.getMutableMemory())
    return emitOpError() << "stores into an immutable buffer " << dst;
  auto src = cast<RankedTensorType>(getSrc().getType());
  // A tensor split among a cluster's CTAs fills each CTA's buffer with its
  // part.
  if (ArrayRef<int64_t>(tile::getCtaShape(src)) != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError() << "stores " << src << " into " << dst
                         << ": they must hold the same elements";
  return success();
}

Value AsyncSharedStoreOp::getDst() { return getBuffer(); }
Value AsyncSharedStoreOp::getCompletionBarrier() { return getBarrier(); }
// Every element of the buffer once.
int64_t AsyncSharedStoreOp::getCompletedBytes() {
  MemDescType dst = getBuffer().getType();
  int64_t n = 1;
  for (int64_t d : dst.getShape())
    n *= d;
  return n * tile::getElementBytes(dst.getElementType());
}
Value AsyncSharedStoreOp::getCompletionPredicate() { return Value(); }
