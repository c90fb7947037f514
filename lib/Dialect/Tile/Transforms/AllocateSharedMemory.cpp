//===- AllocateSharedMemory.cpp - Scratch shared memory and its limit -----===//

#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/IR/Builders.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORYPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {
struct AllocateSharedMemory
    : kiln::tile::impl::TileAllocateSharedMemoryPassBase<AllocateSharedMemory> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Without a target the limit is not checked (the lowering checks it).
    FailureOr<CompileContext> context =
        resolveCompileContext(module, target, /*numWarpsOption=*/0,
                              /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    const TargetDesc *desc = context->target;
    Builder b(module.getContext());
    int64_t total = 0;
    Operation *largest = nullptr;
    TileDialect::ScratchOffsetAttrHelper scratchOffset(&getContext());
    module.walk([&](Operation *op) {
      int64_t bytes = getScratchBytes(op);
      if (bytes == 0)
        return;
      // Scratch users are sequential and bracketed by barriers, so they
      // all start at offset 0 and the total is the largest of them.
      scratchOffset.setAttr(op, b.getI32IntegerAttr(0));
      if (bytes > total) {
        total = bytes;
        largest = op;
      }
    });
    if (desc && total > desc->maxSharedBytes) {
      // Reported at the op that needs the most scratch space.
      InFlightDiagnostic diag = largest->emitError()
                                << "out of resources: shared memory required "
                                << total << " bytes, limit "
                                << desc->maxSharedBytes << " bytes on "
                                << desc->name;
      // The same facts as data, for callers that act on them (Python's
      // OutOfResources); metadata is not printed.
      diag.getUnderlyingDiagnostic()->getMetadata().push_back(
          DiagnosticArgument(b.getDictionaryAttr(
              {b.getNamedAttr("kind", b.getStringAttr("out_of_resources")),
               b.getNamedAttr("resource", b.getStringAttr("shared memory")),
               b.getNamedAttr("required", b.getI64IntegerAttr(total)),
               b.getNamedAttr("limit",
                              b.getI64IntegerAttr(desc->maxSharedBytes))})));
      return signalPassFailure();
    }
    TileDialect::SharedAttrHelper(&getContext())
        .setAttr(module, b.getI32IntegerAttr(total));
  }
};
} // namespace
