//===- PipelineAssignStages.cpp - Which loads to pipeline, in which stage -===//
//
// First step of software pipelining. For a loop with `tile.num_stages` N,
// every plain `tile.load` that can become an asynchronous copy goes to stage
// 0 with the pure ops computing its address and mask; the rest of the body
// goes to stage N-1, so each load is issued N-1 iterations before its value
// is used. The decision is written as attributes (tile.stage, tile.cluster)
// for tile-pipeline-lower-loads and tile-pipeline-expand; a loop left alone
// gets a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Analysis/VectorWidth.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEPIPELINEASSIGNSTAGESPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// A load that becomes an async copy into a ring slot of `slotType`.
struct Candidate {
  LoadOp load;
  /// The local_allocs the load fills (their layout is the ring's); empty
  /// when the value is used in registers.
  SmallVector<LocalAllocOp> allocs;
  MemDescType ringType;
  int64_t slotBytes = 0;
};

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

class Stager {
public:
  Stager(scf::ForOp loop, AxisInfoAnalysis &axis) : loop(loop), axis(axis) {}

  void run() {
    int64_t stages = pipeline::getNumStages(loop);
    if (stages < 2 || pipeline::isStaged(loop))
      return;
    // Copies completing on barriers (bulk copies) are the backend's to pipeline
    // (its schedule-stage pass, after this one).
    bool barrierCopies = false;
    loop.getBody()->walk([&](BarrierCompletedWriteOpInterface) {
      barrierCopies = true;
    });
    if (barrierCopies)
      return;
    if (std::optional<std::string> why = pipeline::whyNotPipelinable(loop)) {
      remark() << "loop not pipelined: " << *why;
      return;
    }
    const TargetDesc *target = getEnclosingTarget(loop);
    if (!target || target->asyncCopyWidths == 0) {
      remark() << "loop not pipelined: "
               << (target ? Twine(target->name) + " has no asynchronous copy "
                                                  "into shared memory"
                          : Twine("the module names no target (tile.target)"))
                      .str();
      return;
    }
    numStages = stages;
    SmallVector<Candidate> candidates;
    SmallVector<std::string> skipped;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto load = dyn_cast<LoadOp>(&op);
      if (!load)
        continue;
      std::string why;
      if (std::optional<Candidate> c = plan(load, *target, why))
        candidates.push_back(*c);
      else
        load.emitRemark() << "load not pipelined: " << why;
    }
    if (candidates.empty()) {
      remark() << "loop not pipelined: no load in it can become an "
                  "asynchronous copy";
      return;
    }
    if (!fits(candidates, *target))
      return;
    assign(candidates);
  }

private:
  InFlightDiagnostic remark() { return loop.emitRemark(); }

  std::optional<Candidate> plan(LoadOp load, const TargetDesc &target,
                                std::string &why) {
    if (load.getIsVolatile()) {
      why = "it is volatile (it is issued where the program has it, never "
            "ahead)";
      return std::nullopt;
    }
    Candidate c;
    c.load = load;
    auto type = cast<RankedTensorType>(load.getType());
    c.allocs = pipeline::getFilledAllocs(load, loop.getBody());
    for (LocalAllocOp alloc : c.allocs)
      if (!pipeline::viewsFollowSlot(alloc)) {
        why = "the buffer it fills has views other than permutes and "
              "subslices, which a ring slot cannot take";
        return std::nullopt;
      }
    for (LocalAllocOp alloc : c.allocs)
      for (Operation *user : alloc->getUsers())
        if (!loop.getBody()->findAncestorOpInBlock(*user) ||
            isa<scf::YieldOp>(user)) {
          why = "the buffer it fills is used outside one iteration";
          return std::nullopt;
        }
    if (std::optional<std::string> hazard = writeHazard(c)) {
      why = *hazard;
      return std::nullopt;
    }
    c.ringType = pipeline::getRingType(load, loop.getBody(), numStages);
    auto slotType = MemDescType::get(
        load.getContext(), type.getShape(), type.getElementType(),
        c.ringType.getEncoding(), true, c.ringType.getShape());
    c.slotBytes = getAllocationBytes(c.ringType) / numStages;
    // Where the lowering will find a slot: 16-byte aligned allocation,
    // slots one stride apart (getSharedBaseAlignment of the slot view).
    int64_t stride = std::max<int64_t>(getSharedStrideBytes(c.ringType, 0), 1);
    unsigned alignment = std::min<int64_t>(
        16, int64_t(1) << llvm::countr_zero(uint64_t(stride)));
    unsigned pointerElements = getPointerVectorWidth(
        load.getPtr(), load.getMask(), axis, target.maxVectorBytes);
    if (std::optional<std::string> illegal = whyAsyncCopyNotLowerable(
            load.getContext(), target, load.getPtr().getType(), slotType,
            alignment, pointerElements, !pipeline::isZeroOrAbsent(load.getOther()))) {
      why = "as an asynchronous copy into " +
            typeString(slotType) +
            ": " + *illegal;
      return std::nullopt;
    }
    llvm::SetVector<Operation *> ops;
    if (failed(pipeline::sliceOperands(loop, load, ops, why)))
      return std::nullopt;
    stage0.insert(ops.begin(), ops.end());
    return c;
  }

  /// Why issuing the load num_stages - 1 iterations ahead may change what
  /// it reads (pipeline::whyWritesBlockMove): its first reader is where its
  /// value is waited for.
  std::optional<std::string> writeHazard(Candidate c) {
    Block *body = loop.getBody();
    Operation *firstReader = nullptr;
    auto consider = [&](Operation *user) {
      user = body->findAncestorOpInBlock(*user);
      if (user && (!firstReader || user->isBeforeInBlock(firstReader)))
        firstReader = user;
    };
    for (Operation *user : c.load->getUsers())
      consider(user);
    for (LocalAllocOp alloc : c.allocs)
      for (Operation *user : alloc->getUsers())
        consider(user);
    return pipeline::whyWritesBlockMove(loop, c.load.getPtr(), numStages,
                                        firstReader, "this load");
  }

  /// Whether the rings fit beside the function's other buffers; a remark
  /// with the largest num_stages that fits otherwise.
  bool fits(ArrayRef<Candidate> candidates, const TargetDesc &target) {
    int64_t perStage = 0;
    DenseSet<Operation *> replaced;
    for (const Candidate &c : candidates) {
      perStage += c.slotBytes;
      replaced.insert(c.allocs.begin(), c.allocs.end());
    }
    int64_t others = 0;
    loop->getParentOfType<FunctionOpInterface>()->walk([&](LocalAllocOp a) {
      if (!replaced.contains(a))
        others += getAllocationBytes(a.getType());
    });
    // Rings of loops nested in this one (staged already: inner loops go
    // first) live while this loop's do.
    loop.getBody()->walk([&](scf::ForOp inner) {
      int64_t n = pipeline::getNumStages(inner);
      if (!pipeline::isStaged(inner))
        return;
      for (Operation &op : inner.getBody()->without_terminator())
        if (auto l = dyn_cast<LoadOp>(&op); l && pipeline::getStage(l) == 0)
          others += getAllocationBytes(
              pipeline::getRingType(l, inner.getBody(), n));
    });
    int64_t budget = int64_t(target.maxSharedBytes) - others;
    if (numStages * perStage <= budget)
      return true;
    int64_t most = perStage > 0 ? budget / perStage : 0;
    InFlightDiagnostic r = remark();
    r << "loop not pipelined: " << numStages << " stages need "
      << numStages * perStage << " bytes of shared memory for the rings ("
      << perStage << " per stage), and " << target.name << " has "
      << target.maxSharedBytes << " (" << others
      << " of them used by the kernel's other buffers); ";
    if (most >= 2)
      r << "num_stages=" << most << " fits";
    else
      r << "not even 2 stages fit";
    return false;
  }

  /// Writes the schedule: the loads and their operands' ops in stage 0.
  void assign(ArrayRef<Candidate> candidates) {
    for (const Candidate &c : candidates)
      stage0.insert(c.load);
    // Async readers of a slot (anything but local_load) may still read it
    // when the next copy is issued: the consumers run first then.
    bool copiesFirst = true;
    for (const Candidate &c : candidates)
      for (LocalAllocOp alloc : c.allocs)
        for (Operation *user : alloc->getUsers())
          if (!isa<LocalLoadOp>(user))
            copiesFirst = false;
    pipeline::assignTwoStages(loop, stage0, copiesFirst);
  }

  scf::ForOp loop;
  AxisInfoAnalysis &axis;
  int64_t numStages = 0;
  llvm::SetVector<Operation *> stage0;
};

struct TilePipelineAssignStagesPass
    : public tile::impl::TilePipelineAssignStagesPassBase<
          TilePipelineAssignStagesPass> {
  void runOnOperation() override {
    AxisInfoAnalysis axis;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (pipeline::getNumStages(loop) >= 2)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      Stager(loop, axis).run();
  }
};

} // namespace
