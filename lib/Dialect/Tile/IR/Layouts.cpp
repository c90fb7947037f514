//===- Layouts.cpp - Distributed and shared layout attributes -------------===//

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include <set>

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

#include "kiln/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parsing helpers: layouts are written as a dictionary, `#tile.x<{k = v}>`.
//===----------------------------------------------------------------------===//

static ParseResult parseLayoutDict(AsmParser &parser, DictionaryAttr &dict) {
  if (parser.parseLess())
    return failure();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return parser.emitError(parser.getNameLoc(),
                            "expected a dictionary `{key = value, ...}`");
  return parser.parseGreater();
}

static ParseResult getUnsignedArray(AsmParser &parser, DictionaryAttr dict,
                                    StringRef key,
                                    SmallVectorImpl<unsigned> &out) {
  Attribute a = dict.get(key);
  if (!a)
    return parser.emitError(parser.getNameLoc(), "missing '") << key << "'";
  auto arr = dyn_cast<ArrayAttr>(a);
  if (!arr)
    return parser.emitError(parser.getNameLoc(), "'")
           << key << "' must be an array of integers";
  for (Attribute e : arr) {
    auto i = dyn_cast<IntegerAttr>(e);
    if (!i || i.getInt() < 0 || i.getInt() > (int64_t(1) << 30))
      return parser.emitError(parser.getNameLoc(), "'")
             << key << "' must hold non-negative integers";
    out.push_back(i.getInt());
  }
  return success();
}

static ParseResult getUnsigned(AsmParser &parser, DictionaryAttr dict,
                               StringRef key, unsigned &out) {
  auto i = dyn_cast_or_null<IntegerAttr>(dict.get(key));
  if (!i || i.getInt() < 0 || i.getInt() > (int64_t(1) << 30))
    return parser.emitError(parser.getNameLoc(), "'")
           << key << "' must be a non-negative integer";
  out = i.getInt();
  return success();
}

static ParseResult checkKeys(AsmParser &parser, DictionaryAttr dict,
                             ArrayRef<StringRef> keys) {
  for (NamedAttribute na : dict)
    if (!llvm::is_contained(keys, na.getName().getValue()))
      return parser.emitError(parser.getNameLoc(), "unknown key '")
             << na.getName().getValue() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

Attribute BlockedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parseLayoutDict(parser, dict))
    return {};
  SmallVector<unsigned> spt, tpw, wpc, order;
  if (checkKeys(parser, dict,
                {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"}) ||
      getUnsignedArray(parser, dict, "sizePerThread", spt) ||
      getUnsignedArray(parser, dict, "threadsPerWarp", tpw) ||
      getUnsignedArray(parser, dict, "warpsPerCTA", wpc) ||
      getUnsignedArray(parser, dict, "order", order))
    return {};
  return parser.getChecked<BlockedEncodingAttr>(parser.getContext(), spt, tpw,
                                                wpc, order);
}

void BlockedEncodingAttr::print(AsmPrinter &printer) const {
  auto arr = [&](ArrayRef<unsigned> a) {
    printer << "[";
    llvm::interleaveComma(a, printer);
    printer << "]";
  };
  printer << "<{sizePerThread = ";
  arr(getSizePerThread());
  printer << ", threadsPerWarp = ";
  arr(getThreadsPerWarp());
  printer << ", warpsPerCTA = ";
  arr(getWarpsPerCTA());
  printer << ", order = ";
  arr(getOrder());
  printer << "}>";
}

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  size_t rank = spt.size();
  if (rank == 0)
    return emitError() << "blocked layout needs rank >= 1";
  if (tpw.size() != rank || wpc.size() != rank || order.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp, warpsPerCTA and "
                          "order must have the same length, got "
                       << spt.size() << ", " << tpw.size() << ", "
                       << wpc.size() << ", " << order.size();
  auto checkPow2 = [&](ArrayRef<unsigned> a, StringRef name) -> LogicalResult {
    for (unsigned v : a)
      if (v == 0 || !llvm::isPowerOf2_32(v))
        return emitError() << name << " entries must be powers of two, got "
                           << v;
    return success();
  };
  if (failed(checkPow2(spt, "sizePerThread")) ||
      failed(checkPow2(tpw, "threadsPerWarp")) ||
      failed(checkPow2(wpc, "warpsPerCTA")))
    return failure();
  SmallVector<bool> seen(rank, false);
  for (unsigned o : order) {
    if (o >= rank || seen[o])
      return emitError() << "order must be a permutation of [0, " << rank
                         << ")";
    seen[o] = true;
  }
  return success();
}

LinearLayout BlockedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout::fromBlocked(getSizePerThread(), getThreadsPerWarp(),
                                   getWarpsPerCTA(), getOrder(), shape);
}

unsigned BlockedEncodingAttr::getRank() const {
  return getSizePerThread().size();
}

//===----------------------------------------------------------------------===//
// #tile.slice
//===----------------------------------------------------------------------===//

Attribute SliceEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parseLayoutDict(parser, dict))
    return {};
  if (checkKeys(parser, dict, {"dim", "parent"}))
    return {};
  auto dim = dyn_cast_or_null<IntegerAttr>(dict.get("dim"));
  Attribute parent = dict.get("parent");
  if (!dim || dim.getInt() < 0 || dim.getInt() > 64)
    return parser.emitError(parser.getNameLoc(),
                            "'dim' must be a non-negative integer"),
           Attribute();
  if (!parent)
    return parser.emitError(parser.getNameLoc(), "missing 'parent'"),
           Attribute();
  return parser.getChecked<SliceEncodingAttr>(parser.getContext(),
                                              dim.getInt(), parent);
}

void SliceEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = " << getParent() << "}>";
}

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  auto p = dyn_cast<DistributedLayoutAttr>(parent);
  if (!p)
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  if (dim >= p.getRank())
    return emitError() << "slice dim " << dim
                       << " is out of range for a parent of rank "
                       << p.getRank();
  return success();
}

LinearLayout SliceEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  auto parent = cast<DistributedLayoutAttr>(getParent());
  return parent.toLinearLayout(parentShape).removeOutDim(getDim());
}

unsigned SliceEncodingAttr::getRank() const {
  return cast<DistributedLayoutAttr>(getParent()).getRank() - 1;
}

//===----------------------------------------------------------------------===//
// #tile.dot_operand
//===----------------------------------------------------------------------===//

Attribute BlockedDotOperandEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parseLayoutDict(parser, dict))
    return {};
  if (checkKeys(parser, dict, {"opIdx", "parent"}))
    return {};
  auto idx = dyn_cast_or_null<IntegerAttr>(dict.get("opIdx"));
  Attribute parent = dict.get("parent");
  if (!idx || idx.getInt() < 0 || idx.getInt() > 1)
    return parser.emitError(parser.getNameLoc(),
                            "'opIdx' must be 0 (A) or 1 (B)"),
           Attribute();
  if (!parent)
    return parser.emitError(parser.getNameLoc(), "missing 'parent'"),
           Attribute();
  return parser.getChecked<BlockedDotOperandEncodingAttr>(parser.getContext(),
                                                   idx.getInt(), parent);
}

void BlockedDotOperandEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{opIdx = " << getOpIdx() << ", parent = " << getParent()
          << "}>";
}

LogicalResult
BlockedDotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, Attribute parent) {
  auto blocked = dyn_cast<BlockedEncodingAttr>(parent);
  if (!blocked)
    return emitError() << "a #tile.dot_operand parent must be a "
                          "#tile.blocked layout (tile.dot_fma's accumulator), "
                          "got "
                       << parent;
  if (blocked.getRank() != 2 && blocked.getRank() != 3)
    return emitError() << "a #tile.dot_operand parent has rank 2 or 3 "
                          "([batch,] M x N), got "
                       << blocked.getRank();
  if (opIdx > 1)
    return emitError() << "'opIdx' must be 0 (A) or 1 (B), got " << opIdx;
  return success();
}

LinearLayout
BlockedDotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  auto parent = cast<BlockedEncodingAttr>(getParent());
  unsigned rank = parent.getRank();
  unsigned kDim = getOpIdx() == 0 ? rank - 1 : rank - 2;
  SmallVector<unsigned> size(parent.getSizePerThread());
  // A shape of another rank is the verifier's to report; any layout will do.
  if (shape.size() == rank)
    size[kDim] = std::max<int64_t>(1, shape[kDim]);
  return LinearLayout::fromBlocked(size, parent.getThreadsPerWarp(),
                                   parent.getWarpsPerCTA(), parent.getOrder(),
                                   shape);
}

unsigned BlockedDotOperandEncodingAttr::getRank() const {
  return cast<BlockedEncodingAttr>(getParent()).getRank();
}

//===----------------------------------------------------------------------===//
// #tile.linear
//===----------------------------------------------------------------------===//


Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parseLayoutDict(parser, dict))
    return {};
  if (checkKeys(parser, dict, {"register", "lane", "warp"}))
    return {};
  std::array<LinearLayout::Bases, LinearLayout::kNumInDims> bases;
  int rank = -1;
  for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d) {
    auto arr = dyn_cast_or_null<ArrayAttr>(dict.get(LinearLayout::kInDimNames[d]));
    if (!arr)
      return parser.emitError(parser.getNameLoc(), "'")
                 << LinearLayout::kInDimNames[d] << "' must be an array of bases",
             Attribute();
    if (arr.size() > LinearLayout::kMaxInBits[d])
      return parser.emitError(parser.getNameLoc(), "a linear layout has at most ")
                 << LinearLayout::kMaxInBits[d] << " " << LinearLayout::kInDimNames[d]
                 << " bases (2^" << LinearLayout::kMaxInBits[d] << " "
                 << LinearLayout::kInDimNames[d] << "s), got " << arr.size(),
             Attribute();
    for (Attribute b : arr) {
      auto basis = dyn_cast<ArrayAttr>(b);
      if (!basis)
        return parser.emitError(parser.getNameLoc(),
                                "each basis must be an array of integers"),
               Attribute();
      LinearLayout::Basis v;
      for (Attribute e : basis) {
        auto i = dyn_cast<IntegerAttr>(e);
        if (!i || i.getInt() < 0 || i.getInt() >= (int64_t(1) << 30))
          return parser.emitError(parser.getNameLoc(),
                                  "basis entries must be integers in "
                                  "[0, 2^30)"),
                 Attribute();
        v.push_back(i.getInt());
      }
      if (rank < 0)
        rank = v.size();
      if (int(v.size()) != rank || rank == 0)
        return parser.emitError(parser.getNameLoc(),
                                "all bases must have the same non-zero "
                                "length"),
               Attribute();
      bases[d].push_back(v);
    }
  }
  if (rank <= 0)
    return parser.emitError(parser.getNameLoc(),
                            "a linear layout needs at least one basis"),
           Attribute();
  // Output sizes: the smallest powers of two that hold every basis.
  SmallVector<int32_t> sizes(rank, 1);
  for (auto &bs : bases)
    for (auto &b : bs)
      for (int k = 0; k < rank; ++k)
        while (sizes[k] <= b[k])
          sizes[k] *= 2;
  return parser.getChecked<LinearEncodingAttr>(
      parser.getContext(), LinearLayout(std::move(bases), sizes));
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  getLayout().print(printer.getStream());
  printer << ">";
}

LogicalResult
LinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           LinearLayout layout) {
  for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d) {
    auto in = LinearLayout::InDim(d);
    if (layout.getNumBits(in) > LinearLayout::kMaxInBits[d])
      return emitError() << "a linear layout has at most "
                         << LinearLayout::kMaxInBits[d] << " "
                         << LinearLayout::kInDimNames[d] << " bases (2^"
                         << LinearLayout::kMaxInBits[d] << " "
                         << LinearLayout::kInDimNames[d] << "s), got "
                         << layout.getNumBits(in);
    for (const auto &b : layout.getBases(in))
      if (b.size() != layout.getRank())
        return emitError() << "basis rank does not match the layout rank";
  }
  if (!layout.isSurjective())
    return emitError() << "linear layout " << layout.str()
                       << " is not surjective: its bases do not reach every "
                          "element of a "
                       << layout.getNumElements() << "-element tensor";
  return success();
}

LinearLayout LinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // On a tensor smaller than the layout along a dimension (a size-1 dimension
  // from expand_dims, as Gluon makes of a sliced linear layout), the moves
  // past the tensor drop out: lanes and warps then hold the same elements
  // (broadcast) and registers that would move only past it are removed, as
  // blocked layouts do for small tensors.
  const LinearLayout &l = getLayout();
  std::array<LinearLayout::Bases, LinearLayout::kNumInDims> bases;
  for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d)
    for (LinearLayout::Basis b : l.getBases(LinearLayout::InDim(d))) {
      bool moves = false, cut = false;
      for (unsigned k = 0; k < b.size() && k < shape.size(); ++k) {
        bool smaller = shape[k] > 0 && shape[k] < l.getOutSizes()[k] &&
                       llvm::isPowerOf2_64(shape[k]);
        if (smaller && b[k] >= shape[k]) {
          b[k] &= int32_t(shape[k] - 1);
          cut = true;
        }
        moves |= b[k] != 0;
      }
      if (d == LinearLayout::Register && cut && !moves)
        continue;
      bases[d].push_back(std::move(b));
    }
  SmallVector<int32_t> sizes(shape.begin(), shape.end());
  return LinearLayout(std::move(bases), sizes);
}

unsigned LinearEncodingAttr::getRank() const { return getLayout().getRank(); }

//===----------------------------------------------------------------------===//
// #tile.swizzled_shared
//===----------------------------------------------------------------------===//

Attribute SwizzledSharedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  unsigned vec, perPhase, maxPhase;
  SmallVector<unsigned> order;
  if (parseLayoutDict(parser, dict) ||
      checkKeys(parser, dict, {"vec", "perPhase", "maxPhase", "order"}) ||
      getUnsigned(parser, dict, "vec", vec) ||
      getUnsigned(parser, dict, "perPhase", perPhase) ||
      getUnsigned(parser, dict, "maxPhase", maxPhase) ||
      getUnsignedArray(parser, dict, "order", order))
    return {};
  return parser.getChecked<SwizzledSharedEncodingAttr>(
      parser.getContext(), vec, perPhase, maxPhase, order);
}

void SwizzledSharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{vec = " << getVec() << ", perPhase = " << getPerPhase()
          << ", maxPhase = " << getMaxPhase() << ", order = [";
  llvm::interleaveComma(getOrder(), printer);
  printer << "]}>";
}

LogicalResult SwizzledSharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned vec,
    unsigned perPhase, unsigned maxPhase, ArrayRef<unsigned> order) {
  for (auto [name, v] : {std::pair<StringRef, unsigned>{"vec", vec},
                         {"perPhase", perPhase},
                         {"maxPhase", maxPhase}})
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError() << "swizzled_shared: " << name
                         << " must be a power of two, got " << v;
  if (order.empty())
    return emitError() << "swizzled_shared: order must not be empty";
  SmallVector<bool> seen(order.size(), false);
  for (unsigned o : order) {
    if (o >= order.size() || seen[o])
      return emitError() << "swizzled_shared: order must be a permutation of "
                            "[0, "
                         << order.size() << ")";
    seen[o] = true;
  }
  return success();
}

unsigned SwizzledSharedEncodingAttr::getRank() const {
  return getOrder().size();
}

// Rows and columns are named by `order`, so a permutation of the dimensions
// is the same bytes under the permuted order.
Attribute SwizzledSharedEncodingAttr::getPermuted(ArrayRef<int32_t> perm) const {
  ArrayRef<unsigned> order = getOrder();
  if (perm.size() != order.size())
    return {};
  SmallVector<unsigned> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  SmallVector<unsigned> newOrder;
  for (unsigned o : order)
    newOrder.push_back(inverse[o]);
  return SwizzledSharedEncodingAttr::get(getContext(), getVec(), getPerPhase(),
                                         getMaxPhase(), newOrder);
}

// Only an unswizzled row-major buffer is row-major under any shape.
Attribute SwizzledSharedEncodingAttr::getReshaped(ArrayRef<int64_t>,
                                                  ArrayRef<int64_t> newShape) const {
  ArrayRef<unsigned> order = getOrder();
  for (auto [i, o] : llvm::enumerate(order))
    if (o != order.size() - 1 - i)
      return {};
  if (getMaxPhase() != 1)
    return {};
  SmallVector<unsigned> newOrder;
  for (unsigned i = 0; i < newShape.size(); ++i)
    newOrder.push_back(newShape.size() - 1 - i);
  return SwizzledSharedEncodingAttr::get(getContext(), 1, 1, 1, newOrder);
}

/// Offset bit k of a buffer of `shape` (powers of two) maps to: the bits of
/// the fastest dimension order[0] first, then order[1] (rows), then the rest.
/// A row bit j with perPhase <= 2^j < perPhase * maxPhase flips phase bit
/// t = j - log2(perPhase), which XORs vec << t into the column (dropped when
/// it is past the row's length).
LinearLayout
SwizzledSharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  ArrayRef<unsigned> order = getOrder();
  unsigned rank = order.size();
  assert(shape.size() == rank && "shape must match the layout's rank");
  LinearLayout::Bases offsets;
  auto unit = [&](unsigned dim, int32_t value) {
    LinearLayout::Basis b(rank, 0);
    b[dim] = value;
    return b;
  };
  unsigned colDim = order[0];
  int64_t cols = shape[colDim];
  for (int64_t c = 1; c < cols; c *= 2)
    offsets.push_back(unit(colDim, c));
  if (rank > 1) {
    unsigned rowDim = order[1];
    unsigned phaseShift = llvm::Log2_32(getPerPhase());
    unsigned phaseBits = llvm::Log2_32(getMaxPhase());
    unsigned j = 0;
    for (int64_t r = 1; r < shape[rowDim]; r *= 2, ++j) {
      LinearLayout::Basis b = unit(rowDim, r);
      if (j >= phaseShift && j < phaseShift + phaseBits) {
        int64_t flip = int64_t(getVec()) << (j - phaseShift);
        if (flip < cols)
          b[colDim] = flip;
      }
      offsets.push_back(b);
    }
    for (unsigned k = 2; k < rank; ++k)
      for (int64_t v = 1; v < shape[order[k]]; v *= 2)
        offsets.push_back(unit(order[k], v));
  }
  SmallVector<int32_t> sizes(shape.begin(), shape.end());
  return LinearLayout({offsets, {}, {}}, sizes);
}

FailureOr<LinearLayout> kiln::tile::getSharedLinearLayout(MemDescType type) {
  // A view is addressed in its allocation's layout (its coordinates plus the
  // view's offsets), so the map is the allocation's.
  SharedLayoutAttr layout = type.getSharedLayout();
  return layout.toLinearLayout(type.getAllocShape().take_back(layout.getRank()));
}

/// The `offset` bases and `shape` of a shared layout given as a linear map
/// (padded_shared, shared_linear); `what` names the layout in errors.
static FailureOr<LinearLayout> parseOffsetLayout(AsmParser &parser,
                                                 DictionaryAttr dict,
                                                 ArrayRef<unsigned> shape,
                                                 StringRef what) {
  auto fail = [&](const Twine &msg) -> FailureOr<LinearLayout> {
    parser.emitError(parser.getNameLoc()) << what << ": " << msg;
    return failure();
  };
  auto arr = dyn_cast_or_null<ArrayAttr>(dict.get("offset"));
  if (!arr)
    return fail("'offset' must be an array of bases");
  if (shape.empty() || shape.size() > 8)
    return fail("'shape' must have 1 to 8 dimensions");
  LinearLayout::Bases bases;
  for (Attribute b : arr) {
    auto basis = dyn_cast<ArrayAttr>(b);
    if (!basis || basis.size() != shape.size())
      return fail("each offset basis must be an array of " +
                  Twine(shape.size()) + " integers (the shape's rank)");
    LinearLayout::Basis v;
    for (Attribute e : basis) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i || i.getInt() < 0 || i.getInt() >= (int64_t(1) << 24))
        return fail("basis entries must be integers in [0, 2^24)");
      v.push_back(i.getInt());
    }
    bases.push_back(std::move(v));
  }
  if (bases.size() > 24)
    return fail("at most 24 offset bases");
  SmallVector<int32_t> sizes;
  for (unsigned d : shape) {
    if (d == 0 || d > (1u << 24) || !llvm::isPowerOf2_32(d))
      return fail("shape entries must be powers of two up to 2^24");
    sizes.push_back(d);
  }
  return LinearLayout({std::move(bases), {}, {}}, sizes);
}

static void printOffsetLayout(AsmPrinter &printer, const LinearLayout &l) {
  printer << "offset = [";
  llvm::interleaveComma(l.getBases(LinearLayout::Register), printer,
                        [&](const LinearLayout::Basis &b) {
                          printer << "[";
                          llvm::interleaveComma(b, printer);
                          printer << "]";
                        });
  printer << "], shape = [";
  llvm::interleaveComma(l.getOutSizes(), printer);
  printer << "]";
}

/// `l` with its coordinates permuted (result dimension i is dimension perm[i]).
static LinearLayout permuteOffsets(const LinearLayout &l,
                                   ArrayRef<int32_t> perm) {
  LinearLayout::Bases bases;
  for (const LinearLayout::Basis &b : l.getBases(LinearLayout::Register)) {
    LinearLayout::Basis v;
    for (int32_t p : perm)
      v.push_back(b[p]);
    bases.push_back(std::move(v));
  }
  SmallVector<int32_t> sizes;
  for (int32_t p : perm)
    sizes.push_back(l.getOutSizes()[p]);
  return LinearLayout({std::move(bases), {}, {}}, sizes);
}

static bool isBijection(const LinearLayout &offsets) {
  return offsets.getNumBits(LinearLayout::Register) ==
             llvm::Log2_64(offsets.getNumElements()) &&
         offsets.isSurjective();
}

//===----------------------------------------------------------------------===//
// #tile.padded_shared
//===----------------------------------------------------------------------===//

Attribute PaddedSharedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  SmallVector<unsigned> intervals, paddings, shape;
  if (parseLayoutDict(parser, dict) ||
      checkKeys(parser, dict, {"intervals", "paddings", "offset", "shape"}) ||
      getUnsignedArray(parser, dict, "intervals", intervals) ||
      getUnsignedArray(parser, dict, "paddings", paddings) ||
      getUnsignedArray(parser, dict, "shape", shape))
    return {};
  FailureOr<LinearLayout> offsets =
      parseOffsetLayout(parser, dict, shape, "padded_shared");
  if (failed(offsets))
    return {};
  return parser.getChecked<PaddedSharedEncodingAttr>(
      parser.getContext(), intervals, paddings, std::move(*offsets));
}

void PaddedSharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{intervals = [";
  llvm::interleaveComma(getIntervals(), printer);
  printer << "], paddings = [";
  llvm::interleaveComma(getPaddings(), printer);
  printer << "], ";
  printOffsetLayout(printer, getOffsets());
  printer << "}>";
}

LogicalResult PaddedSharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> intervals,
    ArrayRef<unsigned> paddings, LinearLayout offsets) {
  if (intervals.empty() || intervals.size() != paddings.size())
    return emitError() << "padded_shared: needs as many paddings as intervals "
                          "(at least one)";
  for (auto [i, p] : llvm::zip(intervals, paddings)) {
    if (i == 0 || !llvm::isPowerOf2_32(i) || p == 0 ||
        !llvm::isPowerOf2_32(p))
      return emitError() << "padded_shared: intervals and paddings must be "
                            "powers of two, got "
                         << i << ":" << p;
    if (llvm::count(intervals, i) > 1)
      return emitError() << "padded_shared: interval " << i
                         << " appears twice";
  }
  if (!isBijection(offsets))
    return emitError() << "padded_shared: the offset bases must reach every "
                          "element of the shape exactly once ("
                       << llvm::Log2_64(offsets.getNumElements())
                       << " bases for " << offsets.getNumElements()
                       << " elements)";
  return success();
}

unsigned PaddedSharedEncodingAttr::getRank() const {
  return getOffsets().getRank();
}

LinearLayout
PaddedSharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // The verifier of !tile.memdesc checks that `shape` is the layout's.
  return getOffsets();
}

SmallVector<std::pair<unsigned, unsigned>>
PaddedSharedEncodingAttr::getPaddingSteps() const {
  SmallVector<std::pair<unsigned, unsigned>> out;
  for (auto [i, p] : llvm::zip(getIntervals(), getPaddings()))
    out.push_back({llvm::Log2_32(i), p});
  return out;
}

// The offset bases name coordinates; permuting dimensions permutes them.
Attribute PaddedSharedEncodingAttr::getPermuted(ArrayRef<int32_t> perm) const {
  if (perm.size() != getOffsets().getRank())
    return {};
  return PaddedSharedEncodingAttr::get(getContext(), getIntervals(),
                                       getPaddings(),
                                       permuteOffsets(getOffsets(), perm));
}

Attribute PaddedSharedEncodingAttr::getReshaped(ArrayRef<int64_t>,
                                                ArrayRef<int64_t>) const {
  return {};
}

//===----------------------------------------------------------------------===//
// #tile.shared_linear
//===----------------------------------------------------------------------===//

Attribute SharedLinearEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  SmallVector<unsigned> shape;
  if (parseLayoutDict(parser, dict) ||
      checkKeys(parser, dict, {"offset", "shape", "alignment"}) ||
      getUnsignedArray(parser, dict, "shape", shape))
    return {};
  unsigned alignment = 16;
  if (Attribute a = dict.get("alignment")) {
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i || i.getInt() <= 0 || i.getInt() > (1 << 20))
      return parser.emitError(parser.getNameLoc(),
                              "shared_linear: 'alignment' must be a positive "
                              "integer up to 2^20"),
             Attribute();
    alignment = i.getInt();
  }
  FailureOr<LinearLayout> offsets =
      parseOffsetLayout(parser, dict, shape, "shared_linear");
  if (failed(offsets))
    return {};
  return parser.getChecked<SharedLinearEncodingAttr>(
      parser.getContext(), std::move(*offsets), alignment);
}

void SharedLinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printOffsetLayout(printer, getOffsets());
  printer << ", alignment = " << getAlignment() << "}>";
}

LogicalResult SharedLinearEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, LinearLayout offsets,
    unsigned alignment) {
  if (alignment < 16 || !llvm::isPowerOf2_32(alignment))
    return emitError() << "shared_linear: alignment must be a power of two of "
                          "at least 16 bytes, got "
                       << alignment;
  if (!isBijection(offsets))
    return emitError() << "shared_linear: the offset bases must reach every "
                          "element of the shape exactly once ("
                       << llvm::Log2_64(offsets.getNumElements())
                       << " bases for " << offsets.getNumElements()
                       << " elements)";
  return success();
}

unsigned SharedLinearEncodingAttr::getRank() const {
  return getOffsets().getRank();
}

LinearLayout
SharedLinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // The verifier of !tile.memdesc checks that `shape` is the layout's.
  return getOffsets();
}

unsigned SharedLinearEncodingAttr::getBaseAlignment() const {
  return getAlignment();
}

Attribute SharedLinearEncodingAttr::getPermuted(ArrayRef<int32_t> perm) const {
  if (perm.size() != getOffsets().getRank())
    return {};
  return SharedLinearEncodingAttr::get(
      getContext(), permuteOffsets(getOffsets(), perm), getAlignment());
}

Attribute SharedLinearEncodingAttr::getReshaped(ArrayRef<int64_t>,
                                                ArrayRef<int64_t>) const {
  return {};
}

//===----------------------------------------------------------------------===//
// #tile.cga
//===----------------------------------------------------------------------===//

Attribute ClusterEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parseLayoutDict(parser, dict) ||
      checkKeys(parser, dict, {"bases", "layout"}))
    return {};
  auto bases = dyn_cast_or_null<ArrayAttr>(dict.get("bases"));
  Attribute layout = dict.get("layout");
  if (!bases || !layout)
    return parser.emitError(parser.getNameLoc(),
                            "cga: needs 'bases' (an array of integer arrays) "
                            "and 'layout'"),
           Attribute();
  return parser.getChecked<ClusterEncodingAttr>(parser.getContext(), bases,
                                                layout);
}

void ClusterEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{bases = " << getBases() << ", layout = " << getLayout()
          << "}>";
}

LogicalResult
ClusterEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayAttr bases, Attribute layout) {
  auto inner = dyn_cast<DistributedLayoutAttr>(layout);
  if (!inner || isa<ClusterEncodingAttr>(layout))
    return emitError() << "cga: 'layout' must be a distributed layout of one "
                          "CTA, got "
                       << layout;
  if (bases.size() > 4)
    return emitError() << "cga: a cluster has at most 16 CTAs (4 bases), got "
                       << bases.size() << " bases";
  std::set<std::pair<unsigned, int64_t>> seen;
  for (Attribute b : bases) {
    auto vec = dyn_cast<ArrayAttr>(b);
    if (!vec || vec.size() != inner.getRank())
      return emitError() << "cga: each basis needs " << inner.getRank()
                         << " integers (the layout's rank), got " << b;
    int moving = 0;
    for (auto [d, e] : llvm::enumerate(vec)) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i || i.getInt() < 0 || (i.getInt() & (i.getInt() - 1)))
        return emitError() << "cga: basis entries are powers of two or 0, got "
                           << b;
      if (i.getInt()) {
        ++moving;
        if (!seen.insert({unsigned(d), i.getInt()}).second)
          return emitError() << "cga: two bases move the same way (" << b
                             << ")";
      }
    }
    if (moving > 1)
      return emitError() << "cga: a basis moves along one dimension, got "
                         << b;
  }
  return success();
}

LinearLayout ClusterEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> part(shape);
  SmallVector<int64_t> split =
      getClusterSplit(getClusterBases(*this, shape.size()), shape.size());
  for (unsigned d = 0; d < part.size(); ++d)
    part[d] = std::max<int64_t>(1, part[d] / split[d]);
  return cast<DistributedLayoutAttr>(getLayout()).toLinearLayout(part);
}

unsigned ClusterEncodingAttr::getRank() const {
  return cast<DistributedLayoutAttr>(getLayout()).getRank();
}

SmallVector<SmallVector<int64_t>>
kiln::tile::getClusterBases(Attribute layout, unsigned rank) {
  SmallVector<SmallVector<int64_t>> out;
  if (auto c = dyn_cast_or_null<ClusterEncodingAttr>(layout)) {
    for (Attribute b : c.getBases()) {
      SmallVector<int64_t> v;
      for (Attribute e : cast<ArrayAttr>(b))
        v.push_back(cast<IntegerAttr>(e).getInt());
      out.push_back(std::move(v));
    }
  } else if (auto s = dyn_cast_or_null<SliceEncodingAttr>(layout)) {
    for (SmallVector<int64_t> v : getClusterBases(s.getParent(), rank + 1)) {
      v.erase(v.begin() + s.getDim());
      out.push_back(std::move(v));
    }
  }
  return out;
}

LogicalResult kiln::tile::verifyDotClusterSplit(Operation *op,
                                               RankedTensorType a,
                                               RankedTensorType b,
                                               RankedTensorType c) {
  unsigned rank = c.getRank();
  SmallVector<SmallVector<int64_t>> cBases =
      getClusterBases(c.getEncoding(), rank);
  RankedTensorType operands[] = {a, b};
  for (auto [idx, t] : llvm::enumerate(operands)) {
    SmallVector<SmallVector<int64_t>> want = cBases;
    unsigned k = idx ? rank - 2 : rank - 1;
    for (SmallVector<int64_t> &v : want)
      v[k] = 0;
    if (getClusterBases(t.getEncoding(), rank) != want)
      return op->emitOpError()
             << (idx ? "b" : "a")
             << " must be split among the cluster's CTAs as the accumulator "
                "is, except along K (which every CTA holds whole), got "
             << t.getEncoding() << " for the accumulator's "
             << c.getEncoding();
  }
  return success();
}

Attribute kiln::tile::stripCluster(Attribute layout) {
  if (auto c = dyn_cast_or_null<ClusterEncodingAttr>(layout))
    return c.getLayout();
  if (auto s = dyn_cast_or_null<SliceEncodingAttr>(layout)) {
    Attribute parent = stripCluster(s.getParent());
    if (parent != s.getParent())
      return SliceEncodingAttr::get(s.getContext(), s.getDim(), parent);
  }
  return layout;
}

SmallVector<int64_t>
kiln::tile::getClusterSplit(ArrayRef<SmallVector<int64_t>> bases,
                            unsigned rank) {
  SmallVector<int64_t> split(rank, 1);
  for (const auto &v : bases)
    for (unsigned d = 0; d < rank && d < v.size(); ++d)
      if (v[d])
        split[d] *= 2;
  return split;
}

SmallVector<int64_t> kiln::tile::getCtaShape(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> split = getClusterSplit(
      getClusterBases(type.getEncoding(), type.getRank()), type.getRank());
  for (unsigned d = 0; d < shape.size(); ++d)
    shape[d] = std::max<int64_t>(1, shape[d] / split[d]);
  return shape;
}
