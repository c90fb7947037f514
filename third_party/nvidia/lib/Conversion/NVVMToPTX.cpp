//===- NVVMToPTX.cpp - NVVM ops without an intrinsic become inline PTX ----===//
//
// tile-nv-nvvm-to-ptx (TileNV/Transforms/Passes.td), the NVIDIA backend's
// pass of the lowering stage: upstream's NVVM-to-LLVM patterns, applied once
// per op by a walk (upstream's convert-nvvm-to-llvm runs a conversion driver,
// which would also fold and clean up the rest of the module).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVNVVMTOPTXPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;

namespace {

struct NVVMToPTX : tile_nv::impl::TileNVNVVMToPTXPassBase<NVVMToPTX> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return; // another vendor's module
    RewritePatternSet patterns(module.getContext());
    populateNVVMToLLVMConversionPatterns(patterns);
    walkAndApplyPatterns(module, FrozenRewritePatternSet(std::move(patterns)));
  }
};

} // namespace
