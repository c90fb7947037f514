//===- Libdevice.cpp - Linking NVIDIA's libdevice -------------------------===//
//
// Gluon's extra.libdevice functions are calls of libdevice's `__nv_*`
// functions (tile.extern_elementwise). The CUDA toolkit ships their
// definitions as LLVM bitcode; the ones a kernel declares are linked into
// its module before optimization (only those: LinkOnlyNeeded), made
// internal so that they inline and vanish, and libdevice's
// __nvvm_reflect("__CUDA_FTZ") queries answer 1 (its flush-to-zero forms,
// as Triton's NVIDIA backend sets) through the module flag LLVM's
// NVVMReflect pass reads.
//
//===----------------------------------------------------------------------===//

#include "Libdevice.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kRelative = "nvvm/libdevice/libdevice.10.bc";

/// Where to look, in order, and whether the first is the user's choice
/// (then it must exist).
std::pair<llvm::SmallVector<std::string>, bool>
candidates(const kiln::SerializeOptions &opts) {
  llvm::SmallVector<std::string> out;
  if (!opts.toolPath("libdevice").empty())
    return {{opts.toolPath("libdevice").str()}, true};
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("KILN_LIBDEVICE"))
    return {{*env}, true};
  auto under = [&](llvm::StringRef root) {
    llvm::SmallString<256> p(root);
    llvm::sys::path::append(p, kRelative);
    out.push_back(std::string(p));
  };
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    under(*home);
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas"))
    under(llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas)));
  under("/usr/local/cuda");
  return {out, false};
}

} // namespace

LogicalResult kiln::linkLibdevice(ModuleOp module, llvm::Module &llvmModule,
                                  const SerializeOptions &opts) {
  auto declared = [&](llvm::SmallVectorImpl<std::string> *names) {
    bool any = false;
    for (llvm::Function &f : llvmModule)
      if (f.isDeclaration() && f.getName().starts_with("__nv_")) {
        any = true;
        if (names)
          names->push_back(f.getName().str());
      }
    return any;
  };
  if (!declared(nullptr))
    return success();
  auto [paths, chosen] = candidates(opts);
  std::string path;
  for (const std::string &p : paths)
    if (llvm::sys::fs::exists(p)) {
      path = p;
      break;
    }
  if (path.empty()) {
    InFlightDiagnostic d = module.emitError();
    if (chosen)
      d << "libdevice '" << paths.front() << "' does not exist";
    else
      d << "the kernel calls functions of NVIDIA's libdevice, and no "
        << "libdevice.10.bc was found (tried "
        << llvm::join(paths, ", ")
        << "): set KILN_LIBDEVICE to the libdevice.10.bc of a CUDA toolkit";
    return d;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return module.emitError() << "cannot read libdevice '" << path
                              << "': " << buffer.getError().message();
  llvm::Expected<std::unique_ptr<llvm::Module>> lib = llvm::parseBitcodeFile(
      (*buffer)->getMemBufferRef(), llvmModule.getContext());
  if (!lib)
    return module.emitError() << "libdevice '" << path
                              << "' is not LLVM bitcode this Kiln reads: "
                              << llvm::toString(lib.takeError());
  llvm::StringSet<> defined;
  for (llvm::Function &f : **lib)
    if (!f.isDeclaration())
      defined.insert(f.getName());
  llvm::SmallVector<std::string> wanted;
  declared(&wanted);
  for (const std::string &name : wanted)
    if (!defined.contains(name))
      return module.emitError() << "libdevice '" << path
                                << "' defines no function '" << name << "'";
  (*lib)->setTargetTriple(llvmModule.getTargetTriple());
  (*lib)->setDataLayout(llvmModule.getDataLayout());
  if (llvm::Linker::linkModules(llvmModule, std::move(*lib),
                                llvm::Linker::Flags::LinkOnlyNeeded))
    return module.emitError() << "linking libdevice '" << path << "' failed";
  for (llvm::Function &f : llvmModule)
    if (!f.isDeclaration() && defined.contains(f.getName()))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : llvmModule.globals())
    if (!g.isDeclaration() && g.getName().starts_with("__nv"))
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (!llvmModule.getModuleFlag("nvvm-reflect-ftz"))
    llvmModule.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                             uint32_t(1));
  return success();
}
