//===- BarrierState.cpp - Shared-memory accesses since a barrier ---------===//
//
// Byte ranges, thread keys and warp views of shared-memory accesses, and
// the join of the barrier lattice.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/BarrierState.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

namespace {

/// A basis of an F2 vector space of flattened element indices.
class XorSpan {
public:
  void add(int64_t v) {
    v = reduce(v);
    if (!v)
      return;
    rows.push_back(v);
    llvm::sort(rows, std::greater<int64_t>());
  }
  bool contains(int64_t v) const { return reduce(v) == 0; }

private:
  int64_t reduce(int64_t v) const {
    for (int64_t r : rows)
      v = std::min(v, v ^ r);
    return v;
  }
  // Distinct leading bits, in decreasing order: reducing by each in turn
  // clears v's bits from the top.
  SmallVector<int64_t> rows;
};

} // namespace

bool async::warpReadsOwnCopies(const WarpView &write, const WarpView &read) {
  if (!write.sameView(read))
    return false;
  const LinearLayout &w = *write.layout, &r = *read.layout;
  auto flat = [](const LinearLayout &l, const LinearLayout::Basis &b) {
    return l.linearIndex(b);
  };
  XorSpan own;
  for (auto dim : {LinearLayout::Register, LinearLayout::Lane})
    for (const LinearLayout::Basis &b : w.getBases(dim))
      own.add(flat(w, b));
  for (auto dim : {LinearLayout::Register, LinearLayout::Lane})
    for (const LinearLayout::Basis &b : r.getBases(dim))
      if (!own.contains(flat(r, b)))
        return false;
  for (auto [wb, rb] : llvm::zip(w.getBases(LinearLayout::Warp),
                                 r.getBases(LinearLayout::Warp))) {
    if (flat(w, wb) == 0)
      return false; // a warp that repeats another copies nothing
    if (!own.contains(flat(w, wb) ^ flat(r, rb)))
      return false;
  }
  return true;
}


void BarrierState::join(const BarrierState &o) {
  for (const Access &a : o.reads)
    addUnique(reads, a);
  for (const Access &a : o.writes)
    addUnique(writes, a);
  for (const Pending &p : o.pending) {
    auto it = llvm::find_if(
        pending, [&](const Pending &q) { return q.access == p.access; });
    if (it == pending.end())
      pending.push_back(p);
    else
      it->groupsAfter = std::min(it->groupsAfter, p.groupsAfter);
  }
  for (const GroupRead &r : o.groupReads) {
    auto it = llvm::find_if(groupReads, [&](const GroupRead &q) {
      return q.access == r.access && q.counter == r.counter;
    });
    if (it == groupReads.end())
      groupReads.push_back(r);
    else
      it->groupsAfter = std::min(it->groupsAfter, r.groupsAfter);
  }
}

bool BarrierState::operator==(const BarrierState &o) const {
  auto sameSet = [](ArrayRef<Access> a, ArrayRef<Access> b) {
    return a.size() == b.size() &&
           llvm::all_of(a, [&](const Access &x) {
             return llvm::is_contained(b, x);
           });
  };
  if (!sameSet(reads, o.reads) || !sameSet(writes, o.writes) ||
      pending.size() != o.pending.size() ||
      groupReads.size() != o.groupReads.size() ||
      !llvm::all_of(groupReads, [&](const GroupRead &r) {
        return llvm::is_contained(o.groupReads, r);
      }))
    return false;
  return llvm::all_of(pending, [&](const Pending &p) {
    return llvm::any_of(o.pending, [&](const Pending &q) {
      return q.access == p.access && q.groupsAfter == p.groupsAfter;
    });
  });
}

/// Bytes of an allocation or scratch buffer, from the allocator's offset.
Access async::bufferAccess(Operation *buffer, int64_t bytes, Operation *op) {
  Access a;
  a.op = op;
  if (!buffer)
    return a; // unknown buffer: all of shared memory
  auto offset = buffer->getAttrOfType<IntegerAttr>(
      TileDialect::ScratchOffsetAttrHelper::getNameStr());
  if (!offset)
    return a;
  a.begin = offset.getInt();
  a.end = a.begin + bytes;
  return a;
}

static int64_t allocationBytes(LocalAllocOp alloc) {
  return getAllocationBytes(alloc.getType());
}

/// The access `op` makes to `memdesc` with a tensor of `tensorType`.
Access async::memdescAccess(Value memdesc, RankedTensorType tensorType,
                     Operation *op) {
  LocalAllocOp root = getRootAllocation(memdesc);
  Access a = bufferAccess(root, root ? allocationBytes(root) : 0, op);
  if (!root)
    return a;
  a.slot = getRingSlot(memdesc);
  FailureOr<LinearLayout> layout = getLinearLayout(tensorType);
  if (failed(layout))
    return a;
  a.warp = {root, memdesc.getType(), getSharedXorOffset(memdesc),
            std::make_shared<const LinearLayout>(*layout)};
  // A thread-local key needs each element in exactly one thread.
  for (auto dim : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Basis &b : layout->getBases(dim))
      if (llvm::all_of(b, [](int32_t c) { return c == 0; }))
        return a;
  a.key.root = root;
  a.key.view = memdesc.getType();
  a.key.xorOffset = getSharedXorOffset(memdesc);
  a.key.layout = std::make_shared<const LinearLayout>(*layout);
  return a;
}

/// The bytes of a view, touched by any thread of the CTA (hardware units
/// such as TMA and wgmma, or one thread on the CTA's behalf).
Access async::viewAccess(Value memdesc, Operation *op) {
  LocalAllocOp root = getRootAllocation(memdesc);
  Access a = bufferAccess(root, root ? allocationBytes(root) : 0, op);
  if (root)
    a.slot = getRingSlot(memdesc);
  return a;
}

RankedTensorType async::pointeeTensor(RankedTensorType type) {
  return RankedTensorType::get(
      type.getShape(),
      cast<PointerType>(type.getElementType()).getPointeeType(),
      type.getEncoding());
}
