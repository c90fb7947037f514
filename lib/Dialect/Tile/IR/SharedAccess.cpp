//===- SharedAccess.cpp - How threads address a shared buffer -------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

FailureOr<SharedOffsets> SharedOffsets::get(MemDescType type) {
  FailureOr<LinearLayout> shared = getSharedLinearLayout(type);
  if (failed(shared))
    return failure();
  // Gaussian elimination over F2 on the offset bases: each row pairs the
  // coordinate bits a combination of offset bits reaches with that
  // combination.
  ArrayRef<int32_t> sizes = shared->getOutSizes();
  SmallVector<unsigned> first; // first coordinate bit of each dimension
  unsigned bits = 0;
  for (int32_t s : sizes) {
    first.push_back(bits);
    bits += llvm::Log2_32(s);
  }
  ArrayRef<LinearLayout::Basis> bases =
      shared->getBases(LinearLayout::Register);
  if (bases.size() != bits || bits > 62)
    return failure();
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
  for (auto [i, b] : llvm::enumerate(bases)) {
    uint64_t mask = 0;
    for (auto [d, c] : llvm::enumerate(b))
      for (unsigned k = 0; (int64_t(1) << k) < sizes[d]; ++k)
        if (c & (1 << k))
          mask |= uint64_t(1) << (first[d] + k);
    rows.push_back({mask, uint64_t(1) << i});
  }
  for (unsigned col = 0; col < bits; ++col) {
    auto pivot = llvm::find_if(llvm::drop_begin(rows, col), [&](auto &r) {
      return r.first & (uint64_t(1) << col);
    });
    if (pivot == rows.end())
      return failure(); // not a bijection
    std::swap(rows[col], *pivot);
    for (unsigned r = 0; r < bits; ++r)
      if (r != col && (rows[r].first & (uint64_t(1) << col))) {
        rows[r].first ^= rows[col].first;
        rows[r].second ^= rows[col].second;
      }
  }
  SharedOffsets result;
  result.inverse.resize(sizes.size());
  for (auto [d, s] : llvm::enumerate(sizes))
    for (unsigned k = 0; (int64_t(1) << k) < s; ++k)
      result.inverse[d].push_back(int64_t(rows[first[d] + k].second));
  return result;
}

int64_t SharedOffsets::offsetOf(ArrayRef<int32_t> coords) const {
  int64_t offset = 0;
  for (auto [d, c] : llvm::enumerate(coords))
    for (auto [k, o] : llvm::enumerate(inverse[d]))
      if (c & (1 << k))
        offset ^= o;
  return offset;
}

FailureOr<SharedAccessPlan> kiln::tile::planSharedAccess(
    RankedTensorType tensorType, MemDescType memdesc, unsigned alignment,
    unsigned maxVectorBytes, int64_t xorOffset) {
  FailureOr<LinearLayout> regs = getLinearLayout(tensorType);
  FailureOr<SharedOffsets> inverse = SharedOffsets::get(memdesc);
  if (failed(regs) || failed(inverse))
    return failure();
  // Leading (ring) dimensions of the buffer are a whole number of tiles; a
  // tensor as large as the memdesc covers them with the layout's rank only
  // when they are 1.
  unsigned layoutRank = inverse->getRank();
  unsigned rank = memdesc.getShape().size();
  for (int64_t d : memdesc.getShape().drop_back(layoutRank))
    if (d != 1)
      return failure();
  auto offsetOf = [&](LinearLayout::InDim dim, int32_t index) {
    LinearLayout::Basis c = regs->applyOne(dim, index);
    return inverse->offsetOf(ArrayRef<int32_t>(c).drop_front(rank - layoutRank));
  };
  SharedAccessPlan plan;
  for (int32_t r = 0; r < regs->getInSize(LinearLayout::Register); ++r)
    plan.registerOffsets.push_back(offsetOf(LinearLayout::Register, r));
  for (unsigned k = 0; k < regs->getNumBits(LinearLayout::Lane); ++k)
    plan.laneBitOffsets.push_back(offsetOf(LinearLayout::Lane, 1 << k));
  for (unsigned k = 0; k < regs->getNumBits(LinearLayout::Warp); ++k)
    plan.warpBitOffsets.push_back(offsetOf(LinearLayout::Warp, 1 << k));
  auto zero = [](const LinearLayout::Basis &b) {
    return llvm::all_of(b, [](int32_t c) { return c == 0; });
  };
  for (auto [k, b] : llvm::enumerate(regs->getBases(LinearLayout::Register)))
    if (zero(b))
      plan.redundantRegisterMask |= 1u << k;
  for (auto [k, b] : llvm::enumerate(regs->getBases(LinearLayout::Lane)))
    if (zero(b))
      plan.redundantLaneMask |= 1u << k;
  for (auto [k, b] : llvm::enumerate(regs->getBases(LinearLayout::Warp)))
    if (zero(b))
      plan.redundantWarpMask |= 1u << k;

  // Registers r .. r+vec-1 are elements offset .. offset+vec-1 when register
  // bit j moves the offset by exactly 2^j for j < log2(vec), and no other bit
  // (register, lane, warp) touches the offset's low log2(vec) bits: then the
  // XOR with the group's first offset is an addition.
  unsigned elemBytes = getElementBytes(memdesc.getElementType());
  unsigned maxVec = std::min(maxVectorBytes, alignment) / elemBytes;
  // A vector stays within one padding interval, and padding keeps vector
  // starts aligned only when it is a multiple of the vector.
  plan.paddings = memdesc.getSharedLayout().getPaddingSteps();
  for (auto [log2Interval, padding] : plan.paddings)
    maxVec = std::min<unsigned>(maxVec, std::min(1u << log2Interval, padding));
  unsigned regBits = regs->getNumBits(LinearLayout::Register);
  for (unsigned v = 2; v <= maxVec; v *= 2) {
    unsigned bits = llvm::Log2_32(v);
    if (regBits < bits || plan.registerOffsets[1 << (bits - 1)] !=
                              (int64_t(1) << (bits - 1)))
      break;
    bool clear = (xorOffset & (v - 1)) == 0;
    for (unsigned k = bits; k < regBits; ++k)
      clear &= (plan.registerOffsets[1 << k] & (v - 1)) == 0;
    for (int64_t o : plan.laneBitOffsets)
      clear &= (o & (v - 1)) == 0;
    for (int64_t o : plan.warpBitOffsets)
      clear &= (o & (v - 1)) == 0;
    if (!clear)
      break;
    plan.vec = v;
  }
  return plan;
}

FailureOr<int64_t> kiln::tile::getContiguousViewElements(MemDescType type) {
  SharedLayoutAttr layout = type.getSharedLayout();
  ArrayRef<int64_t> view = type.getShape().take_back(layout.getRank());
  FailureOr<SharedOffsets> table = SharedOffsets::get(type);
  if (failed(table))
    return failure();
  int64_t n = 1;
  for (int64_t d : view)
    n *= d;
  // The view's coordinate bits map to independent offsets (the layout is a
  // bijection); they fill [0, n) exactly when each is below n.
  for (auto [d, size] : llvm::enumerate(view))
    for (unsigned k = 0; (int64_t(1) << k) < size; ++k)
      if (table->offsetOf([&] {
            SmallVector<int32_t> c(view.size(), 0);
            c[d] = int32_t(1) << k;
            return c;
          }()) >= n)
        return failure();
  return n;
}

int64_t kiln::tile::applyPadding(SharedLayoutAttr layout, int64_t o) {
  int64_t address = o;
  for (auto [log2Interval, padding] : layout.getPaddingSteps())
    address += (o >> log2Interval) * padding;
  return address;
}

/// Elements one tile of the layout (its dimensions) occupies, padding
/// included.
static int64_t paddedTileElements(MemDescType type) {
  SharedLayoutAttr layout = type.getSharedLayout();
  int64_t elements = 1;
  for (int64_t d : type.getAllocShape().take_back(layout.getRank()))
    elements *= d;
  return applyPadding(layout, elements - 1) + 1;
}

int64_t kiln::tile::getAllocationBytes(MemDescType type) {
  ArrayRef<int64_t> alloc = type.getAllocShape();
  int64_t bytes = getElementBytes(type.getElementType()) * paddedTileElements(type);
  for (int64_t d : alloc.drop_back(type.getSharedLayout().getRank()))
    bytes *= d;
  return bytes;
}

int64_t kiln::tile::getSharedStrideBytes(MemDescType memdesc, unsigned dim) {
  // `dim` is a leading (ring) dimension: the stride is the tiles of the
  // allocation's leading dimensions after it.
  ArrayRef<int64_t> alloc = memdesc.getAllocShape();
  unsigned allocDim = alloc.size() - memdesc.getShape().size() + dim;
  unsigned allocLead = alloc.size() - memdesc.getSharedLayout().getRank();
  int64_t bytes =
      getElementBytes(memdesc.getElementType()) * paddedTileElements(memdesc);
  for (unsigned d = allocDim + 1; d < allocLead; ++d)
    bytes *= alloc[d];
  return bytes;
}

/// Largest power of two dividing `bytes` (16 for 0).
static unsigned powerOfTwoDividing(int64_t bytes) {
  return bytes ? std::min<int64_t>(16, bytes & -bytes) : 16;
}

/// Whether `v` is a value control flow chooses or carries.
static bool isSharedPhi(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  return isa_and_nonnull<scf::IfOp, scf::ForOp>(v.getDefiningOp());
}

static LogicalResult collectSources(Value v, SmallVectorImpl<Value> &out,
                                    llvm::SmallPtrSetImpl<void *> &seen) {
  if (!isSharedPhi(v)) {
    out.push_back(v);
    return success();
  }
  if (!seen.insert(v.getAsOpaquePointer()).second)
    return success();
  SmallVector<Value, 4> incoming;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Block *block = arg.getOwner();
    Operation *parent = block->getParentOp();
    if (auto loop = dyn_cast_or_null<scf::ForOp>(parent)) {
      OpOperand *init = loop.getTiedLoopInit(arg);
      OpOperand *next = loop.getTiedLoopYieldedValue(arg);
      if (!init || !next)
        return failure(); // the induction variable is no buffer
      incoming = {init->get(), next->get()};
    } else if (!block->isEntryBlock()) {
      for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
        auto br = dyn_cast<BranchOpInterface>((*it)->getTerminator());
        if (!br)
          return failure();
        Value in =
            br.getSuccessorOperands(it.getSuccessorIndex())[arg.getArgNumber()];
        if (!in)
          return failure();
        incoming.push_back(in);
      }
    } else {
      return failure(); // a function's or another region op's argument
    }
  } else if (auto loop = v.getDefiningOp<scf::ForOp>()) {
    incoming.push_back(
        loop.getRegionIterArgs()[cast<OpResult>(v).getResultNumber()]);
  } else {
    auto branch = v.getDefiningOp<scf::IfOp>();
    unsigned i = cast<OpResult>(v).getResultNumber();
    incoming.push_back(branch.thenYield().getOperand(i));
    if (branch.getElseRegion().empty())
      return failure();
    incoming.push_back(branch.elseYield().getOperand(i));
  }
  for (Value in : incoming)
    if (failed(collectSources(in, out, seen)))
      return failure();
  return success();
}

LogicalResult kiln::tile::getSharedSources(Value memdesc,
                                           SmallVectorImpl<Value> &sources) {
  llvm::SmallPtrSet<void *, 8> seen;
  return collectSources(memdesc, sources, seen);
}

namespace {
/// (XOR offset, base alignment) of each buffer control flow chooses or
/// carries, keyed by value, while a SharedPhiSnapshot is alive.
using PhiInfo = llvm::DenseMap<void *, std::pair<int64_t, unsigned>>;
thread_local PhiInfo *activePhiInfo = nullptr;
} // namespace

kiln::tile::SharedPhiSnapshot::SharedPhiSnapshot(Operation *root)
    : previous(activePhiInfo) {
  auto info = std::make_unique<PhiInfo>();
  auto record = [&](Value v) {
    if (isa<MemDescType>(v.getType()))
      (*info)[v.getAsOpaquePointer()] = {getSharedXorOffset(v),
                                         getSharedBaseAlignment(v)};
  };
  // Computed with no snapshot active: from the IR as it is now.
  activePhiInfo = nullptr;
  root->walk([&](Operation *op) {
    if (isa<scf::IfOp, scf::ForOp>(op))
      for (Value r : op->getResults())
        record(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          record(arg);
  });
  activePhiInfo = info.release();
}

kiln::tile::SharedPhiSnapshot::~SharedPhiSnapshot() {
  delete activePhiInfo;
  activePhiInfo = static_cast<PhiInfo *>(previous);
}

unsigned kiln::tile::getSharedBaseAlignment(Value memdesc) {
  if (activePhiInfo && isSharedPhi(memdesc)) {
    auto it = activePhiInfo->find(memdesc.getAsOpaquePointer());
    return it == activePhiInfo->end() ? 16 : it->second.second;
  }
  if (isSharedPhi(memdesc)) {
    SmallVector<Value, 4> sources;
    unsigned align = 16;
    // A function's argument (which the lowering refuses) is taken as an
    // allocation.
    if (succeeded(getSharedSources(memdesc, sources)))
      for (Value s : sources)
        align = std::min(align, getSharedBaseAlignment(s));
    return align;
  }
  Operation *def = memdesc.getDefiningOp();
  if (auto index = dyn_cast_or_null<MemDescIndexOp>(def))
    return std::min(getSharedBaseAlignment(index.getSrc()),
                    powerOfTwoDividing(getSharedStrideBytes(
                        index.getSrc().getType(), 0)));
  if (auto sub = dyn_cast_or_null<MemDescSubsliceOp>(def)) {
    // Leading (ring) offsets move the base; the others are XORed in.
    MemDescType src = sub.getSrc().getType();
    unsigned lead = src.getShape().size() - src.getSharedLayout().getRank();
    int64_t bytes = 0;
    for (unsigned d = 0; d < lead; ++d)
      bytes += sub.getOffsets()[d] * getSharedStrideBytes(src, d);
    return std::min(getSharedBaseAlignment(sub.getSrc()),
                    powerOfTwoDividing(bytes));
  }
  if (isa_and_nonnull<MemDescPermuteOp, MemDescReshapeOp>(def))
    return getSharedBaseAlignment(def->getOperand(0));
  if (auto re = dyn_cast_or_null<MemDescReinterpretOp>(def))
    // The view's XOR offset becomes a move of the base.
    return std::min(getSharedBaseAlignment(re.getSrc()),
                    powerOfTwoDividing(
                        getSharedXorOffset(re.getSrc()) *
                        getElementBytes(re.getSrc().getType().getElementType())));
  return 16;
}

int64_t kiln::tile::getSharedXorOffset(Value memdesc) {
  if (activePhiInfo && isSharedPhi(memdesc)) {
    auto it = activePhiInfo->find(memdesc.getAsOpaquePointer());
    return it == activePhiInfo->end() ? 0 : it->second.first;
  }
  if (isSharedPhi(memdesc)) {
    SmallVector<Value, 4> sources;
    if (succeeded(getSharedSources(memdesc, sources)) && !sources.empty())
      return getSharedXorOffset(sources.front());
    return 0;
  }
  Operation *def = memdesc.getDefiningOp();
  if (auto sub = dyn_cast_or_null<MemDescSubsliceOp>(def)) {
    MemDescType src = sub.getSrc().getType();
    unsigned rank = src.getSharedLayout().getRank();
    FailureOr<SharedOffsets> table = SharedOffsets::get(src);
    int64_t own = 0;
    if (succeeded(table))
      own = table->offsetOf(sub.getOffsets().take_back(rank));
    return own ^ getSharedXorOffset(sub.getSrc());
  }
  if (isa_and_nonnull<MemDescIndexOp, MemDescPermuteOp, MemDescReshapeOp>(
          def))
    return getSharedXorOffset(def->getOperand(0));
  return 0;
}

unsigned kiln::tile::getRequiredAlignment(MemDescType type) {
  return std::max(16u, type.getSharedLayout().getBaseAlignment());
}

bool kiln::tile::isMemDescView(Operation *op) {
  return isa<MemDescIndexOp, MemDescSubsliceOp, MemDescPermuteOp,
             MemDescReshapeOp, MemDescReinterpretOp>(op);
}

LocalAllocOp kiln::tile::getRootAllocation(Value memdesc) {
  while (Operation *def = memdesc.getDefiningOp()) {
    if (auto alloc = dyn_cast<LocalAllocOp>(def))
      return alloc;
    if (isMemDescView(def)) {
      memdesc = def->getOperand(0);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

bool kiln::tile::isXorLinear(ArrayRef<int64_t> offsets) {
  size_t n = offsets.size();
  if (n == 0 || !llvm::isPowerOf2_64(n))
    return false;
  for (size_t r = 0; r < n; ++r) {
    int64_t expect = 0;
    for (size_t bit = 1; bit < n; bit <<= 1)
      if (r & bit)
        expect ^= offsets[bit];
    if (offsets[r] != expect)
      return false;
  }
  return true;
}
