//===- Pipeline.h - What the software-pipelining passes share ---*- C++ -*-===//
//
// What core's pipelining passes share beyond Pipelining.h (which backends
// use too): the rings of plain loads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_TILE_TRANSFORMS_PIPELINE_H
#define KILN_LIB_DIALECT_TILE_TRANSFORMS_PIPELINE_H

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/Transforms/Pipelining.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::tile::pipeline {

/// Whether `v` is absent or a splat zero constant (a load's `other` an
/// async copy's zero fill can stand for).
bool isZeroOrAbsent(mlir::Value v);

/// The local_allocs of `body` a load fills, when they are all its users
/// and of one type (the ring then takes their layout); empty otherwise.
llvm::SmallVector<LocalAllocOp> getFilledAllocs(LoadOp load,
                                                mlir::Block *body);

/// The unswizzled shared layout a load used in registers is staged in: the
/// dimension its registers run along fastest, then the others from the last.
SharedLayoutAttr getStagingLayout(mlir::RankedTensorType type);

/// The ring a pipelined load of `body` copies into: `numStages` slots in
/// the layout of the allocs it fills, or the staging layout.
MemDescType getRingType(LoadOp load, mlir::Block *body, int64_t numStages);

} // namespace kiln::tile::pipeline

#endif
