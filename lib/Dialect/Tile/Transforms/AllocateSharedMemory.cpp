//===- AllocateSharedMemory.cpp - Scratch shared memory and its limit -----===//

#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Targets.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

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
    // Explicit buffers (local_alloc) first, one after another, 16-byte
    // aligned (cp.async's widest copy); they may be live across anything.
    // Reusing dead ones by live range comes with the liveness analysis.
    int64_t explicitBytes = 0;
    module.walk([&](LocalAllocOp alloc) {
      MemDescType type = alloc.getType();
      int64_t bytes = getElementBytes(type.getElementType());
      for (int64_t d : type.getAllocShape())
        bytes *= d;
      explicitBytes = llvm::alignTo(explicitBytes, 16);
      scratchOffset.setAttr(alloc, b.getI32IntegerAttr(explicitBytes));
      explicitBytes += bytes;
      if (explicitBytes > total) {
        total = explicitBytes;
        largest = alloc;
      }
    });
    int64_t scratchBase = llvm::alignTo(explicitBytes, 16);
    module.walk([&](Operation *op) {
      int64_t bytes = getScratchBytes(op);
      if (bytes == 0)
        return;
      // Scratch users are sequential and bracketed by barriers, so they
      // all start at the same offset, after the explicit buffers, and the
      // total is the largest of them.
      scratchOffset.setAttr(op, b.getI32IntegerAttr(scratchBase));
      if (scratchBase + bytes > total) {
        total = scratchBase + bytes;
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
