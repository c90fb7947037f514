//===- SpecializeChosenBuffers.cpp - Name the buffers control flow chooses ===//
//
// tile-check-async-safety compares buffers by allocation, so an access
// through a buffer an `scf.if` chooses or a loop carries (`cur, nxt = nxt,
// cur`: ping-pong buffers) names no allocation and meets nothing. This file
// rewrites a throwaway copy of the function so that every such buffer it
// can follow is one named view again, and the check runs on that copy too:
//
//  * a loop whose shared-memory iteration arguments its body only permutes
//    (each yields another one's block argument) runs whole rounds of P
//    iterations, P the permutation's order: in round copy k the arguments
//    are the initial buffers permuted k times. The iterations left (fewer
//    than P) follow in nested ifs, each run only when the one before it
//    ran, and yield the buffers the loop leaves; the loop's other iteration
//    arguments flow through the copies;
//  * an `scf.if` that yields shared-memory buffers takes the rest of its
//    block into each branch (tail duplication), where its results are the
//    branch's own yielded views; so do the ifs the loops' rewrite leaves.
//    At most kMaxTailCopies of these a function, so the copy stays small.
//
// The copy is equivalent to the function for every trip count and branch,
// and walks no path the function cannot take (an iteration certain to run
// or not gets no guard), so a hazard certain in it is certain in the
// function. What the rewrite cannot follow (a buffer through a while loop,
// a loop that does more than permute its buffers) stays as it was:
// unknown, as the check takes it everywhere.
//
//===----------------------------------------------------------------------===//

#include "AsyncSafety.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace kiln::tile;

namespace {

constexpr unsigned kMaxPeriod = 4;
constexpr unsigned kMaxTailCopies = 8;

bool isBuffer(Value v) { return isa<MemDescType>(v.getType()); }

/// The positions of `loop`'s shared-memory iteration arguments and, for
/// each, the position whose block argument its yield passes on; empty when
/// the loop carries none or its body does more than permute them.
struct Permutation {
  SmallVector<unsigned> args; // iteration-argument positions, in order
  DenseMap<unsigned, unsigned> next; // position -> position it takes next
  unsigned period = 1;
};

std::optional<Permutation> bufferPermutation(scf::ForOp loop) {
  Permutation p;
  if (loop.getUnsignedCmp()) // the rounds' bounds are computed signed
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    if (!isBuffer(arg))
      continue;
    auto from = dyn_cast<BlockArgument>(yield.getOperand(i));
    if (!from || from.getOwner() != loop.getBody() || from.getArgNumber() == 0)
      return std::nullopt;
    p.args.push_back(i);
    p.next[i] = from.getArgNumber() - 1;
  }
  if (p.args.empty())
    return std::nullopt;
  // A permutation of the buffer arguments, and its order.
  llvm::SmallDenseSet<unsigned> targets;
  for (unsigned i : p.args)
    if (!isBuffer(loop.getRegionIterArgs()[p.next[i]]) ||
        !targets.insert(p.next[i]).second)
      return std::nullopt;
  for (unsigned i : p.args) {
    unsigned len = 1;
    for (unsigned j = p.next[i]; j != i; j = p.next[j])
      ++len;
    p.period = std::lcm(p.period, len);
  }
  if (p.period > kMaxPeriod)
    return std::nullopt;
  return p;
}

/// `loop` as whole rounds of `p.period` iterations with its buffers named,
/// then the iterations left (fewer than a round) nested in ifs, each run
/// only when the one before it ran, so no path the loop cannot take is
/// walked: the check must not report on an iteration that does not exist.
void unrollPermutation(scf::ForOp loop, const Permutation &p) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Type ivType = loop.getInductionVar().getType();
  auto constant = [&](OpBuilder &at, int64_t v) -> Value {
    return arith::ConstantOp::create(at, loc, at.getIntegerAttr(ivType, v));
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto times = [&](OpBuilder &at, Value v, int64_t k) -> Value {
    return at.createOrFold<arith::MulIOp>(loc, v, constant(at, k));
  };
  // Whole rounds: lb + (max(ceil((ub - lb) / step), 0) / P) * P * step.
  Value trips = b.createOrFold<arith::MaxSIOp>(
      loc,
      b.createOrFold<arith::CeilDivSIOp>(
          loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), step),
      constant(b, 0));
  Value roundStep = times(b, step, p.period);
  Value wholeUb = b.createOrFold<arith::AddIOp>(
      loc, lb,
      b.createOrFold<arith::MulIOp>(
          loc,
          b.createOrFold<arith::DivSIOp>(loc, trips,
                                         constant(b, p.period)),
          roundStep));

  SmallVector<unsigned> kept; // the other iteration arguments' positions
  SmallVector<Value> keptInit;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!p.next.count(i)) {
      kept.push_back(i);
      keptInit.push_back(loop.getInitArgs()[i]);
    }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  // One iteration at `iv` with buffers `bound` and the other arguments
  // `vals`, cloned at `at`: the other arguments it yields.
  auto iteration = [&](OpBuilder &at, Value iv, ArrayRef<Value> bound,
                       ArrayRef<Value> vals) {
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (unsigned i : p.args)
      map.map(loop.getRegionIterArgs()[i], bound[i]);
    for (auto [k, i] : llvm::enumerate(kept))
      map.map(loop.getRegionIterArgs()[i], vals[k]);
    for (Operation &op : loop.getBody()->without_terminator())
      at.clone(op, map);
    SmallVector<Value> out;
    for (unsigned i : kept)
      out.push_back(map.lookupOrDefault(yield.getOperand(i)));
    return out;
  };
  auto permuted = [&](ArrayRef<Value> bound) {
    SmallVector<Value> next(bound);
    for (unsigned i : p.args)
      next[i] = bound[p.next.lookup(i)];
    return next;
  };
  SmallVector<Value> initial(loop.getInitArgs().begin(),
                             loop.getInitArgs().end());

  auto round = scf::ForOp::create(b, loc, lb, wholeUb, roundStep, keptInit);
  if (!round.getBody()->empty())
    round.getBody()->getTerminator()->erase();
  OpBuilder body = OpBuilder::atBlockEnd(round.getBody());
  SmallVector<Value> vals(round.getRegionIterArgs().begin(),
                          round.getRegionIterArgs().end());
  SmallVector<Value> bound = initial;
  for (unsigned k = 0; k < p.period; ++k) {
    Value iv = k == 0 ? Value(round.getInductionVar())
                      : body.createOrFold<arith::AddIOp>(
                            loc, round.getInductionVar(), times(body, step, k));
    vals = iteration(body, iv, bound, vals);
    bound = permuted(bound);
  }
  scf::YieldOp::create(body, loc, vals);

  // The iterations left, from wholeUb, the buffers back where they began:
  // the other arguments and the buffers after them. An iteration certain to
  // run (or not) gets no guard, so no path the loop cannot take is walked.
  using Carried = std::pair<SmallVector<Value>, SmallVector<Value>>;
  auto buffersOf = [&](ArrayRef<Value> bnd) {
    SmallVector<Value> out;
    for (unsigned i : p.args)
      out.push_back(bnd[i]);
    return out;
  };
  std::function<Carried(OpBuilder &, unsigned, ArrayRef<Value>, ArrayRef<Value>)>
      rest = [&](OpBuilder &at, unsigned k, ArrayRef<Value> bnd,
                 ArrayRef<Value> in) -> Carried {
    if (k + 1 >= p.period)
      return {SmallVector<Value>(in), buffersOf(bnd)};
    Value iv = k == 0 ? wholeUb
                      : at.createOrFold<arith::AddIOp>(loc, wholeUb,
                                                       times(at, step, k));
    Value live = at.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, iv, ub);
    APInt c;
    if (matchPattern(live, m_ConstantInt(&c))) {
      if (c.isZero())
        return {SmallVector<Value>(in), buffersOf(bnd)};
      SmallVector<Value> out = iteration(at, iv, bnd, in);
      return rest(at, k + 1, permuted(bnd), out);
    }
    SmallVector<Value> both(in);
    llvm::append_range(both, buffersOf(bnd));
    auto guard = scf::IfOp::create(at, loc, ValueRange(both).getTypes(), live,
                                      /*withElseRegion=*/true);
    if (!guard.thenBlock()->empty()) {
      guard.thenBlock()->getTerminator()->erase();
      guard.elseBlock()->getTerminator()->erase();
    }
    OpBuilder thenB = OpBuilder::atBlockEnd(guard.thenBlock());
    SmallVector<Value> out = iteration(thenB, iv, bnd, in);
    Carried after = rest(thenB, k + 1, permuted(bnd), out);
    SmallVector<Value> yielded = after.first;
    yielded.append(after.second.begin(), after.second.end());
    scf::YieldOp::create(thenB, loc, yielded);
    OpBuilder elseB = OpBuilder::atBlockEnd(guard.elseBlock());
    scf::YieldOp::create(elseB, loc, both);
    ValueRange results = guard.getResults();
    return {SmallVector<Value>(results.take_front(in.size())),
            SmallVector<Value>(results.drop_front(in.size()))};
  };
  b.setInsertionPointAfter(round);
  // The buffers after the loop: an if of the guards, which the tail
  // duplication below then names.
  auto [results, buffers] =
      rest(b, 0, initial, SmallVector<Value>(round.getResults()));
  for (auto [k, i] : llvm::enumerate(kept))
    loop.getResult(i).replaceAllUsesWith(results[k]);
  for (auto [k, i] : llvm::enumerate(p.args))
    loop.getResult(i).replaceAllUsesWith(buffers[k]);
  loop.erase();
}

/// The rest of `branch`'s block taken into each of its branches.
bool duplicateTail(scf::IfOp branch) {
  Block *block = branch->getBlock();
  Operation *term = block->getTerminator();
  if (!branch.elseBlock() || !isa<scf::YieldOp, func::ReturnOp>(term))
    return false;
  SmallVector<Operation *> tail;
  for (Operation *op = branch->getNextNode(); op != term;
       op = op->getNextNode())
    tail.push_back(op);
  OpBuilder b(term);
  Location loc = branch.getLoc();
  auto merged = scf::IfOp::create(b, loc, term->getOperandTypes(),
                                    branch.getCondition(),
                                    /*withElseRegion=*/true);
  for (auto [from, to] : {std::pair{branch.thenBlock(), merged.thenBlock()},
                          std::pair{branch.elseBlock(), merged.elseBlock()}}) {
    if (!to->empty())
      to->getTerminator()->erase();
    OpBuilder at = OpBuilder::atBlockEnd(to);
    IRMapping map;
    for (Operation &op : from->without_terminator())
      at.clone(op, map);
    for (auto [r, y] :
         llvm::zip(branch.getResults(), from->getTerminator()->getOperands()))
      map.map(r, map.lookupOrDefault(y));
    for (Operation *op : tail)
      at.clone(*op, map);
    SmallVector<Value> out;
    for (Value v : term->getOperands())
      out.push_back(map.lookupOrDefault(v));
    scf::YieldOp::create(at, loc, out);
  }
  term->setOperands(merged.getResults());
  for (Operation *op : llvm::reverse(tail))
    op->erase();
  branch.erase();
  return true;
}

} // namespace

bool kiln::tile::async::nameChosenBuffers(func::FuncOp func) {
  bool changed = false;
  // Loops innermost first: an outer round copies the inner loops as they
  // are by then.
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    if (std::optional<Permutation> p = bufferPermutation(loop)) {
      unrollPermutation(loop, *p);
      changed = true;
    }
  llvm::DenseSet<Operation *> refused;
  for (unsigned copies = 0; copies < kMaxTailCopies; ++copies) {
    scf::IfOp next;
    func.walk([&](scf::IfOp branch) {
      if (!next && !refused.contains(branch) &&
          llvm::any_of(branch.getResults(), isBuffer) &&
          llvm::any_of(branch.getResults(),
                       [](Value r) { return !r.use_empty(); }))
        next = branch;
    });
    if (!next)
      break;
    if (duplicateTail(next))
      changed = true;
    else
      refused.insert(next);
  }
  return changed;
}
