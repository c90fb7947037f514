//===- CheckWGMMAOrder.cpp - wgmma order ptxas cannot follow --------------===//
//
// tile-nv-check-wgmma-order (Passes.td): a warning at a
// `warpgroup_dot_wait {pendings = N > 0}` that retires a wgmma issued in an
// earlier loop iteration (its result carried around the loop) while wgmmas
// issued since stay in flight, when a non-wgmma op then reads what it
// retired. The program is correct; ptxas, which tells a wait's retired
// wgmmas from the ones in flight by the order it sees them issued, does not
// follow that order around a loop, takes the read for one of an accumulator
// still being written, and serializes every wgmma of the kernel (its remark
// C7514, which names only the function). The same wgmmas issued in one
// iteration keep their overlap.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVCHECKWGMMAORDERPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;

namespace {

/// The value that reaches block argument `arg` of a loop body from the
/// loop's previous iteration (the body's yield), or null where `arg` is no
/// loop-carried value of an scf.for or of an scf.while's body.
Value backEdgeValue(BlockArgument arg) {
  Block *body = arg.getOwner();
  Operation *parent = body->getParentOp();
  if (auto loop = dyn_cast<scf::ForOp>(parent)) {
    if (arg == loop.getInductionVar())
      return {};
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    return yield.getOperand(arg.getArgNumber() - 1);
  }
  auto loop = dyn_cast<scf::WhileOp>(parent);
  if (!loop || body != loop.getAfterBody())
    return {};
  // The body's argument i is the condition's operand i; where that is the
  // condition block's own argument j, the previous iteration yielded it.
  auto cond = loop.getConditionOp();
  auto forwarded = dyn_cast<BlockArgument>(cond.getArgs()[arg.getArgNumber()]);
  if (!forwarded || forwarded.getOwner() != loop.getBeforeBody())
    return {};
  return loop.getYieldOp().getOperand(forwarded.getArgNumber());
}

/// Whether `user` reads a waited accumulator as ptxas's check counts it: an
/// op other than a wgmma taking it as accumulator, another wait, or the
/// loop's yield (which only passes it on).
bool readsOutsideWGMMA(Operation *user, Value v) {
  if (isa<tile_nv::WarpGroupDotWaitOp, scf::YieldOp, scf::ConditionOp>(user))
    return false;
  if (auto dot = dyn_cast<tile_nv::WarpGroupDotOp>(user))
    return dot.getA() == v || dot.getB() == v;
  return true;
}

/// Whether `op` retires every wgmma issued before the last `issued` ones
/// counted so far (a synchronous wgmma waits for all; a wait for fewer than
/// `issued`), counting the asynchronous wgmmas it meets into `issued`.
bool retires(Operation *op, int64_t &issued) {
  if (auto dot = dyn_cast<tile_nv::WarpGroupDotOp>(op)) {
    if (!dot.getIsAsync())
      return true;
    ++issued;
    return false;
  }
  if (auto wait = dyn_cast<tile_nv::WarpGroupDotWaitOp>(op))
    return int64_t(wait.getPendings()) < issued;
  return false;
}

/// Whether a wait later in `dot`'s block retires it before the iteration
/// ends (it then does not stay in flight around the loop): one that leaves
/// fewer groups in flight than were issued from `dot` on.
bool retiredInBody(tile_nv::WarpGroupDotOp dot) {
  int64_t issued = 1;
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode())
    if (retires(op, issued))
      return true;
  return false;
}

void check(tile_nv::WarpGroupDotWaitOp wait) {
  int64_t pendings = wait.getPendings();
  if (pendings <= 0)
    return;
  Block *body = wait->getBlock();
  // The asynchronous wgmmas issued in this iteration before the wait (the
  // newest `pendings` of them stay in flight). A synchronous wgmma or an
  // earlier wait that retires what came around the loop leaves nothing
  // carried for this wait to retire.
  SmallVector<tile_nv::WarpGroupDotOp> since;
  int64_t issued = 1; // the carried wgmma
  for (Operation &op : *body) {
    if (&op == wait.getOperation())
      break;
    if (retires(&op, issued))
      return;
    if (auto dot = dyn_cast<tile_nv::WarpGroupDotOp>(&op))
      since.push_back(dot);
  }
  if (int64_t(since.size()) < pendings)
    return; // the carried wgmma may still be in flight after the wait
  for (auto [operand, result] :
       llvm::zip(wait->getOperands(), wait->getResults())) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != body)
      continue;
    Value carried = backEdgeValue(arg);
    auto dot = carried ? carried.getDefiningOp<tile_nv::WarpGroupDotOp>()
                       : tile_nv::WarpGroupDotOp();
    if (!dot || !dot.getIsAsync() || dot->getBlock() != body ||
        retiredInBody(dot))
      continue;
    Operation *reader = nullptr;
    for (OpOperand &use : result.getUses())
      if (readsOutsideWGMMA(use.getOwner(), result)) {
        reader = use.getOwner();
        break;
      }
    if (!reader)
      continue;
    InFlightDiagnostic diag =
        wait.emitWarning()
        << "this wait retires a wgmma of the previous loop iteration (its "
           "result comes around the loop) while "
        << (pendings == 1 ? "the wgmma" : "wgmmas") << " issued since stay"
        << (pendings == 1 ? "s" : "")
        << " in flight, and the result is read outside wgmma: ptxas does "
           "not follow wgmma order around a loop and serializes every "
           "wgmma of the kernel (remark C7514). Issue the carried wgmma in "
           "the same iteration, before the newer one, or wait with "
           "num_outstanding=0";
    diag.attachNote(dot.getLoc()) << "the carried wgmma";
    diag.attachNote(since[since.size() - pendings].getLoc())
        << "the wgmma in flight";
    diag.attachNote(reader->getLoc()) << "the read";
  }
}

struct CheckWGMMAOrder
    : tile_nv::impl::TileNVCheckWGMMAOrderPassBase<CheckWGMMAOrder> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return;
    module.walk([](tile_nv::WarpGroupDotWaitOp wait) { check(wait); });
  }
};

} // namespace
