//===- SharedAccess.h - How threads address a shared buffer -----*- C++ -*-===//
//
// A shared layout maps a buffer offset to coordinates; accesses need the
// inverse. Both are F2-linear, so the inverse is a table of one offset per
// coordinate bit, and the offset of any coordinates is the XOR of the
// entries of their set bits. The lowering, the async-copy legality helper and
// the barrier pass all ask this file, so they cannot disagree on which
// elements a thread touches or how wide its accesses are.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_SHAREDACCESS_H
#define KILN_DIALECT_TILE_IR_SHAREDACCESS_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

namespace kiln::tile {

/// The inverse of a buffer's shared layout: offsets (in elements) of each
/// coordinate bit of the layout's dimensions (the buffer's trailing ones).
class SharedOffsets {
public:
  /// Fails when the layout is not a bijection onto the buffer.
  static mlir::FailureOr<SharedOffsets> get(MemDescType type);

  /// Offset of `coords` (the layout's dimensions only).
  int64_t offsetOf(llvm::ArrayRef<int32_t> coords) const;
  unsigned getRank() const { return inverse.size(); }
  /// Offsets of the coordinate bits of dimension `d`, lowest bit first.
  llvm::ArrayRef<int64_t> bitOffsets(unsigned d) const { return inverse[d]; }

private:
  llvm::SmallVector<llvm::SmallVector<int64_t>> inverse;
};

/// How one thread's registers of a tensor map onto a buffer: the offset of
/// every register and of every lane / warp bit, and how many consecutive
/// registers form one vector access.
struct SharedAccessPlan {
  /// Offset (elements) contributed by register r / lane bit / warp bit.
  llvm::SmallVector<int64_t> registerOffsets, laneBitOffsets, warpBitOffsets;
  /// Registers per vector access (a power of two).
  unsigned vec = 1;
  /// The layout's padding, (log2 interval, padding) pairs: an offset o
  /// above (after the XORs) lives at o + sum((o >> log2 interval) * padding).
  llvm::SmallVector<std::pair<unsigned, unsigned>> paddings;
  /// Register, lane and warp bits that hold no new element (broadcast).
  unsigned redundantRegisterMask = 0, redundantLaneMask = 0,
           redundantWarpMask = 0;
};

/// Elements of a one-slot view `type` when its layout maps them onto the
/// offsets [0, n) (a contiguous range from the view's own offset); failure
/// otherwise.
mlir::FailureOr<int64_t> getContiguousViewElements(MemDescType type);

/// Whether `offsets` (one per register, a power of two of them) are linear
/// over XOR in the register index: register r's offset is the XOR of those
/// of the powers of two that make up r, as an access plan's are when a
/// layout is linear. Instruction-level lowerings (ldmatrix, transposing
/// LDS reads) take a register's address from its index bits only then.
bool isXorLinear(llvm::ArrayRef<int64_t> offsets);

/// The plan for accessing `memdesc` (whose first element is `alignment`
/// bytes aligned, and whose elements sit at their allocation-layout offset
/// XOR `xorOffset`) with a tensor of `tensorType`'s shape and layout.
/// Vectors grow up to `maxVectorBytes`. Fails when the tensor does not cover
/// the buffer's leading dimensions with size 1 or a layout is not linear.
mlir::FailureOr<SharedAccessPlan>
planSharedAccess(mlir::RankedTensorType tensorType, MemDescType memdesc,
                 unsigned alignment, unsigned maxVectorBytes = 16,
                 int64_t xorOffset = 0);

/// Where a view's elements sit within its slot: the offset (elements) its
/// subslices add, which composes with the element offsets by XOR (a
/// subslice's offsets are multiples of its size). 0 for whole buffers. For
/// a buffer chosen or carried by control flow, its sources' (which the
/// lowering requires to agree).
int64_t getSharedXorOffset(mlir::Value memdesc);

/// Bytes between consecutive slots when `memdesc` (a view) is indexed along
/// its dimension `dim`: the allocation's stride there.
int64_t getSharedStrideBytes(MemDescType memdesc, unsigned dim);

/// Alignment in bytes of the first element of the buffer `memdesc` names:
/// 16 for an allocation, less for a ring slot whose size is not a multiple;
/// the least of its sources' for a buffer control flow chooses or carries.
unsigned getSharedBaseAlignment(mlir::Value memdesc);

/// Where the element at linear offset `o` of `layout` lives, after padding.
int64_t applyPadding(SharedLayoutAttr layout, int64_t o);

/// Bytes an allocation of `type` (its allocation shape) occupies, padding
/// included.
int64_t getAllocationBytes(MemDescType type);

/// Alignment in bytes an allocation of `type` needs: 16 (the widest
/// cp.async / vector access). Layouts that TMA and wgmma read will ask for
/// 128 or 1024 here.
unsigned getRequiredAlignment(MemDescType type);

/// The allocation a shared-memory value views (through memdesc_index and
/// the other views), or null when it comes from a block argument.
LocalAllocOp getRootAllocation(mlir::Value memdesc);

/// An op that views its operand 0's shared memory (index, subslice,
/// permute, reshape, reinterpret): result 0 is the same bytes, or some of
/// them.
bool isMemDescView(mlir::Operation *op);

/// The buffers a memdesc that control flow chooses or carries (an scf.if or
/// scf.for result, a loop's iteration argument, a block argument after
/// scf-to-cf) may be: the views reaching it on every path, through nested
/// ones; `memdesc` itself when it is no such value. Fails when a path
/// cannot be followed (a function argument, a terminator without
/// BranchOpInterface, scf.while before scf-to-cf).
mlir::LogicalResult
getSharedSources(mlir::Value memdesc,
                 llvm::SmallVectorImpl<mlir::Value> &sources);

/// While alive (on this thread), getSharedXorOffset and
/// getSharedBaseAlignment answer for the buffers control flow chooses or
/// carries in `root` what they were when it was made: a dialect conversion
/// detaches the blocks those arguments belong to before it rewrites the ops
/// that use them.
class SharedPhiSnapshot {
public:
  explicit SharedPhiSnapshot(mlir::Operation *root);
  ~SharedPhiSnapshot();
  SharedPhiSnapshot(const SharedPhiSnapshot &) = delete;
  SharedPhiSnapshot &operator=(const SharedPhiSnapshot &) = delete;

private:
  void *previous;
};

} // namespace kiln::tile

#endif
