//===- Dialect.h - The tile_nv dialect ---------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_TILENV_IR_DIALECT_H
#define KILN_DIALECT_TILENV_IR_DIALECT_H

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Traits.h"

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/TileNV/IR/TileNVDialect.h.inc"

namespace kiln::tile_nv {

/// The state of an mbarrier (its pending arrivals and transaction bytes):
/// arrivals and waits are atomic on it and need no CTA barrier between
/// them, unlike ordinary shared-memory accesses.
struct MBarrierResource
    : public mlir::SideEffects::Resource::Base<MBarrierResource> {
  llvm::StringRef getName() final { return "<MBarrier>"; }
};

/// Checks that `barrier` is one mutable i64 word of shared memory and that
/// the chip (when known) is at least sm_`minArch`; `needs` names the
/// instruction in the error.
mlir::LogicalResult verifyBarrier(mlir::Operation *op, mlir::Value barrier,
                                  unsigned minArch, llvm::StringRef needs);
/// Checks that the chip (when known) is at least sm_`minArch`.
mlir::LogicalResult verifyArch(mlir::Operation *op, unsigned minArch,
                               llvm::StringRef needs);

/// The largest id of tile_nv.named_barrier_sync / _arrive. Id k is the
/// hardware's barrier 15 - k: Kiln uses barrier 0 (the CTA's) and, in a
/// kernel with warp_specialize, 1 and one more per worker partition.
constexpr int32_t kMaxNamedBarrierId = 13;
inline unsigned namedBarrierHardwareId(int32_t id) { return 15 - id; }

} // namespace kiln::tile_nv

#include "kiln/Dialect/TileNV/IR/TileNVEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileNV/IR/TileNVAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/TileNV/IR/TileNVOps.h.inc"

#endif
