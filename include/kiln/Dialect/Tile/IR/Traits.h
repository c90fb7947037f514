//===- Traits.h - Op traits the tile passes read from any dialect -*- C++ -*-===//
//
// A vendor's op declares with these what the target-independent passes need
// to know of it (tile-allocate-shared-memory's scratch, ...).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_TRAITS_H
#define KILN_DIALECT_TILE_IR_TRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace kiln::tile {
/// On an op with TileAtomicResults: the cluster rank bits along which the
/// CTAs hold the same elements (one CTA acts; its old values pass to the
/// others through the op's scratch).
inline constexpr llvm::StringLiteral kRepeatedCtasAttr = "tile.repeated_ctas";
} // namespace kiln::tile

namespace mlir::OpTrait {

/// An atomic whose result 0 holds the old values: where several threads hold
/// an element and the old values are used, the acting thread passes them on
/// through scratch shared memory (as tile.atomic_rmw).
template <typename ConcreteType>
class TileAtomicResults
    : public TraitBase<ConcreteType, TileAtomicResults> {};

} // namespace mlir::OpTrait

#endif
