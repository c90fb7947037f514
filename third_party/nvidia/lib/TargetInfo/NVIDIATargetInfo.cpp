//===- NVIDIATargetInfo.cpp - NVVM hooks for the tile lowering ------------===//

#include "../Conversion/NVIDIALowering.h"
#include "../Conversion/WarpGroupDot.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Conversion/TileToLLVM/GlobalStrings.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;

namespace {
/// The byte offset of `ptr` into the module's shared array when it is that
/// array's address or a constant offset from it (the dispatch word, scratch).
std::optional<int64_t> sharedGlobalOffset(Value ptr) {
  int64_t off = 0;
  if (auto gep = ptr.getDefiningOp<LLVM::GEPOp>()) {
    if (gep.getElemType() != IntegerType::get(ptr.getContext(), 8) ||
        gep.getIndices().size() != 1)
      return std::nullopt;
    auto index = gep.getIndices()[0];
    IntegerAttr constant = dyn_cast<IntegerAttr>(index);
    if (!constant)
      if (auto c = cast<Value>(index).getDefiningOp<LLVM::ConstantOp>())
        constant = dyn_cast<IntegerAttr>(c.getValue());
    if (!constant)
      return std::nullopt;
    off = constant.getInt();
    ptr = gep.getBase();
  }
  auto addr = ptr.getDefiningOp<LLVM::AddressOfOp>();
  if (!addr || addr.getGlobalName() != LoweringContext::kSharedGlobal ||
      off < 0)
    return std::nullopt;
  return off;
}

class NVIDIATargetInfo : public TargetInfo {
public:
  using TargetInfo::TargetInfo;

  Value programId(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, i32);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, i32);
    default:
      return NVVM::BlockIdZOp::create(b, loc, i32);
    }
  }

  Value numPrograms(OpBuilder &b, Location loc, unsigned axis) const override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, i32);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, i32);
    default:
      return NVVM::GridDimZOp::create(b, loc, i32);
    }
  }

  Value threadId(OpBuilder &b, Location loc) const override {
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  }

  Value shuffleXorI32(OpBuilder &b, Location loc, Value v, unsigned mask,
                      Value) const override {
    Type i32 = b.getI32Type();
    auto c = [&](int64_t x) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(x));
    };
    return NVVM::ShflOp::create(b, loc, i32, c(-1), v, c(mask), c(0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  }

  Value shuffleIdxI32(OpBuilder &b, Location loc, Value v,
                      Value srcLane) const override {
    Type i32 = b.getI32Type();
    auto c = [&](int64_t x) {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(x));
    };
    return NVVM::ShflOp::create(b, loc, i32, c(-1), v, srcLane, c(0x1f),
                                NVVM::ShflKind::idx, UnitAttr());
  }

  void barrier(OpBuilder &b, Location loc) const override {
    NVVM::Barrier0Op::create(b, loc);
  }

  bool hasNamedBarriers() const override { return true; }

  void namedBarrier(OpBuilder &b, Location loc, unsigned id,
                    unsigned numThreads, bool sameInstruction) const override {
    // bar.sync id, numThreads (barrier.sync.aligned), or barrier.sync where
    // the participants reach it at different instructions (.aligned says
    // every thread executes the same one). NVVM's barrier op would say the
    // same, but its printed form does not parse back when a location follows
    // it (the optional reduction attribute swallows `loc(...)`), and Kiln's
    // stages are text.
    LLVM::CallIntrinsicOp::create(
        b, loc,
        b.getStringAttr(sameInstruction
                            ? "llvm.nvvm.barrier.cta.sync.aligned.count"
                            : "llvm.nvvm.barrier.cta.sync.count"),
        ValueRange{i32Const(b, loc, id), i32Const(b, loc, numThreads)});
  }

  // @p st.shared.b32: ptxas keeps its uniform datapath for what follows,
  // where a branch on the thread index made it treat the code after as
  // divergent (a warp-specialized FP8 GEMM's compute partition moved its
  // address arithmetic out of uniform registers and ran 6% slower).
  bool storeSharedPredicated(OpBuilder &b, Location loc, Value ptr, Value value,
                             Value pred) const override {
    // A fixed place in the module's shared array is named in the instruction
    // (`[global_smem+OFF]`), not passed in a register: the register would be
    // shared with every other use of the address (LLVM folds them into one),
    // and the warp-specialization dispatch word is written at the kernel's
    // start and again at its end, so that register would live across the
    // whole default partition. ptxas then keeps the shared base in a vector
    // register and turns each mbarrier.init at the start into a loop that
    // reads it into a uniform register (R2UR + BRA.U.ANY), eight of them in
    // an FP8 GEMM with four stages.
    if (std::optional<int64_t> off = sharedGlobalOffset(ptr)) {
      std::string text = "@$1 st.shared.b32 [" +
                         LoweringContext::kSharedGlobal.str() + "+" +
                         std::to_string(*off) + "], $0;";
      LLVM::InlineAsmOp::create(
          b, loc, LLVM::LLVMVoidType::get(b.getContext()),
          ValueRange{value, pred}, text, "r,b", /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr());
      return true;
    }
    Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
    LLVM::InlineAsmOp::create(
        b, loc, LLVM::LLVMVoidType::get(b.getContext()),
        ValueRange{addr, value, pred}, "@$2 st.shared.b32 [$0], $1;", "r,r,b",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    return true;
  }

  bool isCTABarrier(Operation *op) const override {
    return isa<NVVM::Barrier0Op>(op);
  }

  bool isThreadIdRead(Operation *op) const override {
    return isa<NVVM::ThreadIdXOp>(op);
  }

  // tid / 32 read from lane 0: ptxas then knows every lane has it, keeps
  // what depends on it in uniform registers and branches on it uniformly.
  Value warpId(OpBuilder &b, Location loc) const override {
    Value warp = LLVM::LShrOp::create(b, loc, threadId(b, loc),
                                      i32Const(b, loc, 5));
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), i32Const(b, loc, -1),
                                warp, i32Const(b, loc, 0),
                                i32Const(b, loc, 0x1f), NVVM::ShflKind::idx,
                                UnitAttr());
  }

  // setmaxnreg (sm_90a): per warpgroup, multiples of 8 in [24, 256], out of
  // the 64 Ki registers a CTA may hold.
  RegisterReallocation registerReallocation() const override {
    if (getDesc().arch < 90)
      return {};
    return {/*registersPerCTA=*/64 * 1024, /*groupWarps=*/4, /*minRegs=*/24,
            /*maxRegs=*/256, /*step=*/8};
  }

  void setMaxRegisters(OpBuilder &b, Location loc, int current,
                       int regs) const override {
    NVVM::SetMaxRegisterOp::create(
        b, loc, regs,
        regs < current ? NVVM::SetMaxRegisterAction::decrease
                       : NVVM::SetMaxRegisterAction::increase);
  }

  bool hasKernelRegisterCap() const override { return true; }

  void limitKernelRegisters(LLVM::LLVMFuncOp func, int regs) const override {
    if (auto set = func->getAttrOfType<IntegerAttr>(
            NVVM::NVVMDialect::getMaxnregAttrName()))
      regs = std::min<int>(regs, set.getInt());
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  IntegerAttr::get(IntegerType::get(func.getContext(), 32),
                                   regs));
  }

  std::string atomicSyncScope(StringRef scope) const override {
    return scope == "gpu" ? "device" : scope == "cta" ? "block" : "";
  }

  // Atomics are `atom.<sem>.<scope>` written out (sm_70+): NVPTX drops the
  // ordering and scope of an atomicrmw. Operations `atom` lacks (float
  // min/max: a compare-and-swap loop) stay LLVM's relaxed atomicrmw between
  // fences (release before, acquire after).
  Value atomicRMW(OpBuilder &b, Location loc, LLVM::AtomicBinOp kind,
                  Value ptr, Value value, StringRef sem, StringRef scope,
                  unsigned align) const override {
    std::optional<std::string> op = atomOperation(kind, value.getType());
    if (!op || getDesc().arch < 70)
      return atomicBetweenFences(b, loc, sem, scope, [&] {
        return (Value)LLVM::AtomicRMWOp::create(b, loc, kind, ptr, value,
                                         LLVM::AtomicOrdering::monotonic,
                                         atomicSyncScope(scope), align);
      });
    return atom(b, loc, sem, scope, *op, ptr, {value});
  }

  Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp,
                  Value value, StringRef sem, StringRef scope,
                  unsigned align) const override {
    unsigned bits = value.getType().getIntOrFloatBitWidth();
    if (bits < 32 || getDesc().arch < 70)
      return atomicBetweenFences(b, loc, sem, scope, [&]() -> Value {
        auto x = LLVM::AtomicCmpXchgOp::create(
            b, loc, ptr, cmp, value, LLVM::AtomicOrdering::monotonic,
            LLVM::AtomicOrdering::monotonic, atomicSyncScope(scope), align);
        return LLVM::ExtractValueOp::create(b, loc, x, 0);
      });
    return atom(b, loc, sem, scope, bits == 64 ? "cas.b64" : "cas.b32", ptr,
                {cmp, value});
  }

  // atom.add.noftz.f16x2 (sm_60+) and .bf16x2 (sm_90+): LLVM expands a
  // vector atomicrmw fadd into a compare-and-swap loop here, so the
  // instruction is written out.
  bool hasPackedAtomicFAdd(Type elemTy) const override {
    return elemTy.isF16() ? getDesc().arch >= 60
                          : elemTy.isBF16() && getDesc().arch >= 90;
  }
  Value packedAtomicFAdd(OpBuilder &b, Location loc, Value ptr, Value value,
                         StringRef sem, StringRef scope) const override {
    auto vecTy = cast<VectorType>(value.getType());
    StringRef type = vecTy.getElementType().isF16() ? "f16x2" : "bf16x2";
    Value bits = LLVM::BitcastOp::create(b, loc, b.getI32Type(), value);
    std::string op = ("add.noftz." + type).str();
    Value old = getDesc().arch < 70
                    ? atomicBetweenFences(b, loc, sem, scope,
                             [&] { return atom(b, loc, sem, scope, op, ptr,
                                               {bits}); })
                    : atom(b, loc, sem, scope, op, ptr, {bits});
    return LLVM::BitcastOp::create(b, loc, vecTy, old);
  }

  // div.full.f32 (2 ulp, full range): Triton's lowering of an f32 `/`.
  Value divideF32Approx(OpBuilder &b, Location loc, Value x,
                        Value y) const override {
    Type f32 = b.getF32Type();
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x, y}, "div.full.f32 $0, $1, $2;",
               "=f,f,f", /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }

  Value mathF32(OpBuilder &b, Location loc, StringRef fn,
                Value x) const override {
    Type f32 = b.getF32Type();
    // exp2 has a native NVPTX lowering (ex2.approx); the others are only
    // reachable through the approximate NVVM intrinsics.
    if (fn == "exp2")
      return LLVM::Exp2Op::create(b, loc, f32, x);
    StringRef intrinsic = llvm::StringSwitch<StringRef>(fn)
                              .Case("log2", "llvm.nvvm.lg2.approx.f")
                              .Case("sin", "llvm.nvvm.sin.approx.f")
                              .Case("cos", "llvm.nvvm.cos.approx.f")
                              .Case("rsqrt", "llvm.nvvm.rsqrt.approx.f")
                              .Default("");
    if (intrinsic.empty())
      return {};
    return LLVM::CallIntrinsicOp::create(
               b, loc, f32, b.getStringAttr(intrinsic), ValueRange{x})
        .getResult(0);
  }

  // fp8 in pairs (sm_89+), OCP formats only: cvt.rn.satfinite.{e4m3x2,
  // e5m2x2}.{f32,f16x2} down, cvt.rn.f16x2.{e4m3x2,e5m2x2} up. satfinite is
  // the emulation's saturation: a magnitude past the largest finite value,
  // infinity included, becomes it with its sign, and a NaN stays a NaN (with
  // the instruction's NaN bits). bf16 goes through f32 and f32 results
  // through f16, both exactly. The intrinsics are called by name: NVVM's
  // convert ops carry the fp8 format as a type attribute, which
  // serialization refuses (it admits only LLVM-compatible types).
  bool hasFp8Cvt(Type fp8) const {
    return getDesc().arch >= 89 && isa<Float8E4M3FNType, Float8E5M2Type>(fp8);
  }

  static StringRef fp8Name(Type fp8) {
    return isa<Float8E4M3FNType>(fp8) ? "e4m3x2" : "e5m2x2";
  }

  SmallVector<Value> fp8Truncate(OpBuilder &b, Location loc, ValueRange values,
                                 Type from, Type to) const override {
    if (!hasFp8Cvt(to))
      return {};
    Type i8 = b.getI8Type(), i16 = b.getIntegerType(16), f32 = b.getF32Type();
    auto half2 = VectorType::get({2}, b.getF16Type());
    std::string fromF16 = ("llvm.nvvm.f16x2.to." + fp8Name(to) + ".rn").str();
    std::string fromF32 = ("llvm.nvvm.ff.to." + fp8Name(to) + ".rn").str();
    Value eight = LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(8));
    SmallVector<Value> out;
    for (size_t i = 0; i < values.size(); i += 2) {
      bool pair = i + 1 < values.size();
      Value lo = values[i], hi = pair ? values[i + 1] : lo;
      // The upper f16, or the first f32 operand, becomes the upper byte.
      Value packed;
      if (from.isF16()) {
        Value v = LLVM::PoisonOp::create(b, loc, half2);
        v = LLVM::InsertElementOp::create(b, loc, v, lo, i32Const(b, loc, 0));
        v = LLVM::InsertElementOp::create(b, loc, v, hi, i32Const(b, loc, 1));
        packed = LLVM::CallIntrinsicOp::create(
                     b, loc, i16, b.getStringAttr(fromF16), ValueRange{v})
                     .getResult(0);
      } else {
        if (from.isBF16()) {
          lo = LLVM::FPExtOp::create(b, loc, f32, lo);
          hi = pair ? Value(LLVM::FPExtOp::create(b, loc, f32, hi)) : lo;
        }
        packed = LLVM::CallIntrinsicOp::create(
                     b, loc, i16, b.getStringAttr(fromF32), ValueRange{hi, lo})
                     .getResult(0);
      }
      out.push_back(LLVM::TruncOp::create(b, loc, i8, packed));
      if (pair)
        out.push_back(LLVM::TruncOp::create(
            b, loc, i8, LLVM::LShrOp::create(b, loc, packed, eight)));
    }
    return out;
  }

  SmallVector<Value> fp8Extend(OpBuilder &b, Location loc, ValueRange codes,
                               Type from, Type to) const override {
    if (!hasFp8Cvt(from))
      return {};
    Type i16 = b.getIntegerType(16), f32 = b.getF32Type();
    auto half2 = VectorType::get({2}, b.getF16Type());
    std::string name = ("llvm.nvvm." + fp8Name(from) + ".to.f16x2.rn").str();
    Value eight = LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(8));
    SmallVector<Value> out;
    for (size_t i = 0; i < codes.size(); i += 2) {
      bool pair = i + 1 < codes.size();
      // The lower byte becomes the lower f16.
      Value lo = LLVM::ZExtOp::create(b, loc, i16, codes[i]);
      Value hi =
          pair ? Value(LLVM::ZExtOp::create(b, loc, i16, codes[i + 1])) : lo;
      Value packed = LLVM::OrOp::create(b, loc, lo,
                                        LLVM::ShlOp::create(b, loc, hi, eight));
      Value h = LLVM::CallIntrinsicOp::create(
                    b, loc, half2, b.getStringAttr(name), ValueRange{packed})
                    .getResult(0);
      for (int k = 0; k < (pair ? 2 : 1); ++k) {
        Value x =
            LLVM::ExtractElementOp::create(b, loc, h, i32Const(b, loc, k));
        if (!to.isF16())
          x = LLVM::FPExtOp::create(b, loc, f32, x);
        if (to.isBF16())
          x = LLVM::FPTruncOp::create(b, loc, to, x);
        out.push_back(x);
      }
    }
    return out;
  }

  // cp.async.{ca,cg}.shared.global [dst], [src], bytes{, ignore-src}: a
  // masked-off lane sets ignore-src, so the hardware fills the destination
  // with zeros. .cg (L2 only) exists for 16-byte copies alone. The mask stays
  // a predicate (inline assembly): as a src-size operand (select(mask, bytes,
  // 0)) LLVM splits a mask made of several conditions into a chain of
  // selects that ptxas turns back into a predicate one copy at a time (four
  // instructions a copy instead of one in a masked GEMM loop).
  bool asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value pred,
                 StringRef cacheModifier) const override {
    bool cg = cacheModifier == ".cg" || (cacheModifier.empty() && bytes == 16);
    if (!pred) {
      NVVM::CpAsyncOp::create(
          b, loc, dst, src, b.getI32IntegerAttr(bytes),
          NVVM::LoadCacheModifierKindAttr::get(
              b.getContext(), cg ? NVVM::LoadCacheModifierKind::CG
                                 : NVVM::LoadCacheModifierKind::CA),
          Value());
      return true;
    }
    Value one = LLVM::ConstantOp::create(b, loc, b.getI1Type(),
                                         b.getBoolAttr(true));
    Value ignore = LLVM::XOrOp::create(b, loc, pred, one);
    std::string text = (Twine("cp.async.") + (cg ? "cg" : "ca") +
                        ".shared.global [$0], [$1], " + Twine(bytes) +
                        ", $2;")
                           .str();
    LLVM::InlineAsmOp::create(
        b, loc, LLVM::LLVMVoidType::get(b.getContext()),
        ValueRange{dst, src, ignore}, text, "l,l,b",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    return true;
  }

  /// A NUL-terminated module global holding `text` (one per text), and its
  /// address.
  // CUDA's device printf: vprintf(format, buffer of the arguments laid out
  // as C varargs, each at its natural alignment).
  bool printf(OpBuilder &b, Location loc, StringRef format,
              ArrayRef<Value> args) const override {
    auto module =
        b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    MLIRContext *ctx = b.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf");
    if (!fn) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(
          b, loc, "vprintf", LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
    }
    Value buffer = LLVM::ZeroOp::create(b, loc, ptr);
    if (!args.empty()) {
      SmallVector<Type> types;
      for (Value a : args)
        types.push_back(a.getType());
      auto structTy = LLVM::LLVMStructType::getLiteral(ctx, types);
      {
        // In the entry block: one slot for the function, not one per loop
        // iteration.
        OpBuilder::InsertionGuard guard(b);
        Block *entry = &b.getInsertionBlock()
                            ->getParent()
                            ->getParentOfType<LLVM::LLVMFuncOp>()
                            .getBody()
                            .front();
        b.setInsertionPointToStart(entry);
        Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
        buffer = LLVM::AllocaOp::create(b, loc, ptr, structTy, one, 8);
      }
      for (auto [i, a] : llvm::enumerate(args)) {
        Value field = LLVM::GEPOp::create(
            b, loc, ptr, structTy, buffer,
            ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(b, loc, a, field);
      }
    }
    Value fmt = globalString(b, loc, format);
    LLVM::CallOp::create(b, loc, fn, ValueRange{fmt, buffer});
    return true;
  }

  // CUDA's device-side assert: __assertfail(message, file, line, function,
  // char size), a system call ptxas resolves; the driver prints
  // "file:line: function: block: [..], thread: [..] Assertion `message`
  // failed." and the launch fails with an assertion error.
  void assertFail(OpBuilder &b, Location loc, StringRef message,
                  StringRef file, unsigned line,
                  StringRef function) const override {
    auto module = b.getInsertionBlock()->getParentOp()
                      ->getParentOfType<ModuleOp>();
    MLIRContext *ctx = b.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto fnTy = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {ptr, ptr, i32, ptr, i64});
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>("__assertfail");
    if (!fn) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(b, loc, "__assertfail", fnTy);
    }
    auto string = [&](StringRef text) { return globalString(b, loc, text); };
    Value args[] = {string(message), string(file),
                    LLVM::ConstantOp::create(b, loc, i32,
                                             b.getI32IntegerAttr(line)),
                    string(function),
                    LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1))};
    LLVM::CallOp::create(b, loc, fn, args);
  }

  // stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (sm_90).
  bool hasMatrixStore16() const override { return getDesc().arch >= 90; }
  void storeMatrices16(OpBuilder &b, Location loc, Value rowAddress,
                       ArrayRef<Value> sources,
                       bool transposed) const override {
    MLIRContext *ctx = b.getContext();
    NVVM::StMatrixOp::create(
        b, loc, rowAddress, sources,
        NVVM::MMALayoutAttr::get(ctx, transposed ? NVVM::MMALayout::col
                                                 : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
  }

  // ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (sm_75; Kiln's
  // targets are sm_80 and later).
  bool hasMatrixLoad16() const override { return true; }
  SmallVector<Value> loadMatrices16(OpBuilder &b, Location loc,
                                    Value rowAddress, bool transposed,
                                    unsigned num) const override {
    MLIRContext *ctx = b.getContext();
    Type i32 = b.getI32Type();
    Type resTy = num == 1 ? i32
                          : LLVM::LLVMStructType::getLiteral(
                                ctx, SmallVector<Type>(num, i32));
    Value res = NVVM::LdMatrixOp::create(
        b, loc, resTy, rowAddress, num,
        transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltType::B16);
    if (num == 1)
      return {res};
    SmallVector<Value> words;
    for (unsigned i = 0; i < num; ++i)
      words.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
    return words;
  }

  void asyncCommitGroup(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  void asyncWait(OpBuilder &b, Location loc, unsigned num,
                 std::optional<unsigned>) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(num));
  }

  void configureConversionTarget(ConversionTarget &target) const override {
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<tile_nv::TileNVDialect>();
  }

  void populatePatterns(TileTypeConverter &converter,
                        RewritePatternSet &patterns,
                        const LoweringContext &ctx) const override {
    populateMBarrierOpToLLVMPatterns(converter, patterns, ctx);
    populateTMAOpToLLVMPatterns(converter, patterns, ctx);
    populateClusterOpToLLVMPatterns(converter, patterns, ctx);
    populateOrderedOpToLLVMPatterns(converter, patterns, ctx);
    populateNamedBarrierOpToLLVMPatterns(converter, patterns, ctx);
    populateWarpGroupDotOpToLLVMPatterns(converter, patterns, ctx);
    populateMMAv2OpToLLVMPatterns(converter, patterns, ctx);
    populateAsyncSharedStoreOpToLLVMPatterns(converter, patterns, ctx);
    populateLibdeviceMathPatterns(converter, patterns);
  }

  // What the TMA, wgmma and mma.sync lowerings support, and named barriers
  // clear of warp_specialize's, one diagnostic at the op.
  LogicalResult checkBeforeLowering(ModuleOp module,
                                    const LoweringContext &ctx) const override {
    WalkResult r = module.walk([&](Operation *op) {
      if (auto dot = dyn_cast<tile_nv::WarpGroupDotOp>(op))
        if (failed(planWarpGroupDot(dot, lookupNumWarps(dot, ctx.numWarps))))
          return WalkResult::interrupt();
      if (auto mma = dyn_cast<tile_nv::MMAv2Op>(op))
        if (failed(checkMMAv2Layouts(mma)))
          return WalkResult::interrupt();
      if (failed(checkNamedBarrier(op)))
        return WalkResult::interrupt();
      if (auto func = dyn_cast<func::FuncOp>(op))
        if (failed(checkClusterBarriers(func)) ||
            failed(checkMulticastRefills(func)))
          return WalkResult::interrupt();
      if (auto store = dyn_cast<tile_nv::AsyncSharedStoreOp>(op))
        if (failed(checkAsyncSharedStoreWidth(store)))
          return WalkResult::interrupt();
      Value desc, buffer;
      if (auto load = dyn_cast<tile_nv::AsyncTMACopyGlobalToLocalOp>(op))
        desc = load.getDesc(), buffer = load.getResult();
      else if (auto store = dyn_cast<tile_nv::AsyncTMACopyLocalToGlobalOp>(op))
        desc = store.getDesc(), buffer = store.getSrc();
      else if (auto reduce = dyn_cast<tile_nv::AsyncTMAReduceOp>(op))
        desc = reduce.getDesc(), buffer = reduce.getSrc();
      if (!desc)
        return WalkResult::advance();
      auto layout = cast<tile_nv::NVMMASharedEncodingAttr>(
          cast<tile::TensorDescType>(desc.getType())
              .getBlockType()
              .getEncoding());
      if (layout.getTransposed()) {
        op->emitOpError() << "TMA copies of " << layout
                          << " are not lowered yet (a layout that is not "
                             "transposed)";
        return WalkResult::interrupt();
      }
      if (failed(getTMABoxOffsets(
              op, buffer, cast<tile::TensorDescType>(desc.getType()))))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  bool hasTensorDescriptors() const override { return getDesc().arch >= 90; }

  // A CUtensorMap: 128 bytes passed by value, read in place by TMA through
  // its (param-space) generic address.
  void markTensorDescParam(LLVM::LLVMFuncOp func,
                           unsigned index) const override {
    MLIRContext *ctx = func.getContext();
    func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(LLVM::LLVMArrayType::get(
                        IntegerType::get(ctx, 8), 128)));
    func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                    UnitAttr::get(ctx));
    func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                    IntegerAttr::get(IntegerType::get(ctx, 64), 64));
  }

  void acquireTensorDescriptor(OpBuilder &b, Location loc,
                               Value desc) const override {
    // As TMAOpToLLVM's make_tensor_descriptor for its own threads (with the
    // same empty bulk group, so that ptxas keeps the fence).
    LLVM::InlineAsmOp::create(
        b, loc, LLVM::LLVMVoidType::get(b.getContext()), ValueRange{desc},
        "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;\n"
        "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;",
        "l", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  }

  bool hasClusterSharedMemory() const override { return getDesc().arch >= 90; }

  Value clusterRank(OpBuilder &b, Location loc) const override {
    return NVVM::ClusterId::create(b, loc, b.getI32Type());
  }

  void clusterBarrier(OpBuilder &b, Location loc) const override {
    // barrier.cluster.arrive (release) and .wait (acquire), every thread.
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }

  Value loadSharedOfRank(OpBuilder &b, Location loc, Type type, Value local,
                         Value rank) const override {
    auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
    Value at = NVVM::MapaOp::create(b, loc, clusterPtr, local, rank);
    return LLVM::LoadOp::create(b, loc, type, at);
  }

  // The worker warps never run the kernel's own code, where a kernel with
  // warp_specialize may have one cluster barrier, before its first
  // warp_specialize (checkClusterBarriers): they arrive on it here, relaxed
  // (they have written nothing), and wait in atWorkerEntry. A thread that
  // arrives need not wait, but a race checker does not finish a kernel whose
  // threads leave a cluster barrier without waiting.
  void atWorkerSplit(OpBuilder &b, Location loc, Value isWorker,
                     LLVM::LLVMFuncOp func) const override {
    if (!hasKernelClusterBarrier(func))
      return;
    LLVM::InlineAsmOp::create(
        b, loc, LLVM::LLVMVoidType::get(b.getContext()), ValueRange{isWorker},
        "@$0 barrier.cluster.arrive.relaxed.aligned;", "b",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  }

  void atWorkerEntry(OpBuilder &b, Location loc,
                     LLVM::LLVMFuncOp func) const override {
    if (!hasKernelClusterBarrier(func))
      return;
    LLVM::InlineAsmOp::create(
        b, loc, LLVM::LLVMVoidType::get(b.getContext()), ValueRange{},
        "barrier.cluster.wait.aligned;", "",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  }

  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads) const override {
    MLIRContext *ctx = func.getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid",
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
  }

private:
  /// The kernel's own cluster barrier (its warps' arrival), if it has one.
  static bool hasKernelClusterBarrier(LLVM::LLVMFuncOp func) {
    bool found = false;
    func.walk([&](Operation *op) {
      found |= isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp>(op);
    });
    return found;
  }

  /// In a kernel with warp_specialize, the worker warps wait for their
  /// partitions from the kernel's start: a cluster barrier (every thread of
  /// every CTA) can have them only as atWorkerSplit's one arrival, so a
  /// kernel may have one, in its own code before its first warp_specialize
  /// (the init fence's, say). Any other is an error at the op.
  static LogicalResult checkClusterBarriers(func::FuncOp func) {
    Operation *firstWs = nullptr;
    func.walk<WalkOrder::PreOrder>([&](tile::WarpSpecializeOp ws) {
      if (!firstWs)
        firstWs = ws;
    });
    if (!firstWs)
      return success();
    Block &entry = func.getBody().front();
    Operation *firstWsTop = entry.findAncestorOpInBlock(*firstWs);
    int arrives = 0, waits = 0;
    WalkResult r = func.walk([&](Operation *op) {
      if (auto reduce = dyn_cast<tile::ReduceOp>(op))
        if (tile::TileDialect::ClusterPeersAttrHelper(op->getContext())
                .isAttrPresent(reduce)) {
          op->emitOpError()
              << "reduces across the CTAs of a cluster, which takes a barrier "
                 "of every thread of the cluster; in a kernel with "
                 "warp_specialize the worker warps never reach it, so the "
                 "cluster would hang (reduce each CTA's part and exchange the "
                 "results through mbarriers instead)";
          return WalkResult::interrupt();
        }
      bool arrive = isa<tile_nv::ClusterArriveOp>(op);
      if (!arrive && !isa<tile_nv::ClusterWaitOp>(op))
        return WalkResult::advance();
      int &seen = arrive ? arrives : waits;
      // The entry block runs before any other: all of it precedes a
      // warp_specialize in a later block.
      if (op->getBlock() == &entry &&
          (!firstWsTop || op->isBeforeInBlock(firstWsTop)) && seen++ == 0)
        return WalkResult::advance();
      op->emitOpError()
          << "in a kernel with warp_specialize: its worker warps wait for "
             "their partitions from the kernel's start and never reach this "
             "cluster barrier, so the cluster would hang (one cluster barrier "
             "may come before the first warp_specialize, outside any loop or "
             "if: the one that follows mbarrier inits; order the cluster's "
             "CTAs with mbarriers otherwise, e.g. mbarrier.arrive(..., "
             "cta_mask=))";
      return WalkResult::interrupt();
    });
    return failure(r.wasInterrupted());
  }

  /// st.async stores 4, 8 or 16 bytes: the layouts must give each thread at
  /// least 4 consecutive bytes of the buffer (the lowering's access plan).
  static LogicalResult checkAsyncSharedStoreWidth(tile_nv::AsyncSharedStoreOp op) {
    auto tensorType = cast<RankedTensorType>(op.getSrc().getType());
    Value buffer = op.getBuffer();
    FailureOr<tile::SharedAccessPlan> plan = tile::planSharedAccess(
        tensorType, cast<tile::MemDescType>(buffer.getType()),
        tile::getSharedBaseAlignment(buffer), 16, tile::getSharedXorOffset(buffer));
    if (failed(plan))
      return success(); // the lowering reports what it cannot address
    unsigned bytes = plan->vec * tile::getElementBytes(tensorType.getElementType());
    if (bytes >= 4)
      return success();
    return op.emitOpError()
           << "stores " << bytes << " consecutive bytes a thread; st.async stores 4, 8 "
              "or 16: use layouts that give each thread at least 4 consecutive bytes "
              "of the buffer (sizePerThread along its contiguous dimension)";
  }

  /// A multicast TMA copy in a loop refills its buffer in the other CTAs of
  /// its mask too, so before it this CTA must know that they are done
  /// reading the previous fill: through an arrival they make on this CTA's
  /// barrier (`mbarrier_arrive` with a `cta_mask`), or a cluster barrier in
  /// the loop. A kernel with neither has nothing that could order their
  /// reads before the refill: an error at the copy. Where the barriers'
  /// allocations can be followed, two more: a barrier other CTAs arrive on
  /// must count all of their arrivals a phase (else its phase completes
  /// while some are still reading: an error at the init), and the copy's
  /// loop must wait on such a barrier (else it waits only on barriers no
  /// other CTA arrives on: an error at the copy).
  /// A barrier's allocation, the same in every warp_specialize partition:
  /// a partition's buffers are copies of the kernel's allocations, at the
  /// same shared-memory offset (`tile.scratch_offset`) and source location,
  /// which name them where the allocator has run (an offset alone could be
  /// another allocation's of a disjoint lifetime); otherwise the allocation
  /// itself. None when the allocation cannot be followed (a block argument).
  using BarrierKey = std::pair<const void *, int64_t>;
  static std::optional<BarrierKey> barrierKey(Value barrier) {
    tile::LocalAllocOp root = tile::getRootAllocation(barrier);
    if (!root)
      return std::nullopt;
    if (auto offset = root->getAttrOfType<IntegerAttr>("tile.scratch_offset"))
      return BarrierKey{root->getLoc().getAsOpaquePointer(), offset.getInt()};
    return BarrierKey{root.getOperation(), -1};
  }

  static LogicalResult checkMulticastRefills(func::FuncOp func) {
    // The remote arrivals by their barrier's allocation; `lost` when one's
    // allocation cannot be followed (a block argument).
    llvm::MapVector<BarrierKey, SmallVector<tile_nv::MBarrierArriveOp>> remote;
    bool remoteArrive = false, lost = false;
    func.walk([&](tile_nv::MBarrierArriveOp arrive) {
      // An arrival from the set's leader only (from_leader) tells the other
      // CTAs about the leader's reads, not about their own: no release.
      if (arrive.getCtaMask() == 0 || arrive.getFromLeader())
        return;
      remoteArrive = true;
      if (std::optional<BarrierKey> key = barrierKey(arrive.getBarrier()))
        remote[*key].push_back(arrive);
      else
        lost = true;
    });
    WalkResult counted = func.walk([&](tile_nv::MBarrierInitOp init) {
      std::optional<BarrierKey> key = barrierKey(init.getBarrier());
      auto it = key ? remote.find(*key) : remote.end();
      if (it == remote.end())
        return WalkResult::advance();
      for (tile_nv::MBarrierArriveOp arrive : it->second) {
        if (arrive.getPred())
          continue; // not every CTA need arrive
        unsigned ctas = 1u << llvm::popcount(unsigned(arrive.getCtaMask()));
        // Every warp's, when each arrives for itself (per_warp).
        uint64_t need = arrive.getArrivalCount();
        if (init.getCount() >= need)
          continue;
        InFlightDiagnostic d = init->emitOpError();
        d << "counts " << init.getCount() << " arrival"
          << (init.getCount() == 1 ? "" : "s") << " a phase, but each arrival "
          << "with cta_mask = " << arrive.getCtaMask() << " reaches it from "
          << ctas << " CTAs (" << need << " arrivals): its phase completes "
          << "before every CTA's readers are done, so a copy that waits on it "
          << "may refill a buffer another CTA is still reading (init it with "
          << "the arrivals of every CTA that arrives on it)";
        d.attachNote(arrive.getLoc()) << "the arrival";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (counted.wasInterrupted())
      return failure();
    // Loops are branches by now (scf-to-cf): the loop of a block is the
    // blocks it reaches that reach it back.
    auto reach = [](Block *from, bool forward) {
      llvm::SmallPtrSet<Block *, 16> seen;
      SmallVector<Block *> work;
      auto next = [&](Block *b) {
        if (forward)
          for (Block *s : b->getSuccessors())
            work.push_back(s);
        else
          for (Block *p : b->getPredecessors())
            work.push_back(p);
      };
      next(from);
      while (!work.empty()) {
        Block *b = work.pop_back_val();
        if (seen.insert(b).second)
          next(b);
      }
      return seen;
    };
    WalkResult r = func.walk([&](tile::BarrierCompletedWriteOpInterface write) {
      Operation *copy = write.getOperation();
      if (!write.getLandingCTAs())
        return WalkResult::advance();
      Block *block = copy->getBlock();
      auto after = reach(block, true);
      if (!after.contains(block))
        return WalkResult::advance(); // not in a loop: one fill
      auto before = reach(block, false);
      auto inLoop = [&](Operation *op) {
        Block *b = op->getBlock();
        return after.contains(b) && before.contains(b);
      };
      bool clusterBarrier = false;
      func.walk([&](tile_nv::ClusterArriveOp arrive) {
        clusterBarrier |= inLoop(arrive);
      });
      if (clusterBarrier)
        return WalkResult::advance();
      if (!remoteArrive) {
        copy->emitOpError()
            << "multicasts in a loop, refilling its buffer in the other CTAs "
               "of the cluster that share it, but nothing tells this CTA that "
               "they are done reading the previous fill: have their readers "
               "arrive on the slot's barrier in every CTA (mbarrier.arrive(..., "
               "cta_mask=...)), or meet at gl.barrier(cluster=True) after the "
               "reads";
        return WalkResult::interrupt();
      }
      if (lost)
        return WalkResult::advance(); // an arrival's barrier is not known
      // The loop must wait on a barrier other CTAs arrive on.
      bool released = false, unknown = false;
      tile_nv::MBarrierWaitOp someWait;
      func.walk([&](tile_nv::MBarrierWaitOp wait) {
        if (!inLoop(wait))
          return;
        std::optional<BarrierKey> key = barrierKey(wait.getBarrier());
        if (!key)
          unknown = true;
        else if (remote.count(*key))
          released = true;
        else if (!someWait)
          someWait = wait;
      });
      if (released || unknown)
        return WalkResult::advance();
      InFlightDiagnostic d = copy->emitOpError();
      d << "multicasts in a loop, refilling its buffer in the other CTAs of "
           "the cluster that share it, but its loop waits on no barrier those "
           "CTAs arrive on: the arrivals with a cta_mask go to other barriers, "
           "so nothing tells this CTA that they are done reading the previous "
           "fill (wait on the slot's barrier their readers arrive on)";
      if (someWait)
        d.attachNote(someWait.getLoc()) << "a wait of the loop, on a barrier "
                                           "only this CTA arrives on";
      return WalkResult::interrupt();
    });
    return failure(r.wasInterrupted());
  }

  /// `atom[.<sem>.<scope>].global.<op> $0, [$1], $2[, $3]` on `args` (the
  /// operand, or compare and new value); returns the old value. Before sm_70
  /// `atom` has no ordering or scope: the qualifiers are left out (atomicBetweenFences()
  /// orders it). 16-bit floats travel as b16 registers.
  Value atom(OpBuilder &b, Location loc, StringRef sem, StringRef scope,
             StringRef op, Value ptr, ArrayRef<Value> args) const {
    Type t = args.back().getType();
    Type i16 = b.getI16Type();
    bool half = t.getIntOrFloatBitWidth() == 16 && !isa<IntegerType>(t);
    Type regTy = half ? i16 : t;
    SmallVector<Value> operands{ptr};
    for (Value a : args)
      operands.push_back(half ? LLVM::BitcastOp::create(b, loc, i16, a) : a);
    std::string reg = regTy.isF32()   ? "f"
                      : regTy.isF64() ? "d"
                      : regTy.getIntOrFloatBitWidth() == 64 ? "l"
                      : regTy.getIntOrFloatBitWidth() == 16 ? "h"
                                                            : "r";
    std::string text = "atom";
    if (getDesc().arch >= 70)
      text += ("." + sem + "." +
               (scope == "cta" ? "cta" : scope == "sys" ? "sys" : "gpu"))
                  .str();
    text += (".global." + op + " $0, [$1]").str();
    std::string constraints = "=" + reg + ",l";
    for (size_t i = 0; i < args.size(); ++i) {
      text += ", $" + std::to_string(i + 2);
      constraints += "," + reg;
    }
    text += ";";
    Value old = LLVM::InlineAsmOp::create(
                    b, loc, regTy, operands, text, constraints,
                    /*has_side_effects=*/true, /*is_align_stack=*/false,
                    LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                    ArrayAttr())
                    .getResult(0);
    return half ? LLVM::BitcastOp::create(b, loc, t, old) : old;
  }

  /// `atom`'s operation and type for an atomicrmw `kind` on `type` (e.g.
  /// "add.u32"), or none where `atom` has no such form.
  std::optional<std::string> atomOperation(LLVM::AtomicBinOp kind,
                                           Type type) const {
    unsigned bits = type.getIntOrFloatBitWidth();
    bool isInt = isa<IntegerType>(type);
    std::string w = std::to_string(bits);
    if (isInt && bits != 32 && bits != 64)
      return std::nullopt;
    using K = LLVM::AtomicBinOp;
    switch (kind) {
    case K::add:
      return "add.u" + w;
    case K::fadd:
      if (type.isF32() || type.isF64())
        return "add.f" + w;
      if (type.isF16())
        return std::string("add.noftz.f16");
      if (type.isBF16() && getDesc().arch >= 90)
        return std::string("add.noftz.bf16");
      return std::nullopt;
    case K::_and:
    case K::_or:
    case K::_xor:
      if (!isInt)
        return std::nullopt;
      return (kind == K::_and ? "and.b" : kind == K::_or ? "or.b" : "xor.b") +
             w;
    case K::xchg:
      if (bits != 32 && bits != 64)
        return std::nullopt;
      return "exch.b" + w;
    case K::max:
    case K::min:
      if (!isInt)
        return std::nullopt;
      return (kind == K::max ? "max.s" : "min.s") + w;
    case K::umax:
    case K::umin:
      if (!isInt)
        return std::nullopt;
      return (kind == K::umax ? "max.u" : "min.u") + w;
    default:
      return std::nullopt;
    }
  }
};
} // namespace

namespace kiln {
/// Registers the NVIDIA lowering hooks (part of registerNVIDIABackend).
void registerNVIDIATargetInfo() {
  registerTargetInfoFactory("nvidia", [](const TargetDesc &d) {
    return std::make_unique<NVIDIATargetInfo>(d);
  });
}
} // namespace kiln
