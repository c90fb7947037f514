//===- Targets.cpp - Kiln's known GPU targets -----------------------------===//

#include "kiln/Target/Targets.h"

#include "llvm/ADT/SmallVector.h"

#include <mutex>

using namespace kiln;

namespace {
struct Table {
  std::mutex mutex;
  llvm::SmallVector<const TargetDesc *> rows;
};
Table &table() {
  static Table t;
  return t;
}
} // namespace

void kiln::registerTargets(llvm::ArrayRef<TargetDesc> targets) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const TargetDesc &desc : targets)
    if (llvm::none_of(t.rows, [&](const TargetDesc *row) {
          return row->name == desc.name;
        }))
      t.rows.push_back(&desc);
}

llvm::ArrayRef<const TargetDesc *> kiln::getKnownTargets() {
  // Rows are only added while the process starts (backend registration),
  // and never removed, so the array stays valid once handed out.
  return table().rows;
}

const TargetDesc *kiln::lookupTarget(llvm::StringRef name) {
  for (const TargetDesc *t : getKnownTargets())
    if (t->name == name)
      return t;
  return nullptr;
}

std::string kiln::knownTargetNames() {
  std::string s;
  for (const TargetDesc *t : getKnownTargets()) {
    if (!s.empty())
      s += ", ";
    s += t->name.str();
  }
  return s.empty() ? "none (no backend is built in)" : s;
}
