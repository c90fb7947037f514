//===- AMDTargetInfo.cpp - ROCDL hooks for the tile lowering --------------===//

#include "AMDLowering.h"
#include "../Target/DeviceLibs.h"

#include "kiln/Dialect/TileAMD/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace kiln;

namespace {
class AMDTargetInfo : public AMDLoweringHooks {
  // One domain and two scopes per lowering (alias scopes are distinct
  // attributes: made once, shared by every op that names them).
  mutable std::optional<Scopes> cachedScopes;

  Scopes scopes(MLIRContext *ctx) const override {
    if (!cachedScopes) {
      auto domain = LLVM::AliasScopeDomainAttr::get(
          ctx, StringAttr::get(ctx, "kiln async copies and LDS reads"));
      cachedScopes = Scopes{
          LLVM::AliasScopeAttr::get(domain,
                                    StringAttr::get(ctx, "direct-to-LDS copies")),
          LLVM::AliasScopeAttr::get(
              domain, StringAttr::get(ctx, "LDS reads after their copies"))};
    }
    return *cachedScopes;
  }

public:
  using AMDLoweringHooks::AMDLoweringHooks;

  bool printf(OpBuilder &b, Location loc, StringRef format,
              ArrayRef<Value> args) const override {
    if (!haveDeviceLibs())
      return false;
    emitOcklPrintf(b, loc, format, args);
    return true;
  }

  std::string printfUnavailable() const override {
    return "on AMD targets it prints through the ROCm device libraries' "
           "printf (ockl), and none were found: install them (ROCm, or "
           "Debian's rocm-device-libs) or set KILN_ROCM_DEVICE_LIBS to their "
           "amdgcn/bitcode directory";
  }

  /// Whether the backend will find the ROCm device libraries to link (the
  /// search DeviceLibs.cpp makes, without serialize options).
  static bool haveDeviceLibs() {
    llvm::SmallVector<std::string> tried;
    bool chosen = false;
    return findRocmDeviceLibs(SerializeOptions(), tried, chosen).has_value();
  }

  /// The report HIP's assert prints (through ROCm's device printf, where the
  /// ROCm device libraries are installed), then a trap: the launch fails.
  void assertFail(OpBuilder &b, Location loc, StringRef message,
                  StringRef file, unsigned line,
                  StringRef function) const override {
    Value ids[6] = {ROCDL::BlockIdXOp::create(b, loc, b.getI32Type()),
                    ROCDL::BlockIdYOp::create(b, loc, b.getI32Type()),
                    ROCDL::BlockIdZOp::create(b, loc, b.getI32Type()),
                    ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type()),
                    ROCDL::ThreadIdYOp::create(b, loc, b.getI32Type()),
                    ROCDL::ThreadIdZOp::create(b, loc, b.getI32Type())};
    std::string format =
        (file + ":" + Twine(line) + ": " + function +
         ": Device-side assertion `" + message +
         "' failed. block: [%u,%u,%u], thread: [%u,%u,%u]\n")
            .str();
    if (haveDeviceLibs()) // else a trap without the report
      emitOcklPrintf(b, loc, format, ids);
    LLVM::Trap::create(b, loc);
  }

  Value programId(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return ROCDL::BlockIdXOp::create(b, loc, i32);
    case 1:
      return ROCDL::BlockIdYOp::create(b, loc, i32);
    default:
      return ROCDL::BlockIdZOp::create(b, loc, i32);
    }
  }

  /// Reads the HSA dispatch packet: grid_size (work-items, u32 at 12 + 4 *
  /// axis) divided by workgroup_size (u16 at 4 + 2 * axis). This needs no
  /// device library, unlike rocdl.grid.dim.
  Value numPrograms(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type(), i16 = b.getIntegerType(16), i8 = b.getI8Type();
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 4);
    Value packet =
        LLVM::CallIntrinsicOp::create(
            b, loc, ptrTy, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
            ValueRange{})
            .getResult(0);
    auto field = [&](int64_t offset, Type t) -> Value {
      Value off =
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(offset));
      Value p = LLVM::GEPOp::create(b, loc, ptrTy, i8, packet, ValueRange{off});
      return LLVM::LoadOp::create(b, loc, t, p, /*alignment=*/2,
                                  /*isVolatile=*/false, /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    Value grid = field(12 + 4 * axis, i32);
    Value wg = LLVM::ZExtOp::create(b, loc, i32, field(4 + 2 * axis, i16));
    Value one = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(1));
    // ceil(grid / wg)
    Value sum =
        LLVM::AddOp::create(b, loc, grid, LLVM::SubOp::create(b, loc, wg, one));
    return LLVM::UDivOp::create(b, loc, sum, wg);
  }

  Value threadId(OpBuilder &b, Location loc) const override {
    return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
  }

  Value shuffleXorI32(OpBuilder &b, Location loc, Value v, unsigned mask,
                      Value laneId) const override {
    Type i32 = b.getI32Type();
    auto c = [&](int64_t x) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(x));
    };
    // ds_bpermute takes the source lane's byte address.
    Value src = LLVM::XOrOp::create(b, loc, laneId, c(mask));
    Value addr = LLVM::ShlOp::create(b, loc, src, c(2));
    return ROCDL::DsBpermuteOp::create(b, loc, i32, addr, v);
  }

  Value shuffleIdxI32(OpBuilder &b, Location loc, Value v,
                      Value srcLane) const override {
    Type i32 = b.getI32Type();
    Value addr = LLVM::ShlOp::create(
        b, loc, srcLane, LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(2)));
    return ROCDL::DsBpermuteOp::create(b, loc, i32, addr, v);
  }

  // tile.barrier orders LDS accesses only: s_waitcnt lgkmcnt(0) (this
  // wave's LDS reads and writes done) then s_barrier. HIP's __syncthreads
  // brackets it with workgroup-scope fences instead, which also make LLVM
  // wait for every direct-to-LDS copy in flight (vmcnt): in a ring, the
  // write-after-read barrier before a refill would retire the copies of the
  // next slots too. Copies are ordered by Kiln's own waits before a
  // read-after-write barrier. The wavefront-scope fences emit nothing; they
  // keep LLVM from moving memory accesses across the barrier.
  void barrier(OpBuilder &b, Location loc) const override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "wavefront");
    unsigned lgkmOnly = 0xF | (3u << 14) | (7u << 4); // vmcnt, expcnt at max
    ROCDL::SWaitcntOp::create(b, loc, b.getI32IntegerAttr(lgkmOnly));
    ROCDL::SBarrierOp::create(b, loc);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "wavefront");
  }

  std::string atomicSyncScope(StringRef scope) const override {
    return scope == "gpu" ? "agent" : scope == "cta" ? "workgroup" : "";
  }

  // global_atomic_pk_add_f16 / _bf16 (CDNA3 and later), from LLVM's vector
  // atomicrmw fadd (the default packedAtomicFAdd).
  bool hasPackedAtomicFAdd(Type elemTy) const override {
    return (elemTy.isF16() || elemTy.isBF16()) &&
           (getDesc().chip.starts_with("gfx94") ||
            getDesc().chip.starts_with("gfx95"));
  }

  Value mathF32(OpBuilder &b, Location loc, StringRef fn,
                Value x) const override {
    Type f32 = b.getF32Type();
    if (fn == "exp2")
      return LLVM::Exp2Op::create(b, loc, f32, x);
    if (fn == "log2")
      return LLVM::Log2Op::create(b, loc, f32, x);
    if (fn == "sin")
      return LLVM::SinOp::create(b, loc, f32, x);
    if (fn == "cos")
      return LLVM::CosOp::create(b, loc, f32, x);
    if (fn == "rsqrt") {
      Value one = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(1.0));
      return LLVM::FDivOp::create(b, loc, one,
                                  LLVM::SqrtOp::create(b, loc, f32, x));
    }
    return {};
  }

  // fp8 through f32, four codes a register: v_cvt_pk_f32_{fp8,bf8} up (two
  // codes of a word), v_cvt_pk_{fp8,bf8}_f32 down (two values into a word).
  // gfx942's instructions read and write the FNUZ formats, gfx950's the OCP
  // ones (fp8: e4m3, bf8: e5m2). Both round to nearest even, but saturate
  // only under the MODE register's FP16_OVFL bit, which by its description
  // still passes an infinity through (as inf, or NaN in a format without
  // one). So the lowering leaves the MODE register alone and clamps each
  // source to the largest finite magnitude first, passing NaN through (the
  // instruction makes it the format's NaN); the result is then the
  // emulation's for every input, whichever way the bit is set.
  bool hasFp8Cvt(Type fp8) const {
    if (getDesc().chip == "gfx942")
      return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(fp8);
    if (getDesc().chip == "gfx950")
      return isa<Float8E4M3FNType, Float8E5M2Type>(fp8);
    return false;
  }

  /// `x` (f32) within [-largest, largest] of `fp8`, NaN kept.
  Value clampToFinite(OpBuilder &b, Location loc, Value x, Type fp8) const {
    Type f32 = b.getF32Type();
    llvm::APFloat big =
        llvm::APFloat::getLargest(cast<FloatType>(fp8).getFloatSemantics());
    float m = big.convertToFloat();
    Value hi = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(m));
    Value lo = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(-m));
    // gfx950's v_maximum3_f32 / v_minimum3_f32 keep NaN; gfx942 has no such
    // min / max: v_med3_f32 then a select of the NaN.
    if (getDesc().chip == "gfx950")
      return LLVM::MinimumOp::create(
          b, loc, LLVM::MaximumOp::create(b, loc, x, lo), hi);
    Value clamped = LLVM::MinNumOp::create(
        b, loc, LLVM::MaxNumOp::create(b, loc, x, lo), hi);
    Value isNan = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
    return LLVM::SelectOp::create(b, loc, isNan, x, clamped);
  }

  SmallVector<Value> fp8Truncate(OpBuilder &b, Location loc, ValueRange values,
                                 Type from, Type to) const override {
    if (!hasFp8Cvt(to))
      return {};
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    bool e4m3 = isa<Float8E4M3FNUZType, Float8E4M3FNType>(to);
    auto bytes4 = VectorType::get({4}, b.getI8Type());
    SmallVector<Value> src;
    for (Value v : values)
      src.push_back(clampToFinite(
          b, loc, from.isF32() ? v : LLVM::FPExtOp::create(b, loc, f32, v),
          to));
    SmallVector<Value> out;
    for (size_t i = 0; i < src.size(); i += 4) {
      size_t n = std::min<size_t>(4, src.size() - i);
      // Word half h holds bytes 2h (its first source) and 2h + 1.
      Value word = LLVM::UndefOp::create(b, loc, i32);
      for (size_t h = 0; 2 * h < n; ++h) {
        Value x = src[i + 2 * h];
        Value y = 2 * h + 1 < n ? src[i + 2 * h + 1] : x;
        word = e4m3 ? Value(ROCDL::CvtPkFp8F32Op::create(b, loc, i32, x, y,
                                                         word, h == 1))
                    : Value(ROCDL::CvtPkBf8F32Op::create(b, loc, i32, x, y,
                                                         word, h == 1));
      }
      Value bytes = LLVM::BitcastOp::create(b, loc, bytes4, word);
      for (size_t k = 0; k < n; ++k)
        out.push_back(
            LLVM::ExtractElementOp::create(b, loc, bytes, i32Const(b, loc, k)));
    }
    return out;
  }

  SmallVector<Value> fp8Extend(OpBuilder &b, Location loc, ValueRange codes,
                               Type from, Type to) const override {
    if (!hasFp8Cvt(from))
      return {};
    Type i8 = b.getI8Type(), i32 = b.getI32Type(), f32 = b.getF32Type();
    bool e4m3 = isa<Float8E4M3FNUZType, Float8E4M3FNType>(from);
    auto bytes4 = VectorType::get({4}, i8);
    auto floats2 = VectorType::get({2}, f32);
    SmallVector<Value> out;
    for (size_t i = 0; i < codes.size(); i += 4) {
      size_t n = std::min<size_t>(4, codes.size() - i);
      // Unused bytes are zero: a poison byte would make the word poison.
      Value v = LLVM::ZeroOp::create(b, loc, bytes4);
      for (size_t k = 0; k < n; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, codes[i + k],
                                          i32Const(b, loc, k));
      Value word = LLVM::BitcastOp::create(b, loc, i32, v);
      for (size_t h = 0; 2 * h < n; ++h) {
        Value pair = e4m3 ? Value(ROCDL::CvtPkF32Fp8Op::create(b, loc, floats2,
                                                               word, h == 1))
                          : Value(ROCDL::CvtPkF32Bf8Op::create(b, loc, floats2,
                                                               word, h == 1));
        for (size_t k = 0; k < 2 && 2 * h + k < n; ++k) {
          Value x =
              LLVM::ExtractElementOp::create(b, loc, pair, i32Const(b, loc, k));
          if (!to.isF32())
            x = LLVM::FPTruncOp::create(b, loc, to, x);
          out.push_back(x);
        }
      }
    }
    return out;
  }

  // global_load_lds: lane i of a wave writes `bytes` at one LDS base (M0) +
  // i x bytes. The legality helper's 'lanes' rule guarantees the lanes'
  // slots are consecutive, so the base is this lane's address minus
  // lane x bytes, the same in every active lane; readfirstlane makes it
  // scalar. Exec-masked lanes write nothing: masked copies are branched
  // around (asyncCopyZeroFillsMasked is false) and store `other` themselves.
  // The base is read where every lane of the copy is active, before the
  // branch around masked lanes.
  Value asyncCopyDestination(OpBuilder &b, Location loc, Value dst,
                             unsigned bytes) const override {
    return waveLdsBase(b, loc, dst, bytes);
  }

  // Any width takes any cache policy: the instruction's sc0 / sc1 bits, as a
  // buffer load's (".cg" skips the CU's cache, ".cv" every cache).
  std::optional<std::string> asyncCopyCacheError(StringRef,
                                                 unsigned) const override {
    return std::nullopt;
  }

  bool asyncCopy(OpBuilder &b, Location loc, Value lds, Value src,
                 unsigned bytes, Value pred, StringRef cache) const override {
    if (pred)
      return false;
    ROCDL::GlobalLoadLDSOp::create(
        b, loc, src, lds, b.getI32IntegerAttr(bytes), b.getI32IntegerAttr(0),
        b.getI32IntegerAttr(
            tile_amd::getBufferCacheBits(cache, /*isStore=*/false).value_or(0)),
        b.getArrayAttr({scopes(b.getContext()).copies}),
        nullptr, nullptr);
    return true;
  }

  Value waveLdsBase(OpBuilder &b, Location loc, Value dst,
                    unsigned bytes) const override {
    Type i32 = b.getI32Type();
    auto c = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
    };
    Value lane =
        LLVM::URemOp::create(b, loc, threadId(b, loc), c(getDesc().warpSize));
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32, dst);
    Value base = LLVM::SubOp::create(
        b, loc, addr, LLVM::MulOp::create(b, loc, lane, c(bytes)));
    base = ROCDL::ReadfirstlaneOp::create(b, loc, i32, base);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), base);
  }

  void populatePatterns(TileTypeConverter &converter,
                        RewritePatternSet &patterns,
                        const LoweringContext &ctx) const override {
    populateBufferOpToLLVMPatterns(converter, patterns, ctx, *this);
    populateMfmaOpToLLVMPatterns(converter, patterns, ctx);
    populateMfmaScaledOpToLLVMPatterns(converter, patterns, ctx);
    populateWarpPipelineToLLVMPatterns(converter, patterns, ctx);
  }

  LogicalResult checkBeforeLowering(ModuleOp module,
                                    const LoweringContext &ctx) const override {
    return failure(failed(checkBufferOps(module, ctx)) ||
                   failed(checkMfmaLayouts(module)) ||
                   failed(checkMfmaScaledLayouts(module)));
  }

  // LDS reads that no in-flight copy can write (tile.synced_via_wait) are in
  // a scope declared not to alias the copies' scope: without it LLVM's
  // waitcnt insertion adds vmcnt(0) before every LDS read while a
  // direct-to-LDS load is in flight.
  void annotateSyncedSharedAccess(Operation *access) const override {
    MLIRContext *ctx = access->getContext();
    Scopes s = scopes(ctx);
    auto alias = ArrayAttr::get(ctx, {s.loads});
    auto noalias = ArrayAttr::get(ctx, {s.copies});
    if (auto op = dyn_cast<LLVM::AliasAnalysisOpInterface>(access)) {
      op.setAliasScopes(alias);
      op.setNoAliasScopes(noalias);
    }
  }

  // gfx950's ds_read_b64_tr_b16 / ds_read_b64_tr_b8 (the CDNA4 ISA's
  // transposing LDS reads; see TargetInfo::loadTransposed64), for mfma
  // operands, whose k_width consecutive registers go into the instruction
  // packed as the read returns them. Elsewhere the element-wise reads are
  // kept: an MXFP4 GEMM's scale bytes read this way (each then unpacked into
  // a register of its own for mfma_scaled) cost aiter's kernel 73 more
  // spilled registers.
  bool useTransposedLoad64(unsigned elementBits,
                           Attribute layout) const override {
    return getDesc().chip == "gfx950" &&
           (elementBits == 16 || elementBits == 8) &&
           isa<tile_amd::DotOperandEncodingAttr>(layout);
  }
  Value loadTransposed64(OpBuilder &b, Location loc, Value address,
                         Type memType) const override {
    if (memType.getIntOrFloatBitWidth() == 16)
      return ROCDL::ds_read_tr16_b64::create(
          b, loc, VectorType::get({4}, b.getI16Type()), address);
    return ROCDL::ds_read_tr8_b64::create(
        b, loc, VectorType::get({2}, b.getI32Type()), address);
  }


  // The hardware has no commit groups: a group is the copies issued since
  // the previous commit, which the wait counts in instructions.
  void asyncCommitGroup(OpBuilder &, Location) const override {}

  // s_waitcnt vmcnt(N) with expcnt and lgkmcnt unconstrained (gfx9
  // encoding: vmcnt's low 4 bits in [3:0], high 2 in [15:14], expcnt [6:4],
  // lgkmcnt [11:8]). N is the copy instructions tile-insert-wait-counts
  // found issued after the awaited group, which that pass already caps at
  // the target's maxAsyncWaitInstructions (62: vmcnt(63) waits for nothing);
  // capped here again for hand-written IR (a smaller N only waits longer);
  // without it, vmcnt(0).
  void asyncWait(OpBuilder &b, Location loc, unsigned,
                 std::optional<unsigned> instructions) const override {
    unsigned n = std::min(instructions.value_or(0),
                          getDesc().maxAsyncWaitInstructions);
    unsigned bits = (n & 0xF) | ((n >> 4) << 14) | (7 << 4) | (15 << 8);
    ROCDL::SWaitcntOp::create(b, loc, b.getI32IntegerAttr(bits));
  }

  void configureConversionTarget(ConversionTarget &target) const override {
    target.addLegalDialect<ROCDL::ROCDLDialect>();
    target.addIllegalDialect<tile_amd::TileAMDDialect>();
  }

  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads) const override {
    MLIRContext *ctx = func.getContext();
    func->setAttr("rocdl.kernel", UnitAttr::get(ctx));
    func->setAttr("rocdl.flat_work_group_size",
                  StringAttr::get(ctx, "1," + std::to_string(numThreads)));
    func->setAttr("rocdl.reqd_work_group_size",
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
    // Triton's waves_per_eu launch option: the occupancy the register
    // allocator and scheduler aim for, as both the least and the most waves
    // (LLVM's amdgpu-waves-per-eu "N,N", as Triton sets it; "N" alone lets
    // the scheduler aim higher, and gemm_a8w8 spilled 57 registers where
    // "2,2" spills 50).
    if (auto module = func->getParentOfType<ModuleOp>())
      if (auto waves =
              module->getAttrOfType<IntegerAttr>("tile.waves_per_eu")) {
        std::string n = std::to_string(waves.getInt());
        SmallVector<Attribute> passthrough;
        if (ArrayAttr existing = func.getPassthroughAttr())
          passthrough.append(existing.begin(), existing.end());
        passthrough.push_back(ArrayAttr::get(
            ctx, {StringAttr::get(ctx, "amdgpu-waves-per-eu"),
                  StringAttr::get(ctx, n + "," + n)}));
        func.setPassthroughAttr(ArrayAttr::get(ctx, passthrough));
      }
    // The user's LLVM function attributes (Triton's llvm_fn_attrs), each
    // replacing one of the same name: a "name" alone where the value is
    // empty.
    if (auto module = func->getParentOfType<ModuleOp>())
      if (auto user = module->getAttrOfType<ArrayAttr>("tile.llvm_fn_attrs")) {
        auto nameOf = [](Attribute a) -> StringRef {
          if (auto s = dyn_cast<StringAttr>(a))
            return s.getValue();
          if (auto p = dyn_cast<ArrayAttr>(a); p && !p.empty())
            if (auto s = dyn_cast<StringAttr>(p[0]))
              return s.getValue();
          return {};
        };
        SmallVector<Attribute> passthrough;
        if (ArrayAttr existing = func.getPassthroughAttr())
          passthrough.append(existing.begin(), existing.end());
        for (Attribute a : user) {
          auto pair = cast<ArrayAttr>(a);
          StringAttr name = cast<StringAttr>(pair[0]);
          StringAttr value = cast<StringAttr>(pair[1]);
          llvm::erase_if(passthrough, [&](Attribute e) {
            return nameOf(e) == name.getValue();
          });
          passthrough.push_back(value.getValue().empty()
                                    ? Attribute(name)
                                    : ArrayAttr::get(ctx, {name, value}));
        }
        func.setPassthroughAttr(ArrayAttr::get(ctx, passthrough));
      }
  }
};
} // namespace

namespace kiln {
/// Registers the AMD lowering hooks (part of registerAMDBackend).
void registerAMDTargetInfo() {
  registerTargetInfoFactory("amd", [](const TargetDesc &d) {
    return std::make_unique<AMDTargetInfo>(d);
  });
}
} // namespace kiln
