//===- Dialect.cpp - The tile dialect -------------------------------------===//

#include "kiln/Dialect/Tile/IR/Traits.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

#include "kiln/Dialect/Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileTypes.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#slice1`, ... aliases at the top of a module.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr))
      os << "blocked";
    else if (isa<SliceEncodingAttr>(attr))
      os << "slice";
    else if (isa<LinearEncodingAttr>(attr))
      os << "linear";
    else if (isa<SwizzledSharedEncodingAttr>(attr))
      os << "shared";
    else if (isa<SharedLinearEncodingAttr>(attr))
      os << "shared_linear";
    else if (isa<ClusterEncodingAttr>(attr))
      os << "cga";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "kiln/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PointerType>(pointeeType))
    return emitError() << "pointee must be an integer, float or pointer type, "
                          "got "
                       << pointeeType;
  if (auto i = dyn_cast<IntegerType>(pointeeType); i && i.getWidth() > 64)
    return emitError() << "pointee integers are at most 64 bits wide, got "
                       << pointeeType;
  if (isa<Float32Type>(pointeeType) || !isa<FloatType>(pointeeType)) {
    // f32 and non-floats are fine.
  } else if (pointeeType.isTF32()) {
    return emitError() << "tf32 is a compute format with no memory "
                          "representation: point to f32 instead";
  } else if (pointeeType.getIntOrFloatBitWidth() % 8 != 0) {
    return emitError() << "pointee " << pointeeType
                       << " is narrower than a byte: store such values "
                          "packed in an i8 tensor";
  }
  if (addressSpace < 0 || addressSpace >= TileDialect::kMaxAddressSpace)
    return emitError() << "address space must be in [0, "
                       << TileDialect::kMaxAddressSpace << "), got "
                       << addressSpace;
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type kiln::tile::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto t = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(t.getShape(), i1, t.getEncoding());
  return i1;
}

Type kiln::tile::getPointeeType(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    auto ptr = dyn_cast<PointerType>(t.getElementType());
    if (!ptr)
      return {};
    return RankedTensorType::get(t.getShape(), ptr.getPointeeType(),
                                 t.getEncoding());
  }
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return {};
}

Type kiln::tile::inferPointeeType(Type type) {
  Type pointee = getPointeeType(type);
  return pointee ? pointee : type;
}

static int getIntModuleAttr(ModuleOp module, StringRef name, int dflt) {
  if (!module)
    return dflt;
  if (auto a = module->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

int kiln::tile::getNumWarps(ModuleOp module) {
  return getIntModuleAttr(module, TileDialect::NumWarpsAttrHelper::getNameStr(),
                          4);
}

std::pair<Operation *, unsigned>
kiln::tile::enclosingWorkerPartition(Operation *op) {
  for (Region *r = op ? op->getParentRegion() : nullptr; r;
       r = r->getParentRegion()) {
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(r->getParentOp()))
      return {ws, r->getRegionNumber()};
  }
  return {nullptr, 0};
}

int kiln::tile::lookupNumWarps(Operation *op, int numWarps) {
  auto [ws, index] = enclosingWorkerPartition(op);
  if (!ws)
    return numWarps;
  return cast<WarpSpecializeOp>(ws).getRegionNumWarps(index, numWarps);
}

int kiln::tile::getThreadsPerWarp(ModuleOp module) {
  return getIntModuleAttr(
      module, TileDialect::ThreadsPerWarpAttrHelper::getNameStr(), 32);
}

FailureOr<LinearLayout>
kiln::tile::getLinearLayout(RankedTensorType type,
                            function_ref<InFlightDiagnostic()> emitError) {
  auto layout = dyn_cast_or_null<DistributedLayoutAttr>(type.getEncoding());
  if (!layout) {
    if (emitError)
      emitError() << "tensor " << type << " has no distributed layout";
    return failure();
  }
  if (layout.getRank() != type.getRank()) {
    if (emitError)
      emitError() << "layout " << type.getEncoding() << " has rank "
                  << layout.getRank() << " but tensor " << type << " has rank "
                  << type.getRank();
    return failure();
  }
  for (int64_t d : type.getShape()) {
    if (d <= 0 || !llvm::isPowerOf2_64(d)) {
      if (emitError)
        emitError() << "tensor shape must be powers of two, got " << type;
      return failure();
    }
  }
  LinearLayout ll = layout.toLinearLayout(type.getShape());
  if (ll.getNumBits(LinearLayout::Register) >
      LinearLayout::kMaxInBits[LinearLayout::Register]) {
    if (emitError)
      emitError() << "tensor " << type << " needs "
                  << ll.getInSize(LinearLayout::Register)
                  << " registers per thread in layout " << type.getEncoding()
                  << "; Kiln's limit is "
                  << (1 << LinearLayout::kMaxInBits[LinearLayout::Register])
                  << " (use a smaller block or more warps)";
    return failure();
  }
  for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d)
    for (const auto &b : ll.getBases(LinearLayout::InDim(d)))
      for (auto [k, v] : llvm::enumerate(b))
        if (v < 0 || v >= type.getShape()[k]) {
          if (emitError)
            emitError() << "layout " << type.getEncoding()
                        << " has a basis outside the shape of " << type;
          return failure();
        }
  if (!ll.isSurjective()) {
    if (emitError)
      emitError() << "layout " << type.getEncoding()
                  << " does not cover every element of " << type;
    return failure();
  }
  return ll;
}

//===----------------------------------------------------------------------===//
// Module verification: layouts against the compile context
//===----------------------------------------------------------------------===//

bool kiln::tile::isUnresolvedLayout(Attribute encoding) {
  return isa_and_nonnull<AutoEncodingAttr, CoalescedEncodingAttr>(encoding);
}

bool kiln::tile::hasUnresolvedLayout(Type type) {
  auto tt = dyn_cast<RankedTensorType>(type);
  return tt && isUnresolvedLayout(tt.getEncoding());
}

static LogicalResult verifyTensorType(Operation *op, RankedTensorType type,
                                      int numWarps, int threadsPerWarp,
                                      int maxRegisters, StringRef targetName) {
  auto emit = [&]() { return op->emitOpError(); };
  // Layouts to be inferred are checked once tile-resolve-layouts chose them,
  // and tensors split among a cluster's CTAs once tile-split-cluster made
  // them each CTA's part.
  if (isUnresolvedLayout(type.getEncoding()) ||
      stripCluster(type.getEncoding()) != type.getEncoding())
    return success();
  if (!type.getEncoding())
    return op->emitOpError() << "tensor " << type
                             << " needs a layout encoding (e.g. #tile.blocked)";
  FailureOr<LinearLayout> ll = getLinearLayout(type, emit);
  if (failed(ll))
    return failure();
  if (ll->getInSize(LinearLayout::Lane) != threadsPerWarp)
    return op->emitOpError()
           << "layout " << type.getEncoding() << " has "
           << ll->getInSize(LinearLayout::Lane)
           << " threads per warp but the kernel is compiled for "
           << threadsPerWarp << " (tile.threads_per_warp)";
  if (ll->getInSize(LinearLayout::Warp) != numWarps)
    return op->emitOpError() << "layout " << type.getEncoding() << " has "
                             << ll->getInSize(LinearLayout::Warp)
                             << " warps but the kernel is compiled for "
                             << numWarps << " (tile.num_warps)";
  if (maxRegisters && ll->getInSize(LinearLayout::Register) > maxRegisters)
    return op->emitOpError()
           << "tensor " << type << " needs "
           << ll->getInSize(LinearLayout::Register)
           << " registers per thread in layout " << type.getEncoding()
           << "; Kiln's limit on " << targetName << " is " << maxRegisters
           << " (use a smaller block or more warps)";
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == SharedAttrHelper::getNameStr() ||
      name == GlobalScratchAttrHelper::getNameStr() ||
      name == ScratchOffsetAttrHelper::getNameStr()) {
    // Byte counts the allocator writes; a replayed module may carry them.
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || !bytes.getType().isSignlessInteger() || bytes.getInt() < 0 ||
        bytes.getInt() > std::numeric_limits<int32_t>::max())
      return op->emitOpError() << "'" << name
                               << "' must be a non-negative byte count below "
                                  "2^31";
    if (name == SharedAttrHelper::getNameStr() && !isa<ModuleOp>(op))
      return op->emitOpError() << "'" << name << "' belongs on a module";
    return success();
  }
  if (name == TargetAttrHelper::getNameStr()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == ThreadsPerWarpAttrHelper::getNameStr()) {
    auto tpw = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op))
      return op->emitOpError() << "'" << name << "' belongs on a module";
    if (!tpw || (tpw.getInt() != 32 && tpw.getInt() != 64))
      return op->emitOpError() << "'" << name << "' must be 32 or 64";
    return success(); // layouts are checked with
                      // NumWarpsAttrHelper::getNameStr()
  }
  if (name == kRepeatedCtasAttr) {
    auto bits = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bits || bits.getInt() < 0 || bits.getInt() > 15 ||
        !op->hasTrait<OpTrait::TileAtomicResults>())
      return op->emitOpError() << "'" << name
                               << "' is a mask of cluster rank bits in [0, "
                                  "15] on an atomic with old values";
    return success();
  }
  if (name == RelaxedLoadCheckedAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<LocalLoadOp>(op))
      return op->emitOpError() << "'" << name
                               << "' is a unit attribute of tile.local_load";
    return success();
  }
  if (name == SyncedViaWaitAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<LocalLoadOp>(op))
      return op->emitOpError() << "'" << name
                               << "' is a unit attribute of tile.local_load";
    return success();
  }
  if (name == NumStagesAttrHelper::getNameStr()) {
    // Loop hint for the (future) pipeliner: kl.range(..., num_stages=N).
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!n || n.getInt() < 0)
      return op->emitOpError() << "'tile.num_stages' must be a non-negative "
                                  "integer";
    return success();
  }
  if (name == StageAttrHelper::getNameStr() ||
      name == ClusterAttrHelper::getNameStr()) {
    // The pipeliner's schedule; a replayed module may carry it.
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!n || n.getInt() < 0 || n.getInt() > kMaxPipelineStage)
      return op->emitOpError() << "'" << name
                               << "' must be an integer from 0 to "
                               << kMaxPipelineStage;
    Operation *loop = op->getParentOp();
    if (!loop || loop->getName().getStringRef() != "scf.for")
      return op->emitOpError() << "'" << name << "' belongs on an op of a "
                               << "scf.for body";
    return success();
  }
  if (name == UnpredicatedAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<BarrierWaitOpInterface>(op))
      return op->emitOpError() << "'" << name << "' is a unit attribute of "
                               << "barrier waits";
    return success();
  }
  if (name == PipelinePartAttrHelper::getNameStr()) {
    auto part = dyn_cast<StringAttr>(attr.getValue());
    if (!part || (part.getValue() != "prologue" && part.getValue() != "kernel"))
      return op->emitOpError() << "'" << name
                               << "' must be \"prologue\" or \"kernel\"";
    return success();
  }
  if (name == ScratchRoundsAttrHelper::getNameStr()) {
    // Written by the allocator; a replayed module may carry it.
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ConvertLayoutOp, ReshapeOp>(op))
      return op->emitOpError() << "'" << name
                               << "' belongs on tile.convert_layout or "
                                  "tile.reshape";
    int64_t most = getMaxScratchRounds(op);
    if (!n || n.getInt() < 1 || !llvm::isPowerOf2_64(n.getInt()) ||
        n.getInt() > most)
      return op->emitOpError()
             << "'" << name << "' must be a power of two between 1 and "
             << most << " (the tile's coordinate bits no lane or warp holds)";
    return success();
  }
  if (name == FpFusionAttrHelper::getNameStr()) {
    if (!isa<ModuleOp>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' is a boolean module "
                               << "attribute";
    return success();
  }
  if (name == MaxnregAttrHelper::getNameStr()) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !n || n.getInt() < 16 || n.getInt() > 255)
      return op->emitOpError() << "'" << name << "' is a module attribute "
                               << "between 16 and 255 (registers per thread)";
    return success();
  }
  if (name == "tile.llvm_fn_attrs") {
    // LLVM attributes for the kernel function: [["name", "value"], ...].
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    bool ok = isa<ModuleOp>(op) && list;
    for (Attribute a : ok ? list.getValue() : ArrayRef<Attribute>()) {
      auto pair = dyn_cast<ArrayAttr>(a);
      ok &= pair && pair.size() == 2 && isa<StringAttr>(pair[0]) &&
            isa<StringAttr>(pair[1]) &&
            !cast<StringAttr>(pair[0]).getValue().empty();
    }
    if (!ok)
      return op->emitOpError() << "'" << name << "' is a module attribute: a "
                               << "list of [\"name\", \"value\"] string pairs "
                               << "(LLVM function attributes)";
    return success();
  }
  if (name == "tile.waves_per_eu") {
    // An occupancy hint for targets that take one (waves per SIMD).
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !n || n.getInt() < 1 || n.getInt() > 20)
      return op->emitOpError() << "'" << name << "' is a module attribute "
                               << "between 1 and 20 (waves per SIMD)";
    return success();
  }
  if (name == ClusterPeersAttrHelper::getNameStr()) {
    auto bits = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ReduceOp>(op) || !bits || bits.getInt() <= 0 ||
        bits.getInt() >= (int64_t(1) << 5))
      return op->emitOpError()
             << "'" << name << "' is a reduce's nonzero mask of the rank "
             << "bits of a cluster of at most 32 CTAs";
    return success();
  }
  if (name == PartitionsPreparedAttrHelper::getNameStr() ||
      name == RegionsConvertedAttrHelper::getNameStr()) {
    if (!isa<WarpSpecializeOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' is a unit attribute of "
                               << "tile.warp_specialize";
    return success();
  }
  if (name == TotalNumWarpsAttrHelper::getNameStr()) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !n || n.getInt() < 1 || n.getInt() > 32)
      return op->emitOpError() << "'" << name << "' is a module attribute "
                               << "between 1 and 32";
    return success();
  }
  if (name != NumWarpsAttrHelper::getNameStr())
    return op->emitError() << "unknown tile attribute '" << name << "'";
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitOpError() << "'" << name << "' belongs on a module";
  auto nw = dyn_cast<IntegerAttr>(attr.getValue());
  if (!nw || nw.getInt() <= 0 || !llvm::isPowerOf2_64(nw.getInt()) ||
      nw.getInt() > 32)
    return op->emitOpError()
           << "'" << name << "' must be a power of two between 1 and 32";
  int tpw = getThreadsPerWarp(module);
  if (tpw != 32 && tpw != 64)
    return op->emitOpError() << "'" << ThreadsPerWarpAttrHelper::getNameStr()
                             << "' must be 32 or 64, got " << tpw;
  return verifyModuleLayouts(module, nw.getInt(), tpw);
}

LogicalResult kiln::tile::verifyModuleLayouts(ModuleOp module, int numWarps,
                                              int tpw, int maxRegisters,
                                              StringRef targetName) {
  auto check = [&](Operation *inner, Type t, int warps) -> LogicalResult {
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt)
      return success();
    return verifyTensorType(inner, tt, warps, tpw, maxRegisters, targetName);
  };
  WalkResult r = module.walk([&](Operation *inner) {
    int warps = lookupNumWarps(inner, numWarps);
    for (Type t : inner->getResultTypes())
      if (failed(check(inner, t, warps)))
        return WalkResult::interrupt();
    // A block argument lives in its region's warps: a worker partition's
    // blocks (a loop or branch lowered to blocks inside it) carry values in
    // that partition's layouts, not in those around the warp_specialize.
    auto ws = dyn_cast<WarpSpecializeOp>(inner);
    for (Region &region : inner->getRegions()) {
      int regionWarps =
          ws ? ws.getRegionNumWarps(region.getRegionNumber(), warps) : warps;
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(inner, arg.getType(), regionWarps)))
            return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == TensordescAttrHelper::getNameStr()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !func ||
        argIndex >= func.getNumArguments() ||
        !isa<TensorDescType>(func.getArgumentTypes()[argIndex]))
      return op->emitOpError() << "'" << name << "' is a unit attribute of "
                               << "!tile.tensordesc arguments";
    return success();
  }
  if (name == PointerRangeAttrHelper::getNameStr()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto range = dyn_cast<IntegerAttr>(attr.getValue());
    if (!range || range.getInt() != 32 || !func ||
        argIndex >= func.getNumArguments() ||
        !isa<PointerType>(func.getArgumentTypes()[argIndex]))
      return op->emitOpError() << "'" << name << "' is 32 (offsets within "
                               << "2^31 - 2 bytes) on pointer arguments";
    return success();
  }
  if (name != DivisibilityAttrHelper::getNameStr())
    return op->emitOpError()
           << "unknown tile argument attribute '" << name << "'";
  auto d = dyn_cast<IntegerAttr>(attr.getValue());
  if (!d || d.getInt() <= 0 || !llvm::isPowerOf2_64(d.getInt()) ||
      d.getInt() > (int64_t(1) << 30))
    return op->emitOpError() << "'" << name << "' of argument " << argIndex
                             << " must be a positive power of two";
  return success();
}

//===----------------------------------------------------------------------===//
// !tile.memdesc
//===----------------------------------------------------------------------===//

// !tile.memdesc<AxBxT, #layout(, mutable)?(, CxAxB)?>
Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding;
  bool isMutable = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      isMutable = true;
      continue;
    }
    if (!allocShape.empty() ||
        parser.parseDimensionList(allocShape, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (allocShape.empty())
    allocShape = shape;
  return parser.getChecked<MemDescType>(loc, parser.getContext(), shape,
                                        elementType, encoding, isMutable,
                                        allocShape);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getEncoding();
  if (getMutableMemory())
    printer << ", mutable";
  if (getAllocShape() != getShape()) {
    printer << ", ";
    llvm::interleave(getAllocShape(), printer, "x");
  }
  printer << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, bool,
                                  ArrayRef<int64_t> allocShape) {
  if (shape.empty())
    return emitError() << "memdesc needs rank >= 1";
  for (int64_t d : shape)
    if (d <= 0 || d > (int64_t(1) << 24))
      return emitError() << "memdesc dimensions must be in [1, 2^24], got "
                         << d;
  if (!elementType.isIntOrFloat() && !isa<PointerType>(elementType))
    return emitError() << "memdesc elements must be integers, floats or "
                          "pointers, got "
                       << elementType;
  auto layout = dyn_cast<SharedLayoutAttr>(encoding);
  if (!layout)
    return emitError() << "memdesc needs a shared layout (e.g. "
                          "#tile.swizzled_shared), got "
                       << encoding;
  unsigned rank = layout.getRank();
  if (rank > shape.size())
    return emitError() << "a rank-" << rank
                       << " shared layout cannot describe a rank-"
                       << shape.size() << " memdesc";
  for (int64_t d : shape.take_back(rank))
    if (!llvm::isPowerOf2_64(d))
      return emitError() << "the " << rank
                         << " dimensions the shared layout covers must be "
                            "powers of two, got "
                         << d;
  if (allocShape.size() < shape.size())
    return emitError() << "the allocation shape must have at least the "
                          "view's rank";
  std::optional<LinearLayout> ownMap;
  StringRef kind;
  if (auto padded = dyn_cast<PaddedSharedEncodingAttr>(encoding))
    ownMap = padded.getOffsets(), kind = "padded_shared";
  else if (auto linear = dyn_cast<SharedLinearEncodingAttr>(encoding))
    ownMap = linear.getOffsets(), kind = "shared_linear";
  if (ownMap) {
    ArrayRef<int32_t> own = ownMap->getOutSizes();
    if (!llvm::equal(own, allocShape.take_back(rank))) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::interleaveComma(own, os);
      return emitError() << "the " << kind << " layout is for a buffer of "
                            "shape ["
                         << text << "], but the allocation's last " << rank
                         << " dimensions differ";
    }
  }
  for (int64_t d : allocShape.take_back(rank))
    if (!llvm::isPowerOf2_64(d))
      return emitError() << "the " << rank
                         << " allocation dimensions the shared layout covers "
                            "must be powers of two, got "
                         << d;
  for (auto [view, alloc] :
       llvm::zip(shape, allocShape.take_back(shape.size())))
    if (view > alloc)
      return emitError() << "a view cannot be larger than its allocation";
  int64_t elements = 1;
  for (int64_t d : allocShape) {
    if (d <= 0 || d > (int64_t(1) << 24))
      return emitError() << "memdesc dimensions must be in [1, 2^24], got "
                         << d;
    // Offsets are 32-bit, and no chip has more than 2^24 bytes of shared
    // memory: a larger buffer is a mistake, said here rather than wrapped.
    elements *= d;
    if (elements > (int64_t(1) << 24))
      return emitError() << "memdesc holds more than 2^24 elements";
  }
  return layout.verifyBuffer(emitError, allocShape.take_back(rank),
                             elementType);
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType, unsigned im2colRank) {
  auto layout = dyn_cast_or_null<SharedLayoutAttr>(blockType.getEncoding());
  if (!layout)
    return emitError() << "tensordesc needs a block with a shared layout "
                          "(the layout the block has in shared memory), got "
                       << blockType;
  if (blockType.getRank() < 1 || blockType.getRank() > 5)
    return emitError() << "tensordesc blocks have rank 1 to 5, got "
                       << blockType.getRank();
  if (layout.getRank() != blockType.getRank())
    return emitError() << "tensordesc: the block's shared layout has rank "
                       << layout.getRank() << ", the block "
                       << blockType.getRank();
  if (!blockType.getElementType().isIntOrFloat())
    return emitError() << "tensordesc elements must be integers or floats";
  if (im2colRank) {
    // cuTensorMapEncodeIm2col: a rank-3 to 5 tensor, blocks of pixels x
    // channels, at most 1024 pixels (one box) and 256 channels.
    if (im2colRank < 3 || im2colRank > 5)
      return emitError() << "tensordesc: im2col tensors have rank 3 to 5, got "
                         << im2colRank;
    if (blockType.getRank() != 2)
      return emitError() << "tensordesc: an im2col block is pixels x "
                            "channels (rank 2), got rank "
                         << blockType.getRank();
    int64_t pixels = blockType.getShape()[0];
    int64_t channels = blockType.getShape()[1];
    if (pixels < 1 || pixels > 1024 || !llvm::isPowerOf2_64(pixels))
      return emitError() << "tensordesc: im2col pixels per column must be a "
                            "power of two in [1, 1024], got "
                         << pixels;
    if (channels < 1 || channels > 256 || !llvm::isPowerOf2_64(channels))
      return emitError() << "tensordesc: im2col channels per pixel must be a "
                            "power of two in [1, 256], got "
                         << channels;
  } else {
    // A 2-D block's rows may span several boxes of 256 rows (the lowering
    // copies them one under the other).
    for (auto [i, d] : llvm::enumerate(blockType.getShape())) {
      int64_t most = blockType.getRank() == 2 && i == 0 ? 4096 : 256;
      if (d < 1 || d > most || !llvm::isPowerOf2_64(d))
        return emitError() << "tensordesc block dimension " << i
                           << " must be a power of two in [1, " << most
                           << "], got " << d;
    }
  }
  if (failed(layout.verifyDescriptorElementType(emitError,
                                                 blockType.getElementType())))
    return failure();
  return layout.verifyBuffer(emitError, blockType.getShape(),
                             blockType.getElementType());
}

LogicalResult kiln::tile::verifyInFunction(Operation *op) {
  if (op->getParentOfType<FunctionOpInterface>())
    return success();
  return op->emitOpError()
         << "must be inside a function: ops of the tile dialects are a "
            "kernel's code, and nothing lowers them at module scope";
}
