//===- GlobalStrings.cpp - Constant strings of a lowered module ------------===//

#include "kiln/Conversion/TileToLLVM/GlobalStrings.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

Value kiln::globalString(OpBuilder &b, Location loc, StringRef text,
                         unsigned addrSpace) {
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  std::string value = (text + Twine('\0')).str();
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (global.getSymName().starts_with("kiln_str_") &&
        global.getAddrSpace() == addrSpace)
      if (auto s = dyn_cast_or_null<StringAttr>(global.getValueOrNull()))
        if (s.getValue() == value)
          return LLVM::AddressOfOp::create(b, loc, global);
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = "kiln_str_" + std::to_string(i);
    if (!module.lookupSymbol(name))
      break;
  }
  LLVM::GlobalOp global;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
    global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    b.getStringAttr(value), /*alignment=*/1,
                                    addrSpace);
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}
