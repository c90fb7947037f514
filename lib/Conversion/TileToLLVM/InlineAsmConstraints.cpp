//===- InlineAsmConstraints.cpp - inline asm constraints, checked ---------===//
//
// The constraint string of an inline asm statement, checked against the
// operands and results the lowering is about to give it, before LLVM sees
// it: LLVM's own check (InlineAsm::verify, which LLVM asserts rather than
// reports), that an input tied to an output ("0") has that output's size,
// and that no input asks for an immediate (the operands are registers; LLVM's
// code generator fails on them). Each is an error at the tile op, which
// carries the user's line.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"

using namespace mlir;

LogicalResult kiln::checkInlineAsmConstraints(Operation *op,
                                              StringRef constraints,
                                              TypeRange outputs,
                                              TypeRange inputs) {
  llvm::LLVMContext ctx;
  LLVM::TypeToLLVMIRTranslator translator(ctx);
  SmallVector<llvm::Type *> outs, ins;
  for (Type t : outputs)
    outs.push_back(translator.translateType(t));
  for (Type t : inputs)
    ins.push_back(translator.translateType(t));
  llvm::Type *ret = outs.empty()       ? llvm::Type::getVoidTy(ctx)
                    : outs.size() == 1 ? outs.front()
                                       : llvm::StructType::get(ctx, outs);
  auto describe = [&](InFlightDiagnostic diag) -> LogicalResult {
    diag << " (constraints \"" << constraints << "\"; each statement has "
         << outputs.size() << " outputs and " << inputs.size()
         << " inputs, outputs first)";
    return diag;
  };
  if (llvm::Error err = llvm::InlineAsm::verify(
          llvm::FunctionType::get(ret, ins, /*isVarArg=*/false),
          constraints)) {
    std::string msg = llvm::toString(std::move(err));
    return describe(op->emitOpError() << "constraint string rejected by LLVM: "
                                      << msg);
  }
  // Entries by kind: an output's number, an input's number.
  llvm::InlineAsm::ConstraintInfoVector infos =
      llvm::InlineAsm::ParseConstraints(constraints);
  SmallVector<int> number;
  unsigned output = 0, input = 0;
  for (const llvm::InlineAsm::ConstraintInfo &c : infos) {
    if (c.Type == llvm::InlineAsm::isOutput && !c.isIndirect)
      number.push_back(output++);
    else if (c.Type == llvm::InlineAsm::isInput ||
             c.Type == llvm::InlineAsm::isOutput)
      number.push_back(input++);
    else
      number.push_back(-1);
  }
  for (auto [i, c] : llvm::enumerate(infos)) {
    // An immediate-only input: these operands are registers, and LLVM's
    // code generator fails on them.
    if (c.Type == llvm::InlineAsm::isInput && !c.Codes.empty() &&
        llvm::all_of(c.Codes, [](const std::string &code) {
          return code == "n" || code == "i" || code == "s" || code == "E" ||
                 code == "F";
        }))
      return describe(op->emitOpError()
                      << "asks for an immediate with input " << number[i]
                      << "'s constraint \"" << c.Codes.front()
                      << "\", but its operands are registers");
    // Tied: output i and the input that names it ("N") of one size.
    if (c.Type != llvm::InlineAsm::isOutput || c.isIndirect ||
        !c.hasMatchingInput() || c.MatchingInput >= int(infos.size()))
      continue;
    int out = number[i], in = number[c.MatchingInput];
    if (out < 0 || in < 0 || unsigned(out) >= outs.size() ||
        unsigned(in) >= ins.size())
      continue;
    if (outs[out]->getPrimitiveSizeInBits() !=
        ins[in]->getPrimitiveSizeInBits())
      return describe(op->emitOpError()
                      << "ties input " << in << " of type " << inputs[in]
                      << " to output " << out << " of type " << outputs[out]
                      << ": a tied input must have its output's size");
  }
  return success();
}
