//===- Targets.h - Kiln's known GPU targets ---------------------*- C++ -*-===//
//
// A target is data. Every chip Kiln knows is one row of a table that its
// vendor backend (third_party/<vendor>) registers; core code asks the
// description, never the vendor.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_TARGETS_H
#define KILN_TARGET_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace kiln {

/// Everything the compiler needs to know about one chip.
struct TargetDesc {
  /// Canonical spelling, "<runtime>:<chip>".
  llvm::StringLiteral name;
  /// Key of the backend that owns the chip (Backend::getKey()).
  llvm::StringLiteral backend;
  /// Chip name handed to LLVM (-mcpu) and the vendor's assembler.
  llvm::StringLiteral chip;
  /// LLVM target triple.
  llvm::StringLiteral triple;
  /// LLVM subtarget features.
  llvm::StringLiteral features;
  unsigned warpSize;
  /// Largest shared memory one CTA may use, in bytes.
  unsigned maxSharedBytes;
  /// Largest global load/store one thread issues, in bytes.
  unsigned maxVectorBytes;
  unsigned maxThreadsPerBlock;
  /// The vendor's architecture number of the chip.
  unsigned arch;
  /// Byte widths one thread's asynchronous global -> shared copy may move,
  /// as a mask (bit w set: w bytes are legal); 0 when the chip has none.
  unsigned asyncCopyWidths = 0;
  /// What the chip's asynchronous copy is called, for diagnostics.
  llvm::StringLiteral asyncCopyName = "";
  /// The copy writes lane i of a warp at one base + i x width (as
  /// direct-to-LDS loads, M0-based): a layout must give a warp's lanes
  /// consecutive slots.
  bool asyncCopyLaneContiguous = false;
  /// The hardware's wait counts outstanding copy instructions, not commit
  /// groups (a wait needs an instruction count).
  bool asyncWaitCountsInstructions = false;
  /// A wait makes the copies it retires visible to every thread of the
  /// issuing warp, not only to the issuing thread (the counter belongs to
  /// the warp, whose lanes run in lockstep): a warp that reads only bytes
  /// its own copies wrote needs no barrier after its wait.
  bool asyncWaitOrdersWarp = false;
  /// For waits counting instructions: the largest count that still waits
  /// (0: no limit). The counter field's maximum itself waits for nothing
  /// (the counter never exceeds it), so a count the field cannot hold
  /// becomes this one, which only waits longer.
  unsigned maxAsyncWaitInstructions = 0;
  /// Most registers (tensor elements) one thread may hold for one tensor.
  /// The type itself allows 2^11 (LinearLayout::kMaxInBits); a chip whose
  /// compiler takes far longer on big register files lowers this.
  unsigned maxTensorRegisters = 2048;
  /// A masked lane's async copy writes zeros (cp.async's src-size 0), so a
  /// masked copy's `other` can only be zero. Otherwise masked lanes are
  /// branched around the copy and store `other` themselves.
  bool asyncCopyZeroFillsMasked = true;
  /// Async copies whose layout has threads that only repeat others'
  /// elements (broadcast lanes or warps) are lowered (those threads branch
  /// around the copy). Not where a wave that issues no copy would break the
  /// instruction counts of waits: there a repeating warp issues the same copy
  /// and repeating lanes are refused.
  bool asyncCopyBroadcastLanes = true;
  /// Where non-zero: the chip has loads that address one base plus 32-bit
  /// unsigned byte offsets and read zeros from this many bytes on. A kernel
  /// pointer argument whose tensor spans at most this many bytes is
  /// specialized `tile.pointer_range = 32` at launch (signature marker
  /// ":range32"), which lets copies through it take that form.
  int64_t pointerRangeBytes = 0;
  /// Shared memory's banks of 4 bytes (what bank_conflicts counts on).
  unsigned sharedMemoryBanks = 32;
  /// The lanes one pass of a 16-byte shared-memory load serves, as a mask of
  /// lane-index bits, where they are not the lowest ones (CDNA's
  /// ds_read_b128 serves lanes 0-3 and 16-19 together on 32 banks: bits 0,
  /// 1 and 4); 0: consecutive lanes, as many as fill the banks.
  unsigned sharedLoad16LaneBits = 0;
  /// A convert_layout staged through shared memory may lay its scratch out
  /// swizzled (ConvertLayoutScratch.cpp picks the layout with the fewest
  /// accesses times bank conflicts). Where false, only unswizzled row- and
  /// column-major scratches are weighed (a target whose register pressure
  /// the swizzle's per-access address arithmetic hurts more than its bank
  /// conflicts do; the backend's table says why).
  bool swizzledLayoutScratch = true;
  /// A layout move whose scratch alone sets the kernel's shared memory is
  /// staged in rounds (smaller pieces, more barriers) while that lowers the
  /// total (tile-allocate-shared-memory), as the target's other compiler
  /// sizes such moves; where false, a move takes one round unless the
  /// buffers would not fit.
  bool stageDominantLayoutMoves = false;
  /// A thread's async copies land in issue order (the counter the waits
  /// read retires them in order): a copy of the same kind (op and operand
  /// layouts) over the bytes an earlier one may still be writing writes
  /// each byte from the same thread after it, so the later data is what
  /// stays, as in program order (tile-check-async-safety does not report
  /// it). Where false, such copies may land in either order.
  bool asyncCopiesLandInOrder = false;
};

/// Adds a backend's chips to the table (called by registerBackend). The rows
/// must outlive the process; names must be new.
void registerTargets(llvm::ArrayRef<TargetDesc> targets);

/// All known targets, in registration order.
llvm::ArrayRef<const TargetDesc *> getKnownTargets();

/// Look up a target by its canonical name. Returns null when unknown.
const TargetDesc *lookupTarget(llvm::StringRef name);

/// Comma separated list of known target names, for error messages.
std::string knownTargetNames();

} // namespace kiln

#endif // KILN_TARGET_TARGETS_H
