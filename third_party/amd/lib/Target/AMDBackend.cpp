//===- AMDBackend.cpp - AMDGPU, ROCDL translation and hsaco linking -------===//

#include "DeviceLibs.h"

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Target/Backend.h"
#include "kiln/Target/ExternalTools.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "lld/Common/Driver.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir;
using namespace kiln;

namespace {
/// Every LDS DMA op (`rocdl.*load.lds`, `rocdl.load.to.lds`) carries its size
/// in bytes as attribute `size` or as operand 2. ISel aborts on sizes the chip
/// cannot do, so check them here where the op still has its location.
LogicalResult checkLdsDmaSizes(ModuleOp module, const TargetDesc &target,
                               const llvm::MCSubtargetInfo &sti) {
  bool wide = sti.checkFeatures("+gfx950-insts");
  WalkResult result = module.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (!name.starts_with("rocdl.") ||
        !(name.ends_with("load.lds") || name == "rocdl.load.to.lds"))
      return WalkResult::advance();
    std::optional<int64_t> size;
    if (auto attr = op->getAttrOfType<IntegerAttr>("size"))
      size = attr.getInt();
    else if (APInt value;
             op->getNumOperands() > 2 &&
             matchPattern(op->getOperand(2), m_ConstantInt(&value)))
      size = value.getSExtValue();
    if (!size) {
      op->emitError("LDS DMA size must be a constant");
      return WalkResult::interrupt();
    }
    if (*size == 1 || *size == 2 || *size == 4 ||
        (wide && (*size == 12 || *size == 16)))
      return WalkResult::advance();
    op->emitError() << *size << "-byte LDS DMA is not supported on "
                    << target.name << " (supported: 1, 2, 4"
                    << (wide ? ", 12, 16" : "") << " bytes)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// A kernel's `rocdl.reqd_work_group_size` (hand-written LLVM dialect) of
/// 0 in a dimension launches nothing; over the chip's thread limit in
/// total, it cannot launch. Both become metadata LLVM accepts silently.
LogicalResult checkWorkGroupSizes(ModuleOp module, const TargetDesc &target) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    auto sizes =
        func->getAttrOfType<DenseI32ArrayAttr>("rocdl.reqd_work_group_size");
    if (!sizes)
      continue;
    int64_t total = 1;
    for (int32_t d : sizes.asArrayRef()) {
      if (d <= 0)
        return func.emitError()
               << "rocdl.reqd_work_group_size of '" << func.getSymName()
               << "' must be positive in every dimension, got " << sizes;
      total *= d;
    }
    if (total > target.maxThreadsPerBlock)
      return func.emitError()
             << "rocdl.reqd_work_group_size of '" << func.getSymName()
             << "' is " << total << " threads, over the "
             << target.maxThreadsPerBlock << " of " << target.name;
  }
  return success();
}

// Direct-to-LDS loads (global_load_lds_dword*, buffer_load_dword* ... lds):
// 4 bytes per lane on gfx942; gfx950 adds 16 (dwordx4). Kiln's vectors are
// powers of two, so gfx950's 12-byte form is not used.
constexpr unsigned kLdsDma942 = 1u << 4;
constexpr unsigned kLdsDma950 = (1u << 4) | (1u << 16);

// name, backend, chip, triple, features, warp, smem, vec, threads, arch,
// async copy widths, name, lane rule, waits counting instructions, waits
// ordering the whole wave, largest wait count that waits (gfx9's vmcnt is 6
// bits, and vmcnt(63) waits for nothing: LLVM's SIInsertWaitcnts also stops
// at the field's maximum minus one)
// Layout moves through shared memory use unswizzled scratches
// (swizzledLayoutScratch false): on the AMD kernels of the wild corpus
// (scripts/wild-amd-local.py) the swizzled choice cost 8 to 50 more VGPRs
// than the unswizzled one (its XOR addressing) and no fewer spills. A move
// whose scratch alone sets a kernel's LDS is staged in rounds while that
// lowers the total (stageDominantLayoutMoves), as Triton stages such moves
// in pieces: LDS bounds how many workgroups share a CU.
// Direct-to-LDS copies land in issue order (asyncCopiesLandInOrder): they
// are vector-memory loads, which vmcnt retires in order, and write LDS when
// they retire.
// What a buffer resource covers (BufferOpToLLVM.cpp's num_records).
constexpr int64_t kBufferResourceBytes = 0x7FFFFFFE;

const TargetDesc kTargets[] = {
    // CDNA1 (MI100) and CDNA2 (MI200): no direct-to-LDS copies (as in
    // Triton, whose AMD backend gives only CDNA3 and later those), so no
    // async copies; one LDS of 64 KiB and 32 banks as on gfx942. gfx90a's
    // arch number is 910 (9.0.10).
    {"hip:gfx908", "amd", "gfx908", "amdgcn-amd-amdhsa", "", 64, 65536, 16,
     1024, 908, /*asyncCopyWidths=*/0, "", false, true, true, 62,
     /*maxTensorRegisters=*/512, /*asyncCopyZeroFillsMasked=*/false,
     /*asyncCopyBroadcastLanes=*/false,
     /*pointerRangeBytes=*/kBufferResourceBytes, /*sharedMemoryBanks=*/32,
     /*sharedLoad16LaneBits=*/0b10011, /*swizzledLayoutScratch=*/false,
     /*stageDominantLayoutMoves=*/true},
    {"hip:gfx90a", "amd", "gfx90a", "amdgcn-amd-amdhsa", "", 64, 65536, 16,
     1024, 910, /*asyncCopyWidths=*/0, "", false, true, true, 62,
     /*maxTensorRegisters=*/512, /*asyncCopyZeroFillsMasked=*/false,
     /*asyncCopyBroadcastLanes=*/false,
     /*pointerRangeBytes=*/kBufferResourceBytes, /*sharedMemoryBanks=*/32,
     /*sharedLoad16LaneBits=*/0b10011, /*swizzledLayoutScratch=*/false,
     /*stageDominantLayoutMoves=*/true},
    {"hip:gfx942", "amd", "gfx942", "amdgcn-amd-amdhsa", "", 64, 65536, 16,
     1024, 942, kLdsDma942, "direct-to-LDS load", true, true, true, 62,
     /*maxTensorRegisters=*/512, /*asyncCopyZeroFillsMasked=*/false,
     /*asyncCopyBroadcastLanes=*/false,
     /*pointerRangeBytes=*/kBufferResourceBytes, /*sharedMemoryBanks=*/32,
     /*sharedLoad16LaneBits=*/0b10011, /*swizzledLayoutScratch=*/false,
     /*stageDominantLayoutMoves=*/true,
     /*asyncCopiesLandInOrder=*/true},
    {"hip:gfx950", "amd", "gfx950", "amdgcn-amd-amdhsa", "", 64, 163840, 16,
     1024, 950, kLdsDma950, "direct-to-LDS load", true, true, true, 62,
     /*maxTensorRegisters=*/512, /*asyncCopyZeroFillsMasked=*/false,
     /*asyncCopyBroadcastLanes=*/false,
     /*pointerRangeBytes=*/kBufferResourceBytes, /*sharedMemoryBanks=*/64,
     /*sharedLoad16LaneBits=*/0b11011, /*swizzledLayoutScratch=*/false,
     /*stageDominantLayoutMoves=*/true,
     /*asyncCopiesLandInOrder=*/true},
};

const StringRef kToolEnvironment[] = {"KILN_LLD"};

class AMDBackend : public Backend {
public:
  StringRef getKey() const override { return "amd"; }
  StringRef getName() const override { return "AMD"; }
  StringRef getTargetPrefix() const override { return "hip:"; }
  ArrayRef<TargetDesc> getTargets() const override { return kTargets; }
  StringRef getDefaultTarget() const override { return "hip:gfx942"; }
  StringRef getDialectPrefix() const override { return "rocdl"; }
  StringRef getAssemblyName() const override { return "amdgcn"; }
  StringRef getBinaryName() const override { return "hsaco"; }
  bool takesFunctionAttributes() const override { return true; }
  // An i8 or i16 phi takes a whole VGPR of its own.
  bool vectorizesMemoryAccesses() const override { return true; }
  bool packsNarrowPhis() const override { return true; }
  bool sinksSharedLoads() const override { return true; }
  bool sinksWidening() const override { return true; }
  bool sinksLoadsPastLoops() const override { return true; }
  // AMDTargetInfo::barrier.
  StringRef barrierFenceScope() const override { return "wavefront"; }
  ArrayRef<StringRef> getToolEnvironment() const override {
    return kToolEnvironment;
  }

  void registerDialects(DialectRegistry &registry) const override {
    registry.insert<tile_amd::TileAMDDialect, ROCDL::ROCDLDialect>();
    registerROCDLDialectTranslation(registry);
  }

  void initializeLLVMTarget() const override {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeAMDGPUTargetInfo();
      LLVMInitializeAMDGPUTarget();
      LLVMInitializeAMDGPUTargetMC();
      LLVMInitializeAMDGPUAsmPrinter();
      // Inline assembly (inline_asm_elementwise) is parsed when it is emitted.
      LLVMInitializeAMDGPUAsmParser();
    });
  }

  void registerTranslation(MLIRContext &context) const override {
    registerROCDLDialectTranslation(context);
  }

  void registerPasses() const override { tile_amd::registerTileAMDPasses(); }

  void addPasses(OpPassManager &pm, PipelineStage stage,
                 const KilnToLLVMOptions &options) const override {
    if (stage == PipelineStage::Schedule) {
      tile_amd::TileAMDPipelineBufferCopiesPassOptions copies;
      copies.target = options.target;
      pm.addPass(tile_amd::createTileAMDPipelineBufferCopiesPass(copies));
    }
  }

  LogicalResult verifyModule(ModuleOp module, const TargetDesc &target,
                             const llvm::MCSubtargetInfo &sti) const override {
    return failure(failed(checkLdsDmaSizes(module, target, sti)) ||
                   failed(checkWorkGroupSizes(module, target)));
  }

  // Kiln pins the code object version rather than inheriting whatever a
  // future LLVM picks, so the runtime's loader expectations stay fixed.
  void prepareModule(llvm::Module &module, const TargetDesc &) const override {
    if (!module.getModuleFlag("amdhsa_code_object_version"))
      module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                           500);
  }

  bool binaryFromObject() const override { return true; }

  // The ROCm device libraries' functions a kernel calls (libdevice on AMD
  // targets: `__ocml_*`) are linked from the machine's ROCm installation;
  // any other function the module only declares is an error here rather
  // than an undefined symbol at link time.
  LogicalResult linkLibraries(ModuleOp module, llvm::Module &llvmModule,
                              const SerializeOptions &opts) const override {
    return linkRocmDeviceLibs(module, llvmModule, opts);
  }

  /// hsaco: the code object linked as a shared object by lld, in process
  /// (lld is linked into Kiln), or by an external ld.lld when one is named
  /// (SerializeOptions, $KILN_LLD).
  FailureOr<std::string>
  makeBinary(ModuleOp module, const TargetDesc &, StringRef object,
             const SerializeOptions &opts) const override {
    FailureOr<TempFile> in = makeTempFile(module, "o");
    FailureOr<TempFile> out = makeTempFile(module, "hsaco");
    if (failed(in) || failed(out) ||
        failed(writeFile(module, in->path, object)))
      return failure();
    bool external = !opts.toolPath("ld.lld").empty() ||
                    llvm::sys::Process::GetEnv("KILN_LLD").has_value();
    if (external) {
      FailureOr<std::string> lld =
          findTool(module, "ld.lld", opts.toolPath("ld.lld"), "KILN_LLD", {});
      if (failed(lld) ||
          failed(runTool(module, "ld.lld",
                         {*lld, "-shared", "-o", out->path.str(),
                          in->path.str()})))
        return failure();
    } else if (failed(linkInProcess(module, in->path, out->path))) {
      return failure();
    }
    return readFile(module, out->path);
  }

private:
  /// `ld.lld -shared -o out in`, by lld's library. lld keeps global state,
  /// so one link at a time; after a link that lld says left it unusable,
  /// later ones fail with a message rather than crash. lld also resets every
  /// llvm::cl option of the process to its default: a tool that reads its
  /// own options after serializing must copy them first (kiln-translate
  /// does); the library has none.
  static LogicalResult linkInProcess(ModuleOp module, StringRef in,
                                     StringRef out) {
    static std::mutex mutex;
    static bool usable = true;
    std::lock_guard<std::mutex> lock(mutex);
    if (!usable)
      return module.emitError()
             << "the in-process linker failed earlier in this process and "
                "cannot run again; set KILN_LLD to an ld.lld to link hsaco";
    std::string inPath = in.str(), outPath = out.str();
    const char *args[] = {"ld.lld", "-shared", "-o", outPath.c_str(),
                          inPath.c_str()};
    std::string messages;
    llvm::raw_string_ostream os(messages);
    lld::Result result =
        lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
    usable = result.canRunAgain;
    if (result.retCode != 0)
      return module.emitError()
             << "linking the hsaco failed:\n" << StringRef(messages).rtrim();
    return success();
  }
};
} // namespace

namespace kiln {
void registerAMDTargetInfo(); // lib/TargetInfo/AMDTargetInfo.cpp

/// The whole AMD backend: its lowering hooks and its serialization.
void registerAMDBackend() {
  registerAMDTargetInfo();
  registerBackend(std::make_unique<AMDBackend>());
}
} // namespace kiln
