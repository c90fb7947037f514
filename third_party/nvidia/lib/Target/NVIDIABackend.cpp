//===- NVIDIABackend.cpp - NVPTX, NVVM translation and ptxas --------------===//

#include "kiln/Target/Backend.h"
#include "kiln/Target/ExternalTools.h"

#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace kiln;

namespace {
class NVIDIABackend : public Backend {
public:
  Vendor getVendor() const override { return Vendor::NVIDIA; }
  StringRef getName() const override { return "NVIDIA"; }
  StringRef getDialectPrefix() const override { return "nvvm"; }

  void initializeLLVMTarget() const override {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeNVPTXTargetInfo();
      LLVMInitializeNVPTXTarget();
      LLVMInitializeNVPTXTargetMC();
      LLVMInitializeNVPTXAsmPrinter();
    });
  }

  void registerTranslation(MLIRContext &context) const override {
    registerNVVMDialectTranslation(context);
  }

  bool binaryFromObject() const override { return false; }

  /// cubin from PTX with the CUDA toolkit's ptxas.
  FailureOr<std::string> makeBinary(ModuleOp module, const TargetDesc &target,
                                    StringRef ptx,
                                    const SerializeOptions &opts) const override {
    FailureOr<std::string> ptxas =
        findTool(module, "ptxas", opts.ptxasPath, "KILN_PTXAS",
                 {"ptxas", "/usr/local/cuda/bin/ptxas"});
    if (failed(ptxas))
      return failure();
    FailureOr<TempFile> in = makeTempFile(module, "ptx");
    FailureOr<TempFile> out = makeTempFile(module, "cubin");
    if (failed(in) || failed(out) || failed(writeFile(module, in->path, ptx)))
      return failure();
    std::string arch = ("-arch=" + target.chip).str();
    std::string opt = "-O" + std::to_string(std::min(opts.optLevel, 3u));
    if (failed(runTool(
            module, "ptxas",
            {*ptxas, arch, opt, "-o", out->path.str(), in->path.str()})))
      return failure();
    return readFile(module, out->path);
  }
};
} // namespace

namespace kiln {
void registerNVIDIATargetInfo(); // lib/TargetInfo/NVIDIATargetInfo.cpp

/// The whole NVIDIA backend: its lowering hooks and its serialization.
void registerNVIDIABackend() {
  registerNVIDIATargetInfo();
  registerBackend(std::make_unique<NVIDIABackend>());
}
} // namespace kiln
