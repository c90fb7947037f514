//===- PipelineBufferCopies.cpp - Pipelined copies masked by address ------===//
//
// tile-amd-pipeline-buffer-copies (Passes.td): the pipeliner predicates the
// copies of iterations past the end through their mask. A masked
// direct-to-LDS load is branched around by a wave whose lanes are all off,
// so it may issue nothing and tile-insert-wait-counts counts it as 0
// instructions: the loop then waits with vmcnt(0). Through a buffer
// resource the mask moves into the address (masked lanes read past the
// resource's end, which writes zeros), every wave issues the instruction,
// and the wait leaves exactly the copies issued after the awaited group.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

namespace kiln::tile_amd {
#define GEN_PASS_DEF_TILEAMDPIPELINEBUFFERCOPIESPASS
#include "kiln/Dialect/TileAMD/Transforms/Passes.h.inc"
} // namespace kiln::tile_amd

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// A tensor of pointers as one scalar base plus i32 element offsets of the
/// same shape and layout (null offsets: all zero), rebuilt at `b`.
struct Decomposed {
  Value base, offsets;
};

FailureOr<Decomposed> decompose(Value ptrs, OpBuilder &b) {
  Location loc = ptrs.getLoc();
  auto type = cast<RankedTensorType>(ptrs.getType());
  auto offsetType = RankedTensorType::get(type.getShape(), b.getI32Type(),
                                          type.getEncoding());
  Operation *def = ptrs.getDefiningOp();
  if (auto splat = dyn_cast_or_null<SplatOp>(def))
    return Decomposed{splat.getSrc(), Value()};
  if (auto add = dyn_cast_or_null<AddPtrOp>(def)) {
    auto offType = dyn_cast<RankedTensorType>(add.getOffset().getType());
    if (!offType || !offType.getElementType().isInteger(32))
      return failure();
    FailureOr<Decomposed> inner = decompose(add.getPtr(), b);
    if (failed(inner))
      return failure();
    Value sum = add.getOffset();
    if (inner->offsets)
      sum = arith::AddIOp::create(b, loc, inner->offsets, sum);
    return Decomposed{inner->base, sum};
  }
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    FailureOr<Decomposed> inner = decompose(bc.getSrc(), b);
    if (failed(inner) || !inner->offsets)
      return inner;
    return Decomposed{inner->base,
                      BroadcastOp::create(b, loc, offsetType, inner->offsets)};
  }
  if (auto ex = dyn_cast_or_null<ExpandDimsOp>(def)) {
    FailureOr<Decomposed> inner = decompose(ex.getSrc(), b);
    if (failed(inner) || !inner->offsets)
      return inner;
    return Decomposed{inner->base,
                      ExpandDimsOp::create(b, loc, offsetType, inner->offsets,
                                           ex.getAxisAttr())};
  }
  return failure();
}

bool isZeroOrAbsent(Value v) {
  return !v || matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

struct PipelineBufferCopies
    : tile_amd::impl::TileAMDPipelineBufferCopiesPassBase<
          PipelineBufferCopies> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "amd")
      return;
    SmallVector<AsyncCopyGlobalToLocalOp> copies;
    module.walk([&](AsyncCopyGlobalToLocalOp copy) {
      if (copy.getMask() && isZeroOrAbsent(copy.getOther()) &&
          TileDialect::PipelinePartAttrHelper(&getContext()).getAttr(copy))
        copies.push_back(copy);
    });
    for (AsyncCopyGlobalToLocalOp copy : copies) {
      OpBuilder b(copy);
      FailureOr<Decomposed> parts = decompose(copy.getPtr(), b);
      if (failed(parts))
        continue; // the generic copy stays (and its conservative wait)
      Value offsets = parts->offsets;
      if (!offsets) {
        auto type = cast<RankedTensorType>(copy.getPtr().getType());
        offsets = arith::ConstantOp::create(
            b, copy.getLoc(),
            DenseElementsAttr::get(
                RankedTensorType::get(type.getShape(), b.getI32Type(),
                                      type.getEncoding()),
                b.getI32IntegerAttr(0).getValue()));
      }
      auto buffer = tile_amd::BufferLoadToLocalOp::create(
          b, copy.getLoc(), copy.getToken().getType(), parts->base, offsets,
          copy.getDst(), copy.getMask(), Value(), b.getStringAttr(""));
      buffer->setDiscardableAttrs(copy->getDiscardableAttrDictionary());
      copy.getToken().replaceAllUsesWith(buffer.getToken());
      copy.erase();
    }
  }
};

} // namespace
