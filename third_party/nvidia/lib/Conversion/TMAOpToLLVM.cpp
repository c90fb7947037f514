//===- TMAOpToLLVM.cpp - TMA copies to NVVM -------------------------------===//
//
// A TMA copy is issued by one elected thread of warp 0 (a PTX predicate, no
// branch; a reduce-store, whose NVVM op has no predicate, branches) for the
// whole CTA. A 2-D block of more than 256 rows is copied as boxes of 256
// rows (as Triton splits it). A block whose rows are wider than the
// layout's swizzle chunk is copied as one box per chunk (the host encodes the descriptor's box
// that wide: kiln.nvidia.hopper.tma_box), each chunk landing after the
// previous one, as #tile_nv.nvmma_shared stores chunks. Coordinates are
// given outermost first and handed to the hardware innermost first. An
// im2col load is the same with PTX's .im2col mode and its offsets: its block
// is pixels x channels, so the chunks are of channels (the innermost
// coordinate) as a tiled block's are of columns. An L2 eviction policy on
// a load or store is one createpolicy.fractional, every box's cache hint.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// One TMA box per swizzle chunk of the block's rows: the shared-memory
/// byte offset and the innermost-coordinate offset of each. A 2-D tiled
/// block of more than 256 rows (a box's most) is also cut into pieces of 256
/// rows, each landing `pieceBytes` after the previous within its chunk.
struct Boxes {
  int64_t count, chunkElements, chunkBytes;
  int64_t pieces = 1, pieceRows = 0, pieceBytes = 0;
};

constexpr int64_t kMaxBoxRows = 256;

Boxes getBoxes(TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  auto layout = cast<NVMMASharedEncodingAttr>(block.getEncoding());
  int64_t inner = block.getShape().back();
  int64_t chunk = layout.getRowChunkElements(inner);
  int64_t elements = 1;
  for (int64_t d : block.getShape())
    elements *= d;
  int64_t bytes = elements * block.getElementTypeBitWidth() / 8;
  Boxes boxes{inner / chunk, chunk, bytes / (inner / chunk)};
  int64_t rows = block.getShape().front();
  if (block.getRank() == 2 && !desc.isIm2Col() && rows > kMaxBoxRows) {
    boxes.pieces = rows / kMaxBoxRows;
    boxes.pieceRows = kMaxBoxRows;
    boxes.pieceBytes = boxes.chunkBytes / boxes.pieces;
  }
  return boxes;
}

/// Coordinates innermost first, the innermost moved by `innerOffset` and
/// the next (the rows) by `rowOffset`.
SmallVector<Value> boxCoordinates(OpBuilder &b, Location loc, ValueRange coord,
                                  int64_t innerOffset, int64_t rowOffset = 0) {
  SmallVector<Value> out(llvm::reverse(coord));
  if (innerOffset)
    out[0] = LLVM::AddOp::create(b, loc, out[0], i32Const(b, loc, innerOffset));
  if (rowOffset)
    out[1] = LLVM::AddOp::create(b, loc, out[1], i32Const(b, loc, rowOffset));
  return out;
}

/// The copy's L2 eviction policy (createpolicy.fractional), the 64-bit
/// operand of its .L2::cache_hint; null without one.
Value emitL2Policy(OpBuilder &b, Location loc, StringAttr primary,
                   StringAttr secondary, FloatAttr fraction) {
  if (!primary)
    return Value();
  float f = fraction ? float(fraction.getValueAsDouble()) : 1.0f;
  std::string asmText =
      ("createpolicy.fractional.L2::" + primary.getValue()).str();
  if (secondary && secondary.getValue() == "evict_first")
    asmText += ".L2::evict_first";
  asmText +=
      ".b64 $0, 0f" + llvm::utohexstr(llvm::bit_cast<uint32_t>(f), false, 8) +
      ";";
  return LLVM::InlineAsmOp::create(b, loc, b.getI64Type(), ValueRange{},
                                   asmText, "=l", /*has_side_effects=*/false,
                                   /*is_align_stack=*/false,
                                   LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

Value byteOffset(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (!bytes)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
}

} // namespace

FailureOr<SmallVector<int64_t>>
kiln::getTMABoxOffsets(Operation *op, Value buffer, TensorDescType desc) {
  Boxes boxes = getBoxes(desc);
  auto type = cast<MemDescType>(buffer.getType());
  unsigned rank = type.getSharedLayout().getRank();
  int64_t xorOffset = getSharedXorOffset(buffer);
  ArrayRef<int64_t> view = type.getShape().take_back(rank);
  ArrayRef<int64_t> alloc = type.getAllocShape().take_back(rank);
  SmallVector<int64_t> out;
  // Each box starts where the previous one's bytes end, and TMA needs its
  // shared-memory address 128-byte aligned: a block of fewer rows than a
  // 128-byte line holds (one row of a 64-byte swizzle, one or two of a
  // 32-byte one) fits in one box only.
  if (boxes.count > 1 && boxes.chunkBytes % 128) {
    int64_t rowBytes =
        boxes.chunkElements * type.getElementTypeBitWidth() / 8;
    op->emitOpError() << "this block is " << boxes.count
                      << " TMA boxes (one per swizzle chunk of its rows) of "
                      << boxes.chunkBytes
                      << " bytes each, and TMA needs each box's shared-memory "
                         "address 128-byte aligned: use blocks of at least "
                      << 128 / rowBytes
                      << " rows, a wider swizzle, or rows one chunk wide";
    return failure();
  }
  if (xorOffset == 0 && view == alloc) {
    for (int64_t i = 0; i < boxes.count; ++i)
      out.push_back(i * boxes.chunkBytes);
    return out;
  }
  if (boxes.pieces > 1) {
    op->emitOpError() << "TMA into or out of a subslice of a block of more than "
                      << kMaxBoxRows << " rows is not lowered";
    return failure();
  }
  // A subslice: each box lands at the address of its first element, and the
  // hardware must then put every element where the layout has it. It
  // swizzles absolute addresses (the 16-byte unit XOR bits 7 and up), so
  // this holds only for boxes that start on a swizzle atom.
  auto layout = dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding());
  FailureOr<SharedOffsets> table = SharedOffsets::get(type);
  if (!layout || rank != 2 || failed(table)) {
    op->emitOpError() << "TMA into or out of a subslice is lowered for 2-D "
                         "#tile_nv.nvmma_shared buffers only";
    return failure();
  }
  int64_t eb = type.getElementTypeBitWidth() / 8;
  unsigned swizzle = layout.getSwizzle();
  auto hardware = [&](int64_t a) {
    if (!swizzle)
      return a;
    int64_t mask = swizzle / 16 - 1;
    return a ^ (((a >> 7) & mask) << 4);
  };
  auto address = [&](int64_t r, int64_t c) {
    return (table->offsetOf({int32_t(r), int32_t(c)}) ^ xorOffset) * eb;
  };
  int64_t chunk = boxes.chunkElements, rowBytes = chunk * eb;
  for (int64_t i = 0; i < boxes.count; ++i) {
    int64_t base = address(0, i * chunk);
    for (int64_t r = 0; r < view[0]; ++r)
      for (int64_t c = 0; c < chunk; ++c) {
        if (hardware(base + r * rowBytes + c * eb) == address(r, i * chunk + c))
          continue;
        int64_t atom = swizzle ? 8 * swizzle : 128;
        op->emitOpError()
            << "TMA box " << i << " of this subslice would put element (" << r
            << ", " << i * chunk + c << ") where its layout does not: TMA "
            << "swizzles absolute shared-memory addresses, so a subslice must "
            << "start on a swizzle atom (" << atom << " bytes, "
            << atom / rowBytes << " rows of " << rowBytes
            << " bytes here) and span whole rows";
        return failure();
      }
    out.push_back(base);
  }
  return out;
}

namespace {

/// The thread that issues a copy completing on an mbarrier: the elected
/// thread, where `userPred` (null: always) holds; with a multicast mask
/// (null: none) only in the CTA of lowest rank in the mask, which issues
/// for all of them. `mask` is set to the mask as PTX's 16 bits.
Value issuingThread(ConversionPatternRewriter &rewriter, Operation *op,
                    const LoweringContext &ctx, Value userPred, Value multicast,
                    Value &mask) {
  Location loc = op->getLoc();
  Value pred = isElectedThread(rewriter, op, ctx);
  if (userPred)
    pred = LLVM::AndOp::create(rewriter, loc, pred, userPred);
  if (!multicast)
    return pred;
  Type i32 = rewriter.getI32Type();
  Value rank = NVVM::ClusterId::create(rewriter, loc, i32);
  Value below = LLVM::SubOp::create(
      rewriter, loc,
      LLVM::ShlOp::create(rewriter, loc, i32Const(rewriter, loc, 1), rank),
      i32Const(rewriter, loc, 1));
  Value lower = LLVM::AndOp::create(rewriter, loc, multicast, below);
  Value leader = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                      lower, i32Const(rewriter, loc, 0));
  pred = LLVM::AndOp::create(rewriter, loc, pred, leader);
  mask = LLVM::TruncOp::create(rewriter, loc, rewriter.getI16Type(), multicast);
  return pred;
}

/// A shared::cta address as the executing CTA's shared::cluster address (PTX
/// ISA, state spaces): the same bits, without the addrspacecast's detour
/// through a generic address (cvta.shared, cvta.to.shared::cluster).
Value asClusterAddress(ConversionPatternRewriter &rewriter, Location loc,
                       Value shared) {
  auto cluster = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
  Value bits =
      LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), shared);
  return LLVM::IntToPtrOp::create(rewriter, loc, cluster, bits);
}

/// An im2col load written out, its qualifiers in the PTX ISA's order
/// (`.im2col` before the completion mechanism, as Triton prints it):
/// `@pred cp.async.bulk.tensor.Nd.shared::cluster.global.im2col
/// .mbarrier::complete_tx::bytes[.multicast::cluster][.L2::cache_hint]
/// [dst], [desc, {coords}], [bar], {offsets}[, mask][, policy];`.
void emitIm2ColLoad(OpBuilder &b, Location loc, Value dst, Value desc,
                    ArrayRef<Value> coords, Value bar, ArrayRef<Value> offsets,
                    Value mask, Value policy, Value pred) {
  SmallVector<Value> operands{dst, desc};
  std::string constraints = "l,l";
  auto ref = [&](Value v, const char *c) {
    operands.push_back(v);
    constraints += std::string(",") + c;
    return "$" + std::to_string(operands.size() - 1);
  };
  std::string coordList, offsetList;
  for (Value c : coords)
    coordList += (coordList.empty() ? "" : ", ") + ref(c, "r");
  std::string barRef = ref(bar, "r");
  for (Value o : offsets)
    offsetList += (offsetList.empty() ? "" : ", ") + ref(o, "h");
  std::string text = "cp.async.bulk.tensor." + std::to_string(coords.size()) +
                     "d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                     "bytes";
  std::string tail;
  if (mask) {
    text += ".multicast::cluster";
    tail += ", " + ref(mask, "h");
  }
  if (policy) {
    text += ".L2::cache_hint";
    tail += ", " + ref(policy, "l");
  }
  text += " [$0], [$1, {" + coordList + "}], [" + barRef + "], {" +
          offsetList + "}" + tail + ";";
  if (pred)
    text = "@" + ref(pred, "b") + " " + text;
  LLVM::InlineAsmOp::create(b, loc, Type(), operands, text, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                            ArrayAttr());
}

struct TMALoadConversion : TileOpConversion<AsyncTMACopyGlobalToLocalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mask;
    Value pred = issuingThread(rewriter, op, ctx, adaptor.getPred(),
                               adaptor.getMulticast(), mask);
    Boxes boxes = getBoxes(op.getDesc().getType());
    FailureOr<SmallVector<int64_t>> offsets =
        getTMABoxOffsets(op, op.getResult(), op.getDesc().getType());
    if (failed(offsets))
      return failure();
    // An im2col load: the offsets go innermost first, as the coordinates;
    // the chunks of a wide row are boxes at successive channels, as tiled.
    bool im2col = op.getDesc().getType().isIm2Col();
    SmallVector<Value> im2colOffsets(llvm::reverse(adaptor.getOffsets()));
    Value policy = emitL2Policy(rewriter, loc, op.getL2PrimaryAttr(),
                                op.getL2SecondaryAttr(), op.getL2FractionAttr());
    for (int64_t n = 0; n < boxes.count * boxes.pieces; ++n) {
      int64_t i = n / boxes.pieces, p = n % boxes.pieces;
      Value dst = byteOffset(rewriter, loc, adaptor.getResult(),
                             (*offsets)[i] + p * boxes.pieceBytes);
      dst = asClusterAddress(rewriter, loc, dst);
      if (im2col) {
        emitIm2ColLoad(rewriter, loc, dst, adaptor.getDesc(),
                       boxCoordinates(rewriter, loc, adaptor.getCoord(),
                                      i * boxes.chunkElements,
                                      p * boxes.pieceRows),
                       adaptor.getBarrier(), im2colOffsets, mask, policy,
                       pred);
        continue;
      }
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, dst, adaptor.getDesc(),
          boxCoordinates(rewriter, loc, adaptor.getCoord(),
                         i * boxes.chunkElements, p * boxes.pieceRows),
          adaptor.getBarrier(), im2colOffsets,
          /*multicastMask=*/mask, /*l2CacheHint=*/policy,
          im2col ? NVVM::TMALoadMode::IM2COL : NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false,
          /*group=*/NVVM::CTAGroupKindAttr(), pred);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkLoadConversion
    : TileOpConversion<AsyncBulkCopyGlobalToLocalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncBulkCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mask;
    Value pred = issuingThread(rewriter, op, ctx, adaptor.getPred(),
                               adaptor.getMulticast(), mask);
    // The lowered buffer is its slot's base; a subslice (contiguous, the
    // verifier checks) starts at its offset there.
    MemDescType type = op.getResult().getType();
    int64_t start = applyPadding(type.getSharedLayout(),
                                 getSharedXorOffset(op.getResult())) *
                    getElementBytes(type.getElementType());
    Value dst = start ? byteOffset(rewriter, loc, adaptor.getResult(), start)
                      : adaptor.getResult();
    // The NVVM op has no predicate: the issuing thread branches to it.
    // Without a multicast the copy lands in this CTA's shared memory: PTX
    // 8.6's .shared::cta form (NVIDIABackend::getFeatures asks for that ISA),
    // as Gluon emits it; a multicast needs the .shared::cluster form.
    if (mask)
      dst = asClusterAddress(rewriter, loc, dst);
    auto issue = [&] {
      NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
          rewriter, loc, dst,
          adaptor.getSrc(), adaptor.getBarrier(), adaptor.getBytes(), mask,
          /*l2CacheHint=*/Value());
    };
    if (failed(emitIfElse(rewriter, op, pred, issue, nullptr)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// `@pred cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group.L2::cache_hint
/// [desc, {coords}], [src], policy;` with the coordinates innermost first.
void emitPolicyStore(OpBuilder &b, Location loc, Value desc, Value src,
                     ArrayRef<Value> coords, Value policy, Value pred) {
  unsigned rank = coords.size();
  SmallVector<Value> operands{desc};
  std::string list;
  for (unsigned d = 0; d < rank; ++d) {
    list += (d ? ", $" : "$") + std::to_string(1 + d);
    operands.push_back(coords[d]);
  }
  operands.push_back(LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), src));
  operands.push_back(policy);
  std::string constraints = "l" + std::string(rank, 'r');
  for (size_t k = 1; k < constraints.size(); k += 2)
    constraints.insert(k, ",");
  constraints += ",r,l";
  std::string text = "cp.async.bulk.tensor." + std::to_string(rank) +
                     "d.global.shared::cta.bulk_group.L2::cache_hint [$0, {" +
                     list + "}], [$" + std::to_string(rank + 1) + "], $" +
                     std::to_string(rank + 2) + ";";
  if (pred) {
    text = "@$" + std::to_string(rank + 3) + " " + text;
    operands.push_back(pred);
    constraints += ",b";
  }
  LLVM::InlineAsmOp::create(b, loc, Type(), operands, text, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                            ArrayAttr());
}

struct TMAStoreConversion : TileOpConversion<AsyncTMACopyLocalToGlobalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isElectedThread(rewriter, op, ctx);
    Boxes boxes = getBoxes(op.getDesc().getType());
    FailureOr<SmallVector<int64_t>> offsets =
        getTMABoxOffsets(op, op.getSrc(), op.getDesc().getType());
    if (failed(offsets))
      return failure();
    Value policy = emitL2Policy(rewriter, loc, op.getL2PrimaryAttr(),
                                op.getL2SecondaryAttr(), op.getL2FractionAttr());
    for (int64_t n = 0; n < boxes.count * boxes.pieces; ++n) {
      int64_t i = n / boxes.pieces, p = n % boxes.pieces;
      Value src = byteOffset(rewriter, loc, adaptor.getSrc(),
                             (*offsets)[i] + p * boxes.pieceBytes);
      SmallVector<Value> coords =
          boxCoordinates(rewriter, loc, adaptor.getCoord(),
                         i * boxes.chunkElements, p * boxes.pieceRows);
      if (policy) {
        // NVVM's op takes no cache hint with a predicate: the instruction
        // itself, predicated.
        emitPolicyStore(rewriter, loc, adaptor.getDesc(), src, coords, policy,
                        pred);
        continue;
      }
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(), src, coords,
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, pred);
    }
    // Threads that issued nothing commit an empty group.
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

NVVM::TMAReduxKind getReduxKind(TMAReduceKind kind) {
  switch (kind) {
  case TMAReduceKind::Add:
    return NVVM::TMAReduxKind::ADD;
  case TMAReduceKind::Min:
    return NVVM::TMAReduxKind::MIN;
  case TMAReduceKind::Max:
    return NVVM::TMAReduxKind::MAX;
  case TMAReduceKind::And:
    return NVVM::TMAReduxKind::AND;
  case TMAReduceKind::Or:
    return NVVM::TMAReduxKind::OR;
  case TMAReduceKind::Xor:
    return NVVM::TMAReduxKind::XOR;
  }
  llvm_unreachable("unknown TMA reduce kind");
}

/// A reduce-store is the store's boxes with cp.reduce.async.bulk.tensor.
/// NVVM's op takes no predicate, so the elected thread branches to it.
struct TMAReduceConversion : TileOpConversion<AsyncTMAReduceOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMAReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isElectedThread(rewriter, op, ctx);
    Boxes boxes = getBoxes(op.getDesc().getType());
    FailureOr<SmallVector<int64_t>> offsets =
        getTMABoxOffsets(op, op.getSrc(), op.getDesc().getType());
    if (failed(offsets))
      return failure();
    NVVM::TMAReduxKind kind = getReduxKind(op.getKind());
    auto issue = [&] {
      for (int64_t n = 0; n < boxes.count * boxes.pieces; ++n) {
        int64_t i = n / boxes.pieces, p = n % boxes.pieces;
        NVVM::CpAsyncBulkTensorReduceOp::create(
            rewriter, loc, adaptor.getDesc(),
            byteOffset(rewriter, loc, adaptor.getSrc(),
                       (*offsets)[i] + p * boxes.pieceBytes),
            kind, NVVM::TMAStoreMode::TILE,
            boxCoordinates(rewriter, loc, adaptor.getCoord(),
                           i * boxes.chunkElements, p * boxes.pieceRows),
            /*l2CacheHint=*/Value());
      }
    };
    if (failed(emitIfElse(rewriter, op, pred, issue, nullptr)))
      return failure();
    // Threads that issued nothing commit an empty group.
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// CUtensorMapDataType of a block element type (cuda.h's numbering, which
/// tensormap.replace's elemtype takes).
FailureOr<int> tensorMapDataType(Type t) {
  if (t.isF16())
    return 6;
  if (t.isBF16())
    return 9;
  if (t.isF32())
    return 7;
  if (t.isF64())
    return 8;
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 8:
      return 0;
    case 16:
      return 1;
    case 32:
      return 3;
    case 64:
      return 5;
    }
  }
  if (isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8)
    return 0; // fp8: bytes
  return failure();
}

} // namespace

LogicalResult kiln::checkMakeTensorDescriptor(MakeTensorDescriptorOp op) {
  RankedTensorType block = op.getResult().getType().getBlockType();
  auto layout = dyn_cast<NVMMASharedEncodingAttr>(block.getEncoding());
  if (!layout || failed(tensorMapDataType(block.getElementType())))
    return op.emitOpError() << "device-side descriptors are built for "
                               "#tile_nv.nvmma_shared blocks of 8-, 16-, "
                               "32- or 64-bit elements";
  if (layout.getTransposed())
    return op.emitOpError() << "TMA copies of " << layout
                            << " are not lowered yet (a layout that is not "
                               "transposed)";
  return success();
}

namespace {

/// tile_nv.make_tensor_descriptor: thread 0 of the CTA zero-fills the
/// descriptor's 128 bytes in this CTA's slot of the global scratch, sets
/// every field with tensormap.replace (what cuTensorMapEncodeTiled would
/// write: the box as the host encodes it, one box per swizzle chunk of a
/// row), and releases it to the tensor-map proxy; after a CTA barrier every
/// thread acquires it, so any thread may issue TMA through it.
struct MakeTensorDescriptorConversion
    : TileOpConversion<MakeTensorDescriptorOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MakeTensorDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto slot = op->getAttrOfType<IntegerAttr>("tile_nv.scratch_offset");
    auto func = op->getParentOfType<FunctionOpInterface>();
    if (!slot || !func)
      return op.emitOpError() << "has no global scratch slot (the "
                                 "tile-nv-add-global-scratch pass of "
                                 "kiln-to-llvm assigns one)";
    Value scratch = func.getFunctionBody().front().getArguments().back();
    if (!isa<LLVM::LLVMPointerType>(scratch.getType()))
      scratch = rewriter.getRemappedValue(scratch);
    // checkMakeTensorDescriptor accepted the layout and type before lowering.
    RankedTensorType block = op.getResult().getType().getBlockType();
    auto layout = cast<NVMMASharedEncodingAttr>(block.getEncoding());
    FailureOr<int> dtype = tensorMapDataType(block.getElementType());
    unsigned rank = block.getRank();
    int64_t elemBytes = block.getElementTypeBitWidth() / 8;
    Boxes boxes = getBoxes(op.getResult().getType());
    // This CTA's slot: (linear CTA id) x (bytes per CTA) + the op's offset.
    auto module = op->getParentOfType<ModuleOp>();
    int64_t perCTA =
        tile::TileDialect::GlobalScratchAttrHelper(ctx).getAttr(module).getInt();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value cta = NVVM::BlockIdXOp::create(rewriter, loc, i32);
    Value nx = NVVM::GridDimXOp::create(rewriter, loc, i32);
    Value ny = NVVM::GridDimYOp::create(rewriter, loc, i32);
    Value y = NVVM::BlockIdYOp::create(rewriter, loc, i32);
    Value z = NVVM::BlockIdZOp::create(rewriter, loc, i32);
    Value linear = LLVM::ZExtOp::create(rewriter, loc, i64, cta);
    Value rowLen = LLVM::ZExtOp::create(rewriter, loc, i64, nx);
    Value yz = LLVM::AddOp::create(
        rewriter, loc, LLVM::ZExtOp::create(rewriter, loc, i64, y),
        LLVM::MulOp::create(rewriter, loc,
                            LLVM::ZExtOp::create(rewriter, loc, i64, z),
                            LLVM::ZExtOp::create(rewriter, loc, i64, ny)));
    linear = LLVM::AddOp::create(rewriter, loc, linear,
                                 LLVM::MulOp::create(rewriter, loc, yz, rowLen));
    Value offset = LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc, linear,
                            LLVM::ConstantOp::create(rewriter, loc, i64,
                                                     perCTA)),
        LLVM::ConstantOp::create(rewriter, loc, i64, slot.getInt()));
    auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
    Value desc = LLVM::GEPOp::create(rewriter, loc, globalPtr,
                                     rewriter.getI8Type(), scratch,
                                     ValueRange{offset});
    Value isFirst = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::eq, ctx_threadId(rewriter, loc),
        LLVM::ConstantOp::create(rewriter, loc, i32, 0));

    // Operands: $0 descriptor, $1 predicate, $2 base address, then the box,
    // dims (innermost first, 32-bit) and byte strides (64-bit).
    SmallVector<Value> operands = {desc, isFirst};
    std::string constraints = "l,b,l";
    Value base = LLVM::PtrToIntOp::create(rewriter, loc, i64,
                                          adaptor.getBase());
    operands.push_back(base);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "{\n.reg .b32 z;\nmov.b32 z, 0;\n";
    for (int i = 0; i < 8; ++i)
      os << "@$1 st.global.v4.b32 [$0+" << 16 * i << "], {z, z, z, z};\n";
    auto field = [&](StringRef name, StringRef type) {
      os << "@$1 tensormap.replace.tile." << name << ".global.b1024." << type
         << " [$0], ";
    };
    field("global_address", "b64");
    os << "$2;\n";
    field("rank", "b32");
    os << rank - 1 << ";\n";
    unsigned next = 3;
    ValueRange shape = adaptor.getShape(), strides = adaptor.getStrides();
    for (unsigned i = 0; i < rank; ++i) {
      // Dimension i of the hardware is dimension rank-1-i of the block.
      int64_t box = i == 0 ? boxes.chunkElements
                    : i == 1 && boxes.pieces > 1
                        ? boxes.pieceRows
                        : block.getShape()[rank - 1 - i];
      field("box_dim", "b32");
      os << i << ", " << box << ";\n";
      field("global_dim", "b32");
      os << i << ", $" << next++ << ";\n";
      operands.push_back(shape[rank - 1 - i]);
      constraints += ",r";
      field("element_stride", "b32");
      os << i << ", 1;\n";
    }
    // Byte strides of dimensions 1.. (the innermost is contiguous), in
    // bytes: measured on the H100 with CUDA 13's ptxas and PTX 8.3 (Triton
    // shifts them right by 4 for PTX up to 8.5, a workaround for older
    // ptxas; with this one that stores rows 16 times too close).
    for (unsigned i = 1; i < rank; ++i) {
      Value bytes = LLVM::MulOp::create(
          rewriter, loc, strides[rank - 1 - i],
          LLVM::ConstantOp::create(rewriter, loc, i64, elemBytes));
      field("global_stride", "b64");
      os << i - 1 << ", $" << next++ << ";\n";
      operands.push_back(bytes);
      constraints += ",l";
    }
    int swizzle = layout.getSwizzle() ? llvm::Log2_32(layout.getSwizzle() / 16)
                                      : 0;
    field("elemtype", "b32");
    os << *dtype << ";\n";
    field("interleave_layout", "b32");
    os << "0;\n";
    field("swizzle_mode", "b32");
    os << swizzle << ";\n";
    field("fill_mode", "b32");
    os << (op.getPadding() == "nan" ? 1 : 0) << ";\n";
    os << "@$1 fence.proxy.tensormap::generic.release.gpu;\n}";
    LLVM::InlineAsmOp::create(
        rewriter, loc, LLVM::LLVMVoidType::get(ctx), operands, text,
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    ctx_barrier(rewriter, loc);
    // Every thread acquires the descriptor for the tensor-map proxy (with
    // Triton's workaround for a ptxas that drops the fence otherwise: an
    // empty bulk group waited for).
    LLVM::InlineAsmOp::create(
        rewriter, loc, LLVM::LLVMVoidType::get(ctx), ValueRange{desc},
        "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;\n"
        "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;",
        "l", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.replaceOp(op, LLVM::AddrSpaceCastOp::create(
                               rewriter, loc, LLVM::LLVMPointerType::get(ctx, 0),
                               desc));
    return success();
  }

  Value ctx_threadId(OpBuilder &b, Location loc) const {
    return ctx.target.threadId(b, loc);
  }
  void ctx_barrier(OpBuilder &b, Location loc) const {
    ctx.target.barrier(b, loc);
  }
};

struct TMAStoreWaitConversion : TileOpConversion<AsyncTMAStoreWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMAStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Without `.read` the wait also covers the groups' global writes.
    NVVM::CpAsyncBulkWaitGroupOp::create(
        rewriter, op.getLoc(), op.getPendingsAttr(),
        op.getReadOnly() ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedConversion : TileOpConversion<FenceAsyncSharedOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *c = rewriter.getContext();
    NVVM::FenceProxyOp::create(
        rewriter, op.getLoc(),
        NVVM::ProxyKindAttr::get(c, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(c, op.getCluster()
                                          ? NVVM::SharedSpace::shared_cluster
                                          : NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateTMAOpToLLVMPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       const LoweringContext &ctx) {
  patterns.add<MakeTensorDescriptorConversion, TMALoadConversion,
               BulkLoadConversion,
               TMAStoreConversion, TMAReduceConversion, TMAStoreWaitConversion,
               FenceAsyncSharedConversion>(converter, ctx);
}
