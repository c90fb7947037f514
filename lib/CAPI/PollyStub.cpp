//===- PollyStub.cpp - The Polly hook LLVM's static LTO library names -----===//
//
// Debian builds LLVM with Polly linked into its tools, so libLLVMLTO.a (which
// lld's library pulls into the self-contained libkiln.so) refers to
// getPollyPluginInfo(), while Polly itself ships only as a plugin. Kiln runs
// LTO never (lld links ordinary object files), so the hook registers nothing.
//
//===----------------------------------------------------------------------===//

#include "llvm/Config/llvm-config.h"
#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kiln-no-polly", LLVM_VERSION_STRING,
          [](llvm::PassBuilder &) {}};
}
