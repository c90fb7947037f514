//===- Targets.cpp - Kiln's known GPU targets -----------------------------===//

#include "kiln/Target/Targets.h"

#include "llvm/ADT/STLExtras.h"

using namespace kiln;

static const TargetDesc kTargets[] = {
    // name, vendor, chip, triple, features, warp, smem, vec, threads, arch
    {"cuda:sm_80", Vendor::NVIDIA, "sm_80", "nvptx64-nvidia-cuda", "+ptx80",
     32, 166912, 16, 1024, 80},
    {"cuda:sm_90a", Vendor::NVIDIA, "sm_90a", "nvptx64-nvidia-cuda", "+ptx80",
     32, 232448, 16, 1024, 90},
    {"hip:gfx942", Vendor::AMD, "gfx942", "amdgcn-amd-amdhsa", "", 64, 65536,
     16, 1024, 942},
    {"hip:gfx950", Vendor::AMD, "gfx950", "amdgcn-amd-amdhsa", "", 64, 163840,
     16, 1024, 950},
};

llvm::ArrayRef<TargetDesc> kiln::getKnownTargets() { return kTargets; }

const TargetDesc *kiln::lookupTarget(llvm::StringRef name) {
  for (const TargetDesc &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string kiln::knownTargetNames() {
  std::string s;
  for (const TargetDesc &t : kTargets) {
    if (!s.empty())
      s += ", ";
    s += t.name.str();
  }
  return s;
}
