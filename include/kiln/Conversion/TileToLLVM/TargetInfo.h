//===- TargetInfo.h - Vendor hooks for the tile lowering --------*- C++ -*-===//
//
// The target-neutral lowering asks a TargetInfo for the few things that differ
// between vendors (special registers, warp shuffles, barriers, fast math,
// kernel attributes). Vendors implement it in third_party/<vendor> and
// register a factory; core code never branches on the vendor.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CONVERSION_TILETOLLVM_TARGETINFO_H
#define KILN_CONVERSION_TILETOLLVM_TARGETINFO_H

#include <string>

#include "kiln/Target/Targets.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include <functional>
#include <memory>
#include <optional>

namespace kiln {

class TileTypeConverter;
struct LoweringContext;

class TargetInfo {
public:
  explicit TargetInfo(const TargetDesc &desc) : desc(desc) {}
  virtual ~TargetInfo();

  const TargetDesc &getDesc() const { return desc; }

  /// Program (CTA / workgroup) index along `axis` as i32.
  virtual mlir::Value programId(mlir::OpBuilder &b, mlir::Location loc,
                                unsigned axis) const = 0;
  /// Number of programs along `axis` as i32.
  virtual mlir::Value numPrograms(mlir::OpBuilder &b, mlir::Location loc,
                                  unsigned axis) const = 0;
  /// Thread index inside the CTA (x only; Kiln launches 1-D blocks), i32.
  virtual mlir::Value threadId(mlir::OpBuilder &b,
                               mlir::Location loc) const = 0;
  /// Butterfly shuffle of an i32 value with lane `lane ^ mask`.
  virtual mlir::Value shuffleXorI32(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value v, unsigned mask,
                                    mlir::Value laneId) const = 0;
  /// An i32 value of lane `srcLane` (a runtime lane index of this warp).
  virtual mlir::Value shuffleIdxI32(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value v, mlir::Value srcLane) const = 0;
  /// CTA-wide barrier that also orders shared-memory accesses.
  virtual void barrier(mlir::OpBuilder &b, mlir::Location loc) const = 0;
  /// Whether namedBarrier lowers: a barrier of `numThreads` threads (whole
  /// warps) on barrier `id`, which warp specialization needs. With
  /// `sameInstruction` false its participants may reach it at different
  /// instructions (warp specialization's partition barrier: the kernel's
  /// warps at each call, the workers in their dispatch loop), which a
  /// barrier the target declares executed by one instruction of every
  /// thread (as some targets' barrier instructions do) does not allow.
  virtual bool hasNamedBarriers() const { return false; }
  virtual void namedBarrier(mlir::OpBuilder &b, mlir::Location loc,
                            unsigned id, unsigned numThreads,
                            bool sameInstruction = true) const {}
  /// Whether `op` is what barrier() creates, and what threadId() creates:
  /// warp specialization rewrites them per partition after the conversion.
  virtual bool isCTABarrier(mlir::Operation *op) const { return false; }
  virtual bool isThreadIdRead(mlir::Operation *op) const { return false; }
  /// This thread's warp index, as the target best tells its compiler that
  /// it is the same in every lane. The default divides threadId().
  virtual mlir::Value warpId(mlir::OpBuilder &b, mlir::Location loc) const;

  /// Moving registers between warp groups at run time (setmaxnreg), which
  /// lets warp specialization give its partitions different budgets.
  struct RegisterReallocation {
    /// Registers one CTA may hold; 0 when the target cannot reallocate.
    int registersPerCTA = 0;
    /// Warps that reallocate together (each executes the same instruction).
    int groupWarps = 0;
    /// Per-thread counts one group may ask for: a multiple of `step` in
    /// [minRegs, maxRegs].
    int minRegs = 0, maxRegs = 0, step = 1;
  };
  virtual RegisterReallocation registerReallocation() const { return {}; }
  /// Sets this warp group's per-thread register count from `current` to
  /// `regs` (a request to grow waits until other groups have given up
  /// enough).
  virtual void setMaxRegisters(mlir::OpBuilder &b, mlir::Location loc,
                               int current, int regs) const {}
  /// Whether limitKernelRegisters caps anything (the maxnreg option).
  virtual bool hasKernelRegisterCap() const { return false; }
  /// Caps the registers per thread the kernel starts with (never raising a
  /// cap already set).
  virtual void limitKernelRegisters(mlir::LLVM::LLVMFuncOp func,
                                    int regs) const {}
  /// f32 fast math the chip provides: "exp2", "log2", "sin", "cos", "rsqrt".
  /// Returns null when the function has no lowering on this target.
  virtual mlir::Value mathF32(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::StringRef fn, mlir::Value x) const = 0;
  /// `x / y` in f32 where the program allows an approximate quotient (the
  /// DSL's `/` and fdiv(ieee_rounding=False), as Triton: within 2 ulp), by
  /// the chip's fast division; null (the default) divides rounding to nearest.
  virtual mlir::Value divideF32Approx(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, mlir::Value y) const {
    return {};
  }
  /// fp8 conversions by the chip's packed instructions. Where these return
  /// nothing (the default), having emitted nothing, Fp8Conversions.cpp
  /// converts with integer arithmetic; where they return values, those must
  /// equal its results except in the bits of a NaN.
  ///
  /// `values` (of float type `from`: f16, bf16 or f32; any number of them)
  /// as codes (i8) of the fp8 type `to`, rounded to nearest even and
  /// saturating: a magnitude past the largest finite value, infinity
  /// included, becomes that value with its sign; a NaN becomes a NaN.
  virtual llvm::SmallVector<mlir::Value>
  fp8Truncate(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange values,
              mlir::Type from, mlir::Type to) const {
    return {};
  }
  /// The fp8 codes `codes` (i8, of fp8 type `from`) as values of float type
  /// `to` (f16, bf16 or f32), exactly (a NaN code gives a NaN).
  virtual llvm::SmallVector<mlir::Value>
  fp8Extend(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange codes,
            mlir::Type from, mlir::Type to) const {
    return {};
  }
  /// The LLVM sync scope of an atomic of Gluon's `scope` ("cta", "gpu",
  /// "sys"); "" (the system) by default.
  virtual std::string atomicSyncScope(llvm::StringRef scope) const {
    return "";
  }
  /// The atomic `kind` of `value` at global `ptr` (`align` bytes aligned)
  /// with Gluon's memory order `sem` ("relaxed", "acquire", "release",
  /// "acq_rel") at Gluon's `scope`; returns the old value. The default is
  /// LLVM's atomicrmw with that ordering at atomicSyncScope(scope).
  virtual mlir::Value atomicRMW(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::LLVM::AtomicBinOp kind, mlir::Value ptr,
                                mlir::Value value, llvm::StringRef sem,
                                llvm::StringRef scope, unsigned align) const;
  /// `act()` (an atomic without an order of its own) between the fences of
  /// Gluon's `sem` at `scope`'s sync scope: release before, acquire after.
  mlir::Value atomicBetweenFences(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef sem, llvm::StringRef scope,
                                  llvm::function_ref<mlir::Value()> act) const;
  /// Compare-and-swap of the integers `cmp` and `value` at global `ptr`,
  /// with `sem` and `scope` as atomicRMW's; returns the old value. The
  /// default is LLVM's cmpxchg with that ordering (a failed compare orders
  /// as an acquire at most).
  virtual mlir::Value atomicCAS(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value ptr, mlir::Value cmp,
                                mlir::Value value, llvm::StringRef sem,
                                llvm::StringRef scope, unsigned align) const;
  /// Whether a float add of two adjacent `elemTy` elements (16-bit floats)
  /// is one instruction here (packedAtomicFAdd).
  virtual bool hasPackedAtomicFAdd(mlir::Type elemTy) const { return false; }
  /// The atomic add of the 2-element vector `value` to global `ptr` (4-byte
  /// aligned) with `sem` and `scope` as atomicRMW's; returns the old vector.
  /// Called only where hasPackedAtomicFAdd holds. The default is LLVM's
  /// vector atomicrmw fadd.
  virtual mlir::Value packedAtomicFAdd(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value ptr, mlir::Value value,
                                       llvm::StringRef sem,
                                       llvm::StringRef scope) const;
  /// Loads a `vecTy` vector (memory-typed elements) from global `ptr`,
  /// `alignment` bytes aligned. With `pred`, only where it is true; `other`
  /// (a `vecTy` value) is the result where it is false. The default is
  /// llvm.load / llvm.masked.load.
  virtual mlir::Value loadGlobal(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value ptr, mlir::Type vecTy,
                                 unsigned alignment, mlir::Value pred,
                                 mlir::Value other) const;
  /// Stores the i32 `value` to shared `ptr` where `pred` holds, as one
  /// predicated instruction rather than a branch around a store; false where
  /// the target has no such form (the caller branches). A branch on a
  /// thread's index can cost more than the store: the target's assembler
  /// may then treat everything after it as divergent.
  virtual bool storeSharedPredicated(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value ptr, mlir::Value value,
                                     mlir::Value pred) const {
    return false;
  }
  /// Stores the vector `value` to global `ptr` where `pred` (if any) holds.
  virtual void storeGlobal(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value ptr, mlir::Value value,
                           unsigned alignment, mlir::Value pred) const;
  /// Starts an asynchronous copy of `bytes` bytes from global `src` to shared
  /// `dst` (both aligned to `bytes`; `dst` as asyncCopyDestination gave it);
  /// where `pred` (if any) is false the
  /// destination gets zeros and nothing is read (only asked of targets whose
  /// asyncCopyZeroFillsMasked()). `cacheModifier` is "", ".ca" or ".cg"
  /// (already checked legal for `bytes`). Returns false when the target
  /// lowers no asynchronous copy (the default).
  virtual bool asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value dst, mlir::Value src, unsigned bytes,
                         mlir::Value pred,
                         llvm::StringRef cacheModifier) const;
  /// Why an asynchronous copy of `bytes` bytes a thread may not carry
  /// `cacheModifier`, or none where it may. The default rule: "", ".ca",
  /// and ".cg" for 16-byte copies only.
  virtual std::optional<std::string>
  asyncCopyCacheError(llvm::StringRef cacheModifier, unsigned bytes) const {
    if (cacheModifier == ".cv")
      return std::string("cache_modifier \".cv\" is not one of this target's "
                         "asynchronous copy modifiers (\"\", \".ca\", \".cg\")");
    if (cacheModifier == ".cg" && bytes != 16)
      return "cache_modifier \".cg\" needs 16-byte copies; this copy moves " +
             std::to_string(bytes) + " bytes per access";
    return std::nullopt;
  }
  /// The destination asyncCopy takes for a thread whose elements go to
  /// shared `dst`: computed before any branch on the mask, where every
  /// thread of the copy is active. AMD gives the wave's LDS base (M0); the
  /// default is `dst` itself.
  virtual mlir::Value asyncCopyDestination(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value dst,
                                           unsigned bytes) const {
    return dst;
  }
  /// Whether asyncCopy's `pred` makes the hardware write zeros for masked
  /// lanes (cp.async's src-size). Otherwise the lowering branches masked
  /// lanes around the copy and has them store `other` (or zeros) at their
  /// destination; a non-zero `other` needs that.
  bool asyncCopyZeroFillsMasked() const {
    return desc.asyncCopyZeroFillsMasked;
  }
  /// Marks `access` (an LLVM load from, or store to, shared memory that no
  /// in-flight async copy can write: a tile.synced_via_wait load, or a
  /// masked lane's store of `other` where its copy was not issued) so that
  /// LLVM does not wait for in-flight copies before it. The default does
  /// nothing.
  virtual void annotateSyncedSharedAccess(mlir::Operation *access) const;
  /// Reports a failed assertion (`message` at `file`:`line` in `function`)
  /// and stops the kernel; called on the thread that found it. The default
  /// traps without a report.
  virtual void assertFail(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef message, llvm::StringRef file,
                          unsigned line, llvm::StringRef function) const;
  /// Prints `format` (printf syntax) with `args` (i32, i64, f64 or pointer
  /// values, as C varargs promote them) from this thread; false (having
  /// emitted nothing) where the target has no device printf.
  virtual bool printf(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::StringRef format, mlir::ArrayRef<mlir::Value> args) const {
    return false;
  }
  /// Why printf emitted nothing, for the error at the op.
  virtual std::string printfUnavailable() const {
    return "the target has no device printf";
  }
  /// Whether storeMatrices16 lowers (a warp-wide store of 16-bit matrices).
  virtual bool hasMatrixStore16() const { return false; }
  /// A warp-wide store of one, two or four (`sources.size()`) 8x8 matrices
  /// of 16-bit elements whose rows are 16 contiguous bytes each: lane l
  /// gives in `rowAddress` the address of row l % 8 of matrix l / 8 (lanes
  /// past the matrices' rows are not read), and holds in `sources[i]` (an
  /// i32 of two elements) elements (l / 4, 2 * (l % 4) + {0, 1}) of matrix
  /// i, or with `transposed` elements (2 * (l % 4) + {0, 1}, l / 4). Only
  /// asked where hasMatrixStore16(); every lane of the warp must run it.
  virtual void storeMatrices16(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value rowAddress,
                               mlir::ArrayRef<mlir::Value> sources,
                               bool transposed) const {}
  /// Whether loadMatrices16 lowers (a warp-wide load of 16-bit matrices).
  virtual bool hasMatrixLoad16() const { return false; }
  /// A warp-wide load of `num` (1, 2 or 4) 8x8 matrices of 16-bit elements
  /// whose rows are 16 contiguous bytes each: lane l gives in `rowAddress`
  /// the address of row l % 8 of matrix l / 8 (lanes past the matrices' rows
  /// are not read) and gets, in result i (an i32 of two elements), elements
  /// (l / 4, 2 * (l % 4) + {0, 1}) of matrix i, or with `transposed` elements
  /// (2 * (l % 4) + {0, 1}, l / 4). Only asked where hasMatrixLoad16(); every
  /// lane of the warp must run it.
  virtual llvm::SmallVector<mlir::Value>
  loadMatrices16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rowAddress,
                 bool transposed, unsigned num = 4) const {
    return {};
  }
  /// Whether local_load uses loadTransposed64 for a tensor of elements of
  /// `elementBits` bits in `layout` (where its registers and lanes have the
  /// load's shape).
  virtual bool useTransposedLoad64(unsigned elementBits,
                                   mlir::Attribute layout) const {
    return false;
  }
  /// A load that each group of 16 consecutive lanes of a 64-lane warp runs
  /// together (gfx950's ds_read_b64_tr_b16 / _b8): with n = 64 / elementBits,
  /// lane j gives in `address` (8 bytes aligned) the n elements it reads, and
  /// lane i of the group gets, in element r of the result (a vector of n
  /// `memType`), element i % n of what lane r * (16 / n) + (i % 16) / n of
  /// the group read. Only asked where useTransposedLoad64(); every lane of
  /// the warp must run it.
  virtual mlir::Value loadTransposed64(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value address,
                                       mlir::Type memType) const {
    return {};
  }
  /// Closes this thread's group of uncommitted asynchronous copies.
  virtual void asyncCommitGroup(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until at most `num` of this thread's groups are in flight; on
  /// targets whose hardware counts instructions, `instructions` (when
  /// computed) is how many copy instructions may stay in flight.
  virtual void asyncWait(mlir::OpBuilder &b, mlir::Location loc, unsigned num,
                         std::optional<unsigned> instructions) const;
  /// Adds the lowering patterns of the vendor's own tile dialect (tile_nv,
  /// tile_amd ops). The default adds none.
  virtual void populatePatterns(TileTypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                const LoweringContext &ctx) const;
  /// Checks the vendor dialect's ops against what the lowering supports,
  /// before anything is rewritten, so that an unsupported op is one
  /// diagnostic at the op. The default accepts everything.
  virtual mlir::LogicalResult checkBeforeLowering(mlir::ModuleOp module,
                                                  const LoweringContext &ctx) const;
  /// Makes the vendor's LLVM-level dialect (NVVM, ROCDL) legal in the
  /// conversion target.
  virtual void
  configureConversionTarget(mlir::ConversionTarget &target) const = 0;
  /// Whether kernels may take tensor descriptors (!tile.tensordesc).
  virtual bool hasTensorDescriptors() const { return false; }
  /// Marks kernel parameter `index`, a tensor descriptor lowered to a
  /// pointer, as the target passes descriptors (by value, say).
  virtual void markTensorDescParam(mlir::LLVM::LLVMFuncOp func,
                                   unsigned index) const {}
  /// Marks `func` as a kernel launched with `numThreads` threads.
  virtual void markKernel(mlir::LLVM::LLVMFuncOp func,
                          unsigned numThreads) const = 0;
  /// Distributed shared memory, for reductions across the CTAs of a cluster:
  /// whether the target has it; this CTA's rank in its cluster (i32); a
  /// barrier of every thread of the cluster after which each CTA sees the
  /// others' shared-memory writes from before it; and a load of `type` from
  /// the shared memory of the CTA of rank `rank` at the address `local` has
  /// in this CTA's.
  virtual bool hasClusterSharedMemory() const { return false; }
  virtual mlir::Value clusterRank(mlir::OpBuilder &b,
                                  mlir::Location loc) const {
    return {};
  }
  virtual void clusterBarrier(mlir::OpBuilder &b, mlir::Location loc) const {}
  virtual mlir::Value loadSharedOfRank(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Type type, mlir::Value local,
                                       mlir::Value rank) const {
    return {};
  }
  /// A tensor descriptor the kernel's warps made in global memory, reaching
  /// a worker partition's threads (`desc`, its generic address): what they do
  /// before their first use of it (NVIDIA: acquire it for the tensor-map
  /// proxy, as the threads that made it did).
  virtual void acquireTensorDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value desc) const {}
  /// At the entry of a kernel with worker warps (warp_specialize), before
  /// they branch off to wait for their partitions (`isWorker`: this warp is
  /// one of them): what they must take part in that the kernel's own warps
  /// run outside any partition (a barrier of all of a cluster's threads).
  virtual void atWorkerSplit(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value isWorker,
                             mlir::LLVM::LLVMFuncOp func) const {}
  /// Where each worker warp has taken its register count (after its
  /// reallocation, if any; else right after the split): what completes
  /// atWorkerSplit's part (NVIDIA: the wait on the cluster barrier they
  /// arrived at). Not earlier: the kernel's warps, asking for registers
  /// before their own barrier, wait for the workers to give theirs back.
  virtual void atWorkerEntry(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::LLVM::LLVMFuncOp func) const {}

private:
  const TargetDesc &desc;
};

using TargetInfoFactory =
    std::function<std::unique_ptr<TargetInfo>(const TargetDesc &)>;

/// Called by each vendor library's registration function; `backend` is the
/// key of TargetDesc::backend.
void registerTargetInfoFactory(llvm::StringRef backend,
                               TargetInfoFactory factory);

/// The TargetInfo for `desc`, or null when its vendor is not built in.
std::unique_ptr<TargetInfo> createTargetInfo(const TargetDesc &desc);

} // namespace kiln

#endif // KILN_CONVERSION_TILETOLLVM_TARGETINFO_H
