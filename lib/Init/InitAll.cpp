//===- InitAll.cpp - Register every Kiln dialect, pass and pipeline -------===//

#include "kiln/InitAll.h"

#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

namespace kiln {
// Vendor registration entry points, defined in third_party/<vendor>.
#ifdef KILN_ENABLE_NVIDIA
void registerNVIDIATargetInfo();
void registerNVIDIABackend();
#endif
#ifdef KILN_ENABLE_AMD
void registerAMDTargetInfo();
void registerAMDBackend();
#endif
} // namespace kiln

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::ROCDL::ROCDLDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
}

void kiln::registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef KILN_ENABLE_NVIDIA
    registerNVIDIATargetInfo();
    registerNVIDIABackend();
#endif
#ifdef KILN_ENABLE_AMD
    registerAMDTargetInfo();
    registerAMDBackend();
#endif
    tile::registerTilePasses();
    registerKilnConversionPasses();
    registerKilnPipelines();
    registerTestAxisInfoPass();
    // Upstream passes Kiln's pipelines use, so replays can name them.
    mlir::registerCanonicalizerPass();
    mlir::registerCSEPass();
    mlir::registerSCFToControlFlowPass();
    mlir::registerReconcileUnrealizedCastsPass();
  });
}
