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
// The count is the shared analysis's answer (groupsAfter in
// kiln/Analysis/AsyncState.h); on targets whose waits count instructions, the
// instruction count is WaitInstructions.h's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AsyncState.h"
#include "kiln/Analysis/WaitInstructions.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEINSERTWAITCOUNTSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

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
      int64_t n = std::min<int64_t>(
          countWaitInstructions(wait, target,
                                std::min<uint32_t>(*wait.getNum(), 64) + 1,
                                mergeable),
          1 << 30);
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
      SmallVector<Operation *> uncommitted, unknown;
      int64_t num = async::kRetiredGroups;
      for (Value token : wait.getTokens()) {
        FailureOr<int64_t> g =
            async::groupsAfter(token, wait, uncommitted, unknown);
        if (failed(g)) {
          InFlightDiagnostic diag =
              wait.emitOpError() << "waits for an async copy that is not "
                                    "committed on every path to it";
          for (Operation *copy : uncommitted)
            diag.attachNote(copy->getLoc())
                << "this copy has no commit_group after it before the wait";
          failedAny = true;
          return;
        }
        num = std::min(num, *g);
      }
      if (!unknown.empty()) {
        wait.emitRemark() << "cannot follow every token to its commit group; "
                             "waiting for all groups (count 0)";
        num = 0;
      }
      if (num >= async::kRetiredGroups)
        num = 0; // every token already retired: nothing to keep in flight
      wait.setNumAttr(b.getI32IntegerAttr(std::min<int64_t>(num, 1 << 30)));
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
