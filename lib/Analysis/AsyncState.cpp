//===- AsyncState.cpp - What asynchronous work is in flight ---------------===//
//
// Buffer references (allocation, slot, bytes, thread key, warp view); the
// lattice's joins and queries; the one transfer function (AsyncTransfer),
// one case per op interface; the checks' walk and its joins over scf.for
// generations and warp_specialize; and the count of commit groups between
// a token and a wait (groupsAfter).
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AsyncState.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

// --- buffers -------------------------------------------------------------

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

/// The box of elements the views `chain` (from the allocation down) select:
/// memdesc_index ops first, then subslices and permutes; any other view
/// leaves the box unknown (empty).
template <typename Range>
static void placeBox(Buffer &b, LocalAllocOp root, Range chain) {
  ArrayRef<int64_t> shape = root.getType().getShape();
  SmallVector<int64_t, 4> lo(shape.size(), 0), hi(shape);
  // dims[i]: the slot dimension that view dimension i is.
  SmallVector<unsigned, 4> dims;
  for (unsigned i = 0; i < shape.size(); ++i)
    dims.push_back(i);
  bool sliced = false;
  for (Operation *op : chain) {
    if (isa<MemDescIndexOp>(op)) {
      if (sliced || lo.empty())
        return;
      lo.erase(lo.begin());
      hi.erase(hi.begin());
      dims.pop_back(); // still the identity, one shorter
      ++b.indexDepth;
    } else if (auto slice = dyn_cast<MemDescSubsliceOp>(op)) {
      sliced = true;
      ArrayRef<int64_t> size = slice.getType().getShape();
      ArrayRef<int32_t> offsets = slice.getOffsets();
      if (offsets.size() != dims.size() || size.size() != dims.size())
        return;
      for (unsigned i = 0; i < dims.size(); ++i) {
        lo[dims[i]] += offsets[i];
        hi[dims[i]] = lo[dims[i]] + size[i];
      }
    } else if (auto permute = dyn_cast<MemDescPermuteOp>(op)) {
      sliced = true;
      ArrayRef<int32_t> order = permute.getOrder();
      if (order.size() != dims.size())
        return;
      SmallVector<unsigned, 4> next;
      for (int32_t o : order)
        next.push_back(dims[o]);
      dims = std::move(next);
    } else {
      return;
    }
  }
  b.boxLo = std::move(lo);
  b.boxHi = std::move(hi);
}

bool async::isWaitRecord(const Access &a) {
  return isa_and_nonnull<BarrierWaitOpInterface>(a.op);
}

std::optional<Buffer> async::resolve(Value memdesc) {
  LocalAllocOp root = getRootAllocation(memdesc);
  if (!root)
    return std::nullopt;
  Buffer b{root, getRingSlot(memdesc)};
  bool indexed = false;
  SmallVector<Operation *> chain;
  for (Operation *def = memdesc.getDefiningOp(); def && def != root;
       def = def->getOperand(0).getDefiningOp()) {
    indexed |= isa<MemDescIndexOp>(def);
    b.partial |= isa<MemDescSubsliceOp, MemDescReinterpretOp>(def);
    chain.push_back(def);
  }
  b.whole = !indexed && !b.partial;
  placeBox(b, root, llvm::reverse(chain));
  return b;
}

/// Bytes [offset, offset + bytes) when `buffer` is placed.
static void placeBytes(Buffer &b, Operation *buffer, int64_t bytes) {
  auto offset = buffer->getAttrOfType<IntegerAttr>(
      TileDialect::ScratchOffsetAttrHelper::getNameStr());
  if (!offset)
    return;
  b.begin = offset.getInt();
  b.end = b.begin + bytes;
}

Buffer async::scratchReference(Operation *op, int64_t bytes) {
  Buffer b;
  b.root = op;
  placeBytes(b, op, bytes);
  return b;
}

/// A buffer control flow chooses or carries (or a view of one): no
/// allocation, but the bytes spanning every buffer it may be; all of shared
/// memory when one cannot be followed or is not placed yet.
static Buffer chosenReference(Value memdesc) {
  Value base = memdesc;
  while (Operation *def = base.getDefiningOp()) {
    if (!isMemDescView(def))
      break;
    base = def->getOperand(0);
  }
  SmallVector<Value, 4> sources;
  if (failed(getSharedSources(base, sources)) ||
      sources.empty())
    return Buffer();
  int64_t begin = kWholeMemory, end = 0;
  for (Value source : sources) {
    LocalAllocOp root = getRootAllocation(source);
    auto offset = root ? root->getAttrOfType<IntegerAttr>(
                             TileDialect::ScratchOffsetAttrHelper::getNameStr())
                       : nullptr;
    if (!offset)
      return Buffer();
    begin = std::min(begin, offset.getInt());
    end = std::max(end, offset.getInt() + getAllocationBytes(root.getType()));
  }
  Buffer b;
  b.begin = begin;
  b.end = end;
  return b;
}

Buffer async::reference(Value memdesc, RankedTensorType tensorType) {
  std::optional<Buffer> known = resolve(memdesc);
  if (!known)
    return chosenReference(memdesc);
  Buffer b = *known;
  auto root = cast<LocalAllocOp>(b.root);
  placeBytes(b, root, getAllocationBytes(root.getType()));
  if (!tensorType)
    return b;
  FailureOr<LinearLayout> layout = getLinearLayout(tensorType);
  if (failed(layout))
    return b;
  auto shared = std::make_shared<const LinearLayout>(*layout);
  int64_t xorOffset = getSharedXorOffset(memdesc);
  b.warp = {root, memdesc.getType(), xorOffset, shared};
  // A thread-local key needs each element in exactly one thread.
  for (auto dim : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Basis &basis : layout->getBases(dim))
      if (llvm::all_of(basis, [](int32_t c) { return c == 0; }))
        return b;
  b.key = {root, memdesc.getType(), xorOffset, shared};
  return b;
}

RankedTensorType async::pointeeTensor(RankedTensorType type) {
  return RankedTensorType::get(
      type.getShape(),
      cast<PointerType>(type.getElementType()).getPointeeType(),
      type.getEncoding());
}

bool async::mustOverlap(const Buffer &a, const Buffer &b) {
  if (!a.root || a.root != b.root || a.partial || b.partial)
    return false;
  return a.whole || b.whole || a.slot.same(b.slot);
}

bool async::mayOverlap(const Buffer &a, const Buffer &b) {
  return a.root && a.root == b.root && !a.slot.disjoint(b.slot);
}

bool async::mayMeet(const Buffer &a, const Buffer &b) {
  if (!a.root || a.root != b.root)
    return false;
  if (a.slot.known() && b.slot.known() && a.slot.literal >= 0 &&
      b.slot.literal >= 0)
    return a.slot.literal == b.slot.literal;
  return !(a.slot.known() && b.slot.known() && !a.slot.base && !b.slot.base &&
           a.slot.offset != b.slot.offset);
}

/// The shared buffers an effect of `op` of kind `Effect` names: the value
/// of an effect on one, every memdesc operand for an op-wide one.
template <typename Effect>
static SmallVector<Value> effectBuffers(Operation *op, bool sharedOnly) {
  SmallVector<Value> out;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return out;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  auto add = [&](Value v) {
    if (v && isa<MemDescType>(v.getType()) && v.getDefiningOp() != op &&
        !llvm::is_contained(out, v))
      out.push_back(v);
  };
  for (auto &e : list) {
    if (!isa<Effect>(e.getEffect()))
      continue;
    if (sharedOnly && !isa<SharedMemoryResource>(e.getResource()))
      continue;
    if (Value v = e.getValue()) {
      add(v);
      continue;
    }
    for (Value operand : op->getOperands())
      add(operand);
  }
  return out;
}

SmallVector<Value> async::writtenBuffers(Operation *op) {
  SmallVector<Value> out = effectBuffers<MemoryEffects::Write>(op, false);
  if (auto w = dyn_cast<BarrierCompletedWriteOpInterface>(op))
    if (!llvm::is_contained(out, w.getDst()))
      out.push_back(w.getDst());
  return out;
}

SmallVector<Value> async::readBuffers(Operation *op) {
  SmallVector<Value> out = effectBuffers<MemoryEffects::Read>(op, true);
  if (auto read = dyn_cast<AsyncReadOpInterface>(op))
    for (Value v : read.getAsyncReadBuffers())
      if (!llvm::is_contained(out, v))
        out.push_back(v);
  return out;
}

SmallVector<Value> async::sharedWrittenBuffers(Operation *op) {
  return effectBuffers<MemoryEffects::Write>(op, true);
}

Value async::eventBarrier(Operation *o) {
  if (auto w = dyn_cast<BarrierWaitOpInterface>(o))
    return w.getWaitedBarrier();
  if (auto a = dyn_cast<BarrierArriveOpInterface>(o))
    return a.getArrivedBarrier();
  if (auto c = dyn_cast<BarrierCompletedWriteOpInterface>(o))
    return c.getCompletionBarrier();
  return {};
}

// --- the lattice ---------------------------------------------------------

StringRef async::describe(Kind kind) {
  switch (kind) {
  case Kind::Copy:
    return "async copy";
  case Kind::BarrierWrite:
    return "barrier-completed write";
  default:
    return "write";
  }
}

bool AsyncState::sameEntry(const InFlight &a, const InFlight &b) const {
  if (!a.sameEvent(b))
    return false;
  if (tracking == Tracking::Events)
    return true;
  return a.buffers.size() == b.buffers.size() &&
         llvm::all_of(llvm::zip(a.buffers, b.buffers), [](auto pair) {
           return std::get<0>(pair).sameBytes(std::get<1>(pair));
         });
}

/// A new access: an entry for the same op and bytes is this one again,
/// not yet released to any barrier.
static void addUnique(SmallVector<Access, 0> &set, const Access &a) {
  auto it = llvm::find(set, a);
  if (it == set.end()) {
    set.push_back(a);
  } else {
    it->releasedTo.clear();
    it->orderedForIssuer = false;
  }
}

static bool sameBuffer(const Buffer &a, const Buffer &b) {
  return a.root == b.root && a.sameBytes(b);
}

/// The barriers `a` was released to on both paths of a join.
static void keepCommonReleases(Access &a, const Access &b) {
  llvm::erase_if(a.releasedTo, [&](const Buffer &x) {
    return !llvm::any_of(b.releasedTo,
                         [&](const Buffer &y) { return sameBuffer(x, y); });
  });
}

static void joinAccesses(SmallVector<Access, 0> &set,
                         ArrayRef<Access> other) {
  for (const Access &x : other) {
    auto it = llvm::find(set, x);
    if (it == set.end()) {
      set.push_back(x);
    } else {
      keepCommonReleases(*it, x);
      it->orderedForIssuer &= x.orderedForIssuer;
    }
  }
}

AsyncState AsyncState::join(const AsyncState &a, const AsyncState &b) {
  AsyncState out = a;
  out.maxGroups = std::max(a.maxGroups, b.maxGroups);
  // One event reached with other bytes (work from before a loop, its slot
  // moved by the back edges) stays apart: each version may certainly meet
  // an access the other does not.
  auto sameBuffers = [](const InFlight &x, const InFlight &y) {
    return x.buffers.size() == y.buffers.size() &&
           llvm::all_of(llvm::zip(x.buffers, y.buffers), [](auto xy) {
             return std::get<0>(xy).sameBytes(std::get<1>(xy));
           });
  };
  for (const InFlight &p : b.pending) {
    auto it = llvm::find_if(out.pending, [&](const InFlight &q) {
      return out.sameEntry(q, p) && sameBuffers(q, p);
    });
    if (it == out.pending.end()) {
      out.pending.push_back(p);
    } else {
      it->minAfter = std::min(it->minAfter, p.minAfter);
      it->retiredByIssuers &= p.retiredByIssuers;
      it->arrivedCopy |= p.arrivedCopy;
      llvm::erase_if(it->waitsBefore, [&](const Access &w) {
        return !llvm::is_contained(p.waitsBefore, w);
      });
      for (auto &[loop, n] : p.moved) {
        unsigned &mine = it->movedAround(loop);
        mine = std::min(mine, n);
      }
    }
  }
  joinAccesses(out.reads, b.reads);
  joinAccesses(out.writes, b.writes);
  return out;
}

bool AsyncState::operator==(const AsyncState &o) const {
  if (pending.size() != o.pending.size() || maxGroups != o.maxGroups)
    return false;
  for (const InFlight &p : pending)
    if (!llvm::any_of(o.pending, [&](const InFlight &q) {
          return sameEntry(q, p) && q.minAfter == p.minAfter &&
                 q.retiredByIssuers == p.retiredByIssuers &&
                 q.arrivedCopy == p.arrivedCopy &&
                 q.waitsBefore.size() == p.waitsBefore.size() &&
                 llvm::all_of(q.waitsBefore,
                              [&](const Access &w) {
                                return llvm::is_contained(p.waitsBefore, w);
                              }) &&
                 q.buffers.size() == p.buffers.size() &&
                 llvm::all_of(llvm::zip(q.buffers, p.buffers), [](auto xy) {
                   return std::get<0>(xy).sameBytes(std::get<1>(xy));
                 });
        }))
      return false;
  auto sameSet = [](ArrayRef<Access> x, ArrayRef<Access> y) {
    return x.size() == y.size() && llvm::all_of(x, [&](const Access &a) {
             const Access *b = llvm::find(y, a);
             return b != y.end() &&
                    a.orderedForIssuer == b->orderedForIssuer &&
                    a.releasedTo.size() == b->releasedTo.size() &&
                    llvm::all_of(a.releasedTo, [&](const Buffer &r) {
                      return llvm::any_of(b->releasedTo, [&](const Buffer &q) {
                        return sameBuffer(r, q);
                      });
                    });
           });
  };
  return sameSet(reads, o.reads) && sameSet(writes, o.writes);
}

void AsyncState::barrier() {
  reads.clear();
  writes.clear();
  llvm::erase_if(pending, [](const InFlight &p) {
    return p.kind == Kind::AsyncRead && p.retiredByIssuers;
  });
}

const InFlight *AsyncState::copyInFlight(const Buffer &b) const {
  for (const InFlight &p : pending)
    if ((p.kind == Kind::Copy || p.arrivedCopy) &&
        llvm::any_of(p.buffers,
                     [&](const Buffer &x) { return x.overlapsBytes(b); }))
      return &p;
  return nullptr;
}

static OpAccesses opAccesses(Operation *op) {
  OpAccesses out;
  auto add = [&](OpAccesses::Class cls, Buffer b, bool isWrite) {
    out.cls = cls;
    out.list.push_back({Access{std::move(b), op}, isWrite});
  };
  if (isa<BarrierOp>(op)) {
    out.cls = OpAccesses::Barrier;
  } else if (int64_t bytes = getScratchBytes(op); bytes > 0) {
    add(OpAccesses::Scratch, scratchReference(op, bytes), false);
  } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
    if (Value src = alloc.getSrc())
      add(OpAccesses::Threads,
          reference(alloc.getResult(), cast<RankedTensorType>(src.getType())),
          true);
  } else if (auto store = dyn_cast<LocalStoreOp>(op)) {
    add(OpAccesses::Threads,
        reference(store.getDst(),
                  cast<RankedTensorType>(store.getValue().getType())),
        true);
  } else if (auto load = dyn_cast<LocalLoadOp>(op)) {
    add(OpAccesses::Threads, reference(load.getSrc(), load.getType()), false);
  } else if (auto copy = dyn_cast<AsyncCopyOpInterface>(op)) {
    add(OpAccesses::AsyncWrite,
        reference(copy.getDst(), pointeeTensor(copy.getPointerType())), true);
  } else if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op)) {
    add(OpAccesses::AsyncWrite, reference(write.getDst()), true);
  } else if (isa<BarrierWaitOpInterface, AsyncCommitGroupOp, AsyncWaitOp>(op) ||
             op->getNumRegions() > 0) {
  } else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    // An operand that may be a buffer or registers (wgmma's A) declares its
    // read either way: as registers it touches no shared memory.
    llvm::erase_if(list, [](const MemoryEffects::EffectInstance &e) {
      return !isa<SharedMemoryResource>(e.getResource()) ||
             isa<MemoryEffects::Free>(e.getEffect()) ||
             (e.getValue() && !isa<MemDescType>(e.getValue().getType()));
    });
    if (list.empty())
      return out;
    if (!llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
          return e.getValue() && isa<MemDescType>(e.getValue().getType());
        })) {
      add(OpAccesses::Unnamed, Buffer(), true);
      return out;
    }
    for (const MemoryEffects::EffectInstance &e : list)
      add(OpAccesses::Threads, reference(e.getValue()),
          !isa<MemoryEffects::Read>(e.getEffect()));
  }
  return out;
}

const OpAccesses &AsyncTransfer::accesses(Operation *op) const {
  std::unique_ptr<OpAccesses> &slot = accessesOf[op];
  if (!slot)
    slot = std::make_unique<OpAccesses>(opAccesses(op));
  return *slot;
}

bool AsyncState::barrierHazard(const OpAccesses &accesses) const {
  switch (accesses.cls) {
  case OpAccesses::Unnamed:
    return true;
  case OpAccesses::AsyncWrite: {
    // Not ordered after the issuing thread's own earlier accesses either
    // (the vendors' memory models); a barrier completes them, or, for a
    // copy the elected thread issues, a wait of its warp on a barrier every
    // warp released them to.
    auto write = dyn_cast_or_null<BarrierCompletedWriteOpInterface>(
        accesses.list.front().first.op);
    bool elected = write && write.issuedByElectedThread();
    const Buffer &b = accesses.list.front().first.buffer;
    auto meets = [&](const Access &x) {
      return !(elected && x.orderedForIssuer) && x.buffer.overlapsBytes(b);
    };
    return llvm::any_of(reads, meets) || llvm::any_of(writes, meets);
  }
  case OpAccesses::Threads:
    return llvm::any_of(accesses.list, [&](const auto &entry) {
      const auto &[a, isWrite] = entry;
      // A read of a copy its own warp issued and waited for needs no
      // barrier where the wait orders the whole warp.
      bool hazard = llvm::any_of(writes, [&](const Access &w) {
        return w.buffer.conflicts(a.buffer) &&
               !(!isWrite && w.landedInWarp &&
                 warpReadsOwnCopies(w.buffer.warp, a.buffer.warp));
      });
      if (isWrite)
        hazard |= llvm::any_of(reads, [&](const Access &r) {
          return r.buffer.conflicts(a.buffer);
        });
      return hazard;
    });
  default:
    return false;
  }
}

SmallVector<const InFlight *> AsyncState::inFlight(
    const Buffer &b, function_ref<bool(const Buffer &, const Buffer &)> overlap,
    ArrayRef<Kind> kinds) const {
  SmallVector<const InFlight *> out;
  for (const InFlight &p : pending)
    if (llvm::is_contained(kinds, p.kind) &&
        llvm::any_of(p.buffers,
                     [&](const Buffer &x) { return overlap(x, b); }))
      out.push_back(&p);
  return out;
}

/// The i1 value an op is issued under, or null (always).
static Value issuePredicate(Operation *op) {
  if (auto w = dyn_cast<BarrierCompletedWriteOpInterface>(op))
    if (Value p = w.getCompletionPredicate())
      return p;
  if (auto p = dyn_cast<PredicatedOpInterface>(op))
    return p.getPredicate();
  return {};
}

/// Whether i1 values `x` and `y`, evaluated at the same time, are never both
/// true: one is the other's negation (xor with true, or comparisons of the
/// same operands by opposite predicates), or a conjunct of one is.
static bool neverBothTrue(Value x, Value y, int depth = 0) {
  if (!x || !y || depth > 4)
    return false;
  auto negationOf = [](Value a, Value b) {
    if (auto xr = a.getDefiningOp<arith::XOrIOp>())
      for (auto [v, c] : {std::pair(xr.getLhs(), xr.getRhs()),
                          std::pair(xr.getRhs(), xr.getLhs())})
        if (v == b && constantInt(c) && *constantInt(c) != 0)
          return true;
    auto ca = a.getDefiningOp<arith::CmpIOp>(), cb = b.getDefiningOp<arith::CmpIOp>();
    if (!ca || !cb)
      return false;
    arith::CmpIPredicate inv = arith::invertPredicate(cb.getPredicate());
    // the same value: one SSA value, or constants equal (a literal operand
    // is materialized once per comparison)
    auto same = [](Value u, Value v) {
      std::optional<int64_t> cu = constantInt(u), cv = constantInt(v);
      return u == v || (cu && cv && *cu == *cv && u.getType() == v.getType());
    };
    if (same(ca.getLhs(), cb.getLhs()) && same(ca.getRhs(), cb.getRhs()))
      return ca.getPredicate() == inv;
    // a < b is b > a: the predicate with its operands swapped
    auto swapped = [](arith::CmpIPredicate p) {
      using P = arith::CmpIPredicate;
      switch (p) {
      case P::slt: return P::sgt;
      case P::sgt: return P::slt;
      case P::sle: return P::sge;
      case P::sge: return P::sle;
      case P::ult: return P::ugt;
      case P::ugt: return P::ult;
      case P::ule: return P::uge;
      case P::uge: return P::ule;
      default: return p;
      }
    };
    return same(ca.getLhs(), cb.getRhs()) && same(ca.getRhs(), cb.getLhs()) &&
           ca.getPredicate() == swapped(inv);
  };
  if (negationOf(x, y) || negationOf(y, x))
    return true;
  for (auto [a, b] : {std::pair(x, y), std::pair(y, x)})
    if (auto conj = a.getDefiningOp<arith::AndIOp>())
      if (neverBothTrue(conj.getLhs(), b, depth + 1) ||
          neverBothTrue(conj.getRhs(), b, depth + 1))
        return true;
  return false;
}

/// Whether `op` and the work `p` never both run: issued in the same
/// iteration (no back edge since `p`, so their predicates' operands hold
/// the values `p` saw) by this partition, under predicates never both true
/// (a kernel loading a slot from one of two sources: pred=k < n, pred=k >= n).
static bool exclusiveIssue(Operation *op, const InFlight &p) {
  return p.generation == 0 && !p.foreign &&
         neverBothTrue(issuePredicate(op), issuePredicate(p.op));
}

SmallVector<Hazard, 0> AsyncState::hazards(
    Operation *op,
    function_ref<bool(const Buffer &, const Buffer &)> overlap) const {
  SmallVector<Hazard, 0> out;
  for (Value v : writtenBuffers(op))
    if (std::optional<Buffer> written = resolve(v))
      for (const InFlight *p :
           inFlight(*written, overlap,
                    {Kind::AsyncRead, Kind::Copy, Kind::BarrierWrite}))
        if (!exclusiveIssue(op, *p))
          out.push_back({*written, true, p});
  SmallVector<Kind, 3> readKinds = {Kind::Copy, Kind::BarrierWrite};
  if (isa<AsyncReadOpInterface>(op))
    readKinds.push_back(Kind::Unfenced);
  for (Value v : readBuffers(op))
    if (std::optional<Buffer> read = resolve(v))
      for (const InFlight *p : inFlight(*read, overlap, readKinds))
        out.push_back({*read, false, p});
  return out;
}

static void printBuffer(raw_ostream &os, const Buffer &b,
                        function_ref<void(raw_ostream &, Operation *)> name) {
  if (!b.root) {
    os << "?";
    return;
  }
  name(os, b.root);
  if (b.slot.known()) {
    os << "[";
    if (b.slot.base)
      os << "(iv + " << b.slot.offset << ") % " << b.slot.modulus;
    else
      os << b.slot.offset;
    os << "]";
  }
  if (b.partial)
    os << " part";
}

void AsyncState::print(
    raw_ostream &os,
    function_ref<void(raw_ostream &, Operation *)> name) const {
  os << "groups <= " << maxGroups;
  for (const InFlight &p : pending) {
    os << "; ";
    switch (p.kind) {
    case Kind::AsyncRead:
      os << "read '" << p.counter << "' +" << p.minAfter;
      if (p.retiredByIssuers)
        os << " retired-by-issuers";
      break;
    case Kind::Copy:
      os << "copy +" << p.minAfter;
      if (p.foreign)
        os << " foreign";
      break;
    case Kind::BarrierWrite:
      os << "barrier-write";
      break;
    case Kind::Unfenced:
      os << "unfenced";
      break;
    }
    os << " by ";
    name(os, p.op);
    if (p.generation)
      os << " gen " << p.generation;
    os << " of";
    for (const Buffer &b : p.buffers) {
      os << " ";
      printBuffer(os, b, name);
    }
    if (p.barrier) {
      os << " on ";
      printBuffer(os, *p.barrier, name);
    }
  }
}

AsyncStateClient::~AsyncStateClient() = default;

// --- the transfer function -----------------------------------------------

bool async::sameCondition(Value a, Value b, unsigned depth) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!depth || !x || !y || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumRegions() ||
      y->getNumRegions() || !isPure(x) ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameCondition(u, v, depth - 1))
      return false;
  return true;
}

std::optional<int64_t> async::constantTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = constantInt(loop.getLowerBound()),
                         ub = constantInt(loop.getUpperBound()),
                         step = constantInt(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
}

namespace {

/// Bytes the CTA's threads wrote that no async-proxy fence has ordered (of
/// a known allocation: only the checks ask). One entry per op and, where
/// entries are kept apart by bytes, per buffer.
void addUnfenced(Operation *op, const Buffer &b, AsyncState &state) {
  if (!b.root)
    return;
  InFlight p{op, 0, Kind::Unfenced};
  p.buffers.push_back(b);
  if (state.tracking == Tracking::Accesses) {
    if (llvm::none_of(state.pending,
                      [&](const InFlight &q) { return state.sameEntry(q, p); }))
      state.pending.push_back(std::move(p));
    return;
  }
  auto it = llvm::find_if(state.pending,
                          [&](const InFlight &q) { return q.sameEvent(p); });
  if (it == state.pending.end())
    state.pending.push_back(std::move(p));
  else if (!llvm::any_of(it->buffers, [&](const Buffer &x) {
             return x.root == b.root && x.slot == b.slot;
           }))
    it->buffers.push_back(b);
}

} // namespace

AsyncTransfer::AsyncTransfer(Operation *scope, int numWarps,
                             bool waitOrdersWarp)
    : numWarps(numWarps), waitOrdersWarp(waitOrdersWarp) {
  auto module = dyn_cast<ModuleOp>(scope);
  if (!module)
    module = scope->getParentOfType<ModuleOp>();
  threadsPerWarp = module ? getThreadsPerWarp(module) : 32;
  collectHandOffs(scope);
  collectPerWarpBarriers(scope);
}

/// Barriers whose phases complete only when every warp has arrived: each
/// init expects exactly the arrivals one per-warp arrival brings (count
/// times the warps), and every arrival on them is such an unpredicated
/// per-warp one. Only on those does a wait order what the warps released.
void AsyncTransfer::collectPerWarpBarriers(Operation *scope) {
  llvm::DenseMap<Operation *, int64_t> expected;
  llvm::DenseSet<Operation *> mixed, initialized;
  auto note = [&](Value barrier, int64_t count) {
    std::optional<Buffer> b = resolve(barrier);
    if (!b)
      return;
    auto [it, inserted] = expected.try_emplace(b->root, count);
    if (!inserted && it->second != count)
      mixed.insert(b->root);
  };
  scope->walk([&](Operation *op) {
    if (auto init = dyn_cast<BarrierInitOpInterface>(op)) {
      note(init.getInitializedBarrier(), init.getExpectedArrivals());
      if (std::optional<Buffer> b = resolve(init.getInitializedBarrier()))
        initialized.insert(b->root);
    }
    if (auto arrive = dyn_cast<BarrierArriveOpInterface>(op)) {
      note(arrive.getArrivedBarrier(), arrive.getArrivalCount());
      if (!arrive.arrivesPerWarp() || arrive.getArrivePredicate())
        if (std::optional<Buffer> b = resolve(arrive.getArrivedBarrier()))
          mixed.insert(b->root);
    }
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op))
      if (std::optional<Buffer> b = resolve(write.getCompletionBarrier()))
        mixed.insert(b->root);
  });
  scope->walk([&](BarrierArriveOpInterface arrive) {
    std::optional<Buffer> b = resolve(arrive.getArrivedBarrier());
    if (b && arrive.arrivesPerWarp() && initialized.contains(b->root) &&
        !mixed.contains(b->root))
      perWarpBarriers.insert(b->root);
  });
}

/// A consumer that waits for a slot's data, reads it and arrives on the
/// slot's "empty" barrier hands the slot back: the warp-specialized
/// producer waiting for the empty slot before it refills it knows the
/// writes that filled it have landed.
void AsyncTransfer::collectHandOffs(Operation *scope) {
  scope->walk([&](BarrierArriveOpInterface arrive) {
    Operation *op = arrive.getOperation();
    if (isa<BarrierCompletedWriteOpInterface>(op))
      return;
    std::optional<Buffer> arrived = resolve(arrive.getArrivedBarrier());
    if (!arrived)
      return;
    if (BarrierWaitOpInterface wait =
            lastBarrierWaitBefore(op, /*crossLoops=*/true))
      if (std::optional<Buffer> waited = resolve(wait.getWaitedBarrier()))
        handOffs.push_back({*waited, *arrived});
  });
}

BarrierWaitOpInterface async::lastBarrierWaitBefore(Operation *op,
                                                    bool crossLoops) {
  for (Operation *o = op->getPrevNode(), *at = op;;) {
    for (; o; o = o->getPrevNode())
      if (auto wait = dyn_cast<BarrierWaitOpInterface>(o))
        return wait;
    // The block's start: on before the op that holds it, within the
    // partition or function.
    at = at->getParentOp();
    if (!at || isa<func::FuncOp, WarpSpecializeOp>(at) ||
        (!crossLoops && isa<LoopLikeOpInterface>(at)))
      return nullptr;
    o = at->getPrevNode();
  }
}

/// Whether the threads that run `waiter` issued `issuer`: not when `issuer`
/// is in a warp_specialize worker partition that does not hold `waiter` (a
/// wait counts only its own threads' groups; the kernel's warps, which run
/// the default region, go on after the op, the workers' do not).
static bool sameIssuingThreads(Operation *issuer, Operation *waiter) {
  for (Operation *at = issuer; at; at = at->getParentOp()) {
    auto ws = dyn_cast_or_null<WarpSpecializeOp>(at->getParentOp());
    if (!ws || at->getParentRegion() == &ws.getDefaultRegion())
      continue;
    return at->getParentRegion()->isAncestor(waiter->getParentRegion());
  }
  return true;
}

/// The op's own effect on what is in flight and, where the state tracks
/// them, on the accesses since the last barrier.
void AsyncTransfer::apply(Operation &op, AsyncState &state) const {
  bool accesses = state.tracking == Tracking::Accesses;
  // A read its issuing group has waited for: done when it was issued by
  // the CTA's warps, else another group's may go on until a CTA barrier (a
  // read by any thread since the last barrier from here on).
  int threads = lookupNumWarps(&op, numWarps) * threadsPerWarp;
  // Its issuing group is every thread of the partition (a wgmma in a
  // partition of one warpgroup).
  auto coversPartition = [&](AsyncReadOpInterface read) {
    unsigned group = read.getAsyncReadGroupThreads();
    return group == 0 || int(group) >= threads;
  };
  auto retire = [&](InFlight &p) {
    if (coversPartition(cast<AsyncReadOpInterface>(p.op))) {
      // Retired only once every warp of the partition issued it: each has
      // passed the waits recorded before the issue, and the read, recorded
      // as its threads' when it was issued, is complete for all of them (a
      // warpgroup's wgmma has finished reading once any of its warps' waits
      // returns).
      if (accesses)
        llvm::erase_if(state.reads, [&](const Access &a) {
          // The read of this very instance (its buffers as they moved
          // around back edges), and the waits recorded before its issue.
          if (a.op == p.op)
            return llvm::any_of(p.buffers, [&](const Buffer &b) {
              return b.sameBytes(a.buffer);
            });
          return isWaitRecord(a) && llvm::is_contained(p.waitsBefore, a);
        });
      return true;
    }
    if (accesses && !p.retiredByIssuers)
      for (const Buffer &b : p.buffers)
        addUnique(state.reads, Access{b, p.op});
    p.retiredByIssuers = true;
    return false;
  };
  // A read that waits for itself, by a group covering the partition (a
  // synchronous wgmma of one warpgroup): complete for every thread.
  bool completeForAll = false;
  if (auto read = dyn_cast<AsyncReadOpInterface>(&op)) {
    StringRef counter = read.getAsyncReadCounter();
    if (!read.isAsyncReadInFlight()) {
      // It waits for its counter itself, as a wait leaving none in flight
      // (its own group's).
      llvm::erase_if(state.pending, [&](InFlight &p) {
        return p.kind == Kind::AsyncRead && p.counter == counter && retire(p);
      });
      // Run by the partition's warps together: each has passed its waits,
      // and its read is complete for all of them when it returns.
      completeForAll = coversPartition(read);
      if (accesses && completeForAll)
        llvm::erase_if(state.reads,
                       [](const Access &a) { return isWaitRecord(a); });
    } else {
      for (InFlight &p : state.pending)
        if (p.kind == Kind::AsyncRead && p.counter == counter)
          ++p.minAfter;
      InFlight p{&op, 0, Kind::AsyncRead, counter};
      for (Value v : read.getAsyncReadBuffers())
        p.buffers.push_back(reference(v));
      if (accesses && coversPartition(read))
        for (const Access &a : state.reads)
          if (isWaitRecord(a) && !llvm::is_contained(p.waitsBefore, a))
            p.waitsBefore.push_back(a);
      // The same read issued again (an earlier iteration's, where the walk
      // merges iterations): the later one retires last.
      llvm::erase_if(state.pending,
                     [&](const InFlight &q) { return state.sameEntry(q, p); });
      state.pending.push_back(std::move(p));
    }
  }
  if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(&op)) {
    StringRef counter = wait.getAsyncReadCounter();
    int left = wait.getMaxPendingGroups();
    llvm::erase_if(state.pending, [&](InFlight &p) {
      return p.kind == Kind::AsyncRead && p.counter == counter &&
             p.minAfter >= left && sameIssuingThreads(p.op, &op) && retire(p);
    });
  }
  // The accesses of the op's threads since the last barrier; a CTA barrier
  // (also the one a scratch op's lowering starts with) orders everything
  // before it.
  if (isa<BarrierOp>(&op) || getScratchBytes(&op) > 0)
    state.barrier();
  if (accesses && !completeForAll) {
    const OpAccesses &own = this->accesses(&op);
    if (own.cls != OpAccesses::AsyncWrite)
      for (auto &[a, isWrite] : own.list) {
        if (own.cls == OpAccesses::Threads)
          addUnique(isWrite ? state.writes : state.reads, a);
        else
          (isWrite ? state.writes : state.reads).push_back(a);
      }
  }
  if (auto copy = dyn_cast<AsyncCopyOpInterface>(&op)) {
    InFlight p{&op, 0, Kind::Copy, {}, -1};
    p.buffers.push_back(this->accesses(&op).list.front().first.buffer);
    state.pending.push_back(std::move(p));
  }
  if (isa<AsyncCommitGroupOp>(&op)) {
    for (InFlight &p : state.pending)
      if ((p.kind == Kind::Copy || p.arrivedCopy) && !p.foreign)
        p.minAfter = std::min(p.minAfter + 1, kManyGroups);
    state.maxGroups = std::min(state.maxGroups + 1, kManyGroups);
  }
  if (auto wait = dyn_cast<AsyncWaitOp>(&op))
    runAsyncWait(wait, state);
  if (auto arrive = dyn_cast<AsyncCopyArriveOpInterface>(&op)) {
    // This thread's copies now land when a wait on the barrier returns;
    // their commit groups still land them for it at an async_wait.
    std::optional<Buffer> bar = resolve(arrive.getCopiesBarrier());
    for (InFlight &p : state.pending)
      if (p.kind == Kind::Copy && !p.foreign) {
        p.kind = Kind::BarrierWrite;
        p.barrier = bar;
        p.arrivedCopy = accesses;
        if (!accesses)
          p.minAfter = 0;
      }
  }
  if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(&op)) {
    if (std::optional<Buffer> dst = resolve(write.getDst())) {
      InFlight p{&op, 0, Kind::BarrierWrite};
      p.buffers.push_back(*dst);
      p.barrier = resolve(write.getCompletionBarrier());
      state.pending.push_back(std::move(p));
    }
  }
  // Every warp arriving for its own threads releases what they accessed
  // so far (not a read still in flight: its warps have not waited for it).
  if (auto arrive = dyn_cast<BarrierArriveOpInterface>(&op);
      arrive && accesses && arrive.arrivesPerWarp() &&
      !arrive.getArrivePredicate()) {
    std::optional<Buffer> bar = resolve(arrive.getArrivedBarrier());
    if (bar && perWarpBarriers.contains(bar->root)) {
      auto release = [&](Access &a) {
        bool inFlight = llvm::any_of(state.pending, [&](const InFlight &p) {
          return p.op == a.op && p.kind == Kind::AsyncRead &&
                 !p.retiredByIssuers;
        });
        if (!inFlight && !llvm::any_of(a.releasedTo, [&](const Buffer &r) {
              return sameBuffer(r, *bar);
            }))
          a.releasedTo.push_back(*bar);
      };
      llvm::for_each(state.reads, release);
      llvm::for_each(state.writes, release);
    }
  }
  if (auto wait = dyn_cast<BarrierWaitOpInterface>(&op)) {
    std::optional<Buffer> waited = resolve(wait.getWaitedBarrier());
    // Accesses released to this very barrier (the same slot of a ring) are
    // ordered before the waiting threads once it returns. The phase is the
    // protocol's (tile-check-async-safety checks what it can of it).
    // A wait by the elected warp alone orders them before that warp's
    // elected thread's copies only.
    bool electedWarp = wait.waitsInElectedWarpOnly();
    if (accesses && waited && !wait.getWaitPredicate()) {
      auto released = [&](const Access &a) {
        return llvm::any_of(a.releasedTo, [&](const Buffer &r) {
          return mustOverlap(r, *waited);
        });
      };
      if (electedWarp) {
        for (SmallVectorImpl<Access> *set : {&state.reads, &state.writes})
          for (Access &a : *set)
            a.orderedForIssuer |= released(a);
      } else {
        llvm::erase_if(state.reads, released);
        llvm::erase_if(state.writes, released);
      }
    }
    llvm::erase_if(state.pending, [&](const InFlight &p) {
      // The other warps have not waited: nothing lands for them.
      if (p.kind != Kind::BarrierWrite || electedWarp)
        return false;
      if (!waited || !p.barrier || mayOverlap(*p.barrier, *waited))
        return true;
      // A wait on the barrier a hand-off arrives on, after its wait on
      // the one this write completes.
      return llvm::any_of(handOffs, [&](const auto &h) {
        return mayOverlap(h.second, *waited) &&
               mayOverlap(h.first, *p.barrier);
      });
    });
  }
  if (isa<AsyncProxyFenceOpInterface>(&op))
    llvm::erase_if(state.pending,
                   [](const InFlight &p) { return p.kind == Kind::Unfenced; });
  if (!isa<AsyncCopyOpInterface, BarrierCompletedWriteOpInterface>(&op))
    for (Value v : sharedWrittenBuffers(&op))
      if (std::optional<Buffer> b = resolve(v))
        addUnfenced(&op, *b, state);
  // A buffer initialized from registers: its own result, which the effects
  // leave out.
  if (auto alloc = dyn_cast<LocalAllocOp>(&op); alloc && alloc.getSrc())
    if (std::optional<Buffer> b = resolve(alloc.getResult()))
      addUnfenced(&op, *b, state);
}

/// Copies with at least `num` groups closed after theirs land: from then
/// on their bytes are writes of the issuing threads (generic proxy, not
/// yet fenced). A wait without a count (tile-insert-wait-counts did not
/// run) is taken to retire every copy: for the checks that can only miss a
/// race, for the barriers only add one.
void AsyncTransfer::runAsyncWait(AsyncWaitOp wait, AsyncState &state) const {
  std::optional<uint32_t> num = wait.getNum();
  bool accesses = state.tracking == Tracking::Accesses;
  auto lands = [&](const InFlight &p) {
    return !p.foreign && p.minAfter >= 0 &&
           (!num || p.minAfter >= int64_t(*num));
  };
  SmallVector<InFlight, 0> landed;
  llvm::erase_if(state.pending, [&](const InFlight &p) {
    bool retired = p.kind == Kind::Copy && lands(p);
    if (retired)
      landed.push_back(p);
    return retired;
  });
  for (const InFlight &p : landed)
    for (const Buffer &b : p.buffers) {
      addUnfenced(p.op, b, state);
      if (accesses)
        addUnique(state.writes, Access{b, p.op, waitOrdersWarp});
    }
  // Copies handed to a barrier land for their issuing threads too.
  if (accesses)
    for (InFlight &p : state.pending)
      if (p.arrivedCopy && lands(p)) {
        for (const Buffer &b : p.buffers)
          addUnique(state.writes, Access{b, p.op, waitOrdersWarp});
        p.arrivedCopy = false;
      }
  if (num && !accesses)
    state.maxGroups = std::min<int64_t>(state.maxGroups, *num);
}

// --- the checks' walk ------------------------------------------------------

AsyncStateWalker::AsyncStateWalker(func::FuncOp func, int numWarps,
                                   AsyncStateClient *client, bool correlate)
    : func(func), transferFn(func, numWarps), client(client),
      correlate(correlate) {}

AsyncState AsyncStateWalker::run() {
  AsyncState state(Tracking::Events);
  runBlock(func.getBody().front(), state, /*final=*/true);
  return state;
}

bool AsyncStateWalker::transfer(Operation &op, AsyncState &state, bool) {
  if (client)
    client->visit(&op, state);
  transferFn.apply(op, state);
  return true;
}

/// Around the back edge: the next iteration sees the body's work one step
/// back. Work issued before this loop (in an enclosing loop's iteration) is
/// the same event on every trip: its generation counts the back edges of
/// the loop that issued it.
AsyncState AsyncStateWalker::carryAroundBackEdge(scf::ForOp loop,
                                                 const AsyncState &body,
                                                 unsigned generations) {
  AsyncState carried = body.emptyLike();
  carried.maxGroups = body.maxGroups;
  std::optional<int64_t> trips = constantTripCount(loop);
  for (InFlight p : body.pending) {
    if (loop->isProperAncestor(p.op)) {
      if (++p.generation > generations)
        continue;
    } else if (++p.movedAround(loop) + 1 > uint64_t(trips.value_or(INT64_MAX))) {
      // Work from before the loop, its slot seen from a trip past the last
      // one: that version cannot happen (the others of the event stay).
      continue;
    }
    p.forEachBuffer([&](Buffer &b) { b.aroundBackEdge(loop); });
    carried.pending.push_back(std::move(p));
  }
  return carried;
}

/// Groups still growing round after round: commits without waits.
void AsyncStateWalker::saturate(AsyncState &state) {
  state.maxGroups = kManyGroups;
}

/// A copy another partition leaves in flight is foreign to this one: no
/// wait of its threads covers it (a wait counts only the groups of its own
/// threads).
void AsyncStateWalker::addForeign(AsyncState &partition,
                                  const AsyncState &otherEnd,
                                  WarpSpecializeOp ws) {
  for (const InFlight &p : otherEnd.pending) {
    if (p.kind != Kind::Copy || !ws->isProperAncestor(p.op))
      continue;
    InFlight foreign = p;
    foreign.foreign = true;
    partition.pending.push_back(std::move(foreign));
  }
}

// --- commit groups after a token -------------------------------------------
//
// Paths: a token is produced by a commit (its group), by a copy (the group of
// the first commit after it), by a wait (already retired), or flows through
// `scf.for` iter_args / results and `scf.if` results; a loop-carried token
// is followed both from the loop's entry and around the back edge.

namespace {

/// Static trip count of an scf.for, if its bounds are constants.
std::optional<int64_t> tripCount(scf::ForOp loop) {
  auto cst = [](Value v) -> std::optional<int64_t> {
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return i.getInt();
    return std::nullopt;
  };
  auto lb = cst(loop.getLowerBound()), ub = cst(loop.getUpperBound()),
       step = cst(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
}

/// Commit groups on the paths from a token to a wait (the wait counts of
/// tile-insert-wait-counts).
class WaitCounter {
public:
  WaitCounter(SmallVectorImpl<Operation *> &uncommitted,
              SmallVectorImpl<Operation *> &unknown)
      : uncommitted(uncommitted), unknown(unknown) {}

  /// The fewest commits `op` performs on any path through it.
  int64_t commitsIn(Operation *op) {
    if (isa<AsyncCommitGroupOp>(op))
      return 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> n = tripCount(loop);
      if (!n || *n == 0)
        return 0; // may not run
      return std::min<int64_t>(kRetiredGroups, *n * commitsInBlock(*loop.getBody()));
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getElseRegion().empty())
        return 0;
      return std::min(commitsInBlock(branch.getThenRegion().front()),
                      commitsInBlock(branch.getElseRegion().front()));
    }
    if (isa<scf::WhileOp>(op)) {
      // The condition region runs at least once.
      return commitsInBlock(cast<scf::WhileOp>(op).getBefore().front());
    }
    return 0;
  }

  int64_t commitsInBlock(Block &block) {
    return commitsBetween(&block, block.begin(), block.end());
  }

  /// Commits of the ops in [from, to) of `block`.
  int64_t commitsBetween(Block *block, Block::iterator from,
                         Block::iterator to) {
    int64_t n = 0;
    for (auto it = from; it != to; ++it)
      n = std::min(kRetiredGroups, n + commitsIn(&*it));
    return n;
  }

  /// Commits from the start of `op`'s block up to `op`, and so on outwards
  /// up to (excluding) `stop`'s block: those every path from the start of
  /// the region containing `op` (inside `stop`'s block level) performs.
  int64_t commitsBefore(Operation *op, Operation *ancestorInStopBlock) {
    int64_t n = 0;
    while (op != ancestorInStopBlock) {
      n += commitsBetween(op->getBlock(), op->getBlock()->begin(),
                          Block::iterator(op));
      op = op->getParentOp();
    }
    return n;
  }

  /// The fewest groups closed after `token`'s group, as seen at `at`
  /// (an op that `token` dominates). kRetiredGroups when the token is retired.
  /// Fails when a copy is not committed on some path.
  FailureOr<int64_t> groupsAfter(Value token, Operation *at) {
    if (!visiting.insert(token).second)
      return kRetiredGroups; // a token carried around a loop unchanged: the entry
                       // path gives the minimum
    FailureOr<int64_t> r = groupsAfterImpl(token, at);
    visiting.erase(token);
    return r;
  }

private:
  SmallVectorImpl<Operation *> &uncommitted;
  SmallVectorImpl<Operation *> &unknown;

  /// Commits on every path from just after `def` (an op) to `at`.
  int64_t commitsFromTo(Operation *def, Operation *at) {
    // Find the ancestor of `at` in `def`'s block.
    Operation *anc = def->getBlock()->findAncestorOpInBlock(*at);
    if (!anc)
      return 0; // not nested: cannot happen for a dominating definition
    int64_t n = commitsBetween(def->getBlock(), std::next(Block::iterator(def)),
                               Block::iterator(anc));
    if (anc != at)
      n += commitsBefore(at, anc);
    return n;
  }

  FailureOr<int64_t> groupsAfterImpl(Value token, Operation *at) {
    if (auto arg = dyn_cast<BlockArgument>(token)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0) {
        unknown.push_back(at);
        return 0;
      }
      unsigned i = arg.getArgNumber() - 1;
      // From the start of the body to `at`, on top of either the value the
      // loop was entered with or the one the last iteration yielded.
      Operation *anc = loop.getBody()->findAncestorOpInBlock(*at);
      int64_t toAt = commitsBetween(loop.getBody(), loop.getBody()->begin(),
                                    Block::iterator(anc)) +
                     (anc != at ? commitsBefore(at, anc) : 0);
      FailureOr<int64_t> entry = groupsAfter(loop.getInitArgs()[i], loop);
      Operation *yield = loop.getBody()->getTerminator();
      FailureOr<int64_t> back = groupsAfter(yield->getOperand(i), yield);
      if (failed(entry) || failed(back))
        return failure();
      return std::min(kRetiredGroups, std::min(*entry, *back) + toAt);
    }
    Operation *def = token.getDefiningOp();
    if (isa<AsyncWaitOp>(def))
      return kRetiredGroups;
    if (isa<AsyncCommitGroupOp>(def))
      return std::min(kRetiredGroups, commitsFromTo(def, at));
    if (isa<AsyncCopyOpInterface>(def)) {
      int64_t n = commitsFromTo(def, at);
      if (n == 0) {
        uncommitted.push_back(def);
        return failure();
      }
      return n - 1; // its own group is the first commit after it
    }
    unsigned i = cast<OpResult>(token).getResultNumber();
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      int64_t after = commitsFromTo(def, at);
      int64_t best = kRetiredGroups;
      for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()}) {
        if (r->empty())
          continue;
        Operation *yield = r->front().getTerminator();
        FailureOr<int64_t> g = groupsAfter(yield->getOperand(i), yield);
        if (failed(g))
          return failure();
        best = std::min(best, *g);
      }
      return std::min(kRetiredGroups, best + after);
    }
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      int64_t after = commitsFromTo(def, at);
      Operation *yield = loop.getBody()->getTerminator();
      FailureOr<int64_t> last = groupsAfter(yield->getOperand(i), yield);
      if (failed(last))
        return failure();
      int64_t best = *last;
      std::optional<int64_t> n = tripCount(loop);
      if (!n || *n == 0) { // the loop may not run: the value it was entered with
        FailureOr<int64_t> entry = groupsAfter(loop.getInitArgs()[i], loop);
        if (failed(entry))
          return failure();
        best = std::min(best, *entry);
      }
      return std::min(kRetiredGroups, best + after);
    }
    unknown.push_back(at);
    return 0;
  }

  llvm::SmallPtrSet<Value, 8> visiting;
};

} // namespace

FailureOr<int64_t>
async::groupsAfter(Value token, Operation *at,
                   SmallVectorImpl<Operation *> &uncommitted,
                   SmallVectorImpl<Operation *> &unknown) {
  return WaitCounter(uncommitted, unknown).groupsAfter(token, at);
}
