//===- TargetInfo.cpp - Vendor hook registry ------------------------------===//

#include "kiln/Conversion/TargetInfo.h"

#include "llvm/ADT/DenseMap.h"
#include <map>
#include <mutex>

using namespace kiln;

TargetInfo::~TargetInfo() = default;

static std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

static std::map<Vendor, TargetInfoFactory> &registry() {
  static std::map<Vendor, TargetInfoFactory> r;
  return r;
}

void kiln::registerTargetInfoFactory(Vendor vendor, TargetInfoFactory factory) {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry()[vendor] = std::move(factory);
}

std::unique_ptr<TargetInfo> kiln::createTargetInfo(const TargetDesc &desc) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(desc.vendor);
  if (it == registry().end())
    return nullptr;
  return it->second(desc);
}
