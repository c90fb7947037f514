//===- Backend.cpp - Vendor backend registry ------------------------------===//

#include "kiln/Target/Backend.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/Module.h"

#include <mutex>
#include <vector>

using namespace mlir;
using namespace kiln;

Backend::~Backend() = default;

LogicalResult Backend::verifyModule(ModuleOp, const TargetDesc &,
                                    const llvm::MCSubtargetInfo &) const {
  return success();
}

std::string Backend::getFeatures(ModuleOp, const TargetDesc &target) const {
  return target.features.str();
}

void Backend::prepareModule(llvm::Module &, const TargetDesc &) const {}

LogicalResult Backend::linkLibraries(ModuleOp, llvm::Module &,
                                     const SerializeOptions &) const {
  return success();
}

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Backend>> backends;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

void kiln::registerBackend(std::unique_ptr<Backend> backend) {
  Registry &r = registry();
  const Backend *added = backend.get();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const std::unique_ptr<Backend> &b : r.backends)
      if (b->getKey() == backend->getKey())
        return;
    r.backends.push_back(std::move(backend));
  }
  registerTargets(added->getTargets());
}

const Backend *kiln::lookupBackend(llvm::StringRef key) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::unique_ptr<Backend> &b : r.backends)
    if (b->getKey() == key)
      return b.get();
  return nullptr;
}

const Backend *kiln::getBackend(const TargetDesc &target) {
  return lookupBackend(target.backend);
}

llvm::SmallVector<const Backend *> kiln::getBackends() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  llvm::SmallVector<const Backend *> out;
  for (const std::unique_ptr<Backend> &b : r.backends)
    out.push_back(b.get());
  return out;
}
