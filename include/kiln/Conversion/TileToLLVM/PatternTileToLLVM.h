//===- PatternTileToLLVM.h - The tile lowering toolkit ----------*- C++ -*-===//
//
// Public so that a vendor dialect's lowering (tile_nv, tile_amd) reuses the
// lowering context, the type converter, register packing, coordinates and
// the moves through shared memory instead of copying them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CONVERSION_TILETOLLVM_PATTERNTILETOLLVM_H
#define KILN_CONVERSION_TILETOLLVM_PATTERNTILETOLLVM_H

#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

namespace kiln {

/// What every tile lowering pattern may ask about the compile.
struct LoweringContext {
  const TargetInfo &target;
  int numWarps;
  int warpSize;
  AxisInfoAnalysis &axisInfo;
  /// warpIdAtEntry's values, by the entry block they were put in.
  mutable llvm::DenseMap<mlir::Block *, mlir::Value> warpIds = {};
  /// Name of the module-level shared-memory array.
  static constexpr llvm::StringLiteral kSharedGlobal = "global_smem";
};

/// Tensors become a struct of this thread's registers.
class TileTypeConverter : public mlir::LLVMTypeConverter {
public:
  TileTypeConverter(mlir::MLIRContext *ctx);
};

/// A lowering pattern for `Op` that needs the lowering context (the target's
/// hooks, warps, the axis analysis).
template <typename Op>
struct TileOpConversion : mlir::ConvertOpToLLVMPattern<Op> {
  TileOpConversion(TileTypeConverter &converter, const LoweringContext &ctx)
      : mlir::ConvertOpToLLVMPattern<Op>(converter), ctx(ctx) {}

  /// `t` as the type converter converts it.
  mlir::Type convert(mlir::Type t) const {
    return this->getTypeConverter()->convertType(t);
  }

  const LoweringContext &ctx;
};

/// Every pattern of convert-tile-to-llvm (tile ops and the upstream arith,
/// math, cf and func ones); a vendor backend adds its dialect's after it.
void populateTileToLLVMPatterns(TileTypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                const LoweringContext &ctx);
void populateElementwiseOpToLLVMPatterns(TileTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         const LoweringContext &ctx);
void populateExternElementwiseOpToLLVMPatterns(
    TileTypeConverter &converter, mlir::RewritePatternSet &patterns,
    const LoweringContext &ctx);
/// tile.inline_asm: one statement per thread (InlineAsmOpToLLVM.cpp).
void populateInlineAsmOpToLLVMPatterns(TileTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       const LoweringContext &ctx);
void populateAtomicOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
void populateMemoryOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
void populateLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
void populateSharedMemoryOpToLLVMPatterns(TileTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns,
                                          const LoweringContext &ctx);
/// tile.local_gather / local_scatter / local_atomic_rmw.
void populateSharedIndexOpToLLVMPatterns(TileTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         const LoweringContext &ctx);
void populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
/// The module's shared-memory array (`global_smem`, sized at launch), declared
/// once, when it has any (tile.shared > 0); returns tile.shared.
int64_t declareSharedMemory(mlir::ModuleOp module);

void populateHistogramOpToLLVMPatterns(TileTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       const LoweringContext &ctx);
void populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
void populateDotFmaOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx);
void populateAsyncCopyOpToLLVMPatterns(TileTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       const LoweringContext &ctx);

/// fp8 conversions (Fp8Conversions.cpp): whether a float cast has an fp8
/// side, and the casts of values `in` (converted: i8 for fp8; `from`/`to`
/// the original element types) by the target's packed instructions where
/// it has them (TargetInfo::fp8Truncate / fp8Extend), integer arithmetic
/// elsewhere.
bool isFp8FloatCast(mlir::Type from, mlir::Type to);
llvm::SmallVector<mlir::Value>
emitFp8FloatCasts(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange in,
                  mlir::Type from, mlir::Type to, bool towardZero,
                  const TargetInfo &target);
/// arith.extf / arith.truncf with an fp8 side, on scalars and tensors.
void populateFp8ConversionPatterns(TileTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const LoweringContext &ctx);

/// tile.warp_specialize (WarpSpecializeOpToLLVM.cpp), around the conversion:
/// before it (the tile-prepare-warp-specialize pass), checks the ops against
/// the target and gives each worker region its own copy of what it uses from
/// above, marking each op prepared (isWarpSpecializePrepared); returns the
/// warps to launch.
mlir::FailureOr<int> prepareWarpSpecialize(mlir::ModuleOp module,
                                           const TargetInfo &target,
                                           int numWarps, int warpSize);
/// Whether tile-prepare-warp-specialize has run on `op`.
bool isWarpSpecializePrepared(mlir::Operation *op);
/// The op stays through the conversion (its regions' block types converted).
void configureWarpSpecializeLegality(mlir::ConversionTarget &target);
void populateWarpSpecializeOpToLLVMPatterns(TileTypeConverter &converter,
                                            mlir::RewritePatternSet &patterns);
/// After it: named barriers per partition, partition-relative thread ids and
/// one control-flow graph for all warps.
mlir::LogicalResult lowerWarpSpecialize(mlir::ModuleOp module,
                                        const TargetInfo &target, int numWarps,
                                        int warpSize);

//===----------------------------------------------------------------------===//
// Helpers (Utility.cpp)
//===----------------------------------------------------------------------===//

mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// An inline asm statement's constraint string against the LLVM types of its
/// outputs and inputs (InlineAsmConstraints.cpp): an error at `op` where LLVM
/// would reject it.
mlir::LogicalResult checkInlineAsmConstraints(mlir::Operation *op,
                                              llvm::StringRef constraints,
                                              mlir::TypeRange outputs,
                                              mlir::TypeRange inputs);
llvm::SmallVector<mlir::Value> unpackStruct(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::Value v);
mlir::Value packStruct(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Type structType, mlir::ValueRange values);
/// Registers of a converted operand: a struct's fields, or a scalar alone.
llvm::SmallVector<mlir::Value> getRegisters(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::Value converted);

struct ThreadIds {
  mlir::Value lane, warp;
};
ThreadIds getThreadIds(mlir::OpBuilder &b, mlir::Location loc,
                       const LoweringContext &ctx);

/// `acc` XOR, for every set bit i of the i32 `index`, `bitOffsets[i]` (a
/// constant): the F2-linear image of a thread or warp index.
mlir::Value xorSetBits(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                       mlir::Value index, llvm::ArrayRef<int64_t> bitOffsets);

/// Runtime coordinates (i32) of the element in each register of `layout`.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
emitCoordinates(mlir::OpBuilder &b, mlir::Location loc,
                const LinearLayout &layout, const LoweringContext &ctx);
/// Row-major linear index of coordinates in `sizes`.
mlir::Value emitLinearIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ArrayRef<mlir::Value> coords,
                            llvm::ArrayRef<int32_t> sizes);

/// Address (addrspace 3) of the op's scratch buffer.
mlir::Value getScratchBase(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op);
/// Type an element has in memory (i1 is stored as i8).
mlir::Type getMemoryType(mlir::Type llvmElemType);
/// Converts a register value to / from its memory type.
mlir::Value toMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value fromMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type regType);

/// Width (elements) of the vector accesses through a tensor of global
/// pointers: what the register layout keeps consecutive, the pointers are
/// contiguous and aligned for, and the mask is constant over, at most the
/// target's widest access.
unsigned getGlobalVectorWidth(mlir::Value ptr, mlir::Value mask,
                              const LoweringContext &ctx);
/// The same for any access of `type`'s layout with `bytes`-byte elements
/// whose addresses are contiguous for `contiguity` elements per dimension
/// and divisible by `byteDivisibility` bytes (from the axis analysis).
unsigned getVectorWidth(mlir::RankedTensorType type, int64_t bytes,
                        llvm::ArrayRef<int64_t> contiguity,
                        llvm::ArrayRef<int64_t> byteDivisibility,
                        mlir::Value mask, const LoweringContext &ctx);

/// The async-copy rules (checkAsyncCopy, with `pointerElements` from the
/// address analysis) plus what the target's lowering supports: a non-zero
/// `other` where the hardware zero-fills masked lanes itself, and threads
/// that only repeat others' elements where the target lowers none. Reports
/// at `op`; run before rewriting.
mlir::FailureOr<tile::AsyncCopyWidth>
checkAsyncCopyForLowering(mlir::Operation *op, mlir::RankedTensorType ptrType,
                          mlir::Value dst, unsigned pointerElements,
                          mlir::Value other, const LoweringContext &ctx);

/// Emits `if (cond) thenFn() else elseFn()` as LLVM blocks at the
/// rewriter's insertion point (elseFn may be null) and leaves the insertion
/// point at the start of the join block. Fails with a diagnostic at `op`
/// when `op` is not in a function's control-flow graph (structured control
/// flow not yet lowered).
mlir::LogicalResult emitIfElse(mlir::ConversionPatternRewriter &rewriter,
                               mlir::Operation *op, mlir::Value cond,
                               llvm::function_ref<void()> thenFn,
                               llvm::function_ref<void()> elseFn);

/// Stores what a masked lane of a branched-around async copy leaves at its
/// destination `dstAddr`: registers r .. r+vec-1 of `others` (converted to
/// `memTy`), or zeros when `others` is empty; the store is marked as no
/// in-flight copy's write (TargetInfo::annotateSyncedSharedAccess).
void storeAsyncCopyFill(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value dstAddr, llvm::ArrayRef<mlir::Value> others,
                        unsigned r, unsigned vec, mlir::Type memTy,
                        unsigned alignment, const TargetInfo &target);

/// Whether `v` is a constant zero (integer or float splat).
bool isZeroConstant(mlir::Value v);
/// Whether `op` sits directly in a function's control-flow graph (or in a
/// warp_specialize region, which is inlined into one), where a lowering may
/// split blocks and branch.
bool inControlFlowGraph(mlir::Operation *op);

/// TargetInfo::warpId for `op`, computed once at the entry of its function
/// or warp_specialize partition and reused. Read there, it is not behind any
/// branch the target's compiler must assume divergent (an mbarrier spin
/// loop), so what is computed from it can be hoisted and kept uniform.
mlir::Value warpIdAtEntry(mlir::OpBuilder &b, mlir::Operation *op,
                          const LoweringContext &ctx);

/// One thread's addresses (addrspace 3) of a tensor's registers in a shared
/// buffer: addrs[g] is where registers g*vec .. g*vec+vec-1 live,
/// consecutive elements.
struct SharedAddresses {
  llvm::SmallVector<mlir::Value> addrs;
  unsigned vec = 1;
  /// Groups that repeat an earlier group's elements (broadcast registers).
  llvm::SmallVector<bool> duplicate;
  /// i1, true in threads that hold only elements other threads hold too
  /// (broadcast lanes / warps); null when there are none.
  mlir::Value redundantThread;
};

/// Addresses of a tensor of `tensorType` in the buffer `view` (a memdesc
/// value of the tile IR) whose slot starts at `base` (its converted value),
/// with vectors of at most `maxVectorBytes` (0: one element per access).
/// Fails when the tensor does not cover the buffer (see planSharedAccess).
mlir::FailureOr<SharedAddresses>
emitSharedAddresses(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                    mlir::RankedTensorType tensorType, mlir::Value view,
                    mlir::Type memType, unsigned maxVectorBytes,
                    const LoweringContext &ctx);
/// The same for a buffer of type `memdesc` at `base`, its elements at their
/// layout's offsets XOR `xorOffset`, its first element `alignment` bytes
/// aligned (a scratch buffer, which has no memdesc value).
mlir::FailureOr<SharedAddresses>
emitSharedAddressesFor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       mlir::RankedTensorType tensorType,
                       kiln::tile::MemDescType memdesc,
                       int64_t xorOffset, unsigned alignment,
                       mlir::Type memType, unsigned maxVectorBytes,
                       const LoweringContext &ctx);

/// The address (addrspace 3) of the element of a shared buffer at `base`
/// whose offset is `threadOffset` (the per-thread part) XOR `registerOffset`:
/// the register offset's bits outside `threadBits` (the bits the per-thread
/// part may set) are added instead, so that LLVM folds them into the access's
/// immediate; `paddings` as SharedAccessPlan::paddings.
mlir::Value
sharedElementAddress(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                     mlir::Type memTy, mlir::Value threadOffset,
                     int64_t threadBits, int64_t registerOffset,
                     llvm::ArrayRef<std::pair<unsigned, unsigned>> paddings);

/// Stores `regs` (memory-typed or converted by toMemory) at `access`'s
/// addresses, `access.vec` consecutive registers a vector of `memTy`.
void storeSharedVectors(mlir::OpBuilder &b, mlir::Location loc,
                        const SharedAddresses &access,
                        llvm::ArrayRef<mlir::Value> regs, mlir::Type memTy,
                        unsigned elemBytes);
/// Loads the registers (of `regTy`) from `access`'s addresses; `mark` sees
/// every load issued.
llvm::SmallVector<mlir::Value> loadSharedVectors(
    mlir::OpBuilder &b, mlir::Location loc, const SharedAddresses &access,
    mlir::Type memTy, mlir::Type regTy, unsigned elemBytes,
    llvm::function_ref<void(mlir::LLVM::LoadOp)> mark = {});

/// Loads a tensor of `tensorType` from the buffer `view` (at `base`) with
/// the target's transposing shared-memory load where its registers and lanes
/// have that load's shape (TransposedSharedLoad.cpp), into `regs` (of
/// `regTy`); `mark` sees every load issued. False, having emitted nothing,
/// where it does not apply.
bool loadTransposedShared(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
    mlir::RankedTensorType tensorType, mlir::Value view, mlir::Type memTy,
    mlir::Type regTy, llvm::SmallVectorImpl<mlir::Value> &regs,
    const LoweringContext &ctx,
    llvm::function_ref<void(mlir::Operation *)> mark = {});

/// For a copy of `tensorType` into `view` whose lanes write one base + lane
/// x `widthBytes` (TargetDesc::asyncCopyLaneContiguous): per copy (each
/// `widthBytes` of a thread's registers), the lane (i32) whose element this
/// lane copies, where a swizzled layout orders the window's slots otherwise
/// (kiln::tile::AsyncCopyLanes); empty when each lane copies its own. The
/// caller has checked the copy (checkAsyncCopy).
llvm::SmallVector<mlir::Value>
emitAsyncCopySourceLanes(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType tensorType, mlir::Value view,
                         unsigned widthBytes, const LoweringContext &ctx);

/// A shared-memory address (addrspace 3) moved from lane `srcLane`.
mlir::Value shuffleSharedAddress(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value addr, mlir::Value srcLane,
                                 const LoweringContext &ctx);

/// The value of lane `srcLane` (runtime) for any scalar of up to 64 bits.
mlir::Value shuffleIdx(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Value srcLane, const LoweringContext &ctx);
/// Butterfly shuffle of any scalar of up to 64 bits.
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       unsigned mask, mlir::Value laneId,
                       const LoweringContext &ctx);

/// Moves registers of `srcLayout` to `dstLayout` through shared memory
/// (barrier, store, barrier, load).
llvm::SmallVector<mlir::Value>
moveThroughShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                  llvm::ArrayRef<mlir::Value> srcRegs,
                  const LinearLayout &srcLayout, const LinearLayout &dstLayout,
                  mlir::Type regType, const LoweringContext &ctx);
/// The same through the op's whole scratch laid out with the swizzle that
/// makes both sides' accesses fewest (vectors, bank conflicts); fails, with
/// nothing emitted, where the tile takes several rounds or no layout fits
/// (ConvertLayoutScratch.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
moveThroughSwizzledScratch(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op,
                           llvm::ArrayRef<mlir::Value> regs,
                           mlir::RankedTensorType srcType,
                           mlir::RankedTensorType dstType, mlir::Type regType,
                           const LoweringContext &ctx);

/// Register index of each register-only coordinate of `layout` (the lowest
/// index where several registers hold one element).
std::map<llvm::SmallVector<int32_t>, unsigned>
registersByCoordinate(const LinearLayout &layout);

/// For each register of `dst`, the register of `src` whose register-only
/// coordinates equal `map(dst coordinates)`; failure if one has none.
mlir::FailureOr<llvm::SmallVector<unsigned>> matchRegisters(
    const LinearLayout &src, const LinearLayout &dst,
    llvm::function_ref<LinearLayout::Basis(const LinearLayout::Basis &)> map);

/// Which register, lane and warp of a tensor's holders acts for each
/// element (Ownership.cpp): of several registers holding one element only
/// the first (`canonical`); of lanes / warps, those whose bits in the
/// redundant masks are zero.
struct Ownership {
  llvm::SmallVector<unsigned> canonical; ///< first register with the element
  unsigned redundantLanes = 0, redundantWarps = 0;
};
mlir::FailureOr<Ownership> planOwnership(mlir::Operation *op,
                                         mlir::RankedTensorType type);
/// True in the thread that acts for its elements (null when every thread
/// does).
mlir::Value ownerPredicate(mlir::OpBuilder &b, mlir::Location loc,
                           const Ownership &own, const LoweringContext &ctx);
/// Lowers an atomic op (`type`: its value tensor; `result`: the old values)
/// once per element, however many threads hold it: `act(r)` performs the
/// atomic of canonical register r at the rewriter's insertion point and
/// returns the old value, behind a branch where the thread test or
/// `masks[r]` applies. With `pairFn`, adjacent canonical registers (2i,
/// 2i+1) are performed together (`pairFn(2i)`: a 2-element vector). With
/// `actIf`, every thread issues every canonical register's atomic itself:
/// `actIf(r, pred)` makes it act only where `pred` (null: everywhere)
/// holds, e.g. by an out-of-range address, instead of a branch. Old values
/// of elements several threads hold reach them through the op's scratch.
/// `finish(out)` (where given) may change the old values, one per register,
/// before they replace the op.
mlir::LogicalResult
lowerAtomic(mlir::Operation *op, mlir::RankedTensorType type,
            mlir::Value result, llvm::ArrayRef<mlir::Value> masks,
            mlir::Type regTy, mlir::ConversionPatternRewriter &rewriter,
            const LoweringContext &ctx,
            llvm::function_ref<mlir::Value(unsigned)> act, mlir::Type structTy,
            llvm::function_ref<mlir::Value(unsigned)> pairFn = {},
            llvm::function_ref<mlir::Value(unsigned, mlir::Value)> actIf = {},
            llvm::function_ref<void(llvm::MutableArrayRef<mlir::Value>)>
                finish = {});
/// LLVM's atomicrmw operation of an atomic `kind` of the tile dialect (add,
/// and, or, xor, max, min, umax, umin, fadd, fmax, fmin; anything else xchg).
mlir::LLVM::AtomicBinOp getAtomicBinOp(llvm::StringRef kind);
/// `thenFn()`'s value where `cond` holds, undefined elsewhere, at the
/// rewriter's insertion point (which ends in the join block). Needs the op
/// in a control-flow graph (inControlFlowGraph).
mlir::Value emitIfValue(mlir::ConversionPatternRewriter &rewriter,
                        mlir::Location loc, mlir::Value cond, mlir::Type type,
                        llvm::function_ref<mlir::Value()> thenFn);
/// `thenFn()`'s ops where `cond` holds, nothing elsewhere, at the
/// rewriter's insertion point (which ends in the join block).
void emitIf(mlir::ConversionPatternRewriter &rewriter, mlir::Location loc,
            mlir::Value cond, llvm::function_ref<void()> thenFn);

} // namespace kiln

#endif
