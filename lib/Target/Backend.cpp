//===- Backend.cpp - Vendor backend registry ------------------------------===//

#include "kiln/Target/Backend.h"

#include <map>
#include <mutex>

using namespace mlir;
using namespace kiln;

Backend::~Backend() = default;

LogicalResult Backend::verifyModule(ModuleOp, const TargetDesc &,
                                    const llvm::MCSubtargetInfo &) const {
  return success();
}

void Backend::prepareModule(llvm::Module &, const TargetDesc &) const {}

namespace {
struct Registry {
  std::mutex mutex;
  std::map<Vendor, std::unique_ptr<Backend>> backends;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

void kiln::registerBackend(std::unique_ptr<Backend> backend) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Vendor vendor = backend->getVendor();
  r.backends[vendor] = std::move(backend);
}

const Backend *kiln::lookupBackend(Vendor vendor) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.backends.find(vendor);
  return it == r.backends.end() ? nullptr : it->second.get();
}

llvm::SmallVector<const Backend *> kiln::getBackends() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  llvm::SmallVector<const Backend *> out;
  for (auto &[vendor, backend] : r.backends)
    out.push_back(backend.get());
  return out;
}
