//===- RingSlot.h - Which slot of a ring a view stays in --------*- C++ -*-===//
//
// Pipelined kernels (and the pipeliner) index a ring of buffers (an allocation whose leading
// dimension is the slot) by a constant, by `(iv + c) % N` of a loop's
// induction variable, or by a slot counter the loop carries. Both tile-insert-barriers and tile-check-async-safety
// compare such slots, within one iteration and across the loop's back edge;
// this file is the one place that reads them from the IR and moves them
// from one iteration to the next.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_RINGSLOT_H
#define KILN_ANALYSIS_RINGSLOT_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <utility>

namespace kiln::tile {

/// The value of an integer constant.
std::optional<int64_t> constantInt(mlir::Value v);

/// `v` as `base + offset` (base null when `v` is a constant), through adds
/// and subtractions of constants.
std::pair<mlir::Value, int64_t> linearIndex(mlir::Value v);

/// An scf.for induction variable that is never negative (constant lower
/// bound >= 0 and constant step > 0).
bool isNonNegativeInductionVar(mlir::Value v);

/// a - b where that is the same constant wherever both are defined: through
/// adds of constants, and for two iter_args of one scf.for (or two results
/// of it) whose inits differ by d and whose yields differ by d whenever the
/// iter_args do (a producer and a consumer counter advanced in lockstep).
std::optional<int64_t> valueDifference(mlir::Value a, mlir::Value b);

/// Which slot of a ring an access stays inside, as `(base + offset) mod
/// modulus` with `base` a non-negative scf.for induction variable (or the
/// counter value a loop returns, or a never-negative iter_arg counter the
/// loop advances by a constant), or null for a constant index. Two accesses on slots of one allocation with the
/// same base and modulus whose offsets differ touch different slots.
struct RingSlot {
  mlir::Operation *root = nullptr;
  mlir::Value base;
  int64_t offset = 0, modulus = 0;
  /// An access by a constant index keeps it here, whatever form the slot
  /// takes on entering a loop (a constant slot seen from the loop's first
  /// iteration is (iv - lb + c)): the same slot in every iteration, so two
  /// different literals of one allocation never meet. -1: not a constant.
  int64_t literal = -1;

  bool known() const { return root && modulus > 0; }
  bool disjoint(const RingSlot &o) const {
    if (!known() || !o.known() || root != o.root)
      return false;
    if (literal >= 0 && o.literal >= 0 && literal != o.literal)
      return true;
    if (base == o.base)
      return modulus == o.modulus && offset != o.offset;
    // Two counters a fixed distance apart (valueDifference).
    if (!base || !o.base || modulus != o.modulus)
      return false;
    std::optional<int64_t> d = valueDifference(base, o.base);
    return d && mod(offset + *d - o.offset, modulus) != 0;
  }
  /// Certainly the same slot.
  bool same(const RingSlot &o) const {
    return known() && root == o.root &&
           ((base == o.base && offset == o.offset && modulus == o.modulus) ||
            (literal >= 0 && literal == o.literal));
  }
  bool operator==(const RingSlot &o) const {
    return root == o.root && base == o.base && offset == o.offset &&
           modulus == o.modulus && literal == o.literal;
  }
  static int64_t mod(int64_t x, int64_t m) { return ((x % m) + m) % m; }

  /// A constant slot as the first iteration of `loop` sees it: slot c is
  /// (iv - lb + c) there. Other slots are unchanged.
  RingSlot enteringLoop(mlir::scf::ForOp loop) const;
  /// What one iteration of `loop` touched at (iv + c), seen from the next:
  /// (iv - step + c). A slot indexed by another value defined in the loop
  /// is unknown.
  RingSlot aroundBackEdge(mlir::Operation *loop) const;
  /// The slot after `op` (a loop or another region op): one indexed by a
  /// value defined inside it is unknown, except (iv + c) % N of an scf.for
  /// that returns a counter, read at the loop's head as it exits (iv = lb +
  /// trips), which becomes a slot of that counter's value.
  RingSlot leaving(mlir::Operation *op) const;
};

/// The slot a view of a ring stays in: views below one memdesc_index of the
/// allocation, whose index is a constant, (iv + c) % N with iv + c never
/// negative, a loop-carried counter s advanced as (s + 1) % N from a
/// constant in a loop of step 1, or (s + c) % N with c >= 0 of such a counter
/// or of one advanced as s + 1 without wrapping; after such a loop, the
/// counter's value r it returns (wrapped at N) or (r + c) % N; unknown
/// otherwise.
RingSlot getRingSlot(mlir::Value memdesc);

} // namespace kiln::tile

#endif
