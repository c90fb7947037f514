//===- ForwardWalk.h - One forward walk over structured control flow -*- C++ -*-===//
//
// The walk every analysis of in-flight async work shares: over a block's
// ops in order, through scf.for and scf.while, scf.if, warp_specialize and
// other region ops, with a client-chosen policy for loops and partitions.
// A client supplies the lattice (copyable, ==, forEachSlot over its ring
// slots; for every client today AsyncState.h's, with the tracking its
// policy needs) and the transfer of single ops (AsyncTransfer, with what
// the client decides around it); the walk owns the joins and the loop
// fixed point, so the clients agree on control flow by construction and
// differ only where their policy says so.
//
// Two policies exist because they decide different things:
//  - AsyncStateWalker (tile-check-async-safety, the wait counts) follows
//    each piece of work over a few back-edge generations bounded by a
//    constant trip count, so a copy is not taken to be in flight on a trip
//    that cannot happen;
//  - tile-insert-barriers accumulates every round's end state into the
//    loop head (a barrier in the body clears state, so the head of one
//    round alone could oscillate), capped at a number of rounds, and then
//    walks the body a last time to insert (`final`).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_FORWARDWALK_H
#define KILN_ANALYSIS_FORWARDWALK_H

#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace kiln::tile::async {

/// How a walk treats loops, scf.while, partitions and other region ops.
struct WalkPolicy {
  enum class Loops {
    /// Join the loop head with the entry state and what the body carries
    /// around the back edge (the client's `carryAroundBackEdge`, which
    /// drops work older than `maxGenerations` back edges or a constant
    /// trip count); the exit is the join of every round's end.
    Generations,
    /// Join every round's end into the loop head until it stops changing
    /// or `maxRounds` rounds ran, then walk the body a last time with
    /// `final` set; the exit is the head joined with that last end.
    Accumulate,
  };
  Loops loops;
  unsigned maxGenerations = 0; // Generations
  unsigned maxRounds = 0;      // Accumulate
  /// scf.while is walked as a loop (before, then after region, as its
  /// body); otherwise like any other region op.
  bool whileAsLoop = false;
  /// warp_specialize partitions start from an empty state and nothing is
  /// left after the op (every warp meets at a barrier at both ends);
  /// otherwise they start from the state before it and the client's
  /// `addForeign` gives each partition what the others leave in flight.
  bool freshPartitions = false;
  /// Other region ops: each block is walked from the state before the op
  /// and joined with it (it may not run), or walked in place, one after
  /// the other.
  bool joinOtherRegions = true;
  /// After an scf.if, the rest of its block is walked on each branch's
  /// state apart (up to 8 paths, then joined), and a later scf.if of the
  /// block on the same condition -- the same value, or the same pure
  /// computation of the same values -- takes on each path the region that
  /// path's earlier branch took: a prefetch under `if i + 1 < n` and the
  /// wait for it under another `if i + 1 < n` are on one path. The client
  /// sees each op once per path (so the walk cannot be one that rewrites
  /// the IR as it goes). `Derived::correlatesBranches()` turns it on per
  /// walk.
  bool correlateBranches = false;
};

/// Whether `a` and `b` are the same i1 value wherever both are defined in
/// one execution of a block: the same SSA value, or results of the same
/// pure operation (name, attributes) of operands that are so, up to
/// `depth` operations deep.
bool sameCondition(mlir::Value a, mlir::Value b, unsigned depth = 6);

/// The trip count of `loop` when its bounds and step are constants.
std::optional<int64_t> constantTripCount(mlir::scf::ForOp loop);

/// The trips branch conditions a path took (each i1 value with the side
/// taken) make `loop` run at least (0 when they say nothing): 1 for a
/// signed `lb < ub` on its own bounds; for `c < ub` / `c <= ub` with a
/// constant lower bound, the trips from lb to c + 1 (c); for `c < x` /
/// `c <= x` with ub = ceildiv(x, s) (`(x + s - 1) / s`), the trips to
/// ceildiv(c + 1, s) (ceildiv(c, s)), as `if 64 < K:` before `for k in
/// range(cdiv(K, 64))`: two. The bounds' arithmetic is assumed not to
/// overflow.
int64_t impliedMinTrips(
    llvm::ArrayRef<std::pair<mlir::Value, bool>> taken, mlir::scf::ForOp loop);

/// The iterations of `loop` as consecutive segments by the scf.ifs of its
/// body on conditions `iv + d < x` (or <=, >, >= forms; x defined outside
/// the loop, a positive constant step): such a condition, once false, stays
/// false (iv + d is assumed not to overflow), so with the guards of one x
/// the iterations run where all hold, then where those of the largest d
/// fail, and so on. Per segment, each guard's condition and its value
/// there, and the most iterations it can have (segments between two
/// thresholds: their difference over the step); empty when the body has no
/// such guard.
struct GuardSegment {
  llvm::SmallVector<std::pair<mlir::Value, bool>> conditions;
  std::optional<int64_t> maxTrips;
};
llvm::SmallVector<GuardSegment> guardSegments(mlir::scf::ForOp loop);

/// The walk. `Derived` provides `static constexpr WalkPolicy policy`,
/// `bool transfer(Operation &, State &, bool final)` (the op's own effect;
/// true: walk its regions next) and, as its policy needs them,
/// `State carryAroundBackEdge(scf::ForOp, const State &body, unsigned
/// generations)`, `void saturate(State &)` (a loop that did not settle in
/// time), `void addForeign(State &partition, const State &otherEnd,
/// WarpSpecializeOp)`. `State` provides `static State join(a, b)`, `==`,
/// `forEachSlot(function_ref<void(RingSlot &)>)` and `emptyLike()` (an
/// empty state of the same kind, for fresh partitions).
/// `final` is false on rounds of a loop's fixed point whose results the
/// walk will discard (Accumulate), true otherwise.
template <typename Derived, typename State> class ForwardWalk {
public:
  void runBlock(mlir::Block &block, State &state, bool final) {
    bool correlate = false;
    if constexpr (Derived::policy.correlateBranches)
      correlate = derived().correlatesBranches();
    if (!correlate) {
      for (mlir::Operation &op : llvm::make_early_inc_range(block))
        runOp(op, state, final);
      return;
    }
    // Paths through the block's scf.ifs so far, each with the conditions
    // it took, walked apart; past kMaxPaths they are joined into one (the
    // uncorrelated walk from there on).
    struct Path {
      llvm::SmallVector<std::pair<mlir::Value, bool>, 4> taken;
      State state;
    };
    constexpr size_t kMaxPaths = 8;
    llvm::SmallVector<Path, 2> paths;
    paths.push_back(Path{{}, state});
    for (mlir::Operation &op : llvm::make_early_inc_range(block)) {
      auto branch = mlir::dyn_cast<mlir::scf::IfOp>(&op);
      if (!branch) {
        auto loop = mlir::dyn_cast<mlir::scf::ForOp>(&op);
        for (Path &p : paths) {
          // A loop this path's conditions make run: no exit before the
          // trips they imply.
          minTripsOf = loop ? &op : nullptr;
          minTrips = loop ? impliedMinTrips(p.taken, loop) : 0;
          runOp(op, p.state, final);
          minTripsOf = nullptr;
        }
        continue;
      }
      llvm::SmallVector<Path, 2> next;
      for (Path &p : paths) {
        std::optional<bool> known = forcedValue(branch.getCondition());
        for (auto &[c, v] : p.taken)
          if (sameCondition(c, branch.getCondition()))
            known = v;
        if (known) {
          runBranch(branch, p.state, *known, final);
          next.push_back(std::move(p));
          continue;
        }
        if (!derived().transfer(op, p.state, final)) {
          next.push_back(std::move(p));
          continue;
        }
        Path otherwise = p;
        runBlock(*branch.thenBlock(), p.state, final);
        if (branch.elseBlock())
          runBlock(*branch.elseBlock(), otherwise.state, final);
        p.taken.push_back({branch.getCondition(), true});
        otherwise.taken.push_back({branch.getCondition(), false});
        next.push_back(std::move(p));
        next.push_back(std::move(otherwise));
      }
      paths = std::move(next);
      if (paths.size() > kMaxPaths) {
        State all = paths.front().state;
        for (Path &p : llvm::drop_begin(paths))
          all = State::join(all, p.state);
        paths.clear();
        paths.push_back(Path{{}, std::move(all)});
      }
    }
    state = paths.front().state;
    for (Path &p : llvm::drop_begin(paths))
      state = State::join(state, p.state);
  }

protected:
  Derived &derived() { return static_cast<Derived &>(*this); }

  /// Conditions a loop segment fixes (guardSegments): an scf.if on one of
  /// them runs only the side its value takes. Segments of at most this many
  /// iterations are walked iteration by iteration.
  static constexpr int64_t kMaxUnrolledTrips = 8;
  llvm::SmallVector<std::pair<mlir::Value, bool>> forced;
  std::optional<bool> forcedValue(mlir::Value cond) const {
    for (auto &[c, v] : llvm::reverse(forced))
      if (c == cond)
        return v;
    return std::nullopt;
  }

  /// The loop runOp is walking and the trips the path's branch conditions
  /// make it run at least (read as the loop starts, before any nested walk).
  mlir::Operation *minTripsOf = nullptr;
  int64_t minTrips = 0;
  int64_t takeMinTrips(mlir::Operation *loop) {
    int64_t trips = minTripsOf == loop ? minTrips : 0;
    minTripsOf = nullptr;
    return trips;
  }

  /// An scf.if on a path where its condition is known: the op's own
  /// effect, then only the region that path takes.
  void runBranch(mlir::scf::IfOp branch, State &state, bool thenRegion,
                 bool final) {
    if (!derived().transfer(*branch, state, final))
      return;
    if (thenRegion)
      runBlock(*branch.thenBlock(), state, final);
    else if (branch.elseBlock())
      runBlock(*branch.elseBlock(), state, final);
  }
  static constexpr const WalkPolicy &policy() { return Derived::policy; }

  void runOp(mlir::Operation &op, State &state, bool final) {
    if (!derived().transfer(op, state, final))
      return;
    if (auto loop = mlir::dyn_cast<mlir::scf::ForOp>(&op))
      return runLoop(loop, state, final);
    if (policy().whileAsLoop && mlir::isa<mlir::scf::WhileOp>(&op))
      return runLoop(&op, state, final);
    if (auto branch = mlir::dyn_cast<mlir::scf::IfOp>(&op)) {
      if (std::optional<bool> known = forcedValue(branch.getCondition())) {
        if (*known)
          runBlock(*branch.thenBlock(), state, final);
        else if (branch.elseBlock())
          runBlock(*branch.elseBlock(), state, final);
        return;
      }
      State thenState = state, elseState = state;
      runBlock(*branch.thenBlock(), thenState, final);
      if (branch.elseBlock())
        runBlock(*branch.elseBlock(), elseState, final);
      state = State::join(thenState, elseState);
      return;
    }
    if (auto ws = mlir::dyn_cast<WarpSpecializeOp>(&op))
      return runWarpSpecialize(ws, state, final);
    for (mlir::Region &region : op.getRegions())
      for (mlir::Block &block : region) {
        if (!policy().joinOtherRegions) {
          runBlock(block, state, final);
          continue;
        }
        State inner = state;
        runBlock(block, inner, final);
        state = State::join(state, inner);
        state.forEachSlot([&](RingSlot &s) { s = s.leaving(&op); });
      }
  }

  void runBody(mlir::Operation *loop, State &state, bool final) {
    if (auto forOp = mlir::dyn_cast<mlir::scf::ForOp>(loop))
      return runBlock(*forOp.getBody(), state, final);
    auto whileOp = mlir::cast<mlir::scf::WhileOp>(loop);
    runBlock(whileOp.getBefore().front(), state, final);
    runBlock(whileOp.getAfter().front(), state, final);
  }

  void runLoop(mlir::Operation *loop, State &state, bool final) {
    if constexpr (Derived::policy.loops == WalkPolicy::Loops::Accumulate)
      runAccumulating(loop, state, final);
    else
      runGenerations(mlir::cast<mlir::scf::ForOp>(loop), state, final);
  }

  /// The body runs from the join of the entry state and every end state
  /// seen, iterated until that stops changing (the client's sets only
  /// grow, slots are taken modulo the ring size, counts only fall) or for
  /// `maxRounds` rounds; then once more with `final`.
  void runAccumulating(mlir::Operation *loop, State &state, bool final) {
    bool once = takeMinTrips(loop) > 0;
    State entry = state;
    // Forget an earlier run of this loop; on the first iteration the
    // induction variable is the lower bound.
    entry.forEachSlot([&](RingSlot &s) { s = s.leaving(loop); });
    if (auto forOp = mlir::dyn_cast<mlir::scf::ForOp>(loop))
      entry.forEachSlot([&](RingSlot &s) { s = s.enteringLoop(forOp); });
    State in = entry;
    for (unsigned round = 0; round < policy().maxRounds; ++round) {
      State out = in;
      runBody(loop, out, /*final=*/false);
      out.forEachSlot([&](RingSlot &s) { s = s.aroundBackEdge(loop); });
      State next = State::join(in, out);
      if (next == in)
        break;
      in = std::move(next);
    }
    State out = in;
    runBody(loop, out, final);
    // The loop may run zero times (for) or exit after its condition (while).
    // An scf.for exits at its head: the last trip's slots seen from there.
    if (mlir::isa<mlir::scf::ForOp>(loop))
      out.forEachSlot([&](RingSlot &s) { s = s.aroundBackEdge(loop); });
    state = once ? std::move(out) : State::join(in, out);
    state.forEachSlot([&](RingSlot &s) { s = s.leaving(loop); });
  }

  /// Rounds until the head state (entry joined with what the body carries
  /// around the back edge) settles; the exit joins every round's end (and
  /// the entry when the loop may be skipped).
  void runGenerations(mlir::scf::ForOp loop, State &state, bool final) {
    // A constant trip count bounds how many back edges anything crosses,
    // and from 1 on the loop cannot be skipped.
    unsigned generations = policy().maxGenerations;
    int64_t leastTrips = takeMinTrips(loop);
    bool mayBeSkipped = leastTrips == 0;
    std::optional<int64_t> constantTrips = constantTripCount(loop);
    if (std::optional<int64_t> trips = constantTrips) {
      if (*trips == 0)
        return; // the body never runs
      generations = unsigned(std::min<int64_t>(generations, *trips - 1));
      mayBeSkipped = false;
    }
    State entry = state;
    entry.forEachSlot([&](RingSlot &s) { s = s.enteringLoop(loop); });
    entry.enteringLoopWork(loop);
    State exits;
    bool first = true;
    auto exitWith = [&](const State &s) {
      exits = first ? s : State::join(exits, s);
      first = false;
    };
    if (mayBeSkipped)
      exitWith(state);
    // A trip's end leaves the loop through its head: its slots as the head
    // sees them (the work in flight is kept whatever its generation).
    auto exitAfterTrip = [&](const State &body) {
      State atHead = body;
      atHead.forEachSlot([&](RingSlot &s) { s = s.aroundBackEdge(loop); });
      exitWith(atHead);
    };
    // One fixed point per segment of iterations (guardSegments; the whole
    // loop when the body has no guard), each from the head state the
    // segments before it leave: skipped, or after their last iteration.
    auto segments = guardSegments(loop);
    if (segments.empty() && constantTrips && *constantTrips <= kMaxUnrolledTrips) {
      // A constant trip count of at most n: walked as its trips, the loop
      // left only after the last (an exit after an earlier one would pair
      // the counters the loop returns with work that is done by then).
      State cur = entry;
      for (int64_t t = 0; t < *constantTrips; ++t) {
        State body = cur;
        runBlock(*loop.getBody(), body, final);
        if (t + 1 == *constantTrips)
          exitAfterTrip(body);
        else
          cur = derived().carryAroundBackEdge(loop, body, generations);
      }
      exits.forEachSlot([&](RingSlot &s) { s = s.leaving(loop); });
      state = std::move(exits);
      return;
    }
    State head = entry;
    if (segments.empty() && leastTrips > 1) {
      // At least n trips (the path's conditions): the first n - 1 walked
      // as trips the loop is not left after; the fixed point below starts
      // at the head of trip n. (A loop with guard segments takes only "not
      // skipped" from n: its segments are walked from the loop's head.)
      for (int64_t t = 0; t + 1 < std::min(leastTrips, kMaxUnrolledTrips);
           ++t) {
        State body = head;
        runBlock(*loop.getBody(), body, final);
        head = derived().carryAroundBackEdge(loop, body, generations);
      }
    }
    if (segments.empty())
      segments.emplace_back();
    for (auto [j, segment] : llvm::enumerate(segments)) {
      size_t depth = forced.size();
      forced.append(segment.conditions.begin(), segment.conditions.end());
      State nextHead = head;
      if (segment.maxTrips && *segment.maxTrips <= kMaxUnrolledTrips) {
        // A segment of at most n iterations: walked as n iterations, each
        // possibly the segment's last.
        State cur = head;
        for (int64_t t = 0; t < *segment.maxTrips; ++t) {
          State body = cur;
          runBlock(*loop.getBody(), body, final);
          exitAfterTrip(body);
          cur = derived().carryAroundBackEdge(loop, body, generations);
          nextHead = State::join(nextHead, cur);
        }
      } else {
        State in = head;
        auto endWith = [&](const State &body) {
          exitAfterTrip(body);
          nextHead = State::join(
              nextHead, derived().carryAroundBackEdge(loop, body, generations));
        };
        bool settled = false;
        for (unsigned round = 0; round < policy().maxGenerations + 2;
             ++round) {
          State body = in;
          runBlock(*loop.getBody(), body, final);
          endWith(body);
          State next = State::join(
              head, derived().carryAroundBackEdge(loop, body, generations));
          if (next == in) {
            settled = true;
            break;
          }
          in = std::move(next);
        }
        if (!settled) {
          derived().saturate(in);
          State body = in;
          runBlock(*loop.getBody(), body, final);
          endWith(body);
          derived().saturate(exits);
          derived().saturate(nextHead);
        }
      }
      forced.resize(depth);
      head = std::move(nextHead);
    }
    exits.forEachSlot([&](RingSlot &s) { s = s.leaving(loop); });
    state = std::move(exits);
  }

  void runWarpSpecialize(WarpSpecializeOp ws, State &state, bool final) {
    if constexpr (Derived::policy.freshPartitions) {
      for (mlir::Region &region : ws->getRegions())
        for (mlir::Block &block : region) {
          State inner = state.emptyLike();
          runBlock(block, inner, final);
        }
      state = state.emptyLike();
    } else {
      // Concurrent from one state: each partition once alone, then again
      // with what the others leave in flight.
      llvm::SmallVector<State> ends;
      for (mlir::Region &region : ws->getRegions()) {
        State inner = state;
        runBlock(region.front(), inner, final);
        ends.push_back(std::move(inner));
      }
      State out = state;
      for (auto [k, region] : llvm::enumerate(ws->getRegions())) {
        State inner = state;
        for (auto [j, end] : llvm::enumerate(ends))
          if (j != k)
            derived().addForeign(inner, end, ws);
        runBlock(region.front(), inner, final);
        out = State::join(out, ends[k]);
      }
      out.forEachSlot([&](RingSlot &s) { s = s.leaving(ws); });
      state = std::move(out);
    }
  }
};

} // namespace kiln::tile::async

#endif
