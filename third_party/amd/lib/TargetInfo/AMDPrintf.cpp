//===- AMDPrintf.cpp - device_print and device_assert's report on AMD -----===//
//
// ROCm's device printf, as HIP's compiler lowers printf: a message is begun
// (__ockl_printf_begin), the format appended with its length counting the
// NUL (__ockl_printf_append_string_n), then the arguments, seven a call, as
// i64 (__ockl_printf_append_args: integers zero-extended, doubles by their
// bits, pointers as addresses), the last call marked. The ROCm device
// libraries' ockl defines these (the backend links it, DeviceLibs.cpp); they
// write into the hostcall buffer the runtime gives the kernel, and the
// runtime prints the message.
//
//===----------------------------------------------------------------------===//

#include "AMDLowering.h"

#include "kiln/Conversion/TileToLLVM/GlobalStrings.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace {

LLVM::LLVMFuncOp declare(OpBuilder &b, Location loc, ModuleOp module,
                         StringRef name, Type result, ArrayRef<Type> params) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, loc, name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

/// The generic address of `text` (with a NUL), a constant in address space 4.
Value constantString(OpBuilder &b, Location loc, StringRef text) {
  return LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      kiln::globalString(b, loc, text, /*addrSpace=*/4));
}

} // namespace

void kiln::emitOcklPrintf(OpBuilder &b, Location loc, StringRef format,
                          ArrayRef<Value> args) {
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto c32 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  auto c64 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  auto begin = declare(b, loc, module, "__ockl_printf_begin", i64, {i64});
  auto appendString = declare(b, loc, module, "__ockl_printf_append_string_n",
                              i64, {i64, ptr, i64, i32});
  SmallVector<Type> argTypes = {i64, i32};
  argTypes.append(7, i64);
  argTypes.push_back(i32);
  auto appendArgs =
      declare(b, loc, module, "__ockl_printf_append_args", i64, argTypes);

  Value desc = LLVM::CallOp::create(b, loc, begin, ValueRange{c64(0)})
                   .getResult();
  desc = LLVM::CallOp::create(
             b, loc, appendString,
             ValueRange{desc, constantString(b, loc, format),
                        c64(int64_t(format.size()) + 1),
                        c32(args.empty() ? 1 : 0)})
             .getResult();
  auto widen = [&](Value v) -> Value {
    Type t = v.getType();
    if (t.isInteger(64))
      return v;
    if (isa<IntegerType>(t))
      return LLVM::ZExtOp::create(b, loc, i64, v);
    if (t.isF64())
      return LLVM::BitcastOp::create(b, loc, i64, v);
    if (isa<FloatType>(t))
      return LLVM::BitcastOp::create(b, loc, i64,
                                     LLVM::FPExtOp::create(b, loc, b.getF64Type(), v));
    return LLVM::PtrToIntOp::create(b, loc, i64, v);
  };
  for (size_t first = 0; first < args.size(); first += 7) {
    size_t n = std::min<size_t>(7, args.size() - first);
    SmallVector<Value> operands = {desc, c32(int64_t(n))};
    for (size_t i = 0; i < 7; ++i)
      operands.push_back(i < n ? widen(args[first + i]) : c64(0));
    operands.push_back(c32(first + 7 >= args.size() ? 1 : 0));
    desc = LLVM::CallOp::create(b, loc, appendArgs, operands).getResult();
  }
}
