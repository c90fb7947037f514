//===- Dialect.h - The tile dialect -----------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILE_IR_DIALECT_H
#define KILN_DIALECT_TILE_IR_DIALECT_H

#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h.inc"
#include "kiln/Dialect/Tile/IR/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileTypes.h.inc"
namespace kiln::tile {
/// The largest `tile.stage` / `tile.cluster` the verifier accepts: a loop is
/// pipelined into at most kMaxPipelineStage + 1 stages.
constexpr int64_t kMaxPipelineStage = 64;

/// The resource of shared-memory side effects (local_alloc/load/store, async
/// copies): ordered among themselves, independent of global memory.
struct SharedMemoryResource
    : public mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};

/// Errors unless `op` is inside a function: tile, tile_nv and tile_amd ops
/// describe a kernel's code, and nothing lowers them at module scope.
mlir::LogicalResult verifyInFunction(mlir::Operation *op);

/// The trait of every tile, tile_nv and tile_amd op (verifyInFunction).
template <typename ConcreteType>
class InFunction : public mlir::OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInFunction(op);
  }
};

/// Marks ops whose tensor operands and results all have one layout
/// (tile-resolve-layouts propagates it through them).
template <typename ConcreteType>
class SharesOneLayout
    : public mlir::OpTrait::TraitBase<ConcreteType, SharesOneLayout> {};
} // namespace kiln::tile

#include "kiln/Dialect/Tile/IR/TileOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Tile/IR/TileOps.h.inc"

namespace kiln::tile {

/// The linear layout of a ranked tensor type with a distributed layout, or
/// failure (with a diagnostic when `emitError` is given).
mlir::FailureOr<LinearLayout>
getLinearLayout(mlir::RankedTensorType type,
                llvm::function_ref<mlir::InFlightDiagnostic()> emitError = {});

/// The cluster split of a layout (#tile.cga, possibly under #tile.slice):
/// one vector of `rank` CTA-tile moves per bit of the CTA's rank; empty for
/// layouts of one CTA.
llvm::SmallVector<llvm::SmallVector<int64_t>>
getClusterBases(mlir::Attribute layout, unsigned rank);
/// A dot's operands split among a cluster's CTAs as its accumulator is, but
/// never along K: an error at `op` otherwise.
mlir::LogicalResult verifyDotClusterSplit(mlir::Operation *op,
                                          mlir::RankedTensorType a,
                                          mlir::RankedTensorType b,
                                          mlir::RankedTensorType c);
/// The layout of one CTA's part: #tile.cga wrappers removed.
mlir::Attribute stripCluster(mlir::Attribute layout);
/// The shape of one CTA's part of a tensor of `type` (its shape where the
/// layout is not split).
llvm::SmallVector<int64_t> getCtaShape(mlir::RankedTensorType type);
/// Per dimension, how many ways `bases` split it.
llvm::SmallVector<int64_t>
getClusterSplit(llvm::ArrayRef<llvm::SmallVector<int64_t>> bases,
                unsigned rank);

/// Whether `encoding` is a layout still to be inferred (#tile.auto,
/// #tile.coalesced): tile-resolve-layouts replaces these before lowering.
bool isUnresolvedLayout(mlir::Attribute encoding);
/// Whether the ranked tensor type `type` has such a layout.
bool hasUnresolvedLayout(mlir::Type type);

/// The F2-linear map offset -> coordinates of one buffer of `type` (its
/// trailing layout-rank dimensions), offsets in the `register` input bits.
mlir::FailureOr<LinearLayout> getSharedLinearLayout(MemDescType type);

/// Tensor with i1 elements of the same shape and layout as `type` (or i1 for
/// a scalar).
mlir::Type getI1SameShape(mlir::Type type);
/// The pointee type (with shape and layout kept for tensors) of a pointer or
/// tensor of pointers.
mlir::Type getPointeeType(mlir::Type type);
/// getPointeeType, or `type` itself when it is not a pointer type: never null,
/// so a parser can infer a type from it and leave the error to the verifier.
mlir::Type inferPointeeType(mlir::Type type);
/// Comparator of type-inference traits whose rule verify() checks itself.
struct CheckedInVerify {
  bool operator()(mlir::Type, mlir::Type) const { return true; }
};

/// Checks every tensor type in `module` against the compile context: a
/// distributed layout covering the shape, with exactly `threadsPerWarp`
/// lanes and `numWarps` warps, and (when `maxRegisters` is not 0, the
/// target's limit) at most `maxRegisters` registers per thread. Reports on
/// the first offending op; `targetName` names the target in that report.
mlir::LogicalResult verifyModuleLayouts(mlir::ModuleOp module, int numWarps,
                                        int threadsPerWarp,
                                        int maxRegisters = 0,
                                        llvm::StringRef targetName = "");

/// Module-level compile context, read from the module attributes.
int getNumWarps(mlir::ModuleOp module);
int getThreadsPerWarp(mlir::ModuleOp module);

/// The warps that run `op`: those of the tile.warp_specialize partition
/// around it, or `numWarps` (the kernel's) outside worker partitions.
int lookupNumWarps(mlir::Operation *op, int numWarps);
/// The tile.warp_specialize region around `op`: the op and the region's
/// index (0 the default region, 1 the first worker); {nullptr, 0} outside.
std::pair<mlir::Operation *, unsigned> enclosingWorkerPartition(mlir::Operation *op);

} // namespace kiln::tile

#endif // KILN_DIALECT_TILE_IR_DIALECT_H
