//===- NVIDIABackend.cpp - NVPTX, NVVM translation and ptxas --------------===//

#include "Libdevice.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"
#include "kiln/Target/Backend.h"
#include "kiln/Target/ExternalTools.h"
#include "kiln/Target/InlineAsmLocation.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace kiln;

/// For a ptxas log: the location of the inline assembly that wrote the line
/// of `ptx` its first error names, if that line is inside an inline assembly
/// block (NVPTX writes each between `// begin inline asm` and `// end inline
/// asm`).
static std::optional<Location> locatePtxasError(ModuleOp module,
                                               llvm::StringRef ptx,
                                               llvm::StringRef log) {
  // "ptxas /tmp/k.ptx, line 57; error   : Unknown symbol 'x'"
  llvm::SmallVector<llvm::StringRef> logLines;
  log.split(logLines, '\n');
  unsigned lineNo = 0;
  for (llvm::StringRef l : logLines) {
    size_t at = l.find(", line ");
    if (at == llvm::StringRef::npos || !l.contains("error"))
      continue;
    llvm::StringRef rest = l.drop_front(at + 7);
    if (!rest.consumeInteger(10, lineNo) && rest.starts_with(";"))
      break;
    lineNo = 0;
  }
  if (lineNo == 0)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  if (lineNo > lines.size())
    return std::nullopt;
  // Inside an inline asm block: a "begin" before any "end", going back.
  for (unsigned i = lineNo - 1; i-- > 0;) {
    llvm::StringRef l = lines[i].trim();
    if (l == "// end inline asm")
      return std::nullopt;
    if (l == "// begin inline asm")
      return kiln::locateInlineAsmLine(module, lines[lineNo - 1]);
  }
  return std::nullopt;
}


namespace {
// cp.async moves 4, 8 or 16 bytes per thread (PTX ISA, cp.async cp-size).
constexpr unsigned kCpAsyncWidths = (1u << 4) | (1u << 8) | (1u << 16);

// name, backend, chip, triple, features, warp, smem, vec, threads, arch,
// async copy widths and name
const TargetDesc kTargets[] = {
    {"cuda:sm_80", "nvidia", "sm_80", "nvptx64-nvidia-cuda", "+ptx80", 32,
     166912, 16, 1024, 80, kCpAsyncWidths, "cp.async"},
    {"cuda:sm_90a", "nvidia", "sm_90a", "nvptx64-nvidia-cuda", "+ptx83", 32,
     232448, 16, 1024, 90, kCpAsyncWidths, "cp.async"},
};

const StringRef kToolEnvironment[] = {"KILN_PTXAS", "CUDA_HOME",
                                      "KILN_LIBDEVICE"};

class NVIDIABackend : public Backend {
public:
  StringRef getKey() const override { return "nvidia"; }
  StringRef getName() const override { return "NVIDIA"; }
  StringRef getTargetPrefix() const override { return "cuda:"; }
  ArrayRef<TargetDesc> getTargets() const override { return kTargets; }
  StringRef getDefaultTarget() const override { return "cuda:sm_90a"; }
  StringRef getDialectPrefix() const override { return "nvvm"; }
  StringRef getAssemblyName() const override { return "ptx"; }
  StringRef getBinaryName() const override { return "cubin"; }
  // cuModuleLoadData JIT-compiles PTX.
  bool isAssemblyLoadable() const override { return true; }
  ArrayRef<StringRef> getToolEnvironment() const override {
    return kToolEnvironment;
  }

  void registerDialects(DialectRegistry &registry) const override {
    registry.insert<tile_nv::TileNVDialect, NVVM::NVVMDialect>();
    registerNVVMDialectTranslation(registry);
  }

  void initializeLLVMTarget() const override {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeNVPTXTargetInfo();
      LLVMInitializeNVPTXTarget();
      LLVMInitializeNVPTXTargetMC();
      LLVMInitializeNVPTXAsmPrinter();
    });
    // Shared, constant and local addresses in 32 bits (the data layout's
    // p3:32:32, p4, p5): shared memory is at most 228 KiB, and 64-bit
    // addresses cost a register pair and 64-bit arithmetic at every
    // ld/st.shared, wgmma descriptor and mbarrier operand. LLVM reads this
    // process-wide option when it creates the target machine; it is set
    // again before each compile, in case anything in the process reset it.
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it != options.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  }

  void registerPasses() const override { tile_nv::registerTileNVPasses(); }

  // A loop-carried f16/bf16 tile (flash attention's P, the A operand of the
  // next P V wgmma) leaves the optimizer as f32 phis truncated in the loop
  // header (instcombine's fold of a phi of truncations): 64 registers a
  // thread instead of 32 words, and the truncation moves to the top of the
  // next iteration, where ptxas wrote the exponentials into the in-flight
  // wgmma's A registers. Packing carries the words again (the
  // warp-specialized attention: 4 % faster, docs/results.md).
  bool packsNarrowPhis() const override { return true; }

  // Machine code sinking moves arithmetic into the block that uses it: the
  // promotion of a waited wgmma accumulator (`acc += raw * scale`) sinks
  // past the next wgmma's issue, so its registers are still live when that
  // wgmma's outputs are defined; the copies that follow read or define
  // accumulators of a wgmma in flight, and ptxas then serializes every
  // wgmma of the kernel (warning C7514/C7515). Functions with wgmma keep
  // their instructions where the program put them.
  SmallVector<StringRef>
  skippedCodegenPasses(const llvm::Function &f) const override {
    for (const llvm::Instruction &inst : llvm::instructions(f))
      if (const auto *call = dyn_cast<llvm::CallInst>(&inst))
        if (const auto *asmCall =
                dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
          if (StringRef(asmCall->getAsmString()).contains("wgmma.mma_async"))
            return {"machine-sink", "Machine code sinking"};
    return {};
  }

  void addPasses(OpPassManager &pm, PipelineStage stage,
                 const KilnToLLVMOptions &options) const override {
    if (stage == PipelineStage::Schedule) {
      tile_nv::TileNVPipelineTMAPassOptions tma;
      tma.target = options.target;
      pm.addPass(tile_nv::createTileNVPipelineTMAPass(tma));
      tile_nv::TileNVInsertProxyFencesPassOptions fences;
      fences.target = options.target;
      pm.addPass(tile_nv::createTileNVInsertProxyFencesPass(fences));
      tile_nv::TileNVPipelineWGMMAPassOptions wgmma;
      wgmma.target = options.target;
      pm.addPass(tile_nv::createTileNVPipelineWGMMAPass(wgmma));
    }
    if (stage == PipelineStage::AsyncChecks) {
      tile_nv::TileNVCheckWGMMAOrderPassOptions order;
      order.target = options.target;
      pm.addPass(tile_nv::createTileNVCheckWGMMAOrderPass(order));
      // After the checks, which speak of the counts the kernel wrote.
      tile_nv::TileNVPerWarpArrivalsPassOptions arrivals;
      arrivals.target = options.target;
      pm.addPass(tile_nv::createTileNVPerWarpArrivalsPass(arrivals));
    }
    if (stage == PipelineStage::PreLowering) {
      tile_nv::TileNVAddGlobalScratchPassOptions scratch;
      scratch.target = options.target;
      pm.addPass(tile_nv::createTileNVAddGlobalScratchPass(scratch));
    }
    if (stage == PipelineStage::Lowering) {
      tile_nv::TileNVNVVMToPTXPassOptions ptx;
      ptx.target = options.target;
      pm.addPass(tile_nv::createTileNVNVVMToPTXPass(ptx));
    }
  }

  void registerTranslation(MLIRContext &context) const override {
    registerNVVMDialectTranslation(context);
  }

  bool binaryFromObject() const override { return false; }

  // A bulk copy into this CTA's shared memory (cp.async.bulk.shared::cta,
  // Gluon's form of hopper.bulk.async_load) is PTX 8.6's: a module with one
  // asks for that ISA, the others keep the target's.
  std::string getFeatures(ModuleOp module,
                          const TargetDesc &target) const override {
    std::string features = target.features.str();
    if (target.arch < 90 || features != "+ptx83")
      return features;
    bool cta = false;
    module.walk([&](NVVM::CpAsyncBulkGlobalToSharedClusterOp copy) {
      auto ptr = cast<LLVM::LLVMPointerType>(copy.getDstMem().getType());
      cta |= ptr.getAddressSpace() == 3;
    });
    return cta ? "+ptx86" : features;
  }

  LogicalResult linkLibraries(ModuleOp module, llvm::Module &llvmModule,
                              const SerializeOptions &opts) const override {
    return linkLibdevice(module, llvmModule, opts);
  }

  /// cubin from PTX with the CUDA toolkit's ptxas.
  FailureOr<std::string>
  makeBinary(ModuleOp module, const TargetDesc &target, StringRef ptx,
             const SerializeOptions &opts) const override {
    std::string cudaHome;
    if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
      cudaHome = *home + "/bin/ptxas";
    llvm::SmallVector<StringRef> search = {"ptxas"};
    if (!cudaHome.empty())
      search.push_back(cudaHome);
    search.push_back("/usr/local/cuda/bin/ptxas");
    FailureOr<std::string> ptxas = findTool(
        module, "ptxas", opts.toolPath("ptxas"), "KILN_PTXAS", search);
    if (failed(ptxas))
      return failure();
    FailureOr<TempFile> in = makeTempFile(module, "ptx");
    FailureOr<TempFile> out = makeTempFile(module, "cubin");
    if (failed(in) || failed(out) || failed(writeFile(module, in->path, ptx)))
      return failure();
    std::string arch = ("-arch=" + target.chip).str();
    std::string opt = "-O" + std::to_string(std::min(opts.optLevel, 3u));
    std::string log;
    if (failed(runTool(
            module, "ptxas",
            {*ptxas, arch, opt, "-o", out->path.str(), in->path.str()}, &log,
            [&](StringRef failed) {
              return locatePtxasError(module, ptx, failed);
            })))
      return failure();
    // ptxas's performance advisories (wgmma serialized, setmaxnreg ignored,
    // ...) are warnings of the compile: they name what makes a kernel slow.
    SmallVector<StringRef> lines;
    StringRef(log).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines) {
      if (!line.contains("Potential Performance Loss"))
        continue;
      // "ptxas info    : (C7515) Potential Performance Loss: ..."
      auto [head, rest] = line.split(" : ");
      module.emitWarning() << "ptxas: " << (rest.empty() ? line : rest).trim();
    }
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
