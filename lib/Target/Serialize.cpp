//===- Serialize.cpp - LLVM dialect to assembly and binaries --------------===//
//
// Translation to LLVM IR, LLVM's O3 pipeline and code generator, then the
// vendor backend's external step to the binary (see Backend.h). Everything that
// can go wrong is turned into an MLIR diagnostic: this code runs inside the
// Python extension, where ending the process on bad input is not acceptable.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Serialize.h"

#include "kiln/Target/Backend.h"
#include "kiln/Target/InlineAsmLocation.h"
#include "kiln/Target/PackNarrowPhis.h"
#include "kiln/Target/SinkLoadsPastLoops.h"
#include "kiln/Target/SinkSharedLoads.h"
#include "kiln/Target/SinkWidening.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Vectorize/LoadStoreVectorizer.h"
#include "llvm/Transforms/Vectorize/VectorCombine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Emit kinds
//===----------------------------------------------------------------------===//

std::optional<EmitKind> kiln::parseEmitKind(llvm::StringRef name,
                                            const TargetDesc &target,
                                            std::string &error) {
  if (name == "llvm")
    return EmitKind::LLVMIR;
  const Backend *own = getBackend(target);
  if (own && name == own->getAssemblyName())
    return EmitKind::Assembly;
  if (own && name == own->getBinaryName())
    return EmitKind::Binary;
  for (const Backend *b : getBackends())
    if (name == b->getAssemblyName() || name == b->getBinaryName()) {
      error = ("--emit=" + name + " needs a " + b->getTargetPrefix() +
               " target, not " + target.name)
                  .str();
      return std::nullopt;
    }
  error = ("unknown --emit='" + name +
           "'; expected one of: " + knownEmitKindNames())
              .str();
  return std::nullopt;
}

std::string kiln::knownEmitKindNames() {
  std::string names = "llvm";
  for (const Backend *b : getBackends())
    names += (", " + b->getAssemblyName() + ", " + b->getBinaryName()).str();
  return names;
}

//===----------------------------------------------------------------------===//
// LLVM process state
//===----------------------------------------------------------------------===//

namespace {
/// Collects error diagnostics of an LLVMContext. Without a handler LLVM prints
/// them and calls exit(1), e.g. when a kernel needs more LDS than the chip has.
struct CollectingDiagnosticHandler : llvm::DiagnosticHandler {
  std::string errors;
  SmallVector<std::string> warnings;

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    std::string text;
    {
      llvm::raw_string_ostream os(text);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
    }
    if (info.getSeverity() == llvm::DS_Error)
      errors += (errors.empty() ? "" : "\n") + text;
    else if (info.getSeverity() == llvm::DS_Warning)
      warnings.push_back(std::move(text));
    // Remarks and notes are dropped: nothing asked for them.
    return true;
  }
};
} // namespace

/// Records the reason of an LLVM fatal error and jumps back to the enclosing
/// CrashRecoveryContext instead of letting LLVM abort the process.
static void recordFatalError(void *userData, const char *reason, bool) {
  *static_cast<std::string *>(userData) = reason;
  if (llvm::CrashRecoveryContext *crc =
          llvm::CrashRecoveryContext::GetCurrent())
    crc->HandleExit(1);
}

/// Runs `fn`, turning an LLVM fatal error or a crash inside it into failure
/// with a message. Instruction selection reports unsupported input this way
/// ("Cannot select: intrinsic ..."), and that must not kill a Python process.
static LogicalResult runRecoveringFromFatalErrors(llvm::function_ref<void()> fn,
                                                  std::string &reason) {
  // Idempotent; repeated because a signal outside any RunSafely disables it.
  llvm::CrashRecoveryContext::Enable();
  llvm::ScopedFatalErrorHandler handler(recordFatalError, &reason);
  llvm::CrashRecoveryContext crc;
  if (crc.RunSafely(fn))
    return success();
  if (reason.empty())
    reason = "LLVM crashed";
  return failure();
}

//===----------------------------------------------------------------------===//
// Checks that must run before the code generator
//===----------------------------------------------------------------------===//

/// Another vendor's ops or attributes (in a module built for a chip of a
/// different backend) mean the lowering ran for the other vendor. LLVM would
/// either fail with a vague message or quietly drop the kernel marker.
static LogicalResult checkVendorDialects(ModuleOp module,
                                         const TargetDesc &target) {
  const Backend *own = getBackend(target);
  llvm::SmallVector<const Backend *> foreign;
  for (const Backend *b : getBackends())
    if (b != own)
      foreign.push_back(b);
  WalkResult result = module.walk([&](Operation *op) {
    auto ownerOf = [&](llvm::StringRef name) -> const Backend * {
      for (const Backend *b : foreign)
        if (name.consume_front(b->getDialectPrefix()) && name.starts_with("."))
          return b;
      return nullptr;
    };
    std::optional<llvm::StringRef> what;
    const Backend *owner = ownerOf(op->getName().getStringRef());
    if (owner)
      what = op->getName().getStringRef();
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (!what && (owner = ownerOf(attr.getName().strref())))
        what = attr.getName().strref();
    if (!what)
      return WalkResult::advance();
    op->emitError() << "'" << *what << "' is for " << owner->getName()
                    << " targets, but " << target.name << " is "
                    << (own ? own->getName()
                            : llvm::StringRef("another vendor"));
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// A kernel returning a value can pass LLVM's code generator and only fail
/// in the vendor's assembler, far from the IR that caused it.
static LogicalResult checkKernelsReturnVoid(ModuleOp module) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    bool isKernel = llvm::any_of(getBackends(), [&](const Backend *b) {
      return func->hasAttr((b->getDialectPrefix() + ".kernel").str());
    });
    if (isKernel &&
        !isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
      return func.emitError()
             << "kernel '" << func.getSymName() << "' must return void";
  }
  return success();
}

/// Translation walks module-scope ops as globals; anything else there (a
/// vendor instruction, an arith op) has no meaning and used to crash
/// the translator.
static LogicalResult checkModuleScope(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    // A global's initializer is a constant expression of LLVM-dialect ops;
    // a vendor intrinsic there crashed the translator.
    if (auto global = dyn_cast<LLVM::GlobalOp>(op)) {
      WalkResult r = global.getInitializerRegion().walk([&](Operation *inner) {
        if (isa<LLVM::LLVMDialect>(inner->getDialect()))
          return WalkResult::advance();
        inner->emitError() << "'" << inner->getName()
                           << "' cannot appear in the initializer of "
                              "llvm.mlir.global '"
                           << global.getSymName()
                           << "': an initializer holds only constant "
                              "LLVM-dialect ops";
        return WalkResult::interrupt();
      });
      if (r.wasInterrupted())
        return failure();
    }
    if (isa<LLVM::LLVMFuncOp, LLVM::GlobalOp, LLVM::GlobalCtorsOp,
            LLVM::GlobalDtorsOp, LLVM::ComdatOp, LLVM::AliasOp,
            LLVM::ModuleFlagsOp>(op))
      continue;
    return op.emitError() << "'" << op.getName()
                          << "' cannot appear at module scope of an "
                             "LLVM-dialect module; only llvm.func, "
                             "llvm.mlir.global and other module-level LLVM "
                             "ops can";
  }
  return success();
}

/// Every type the translator meets must have an LLVM equivalent. The
/// LLVM-dialect verifier lets some through (a GEP or alloca element type of
/// f8E5M2, tf32 or index), and the translator then crashes on them.
static LogicalResult checkLLVMTypes(ModuleOp module) {
  // LLVM keeps address spaces in 24 bits; larger ones were silently
  // truncated (2^24 became the generic space 0).
  constexpr unsigned kMaxAddressSpace = 1u << 24;
  auto why = [&](Type t) -> std::optional<std::string> {
    if (!t || isa<FunctionType>(t))
      return std::nullopt;
    std::string text;
    llvm::raw_string_ostream os(text);
    if (!LLVM::isCompatibleType(t)) {
      os << "type " << t << " has no LLVM equivalent; LLVM-dialect input may "
         << "use only LLVM-compatible types";
      return text;
    }
    t.walk([&](LLVM::LLVMPointerType p) {
      if (text.empty() && p.getAddressSpace() >= kMaxAddressSpace)
        os << "address space " << p.getAddressSpace() << " of " << p
           << " is not below 2^24, LLVM's limit";
    });
    return text.empty() ? std::nullopt : std::optional<std::string>(text);
  };
  WalkResult result = module.walk([&](Operation *op) {
    std::optional<std::string> found;
    auto check = [&](Type t) {
      if (!found)
        found = why(t);
    };
    llvm::for_each(op->getOperandTypes(), check);
    llvm::for_each(op->getResultTypes(), check);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::for_each(block.getArgumentTypes(), check);
    // The dictionary holds the inherent attributes (elem_type, ...) too.
    for (NamedAttribute a : op->getAttrDictionary())
      if (auto ta = dyn_cast<TypeAttr>(a.getValue()))
        check(ta.getValue());
    if (!found)
      return WalkResult::advance();
    op->emitError() << *found;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// A function-level `target_cpu` / `target_features` would silently compile
/// that function for another chip than the one the artifact is for.
static LogicalResult checkFunctionTargets(ModuleOp module,
                                          const TargetDesc &target) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (std::optional<StringRef> cpu = func.getTargetCpu();
        cpu && *cpu != target.chip)
      return func.emitError()
             << "function '" << func.getSymName() << "' sets target_cpu = \""
             << *cpu << "\" but the module is compiled for " << target.name
             << "; remove the attribute";
    if (func.getTargetFeaturesAttr())
      return func.emitError()
             << "function '" << func.getSymName()
             << "' sets target_features; features come from the target ("
             << target.name << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// serializeModule
//===----------------------------------------------------------------------===//

static std::unique_ptr<llvm::TargetMachine>
createTargetMachine(ModuleOp module, const TargetDesc &target,
                    StringRef features, unsigned optLevel) {
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    module.emitError() << "LLVM has no backend for " << target.triple << ": "
                       << error;
    return nullptr;
  }
  llvm::CodeGenOptLevel level =
      llvm::CodeGenOpt::getLevel(std::min(optLevel, 3u))
          .value_or(llvm::CodeGenOptLevel::Default);
  // Triton's enable_fp_fusion (on unless the module says tile.fp_fusion =
  // false): a multiply feeding an add may become one fma.
  llvm::TargetOptions options;
  // (tile.fp_fusion: the tile dialect's FpFusionAttrHelper; this library
  // does not depend on the dialect.)
  auto fusion = module->getAttrOfType<BoolAttr>("tile.fp_fusion");
  options.AllowFPOpFusion = !fusion || fusion.getValue()
                                ? llvm::FPOpFusion::Fast
                                : llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, target.chip, features, options, llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!tm)
    module.emitError() << "cannot create an LLVM target machine for "
                       << target.name;
  return tm;
}

static void runOptimizer(llvm::Module &llvmModule, llvm::TargetMachine &tm,
                         unsigned optLevel, const Backend &backend) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = levels[std::min(optLevel, 3u)];
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(llvmModule, mam);
  if (level == llvm::OptimizationLevel::O0)
    return;
  // Scalar accesses merged into vectors, and the extracts and inserts that
  // took the values apart and put them back together folded away. instcombine
  // leaves a chain of inserts of a vector's upper elements (an mfma operand,
  // half of a loaded register) as one lane shuffled and three inserted;
  // vector-combine makes it the shuffle it is, which the code generator takes
  // as the registers' upper half rather than repacking a copy (aiter's sparse
  // bf16 decode kept 32 such copies of its Q operand live across its loop).
  llvm::FunctionPassManager vectorize;
  vectorize.addPass(llvm::LoadStoreVectorizerPass());
  vectorize.addPass(llvm::InstCombinePass());
  vectorize.addPass(llvm::VectorCombinePass());
  // Narrow phis packed into words; the gathers and extracts folded into the
  // vectors they came from. Then the loops rotated that the optimizer left
  // testing at the top: instcombine had widened a loop's truncated phis into
  // truncations in its header, too many instructions for the optimizer's
  // rotation to copy; packing moved them back to the latch. A loop left so
  // keeps every value its exit reads from the header live across its whole
  // body (the exit branch is taken at the end of the body once the code
  // generator makes the loop's control flow structured).
  llvm::FunctionPassManager cleanup;
  cleanup.addPass(llvm::InstCombinePass());
  cleanup.addPass(llvm::DCEPass());
  cleanup.addPass(
      llvm::createFunctionToLoopPassAdaptor(llvm::LoopRotatePass()));
  for (llvm::Function &f : llvmModule) {
    if (f.isDeclaration())
      continue;
    if (backend.vectorizesMemoryAccesses())
      vectorize.run(f, fam);
    if (backend.packsNarrowPhis() && packNarrowPhis(f))
      cleanup.run(f, fam);
    // Before the sinking within blocks, which places the moved loads'
    // computations next to their users.
    if (backend.sinksLoadsPastLoops() &&
        sinkLoadsPastLoops(f, fam.getResult<llvm::DominatorTreeAnalysis>(f),
                           fam.getResult<llvm::LoopAnalysis>(f),
                           fam.getResult<llvm::AAManager>(f),
                           backend.barrierFenceScope()))
      fam.invalidate(f, llvm::PreservedAnalyses::none());
    if (backend.sinksWidening()) {
      sinkWideningToUses(f);
      // Then what the block itself reads, each next to its first reader: the
      // lowering emits an elementwise chain one operation at a time over the
      // whole tile (an epilogue's 128 scale products, then 128 conversions,
      // then 128 multiplies, then the stores), so every stage's values are
      // live at once where one element's chain at a time would do.
      sinkToFirstUses(f);
    }
    // Last: instcombine would merge the copies again.
    if (backend.sinksSharedLoads())
      sinkSharedLoadsToUses(f);
  }
}

namespace {
/// Skips LLVM's straight-line strength reduction (both GPU code generators
/// run it before instruction selection) on functions with many addresses: it
/// compares every address with every earlier one of the same base, so a
/// kernel with thousands of elements per thread spent almost all of its
/// compile time there (9 s of 9.7 s at 512 masked fp32 accesses per thread).
/// Those addresses are base + constant offsets, which the address folding of
/// instruction selection handles without it. Also skips the code generator
/// passes the backend names for a function (Backend::skippedCodegenPasses).
class SkipQuadraticPasses : public llvm::OptPassGate {
public:
  static constexpr unsigned kMaxAddresses = 128;

  SkipQuadraticPasses(const llvm::Module &module, const Backend &backend) {
    for (const llvm::Function &f : module) {
      if (f.isDeclaration())
        continue;
      unsigned addresses = 0;
      for (const llvm::Instruction &inst : llvm::instructions(f))
        addresses += isa<llvm::GetElementPtrInst>(inst);
      if (addresses > kMaxAddresses)
        skipped[f.getName()].insert("slsr");
      for (llvm::StringRef pass : backend.skippedCodegenPasses(f))
        skipped[f.getName()].insert(pass);
    }
  }
  bool isEnabled() const override { return !skipped.empty(); }
  bool shouldRunPass(llvm::StringRef pass,
                     llvm::StringRef unit) const override {
    // Legacy function passes describe their unit as "function (<name>)".
    if (!(unit.consume_front("function (") && unit.consume_back(")")))
      return true;
    auto it = skipped.find(unit);
    return it == skipped.end() || !it->second.contains(pass);
  }

private:
  llvm::StringMap<llvm::StringSet<>> skipped;
};
} // namespace

FailureOr<std::string> kiln::serializeModule(ModuleOp module,
                                             const TargetDesc &target,
                                             EmitKind kind,
                                             const SerializeOptions &opts) {
  FailureOr<SmallVector<std::string>> artifacts =
      serializeModule(module, target, ArrayRef<EmitKind>{kind}, opts);
  if (failed(artifacts))
    return failure();
  return std::move(artifacts->front());
}

FailureOr<SmallVector<std::string>>
kiln::serializeModule(ModuleOp module, const TargetDesc &target,
                      ArrayRef<EmitKind> kinds, const SerializeOptions &opts,
                      SerializeTimings *timings) {
  SerializeTimings ignored;
  SerializeTimings &times = timings ? *timings : ignored;
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto since = [&](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(now() - start).count();
  };
  auto start = now();
  const Backend *backend = getBackend(target);
  if (!backend)
    return module.emitError() << "the backend for " << target.name
                              << " is not built into this Kiln";
  backend->initializeLLVMTarget();
  std::string features = backend->getFeatures(module, target);
  std::unique_ptr<llvm::TargetMachine> tm =
      createTargetMachine(module, target, features, opts.optLevel);
  if (!tm)
    return failure();
  if (failed(checkModuleScope(module)) || failed(checkLLVMTypes(module)) ||
      failed(checkVendorDialects(module, target)) ||
      failed(checkFunctionTargets(module, target)) ||
      failed(checkKernelsReturnVoid(module)))
    return failure();
  if (failed(backend->verifyModule(module, target, *tm->getMCSubtargetInfo())))
    return failure();

  // The callers register these too; doing it here keeps serializeModule
  // usable on any context that holds LLVM-dialect IR.
  MLIRContext *ctx = module.getContext();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  for (const Backend *b : getBackends())
    b->registerTranslation(*ctx);

  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  auto handler = std::make_unique<CollectingDiagnosticHandler>();
  CollectingDiagnosticHandler &diags = *handler;
  llvmContext->setDiagnosticHandler(std::move(handler));

  // Verification is done below so that its message becomes a diagnostic
  // rather than text on stderr.
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(
      module, *llvmContext, module.getSymName().value_or("kiln"),
      /*disableVerification=*/true);
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(*llvmModule, &verifierStream))
    return module.emitError() << "the translated LLVM IR is invalid:\n"
                              << llvm::StringRef(verifierMessage).rtrim();

  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  // Naming the chip on every function keeps the emitted .ll self-contained:
  // `opt`/`llc` on it see the same subtarget Kiln compiled for.
  for (llvm::Function &func : *llvmModule) {
    if (func.isDeclaration())
      continue;
    if (!func.hasFnAttribute("target-cpu"))
      func.addFnAttr("target-cpu", target.chip);
    if (!features.empty() && !func.hasFnAttribute("target-features"))
      func.addFnAttr("target-features", features);
  }
  backend->prepareModule(*llvmModule, target);
  if (failed(backend->linkLibraries(module, *llvmModule, opts)))
    return failure();

  times.translate = since(start);
  // One optimized module serves every artifact asked for: LLVM IR is printed
  // from it, and each code generator run works on a copy (code generation
  // rewrites the IR it runs on).
  auto wants = [&](EmitKind k) { return llvm::is_contained(kinds, k); };
  bool wantObject = wants(EmitKind::Binary) && backend->binaryFromObject();
  bool wantAssembly =
      wants(EmitKind::Assembly) ||
      (wants(EmitKind::Binary) && !backend->binaryFromObject());
  std::string llvmIR, assembly, object;
  std::string fatalReason;
  bool cannotEmit = false;
  auto codegen = [&](llvm::CodeGenFileType type, std::string &out) {
    auto begin = now();
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*llvmModule);
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, type)) {
      cannotEmit = true;
      return;
    }
    pm.run(*copy);
    out = buffer.str().str();
    times.codegen += since(begin);
  };
  LogicalResult ran = runRecoveringFromFatalErrors(
      [&] {
        auto begin = now();
        runOptimizer(*llvmModule, *tm, opts.optLevel, *backend);
        times.optimize = since(begin);
        SkipQuadraticPasses gate(*llvmModule, *backend);
        llvmContext->setOptPassGate(gate);
        if (wants(EmitKind::LLVMIR) || !diags.errors.empty()) {
          llvm::raw_string_ostream os(llvmIR);
          llvmModule->print(os, nullptr);
        }
        if (!diags.errors.empty())
          return;
        if (wantAssembly)
          codegen(llvm::CodeGenFileType::AssemblyFile, assembly);
        if (wantObject && !cannotEmit)
          codegen(llvm::CodeGenFileType::ObjectFile, object);
      },
      fatalReason);
  if (failed(ran)) {
    // The jump out of LLVM skipped destructors; the module and context may be
    // half torn down, so leaking them is the only safe choice.
    (void)llvmModule.release();
    (void)llvmContext.release();
    (void)tm.release();
    return module.emitError() << "LLVM code generation for " << target.name
                              << " failed: " << fatalReason;
  }
  for (const std::string &warning : diags.warnings)
    module.emitWarning() << warning;
  if (!diags.errors.empty()) {
    // An error of the integrated assembler about a kernel's inline assembly
    // is at the user's line that wrote it.
    if (std::optional<Location> at = locateAssemblerError(module, diags.errors))
      return mlir::emitError(*at)
             << "LLVM code generation for " << target.name
             << " failed on the inline assembly written here:\n"
             << diags.errors;
    return module.emitError()
           << "LLVM code generation for " << target.name << " failed:\n"
           << diags.errors;
  }
  if (cannotEmit)
    return module.emitError() << "LLVM cannot emit code for " << target.name;

  SmallVector<std::string> out;
  for (EmitKind kind : kinds) {
    switch (kind) {
    case EmitKind::LLVMIR:
      out.push_back(llvmIR);
      break;
    case EmitKind::Assembly:
      out.push_back(assembly);
      break;
    case EmitKind::Binary: {
      auto begin = now();
      FailureOr<std::string> binary = backend->makeBinary(
          module, target, backend->binaryFromObject() ? object : assembly,
          opts);
      times.binary = since(begin);
      if (failed(binary))
        return failure();
      out.push_back(std::move(*binary));
      break;
    }
    }
  }
  return out;
}
