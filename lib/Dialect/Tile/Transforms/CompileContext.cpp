//===- CompileContext.cpp - Target and warps for a pass -------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

FailureOr<CompileContext> kiln::resolveCompileContext(ModuleOp module,
                                                      StringRef targetOption,
                                                      int numWarpsOption,
                                                      bool requireTarget) {
  CompileContext ctx;
  std::string name = targetOption.str();
  MLIRContext *mctx = module->getContext();
  StringAttr modTarget = TileDialect::TargetAttrHelper(mctx).getAttr(module);
  if (name.empty() && modTarget)
    name = modTarget.str();
  if (name.empty()) {
    if (!requireTarget)
      return ctx;
    return module.emitError()
           << "no target: pass target=<name> or set "
           << TileDialect::TargetAttrHelper::getNameStr() << " on the module";
  }
  if (modTarget && modTarget.getValue() != name)
    return module.emitError()
           << "module was built for " << modTarget
           << " but the pass options target '" << name << "'";
  ctx.target = lookupTarget(name);
  if (!ctx.target)
    return module.emitError() << "unknown target '" << name
                              << "'; known targets: " << knownTargetNames();

  IntegerAttr modWarps = TileDialect::NumWarpsAttrHelper(mctx).getAttr(module);
  int warps = numWarpsOption;
  if (warps == 0)
    warps = modWarps ? modWarps.getInt() : 4;
  if (modWarps && modWarps.getInt() != warps)
    return module.emitError()
           << "module was built for " << modWarps.getInt()
           << " warps but the pass options ask for " << warps;
  const TargetDesc &desc = *ctx.target;
  if (warps <= 0 || (warps & (warps - 1)) ||
      int64_t(warps) * desc.warpSize > int64_t(desc.maxThreadsPerBlock))
    return module.emitError()
           << "num-warps must be a power of two with at most "
           << desc.maxThreadsPerBlock << " threads per CTA on " << desc.name
           << ", got " << warps;
  ctx.numWarps = warps;

  int tpw = getThreadsPerWarp(module);
  if (TileDialect::ThreadsPerWarpAttrHelper(mctx).isAttrPresent(module) &&
      tpw != int(desc.warpSize))
    return module.emitError()
           << "module has "
           << TileDialect::ThreadsPerWarpAttrHelper::getNameStr() << " = "
           << tpw << " but " << desc.name << " has " << desc.warpSize
           << "-wide warps";
  ctx.threadsPerWarp = desc.warpSize;
  return ctx;
}
