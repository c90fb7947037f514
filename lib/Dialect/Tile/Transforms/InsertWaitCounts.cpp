//===- InsertWaitCounts.cpp - Wait counts from async tokens ---------------===//
//
// A wait that names tokens instead of a count (`tile.async_wait %t`) must let
// the groups of those tokens retire and may leave every later group in
// flight: its count is the fewest commit groups closed after the tokens'
// groups, over every path from them to the wait. The count never
// overestimates: a loop whose trip count is unknown contributes no groups,
// an `scf.if` the smaller of its branches, and what the pass cannot follow
// counts 0 (with a remark). A wait the user gave a count keeps it.
//
// Paths: a token is produced by a commit (its group), by a copy (the group of
// the first commit after it), by a wait (already retired), or flows through
// `scf.for` iter_args / results and `scf.if` results; a loop-carried token
// is followed both from the loop's entry and around the back edge.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AddressForm.h"
#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Analysis/VectorWidth.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <limits>

namespace kiln::tile {
#define GEN_PASS_DEF_TILEINSERTWAITCOUNTSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

constexpr int64_t kRetired = std::numeric_limits<int64_t>::max() / 4;

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

class WaitCounter {
public:
  /// The fewest commits `op` performs on any path through it.
  int64_t commitsIn(Operation *op) {
    if (isa<AsyncCommitGroupOp>(op))
      return 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> n = tripCount(loop);
      if (!n || *n == 0)
        return 0; // may not run
      return std::min<int64_t>(kRetired, *n * commitsInBlock(*loop.getBody()));
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
      n = std::min(kRetired, n + commitsIn(&*it));
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
  /// (an op that `token` dominates). kRetired when the token is retired.
  /// Fails when a copy is not committed on some path.
  FailureOr<int64_t> groupsAfter(Value token, Operation *at) {
    if (!visiting.insert(token).second)
      return kRetired; // a token carried around a loop unchanged: the entry
                       // path gives the minimum
    FailureOr<int64_t> r = groupsAfterImpl(token, at);
    visiting.erase(token);
    return r;
  }

  SmallVector<Operation *> uncommitted;
  SmallVector<Operation *> unknown;

private:
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
      return std::min(kRetired, std::min(*entry, *back) + toAt);
    }
    Operation *def = token.getDefiningOp();
    if (isa<AsyncWaitOp>(def))
      return kRetired;
    if (isa<AsyncCommitGroupOp>(def))
      return std::min(kRetired, commitsFromTo(def, at));
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
      int64_t best = kRetired;
      for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()}) {
        if (r->empty())
          continue;
        Operation *yield = r->front().getTerminator();
        FailureOr<int64_t> g = groupsAfter(yield->getOperand(i), yield);
        if (failed(g))
          return failure();
        best = std::min(best, *g);
      }
      return std::min(kRetired, best + after);
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
      return std::min(kRetired, best + after);
    }
    unknown.push_back(at);
    return 0;
  }

  llvm::SmallPtrSet<Value, 8> visiting;
};

/// For targets whose wait counts instructions: the fewest copy instructions
/// issued after the awaited group (the (num+1)-th most recent commit), over
/// every path back from the wait. States are indexed by the commits passed
/// so far and keep the smallest instruction count; loops are walked 0 to
/// need+1 times and anything not understood ends the walk there (counting
/// fewer instructions only makes the wait stricter).
/// The kernel argument a pointer value comes from (through splat, addptr,
/// broadcast, expand_dims, convert_layout, reshape, hint), or null.
Value pointerRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto splat = dyn_cast<SplatOp>(def))
      v = splat.getSrc();
    else if (auto add = dyn_cast<AddPtrOp>(def))
      v = add.getPtr();
    else if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp, ReshapeOp, HintOp>(def))
      v = def->getOperand(0);
    else
      return Value();
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp()) ||
      !arg.getOwner()->isEntryBlock())
    return Value();
  return arg;
}

/// Counted ops whose instructions LLVM might merge with another counted
/// op's. LLVM merges two accesses only when it proves them adjacent, which
/// needs a common base, and only within straight-line code with nothing
/// ordering memory between them: so two ops of the same kind in one stretch
/// of a block (between waits, barriers and region ops) whose pointers come
/// from the same kernel argument, or either from one the trace does not
/// reach. An op inside a loop may also merge with itself once LLVM unrolls
/// the loop. Such an op counts only its whole 16-byte chunks: a merged
/// instruction moves at most 16 bytes a lane, so the ops together still issue
/// at least the sum of those.
struct Mergeable {
  llvm::DenseSet<Operation *> ops;
  /// Stores whose accesses LLVM can merge with no other (AddressForm): the
  /// instructions each issues, as the lowering issues them.
  llvm::DenseMap<Operation *, unsigned> exact;
};

Mergeable findMergeable(Operation *root, const TargetDesc *option) {
  using Key = std::tuple<unsigned, OperationName, Value>;
  llvm::DenseMap<Key, unsigned> perBase;
  llvm::DenseMap<Key, SmallVector<Operation *>> groups;
  llvm::DenseMap<std::pair<unsigned, OperationName>, unsigned> perKind;
  SmallVector<std::tuple<Operation *, unsigned, Value>> ops;
  unsigned stretch = 0;
  root->walk([&](Block *block) {
    ++stretch;
    for (Operation &op : *block) {
      if (isa<AsyncWaitOp, BarrierOp>(op) || op.getNumRegions() > 0) {
        ++stretch;
        continue;
      }
      auto mem = dyn_cast<CountedMemoryOpInterface>(op);
      if (!mem)
        continue;
      Value base = pointerRoot(mem.getCountedPointers());
      ops.push_back({&op, stretch, base});
      ++perBase[{stretch, op.getName(), base}];
      ++perKind[{stretch, op.getName()}];
      groups[{stretch, op.getName(), base}].push_back(&op);
    }
  });
  auto unrolled = [](Operation *op) {
    auto loop = op->getParentOfType<LoopLikeOpInterface>();
    return loop && !loop->hasAttr("llvm.loop_annotation");
  };
  Mergeable result;
  // The stores of one argument in one stretch whose addresses show that
  // LLVM can merge none of their accesses count as the lowering issues them.
  AxisInfoAnalysis axis;
  for (auto &[key, group] : groups) {
    auto [at, name, base] = key;
    if (!base || perBase.lookup({at, name, Value()}) > 0 ||
        !llvm::all_of(group, [&](Operation *op) {
          return isa<StoreOp>(op) && !unrolled(op);
        }))
      continue;
    const TargetDesc *target = option ? option : getEnclosingTarget(group[0]);
    if (!target)
      continue;
    SmallVector<Value> ptrs;
    SmallVector<unsigned> vecs;
    for (Operation *op : group) {
      auto store = cast<StoreOp>(op);
      ptrs.push_back(store.getPtr());
      vecs.push_back(getPointerVectorWidth(store.getPtr(), store.getMask(),
                                           axis, target->maxVectorBytes));
    }
    if (std::optional<SmallVector<unsigned>> counts =
            countUnmergeableAccesses(ptrs, vecs, target->warpSize))
      for (auto [op, n] : llvm::zip(group, *counts))
        result.exact[op] = n;
  }
  for (auto [op, at, base] : ops) {
    if (result.exact.contains(op))
      continue;
    bool untraced = perBase.lookup({at, op->getName(), Value()}) > 0;
    bool alone = base ? perBase.lookup({at, op->getName(), base}) == 1 && !untraced
                      : perKind.lookup({at, op->getName()}) == 1;
    if (!alone || unrolled(op))
      result.ops.insert(op);
  }
  return result;
}

class InstructionCounter {
public:
  InstructionCounter(const TargetDesc *target, unsigned need,
                     const Mergeable &mergeable)
      : target(target), need(need), mergeable(mergeable) {}

  int64_t countBefore(Operation *wait) {
    States s(need, kInf);
    s[0] = 0;
    fromPosition(wait, std::move(s), 0);
    return finished == kInf ? 0 : finished;
  }

private:
  using States = SmallVector<int64_t>;
  static constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

  void finishAll(const States &s) {
    for (int64_t c : s)
      finished = std::min(finished, c);
  }

  static States merge(const States &a, const States &b) {
    States r(a);
    for (auto [x, y] : llvm::zip(r, b))
      x = std::min(x, y);
    return r;
  }

  unsigned weight(Operation *op) {
    auto it = weights.find(op);
    if (it == weights.end()) {
      unsigned w = 0;
      if (auto copy = dyn_cast<AsyncCopyOpInterface>(op))
        w = getAsyncCopyInstructions(copy, target);
      else if (auto mem = dyn_cast<CountedMemoryOpInterface>(op)) {
        w = mem.getMinIssuedInstructions();
        if (auto it = mergeable.exact.find(op);
            w && it != mergeable.exact.end()) {
          it = weights.try_emplace(op, it->second).first;
          return it->second;
        }
        if (w && mergeable.ops.contains(op))
          w = getVectorMemoryBytes(mem.getCountedType()) / 16;
        // Elements whose addresses the axis analysis finds equal: LLVM may
        // keep only the last store to each address.
        if (w > 1) {
          AxisInfo info = axis.get(mem.getCountedAddresses());
          if (llvm::any_of(info.constancy, [](int64_t k) { return k > 1; }))
            w = 1;
        }
      }
      it = weights.try_emplace(op, w).first;
    }
    return it->second;
  }

  /// Walks [block.begin(), end) backwards.
  States walkOps(Block &block, Block::iterator end, States s) {
    for (auto it = end; it != block.begin();) {
      Operation *op = &*--it;
      if (isa<AsyncCopyOpInterface, CountedMemoryOpInterface>(op)) {
        // Copies, and loads and stores whose instruction count the lowering
        // pins: the hardware counter sees them all.
        for (int64_t &c : s)
          if (c != kInf)
            c += weight(op);
      } else if (isa<AsyncCommitGroupOp>(op)) {
        finished = std::min(finished, s[need - 1]); // the awaited group
        for (unsigned k = need - 1; k > 0; --k)
          s[k] = s[k - 1];
        s[0] = kInf;
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        States thenS = walkOps(branch.getThenRegion().front(),
                               branch.getThenRegion().front().end(), s);
        States elseS = branch.getElseRegion().empty()
                           ? s
                           : walkOps(branch.getElseRegion().front(),
                                     branch.getElseRegion().front().end(), s);
        s = merge(thenS, elseS);
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        States acc = s, cur = s; // 0 .. need+1 iterations
        for (unsigned i = 0; i <= need; ++i) {
          cur = walkOps(*loop.getBody(), loop.getBody()->end(), cur);
          acc = merge(acc, cur);
        }
        s = acc;
      } else if (op->getNumRegions() > 0) {
        finishAll(s);
        s.assign(need, kInf);
      }
    }
    return s;
  }

  /// Continues backwards from just before `at`, then out of its block.
  void fromPosition(Operation *at, States s, unsigned backEdges) {
    s = walkOps(*at->getBlock(), Block::iterator(at), std::move(s));
    atBlockStart(at->getBlock(), std::move(s), backEdges);
  }

  void atBlockStart(Block *block, States s, unsigned backEdges) {
    Operation *parent = block->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      fromPosition(loop, s, backEdges); // entered from before the loop
      if (backEdges <= need) {          // or around the back edge
        States prev = walkOps(*block, block->end(), s);
        atBlockStart(block, std::move(prev), backEdges + 1);
      } else {
        finishAll(s);
      }
      return;
    }
    if (isa<scf::IfOp>(parent)) {
      fromPosition(parent, std::move(s), backEdges);
      return;
    }
    finishAll(s); // the function's start, or a region not followed
  }

  const TargetDesc *target;
  unsigned need;
  const Mergeable &mergeable;
  AxisInfoAnalysis axis;
  int64_t finished = kInf;
  DenseMap<Operation *, unsigned> weights;
};

struct InsertWaitCounts
    : kiln::tile::impl::TileInsertWaitCountsPassBase<InsertWaitCounts> {
  using Base::Base;

  /// Loops of functions whose waits count instructions are not unrolled
  /// (llvm.loop_annotation, carried to the back edge by the lowering): the
  /// count of an op in a loop then holds for each iteration, with no copy of
  /// it from the next iteration for LLVM to merge it with.
  void disableUnrolling(const TargetDesc *option) {
    auto ctx = &getContext();
    auto unroll = LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {},
                                            {}, {}, {}, {}, {});
    auto annotation = LLVM::LoopAnnotationAttr::get(
        ctx, {}, {}, {}, unroll, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
    getOperation().walk([&](FunctionOpInterface fn) {
      bool counts = false;
      fn.walk([&](AsyncWaitOp wait) {
        const TargetDesc *t = option ? option : getEnclosingTarget(wait);
        counts |= t && t->asyncWaitCountsInstructions;
      });
      if (counts)
        fn.walk([&](scf::ForOp loop) {
          loop->setAttr("llvm.loop_annotation", annotation);
        });
    });
  }

  void runOnOperation() override {
    countGroups();
    // Targets whose waits count instructions: every wait with a group count
    // gets its instruction count too. (An unknown target name is the
    // allocation pass's error to report.)
    const TargetDesc *option = target.empty() ? nullptr : lookupTarget(target);
    disableUnrolling(option);
    Mergeable mergeable = findMergeable(getOperation(), option);
    getOperation().walk([&](AsyncWaitOp wait) {
      const TargetDesc *target = option ? option : getEnclosingTarget(wait);
      if (!target || !target->asyncWaitCountsInstructions || !wait.getNum() ||
          wait.getInstructionsAttr())
        return;
      // Stopping at the 65th group back can only count fewer instructions
      // (a stricter wait), and keeps a huge user count from sizing the walk.
      InstructionCounter counter(target, std::min<uint32_t>(*wait.getNum(), 64) + 1,
                                 mergeable);
      int64_t n = std::min<int64_t>(counter.countBefore(wait), 1 << 30);
      // A count the hardware field cannot wait for becomes the largest one
      // that still waits (stricter, never looser).
      if (unsigned cap = target->maxAsyncWaitInstructions)
        n = std::min<int64_t>(n, cap);
      wait.setInstructionsAttr(
          Builder(wait.getContext()).getI32IntegerAttr(n));
    });
  }

  void countGroups() {
    bool failedAny = false;
    getOperation().walk([&](AsyncWaitOp wait) {
      if (wait.getNumAttr())
        return; // the user's count stays
      Builder b(wait.getContext());
      if (wait.getTokens().empty()) {
        wait.emitOpError() << "has neither a count nor tokens to wait for";
        failedAny = true;
        return;
      }
      WaitCounter counter;
      int64_t num = kRetired;
      for (Value token : wait.getTokens()) {
        FailureOr<int64_t> g = counter.groupsAfter(token, wait);
        if (failed(g)) {
          InFlightDiagnostic diag =
              wait.emitOpError() << "waits for an async copy that is not "
                                    "committed on every path to it";
          for (Operation *copy : counter.uncommitted)
            diag.attachNote(copy->getLoc())
                << "this copy has no commit_group after it before the wait";
          failedAny = true;
          return;
        }
        num = std::min(num, *g);
      }
      if (!counter.unknown.empty()) {
        wait.emitRemark() << "cannot follow every token to its commit group; "
                             "waiting for all groups (count 0)";
        num = 0;
      }
      if (num >= kRetired)
        num = 0; // every token already retired: nothing to keep in flight
      wait.setNumAttr(b.getI32IntegerAttr(std::min<int64_t>(num, 1 << 30)));
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
