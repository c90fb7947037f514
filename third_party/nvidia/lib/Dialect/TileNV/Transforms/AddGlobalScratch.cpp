//===- AddGlobalScratch.cpp - Global scratch for device-side TMA maps -----===//
//
// tile-nv-add-global-scratch (Passes.td): the kernels that make TMA
// descriptors get a hidden last argument, the base of their per-CTA global
// scratch, and each tile_nv.make_tensor_descriptor its 128-byte slot there.
// The lowering of make_tensor_descriptor (TMAOpToLLVM.cpp) writes the map at
// argument + CTA index * tile.global_scratch + slot.
//
//===----------------------------------------------------------------------===//

#include "Conversion/NVIDIALowering.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVADDGLOBALSCRATCHPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;

namespace {

/// A CUtensorMap: 128 bytes, 128-byte aligned in global memory.
constexpr int64_t kTensorMapBytes = 128;

LogicalResult addGlobalScratch(ModuleOp module, const TargetDesc &desc) {
  int64_t most = 0;
  WalkResult r = module.walk([&](func::FuncOp func) {
    SmallVector<tile_nv::MakeTensorDescriptorOp> makes;
    func.walk([&](tile_nv::MakeTensorDescriptorOp op) { makes.push_back(op); });
    if (makes.empty())
      return WalkResult::advance();
    if (desc.arch < 90) {
      makes.front().emitOpError() << "needs TMA (sm_90), which " << desc.name
                                  << " does not have";
      return WalkResult::interrupt();
    }
    if (func.isPrivate() || !func.getResultTypes().empty()) {
      makes.front().emitOpError()
          << "is only lowered in kernels (public functions returning "
             "nothing): the descriptor lives in the kernel's global scratch";
      return WalkResult::interrupt();
    }
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    for (auto [i, op] : llvm::enumerate(makes)) {
      if (failed(checkMakeTensorDescriptor(op)))
        return WalkResult::interrupt();
      op->setAttr("tile_nv.scratch_offset",
                  b.getI64IntegerAttr(int64_t(i) * kTensorMapBytes));
    }
    unsigned n = func.getNumArguments();
    if (failed(func.insertArgument(
            n, tile::PointerType::get(IntegerType::get(ctx, 8), 1),
            DictionaryAttr::get(ctx), func.getLoc())))
      return WalkResult::interrupt();
    most = std::max<int64_t>(most, int64_t(makes.size()) * kTensorMapBytes);
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (most)
    tile::TileDialect::GlobalScratchAttrHelper(module.getContext())
        .setAttr(module, Builder(module.getContext()).getI32IntegerAttr(most));
  return success();
}

struct AddGlobalScratch
    : tile_nv::impl::TileNVAddGlobalScratchPassBase<AddGlobalScratch> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    // Another vendor's module (or none named): nothing of NVIDIA's to do.
    if (!context->target || context->target->backend != "nvidia")
      return;
    if (failed(addGlobalScratch(module, *context->target)))
      signalPassFailure();
  }
};

} // namespace
