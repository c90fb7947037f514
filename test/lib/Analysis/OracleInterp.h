//===- OracleInterp.h - What the brute-force oracles evaluate --------------===//
//
// The oracles (test-async-race-oracle, test-barrier-oracle) interpret a
// function on concrete integers: the scalar arith ops on values they know,
// and the shared buffers an op's memory effects name. Both read them here;
// neither shares anything with the analyses they judge.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ANALYSIS_ORACLEINTERP_H
#define KILN_LIB_ANALYSIS_ORACLEINTERP_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <optional>

namespace kiln::oracle {

/// The value of a scalar integer arith op (comparisons give 0 or 1) when
/// `intOf` knows the operands it reads; std::nullopt otherwise.
inline std::optional<int64_t>
evalIntOp(mlir::Operation *op,
          llvm::function_ref<std::optional<int64_t>(mlir::Value)> intOf) {
  using namespace mlir;
  if (op->getNumResults() != 1 || !op->getResult(0).getType().isIntOrIndex())
    return std::nullopt;
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    std::optional<int64_t> c = intOf(sel.getCondition());
    return c ? intOf(*c ? sel.getTrueValue() : sel.getFalseValue())
             : std::nullopt;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(
          op))
    return intOf(op->getOperand(0));
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = intOf(op->getOperand(0)),
                         b = intOf(op->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq: return *a == *b;
    case arith::CmpIPredicate::ne: return *a != *b;
    case arith::CmpIPredicate::slt:
    case arith::CmpIPredicate::ult: return *a < *b;
    case arith::CmpIPredicate::sle:
    case arith::CmpIPredicate::ule: return *a <= *b;
    case arith::CmpIPredicate::sgt:
    case arith::CmpIPredicate::ugt: return *a > *b;
    case arith::CmpIPredicate::sge:
    case arith::CmpIPredicate::uge: return *a >= *b;
    }
    return std::nullopt;
  }
  bool divides = *b != 0;
  if (isa<arith::AddIOp>(op)) return *a + *b;
  if (isa<arith::SubIOp>(op)) return *a - *b;
  if (isa<arith::MulIOp>(op)) return *a * *b;
  if (isa<arith::RemSIOp, arith::RemUIOp>(op) && divides) return *a % *b;
  if (isa<arith::DivSIOp, arith::DivUIOp>(op) && divides) return *a / *b;
  if (isa<arith::CeilDivSIOp>(op) && divides)
    return *a / *b + ((*a % *b != 0) && ((*a < 0) == (*b < 0)));
  if (isa<arith::FloorDivSIOp>(op) && divides)
    return *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)));
  if (isa<arith::AndIOp>(op)) return *a & *b;
  if (isa<arith::OrIOp>(op)) return *a | *b;
  if (isa<arith::XOrIOp>(op)) return *a ^ *b;
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(op)) return std::max(*a, *b);
  if (isa<arith::MinSIOp, arith::MinUIOp>(op)) return std::min(*a, *b);
  if (isa<arith::ShLIOp>(op) && *b >= 0 && *b < 63) return *a << *b;
  if (isa<arith::ShRSIOp, arith::ShRUIOp>(op) && *b >= 0 && *b < 63)
    return *a >> *b;
  return std::nullopt;
}

/// The shared buffers (memdesc values) an effect of kind `Effect` of `op`
/// names: the effect's value, or every memdesc operand for an op-wide one;
/// not a buffer the op itself allocates.
template <typename Effect>
llvm::SmallVector<mlir::Value> sharedEffectBuffers(mlir::Operation *op) {
  using namespace mlir;
  SmallVector<Value> out;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return out;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (auto &e : list) {
    if (!isa<Effect>(e.getEffect()) ||
        !isa<tile::SharedMemoryResource>(e.getResource()))
      continue;
    SmallVector<Value> vs;
    if (Value v = e.getValue())
      vs.push_back(v);
    else
      vs.append(op->operand_begin(), op->operand_end());
    for (Value v : vs)
      if (isa<tile::MemDescType>(v.getType()) && v.getDefiningOp() != op &&
          !llvm::is_contained(out, v))
        out.push_back(v);
  }
  return out;
}

/// The kinds of trouble an oracle saw at each op, in the order it saw them.
using Witnesses =
    llvm::MapVector<mlir::Operation *, llvm::SetVector<llvm::StringRef>>;

/// One remark per op ("<prefix> (<kind>, ...)"), then the function's count
/// of executions.
inline void emitWitnesses(mlir::Operation *func, const Witnesses &seen,
                          llvm::StringRef prefix, llvm::StringRef name,
                          unsigned executions) {
  for (auto &[op, kinds] : seen) {
    mlir::InFlightDiagnostic d = op->emitRemark() << prefix << " (";
    llvm::interleave(kinds, d, ", ");
    d << ")";
  }
  func->emitRemark() << name << ": " << executions << " executions";
}

} // namespace kiln::oracle

#endif
