//===- LoopDependence.h - May a load moved ahead read a loop's writes? ----===//
//
// Software pipelining issues the load of iteration i + d while the writes of
// iterations i .. i + d - 1 (and, before the load's first reader, of its own
// iteration) have not happened yet. This analysis says whether any global
// write of the loop may touch a byte such a load reads.
//
// Two accesses through different kernel pointer arguments are assumed not to
// overlap: the assumption GPU kernel languages make of separate arguments
// (`__restrict__`). Through the same argument (or one Kiln cannot trace to an
// argument), the accesses must be proven apart from their address forms
// (AddressForm): the difference of the two addresses, with the load's
// induction variable advanced by d steps, must be a constant plus constant
// multiples of the elements' coordinates, and no element of the load may
// land on an element of the write. Masks are ignored (a masked-off element
// counts as accessed), so a "no" is sound whatever the masks are.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_LOOPDEPENDENCE_H
#define KILN_ANALYSIS_LOOPDEPENDENCE_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kiln {

/// The kernel arguments a pointer, tensor of pointers or tensor descriptor
/// may derive from (through address arithmetic, shape ops, selects and
/// loop-carried values); nullopt when one of its sources is not an argument
/// (a pointer loaded from memory, say).
std::optional<llvm::SmallVector<mlir::BlockArgument>>
getPointerRoots(mlir::Value ptr);

/// What a global write of a loop does to a load moved ahead of it.
struct LoopHazard {
  enum Kind {
    /// An element of the load is an element of the write `distance`
    /// iterations earlier (masks aside).
    Overlap,
    /// Kiln cannot tell: same (or untraceable) pointer argument, addresses
    /// whose difference is not a constant.
    Unknown,
  };
  Kind kind;
  mlir::Operation *write;
  int64_t distance = 0;
  std::string why;
};

/// The first write of `loop` (its body, nested regions too) that may change
/// what `loadPtr` (a tensor of pointers in the loop body) reads, when the
/// load of iteration i + d is issued before the writes of iteration i, for
/// every d in `distances` (0: the same iteration). `writeFilter(op)` says
/// whether a write counts at distance 0 (those after the load's value is
/// waited for do not).
std::optional<LoopHazard>
findLoopHazard(mlir::scf::ForOp loop, mlir::Value loadPtr,
               llvm::ArrayRef<int64_t> distances,
               llvm::function_ref<bool(mlir::Operation *)> countsInOwnIteration);

} // namespace kiln

#endif
