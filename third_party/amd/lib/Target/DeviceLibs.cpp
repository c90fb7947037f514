//===- DeviceLibs.cpp - Linking the ROCm device libraries ------------------===//
//
// Gluon's extra.libdevice on AMD targets names functions of the ROCm device
// libraries (`__ocml_*`, tile.extern_elementwise). ROCm ships them as LLVM
// bitcode; the ones a kernel declares are linked into its module before
// optimization (LinkOnlyNeeded), made internal so that they inline and
// vanish. The libraries read "control constants" (`__oclc_*`) that a
// compiler defines for the kernel's chip and options; they are defined here
// as Triton's AMD backend defines them.
//
//===----------------------------------------------------------------------===//

#include "DeviceLibs.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;

namespace {

struct Library {
  llvm::StringLiteral prefix;
  llvm::StringLiteral file;
};
constexpr Library kLibraries[] = {{"__ocml_", "ocml.bc"},
                                  {"__ockl_", "ockl.bc"}};

bool holdsOcml(llvm::StringRef dir) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, "ocml.bc");
  return llvm::sys::fs::exists(p);
}

/// The ISA version the libraries compare against: gfx942 -> 9402,
/// gfx90a -> 9010, gfx1100 -> 11000 (major * 1000 + minor * 100 + stepping,
/// the last two digits of the name being minor and stepping, in hex).
std::optional<unsigned> isaVersion(llvm::StringRef chip) {
  if (!chip.consume_front("gfx") || chip.size() < 3)
    return std::nullopt;
  unsigned major = 0, minor = 0, stepping = 0;
  if (chip.drop_back(2).getAsInteger(10, major) ||
      chip.substr(chip.size() - 2, 1).getAsInteger(16, minor) ||
      chip.substr(chip.size() - 1).getAsInteger(16, stepping))
    return std::nullopt;
  return major * 1000 + minor * 100 + stepping;
}

std::string chipOf(llvm::Module &m) {
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && f.hasFnAttribute("target-cpu"))
      return f.getFnAttribute("target-cpu").getValueAsString().str();
  return "";
}

/// Functions the module calls but does not define (intrinsics aside).
llvm::SmallVector<llvm::Function *> undefinedCalls(llvm::Module &m) {
  llvm::SmallVector<llvm::Function *> out;
  for (llvm::Function &f : m)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      out.push_back(&f);
  return out;
}

} // namespace

std::optional<std::string>
kiln::findRocmDeviceLibs(const SerializeOptions &opts,
                         llvm::SmallVectorImpl<std::string> &tried,
                         bool &chosen) {
  chosen = false;
  std::string user = opts.toolPath("rocm-device-libs").str();
  if (user.empty())
    if (std::optional<std::string> env =
            llvm::sys::Process::GetEnv("KILN_ROCM_DEVICE_LIBS"))
      user = *env;
  if (!user.empty()) {
    chosen = true;
    tried.push_back(user);
    return holdsOcml(user) ? std::optional<std::string>(user) : std::nullopt;
  }
  auto under = [&](llvm::StringRef root) {
    llvm::SmallString<256> p(root);
    llvm::sys::path::append(p, "amdgcn", "bitcode");
    tried.push_back(std::string(p));
  };
  if (std::optional<std::string> rocm = llvm::sys::Process::GetEnv("ROCM_PATH"))
    under(*rocm);
  under("/opt/rocm");
  under("/usr/lib/x86_64-linux-gnu");
  under("/usr/lib/aarch64-linux-gnu");
  under("/usr/lib");
  for (const std::string &dir : tried)
    if (holdsOcml(dir))
      return dir;
  return std::nullopt;
}

LogicalResult kiln::linkRocmDeviceLibs(ModuleOp module,
                                       llvm::Module &llvmModule,
                                       const SerializeOptions &opts) {
  auto fromLibraries = [](llvm::Function *f) {
    return llvm::any_of(kLibraries, [&](const Library &lib) {
      return f->getName().starts_with(lib.prefix);
    });
  };
  for (llvm::Function *f : undefinedCalls(llvmModule))
    if (!fromLibraries(f))
      return module.emitError()
             << "the kernel calls '" << f->getName()
             << "', which no library linked for AMD targets defines";
  if (undefinedCalls(llvmModule).empty())
    return success();

  llvm::SmallVector<std::string> tried;
  bool chosen = false;
  std::optional<std::string> dir = findRocmDeviceLibs(opts, tried, chosen);
  if (!dir) {
    InFlightDiagnostic d = module.emitError();
    if (chosen)
      d << "the ROCm device libraries directory '" << tried.front()
        << "' holds no ocml.bc";
    else
      d << "the kernel calls functions of the ROCm device libraries ('"
        << undefinedCalls(llvmModule).front()->getName()
        << "'), and no ocml.bc was found (tried " << llvm::join(tried, ", ")
        << "): install the ROCm device libraries (ROCm, or Debian's "
        << "rocm-device-libs) or set KILN_ROCM_DEVICE_LIBS to their "
        << "amdgcn/bitcode directory";
    return d;
  }

  // ocml's functions may call ockl's: link until nothing they declare is
  // missing.
  for (int round = 0; round < 4; ++round) {
    bool linked = false;
    for (const Library &lib : kLibraries) {
      llvm::SmallVector<std::string> wanted;
      for (llvm::Function *f : undefinedCalls(llvmModule))
        if (f->getName().starts_with(lib.prefix))
          wanted.push_back(f->getName().str());
      if (wanted.empty())
        continue;
      llvm::SmallString<256> path(*dir);
      llvm::sys::path::append(path, lib.file);
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
          llvm::MemoryBuffer::getFile(path);
      if (!buffer)
        return module.emitError()
               << "cannot read '" << path << "': "
               << buffer.getError().message() << " (the kernel calls '"
               << wanted.front() << "')";
      llvm::Expected<std::unique_ptr<llvm::Module>> bitcode =
          llvm::parseBitcodeFile((*buffer)->getMemBufferRef(),
                                 llvmModule.getContext());
      if (!bitcode)
        return module.emitError()
               << "'" << path << "' is not LLVM bitcode this Kiln reads: "
               << llvm::toString(bitcode.takeError());
      llvm::StringSet<> defined;
      for (llvm::Function &f : **bitcode)
        if (!f.isDeclaration())
          defined.insert(f.getName());
      for (const std::string &name : wanted)
        if (!defined.contains(name))
          return module.emitError() << "'" << path << "' defines no function '"
                                    << name << "'";
      (*bitcode)->setTargetTriple(llvmModule.getTargetTriple());
      (*bitcode)->setDataLayout(llvmModule.getDataLayout());
      if (llvm::Linker::linkModules(llvmModule, std::move(*bitcode),
                                    llvm::Linker::Flags::LinkOnlyNeeded))
        return module.emitError() << "linking '" << path << "' failed";
      for (llvm::Function &f : llvmModule)
        if (!f.isDeclaration() && defined.contains(f.getName()))
          f.setLinkage(llvm::GlobalValue::InternalLinkage);
      linked = true;
    }
    if (!linked)
      break;
  }
  if (llvm::SmallVector<llvm::Function *> left = undefinedCalls(llvmModule);
      !left.empty())
    return module.emitError() << "the ROCm device libraries in '" << *dir
                              << "' call '" << left.front()->getName()
                              << "', which they do not define";

  // The control constants, for the chip and Kiln's options.
  std::string chip = chipOf(llvmModule);
  std::optional<unsigned> isa = isaVersion(chip);
  if (!isa)
    return module.emitError() << "no ROCm ISA version for chip '" << chip
                              << "'";
  auto valueOf = [&](llvm::StringRef name) -> std::optional<uint64_t> {
    return llvm::StringSwitch<std::optional<uint64_t>>(name)
        .Case("__oclc_ISA_version", *isa)
        .Case("__oclc_ABI_version", 500)
        .Case("__oclc_finite_only_opt", 0)
        .Case("__oclc_unsafe_math_opt", 0)
        .Case("__oclc_daz_opt", 0)
        .Case("__oclc_correctly_rounded_sqrt32", 1)
        .Case("__oclc_wavefrontsize64", 1)
        .Default(std::nullopt);
  };
  for (llvm::GlobalVariable &g : llvmModule.globals()) {
    if (!g.getName().starts_with("__oclc_"))
      continue;
    if (g.isDeclaration()) {
      std::optional<uint64_t> value = valueOf(g.getName());
      auto *ty = llvm::dyn_cast<llvm::IntegerType>(g.getValueType());
      if (!value || !ty)
        return module.emitError()
               << "the ROCm device libraries in '" << *dir << "' read '"
               << g.getName() << "', a control constant Kiln does not define";
      g.setInitializer(llvm::ConstantInt::get(ty, *value));
      g.setConstant(true);
    }
    g.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  for (llvm::GlobalVariable &g : llvmModule.globals())
    if (!g.isDeclaration() && (g.getName().starts_with("__ocml") ||
                               g.getName().starts_with("__ockl")))
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  return success();
}
