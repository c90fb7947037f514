//===- AddressForm.h - Tensor addresses as polynomials of coordinates ------===//
//
// The address of each element of a tensor of pointers, when it is a kernel
// argument plus `elemBytes` times an integer polynomial: a scalar part (a
// polynomial over SSA values, the "atoms") plus one coefficient polynomial
// per dimension times the element's coordinate there. Built from splat,
// arange, broadcast, expand_dims, convert_layout, hint, addptr and integer
// add / sub / mul (one side uniform); anything else has no form.
//
// It answers what LLVM can prove about two accesses: their distance is a
// constant only if the difference of their polynomials is (for atoms that
// are kernel arguments, program ids and loop induction variables, which LLVM
// knows nothing more of, the converse holds too). The wait-count pass uses it
// to find stores LLVM cannot merge.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_ADDRESSFORM_H
#define KILN_ANALYSIS_ADDRESSFORM_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

namespace kiln {

/// An integer polynomial over SSA values: monomial (sorted atoms, repeated
/// for powers) -> coefficient; the empty monomial is the constant.
class Poly {
public:
  using Monomial = llvm::SmallVector<void *, 2>;

  static Poly constant(int64_t c);
  static Poly atom(mlir::Value v);

  Poly operator+(const Poly &o) const;
  Poly operator-(const Poly &o) const;
  Poly operator*(const Poly &o) const;
  Poly scaled(int64_t k) const;
  /// This polynomial with every occurrence of atom `v` replaced by `by`.
  Poly substituted(mlir::Value v, const Poly &by) const;

  bool isConstant() const;
  /// The constant term (the value, for a constant polynomial).
  int64_t constantTerm() const;
  /// Every atom, in any monomial.
  llvm::SmallVector<mlir::Value> atoms() const;
  /// "c + k1*a*b + ..." with atoms named by `name` ("0" when empty).
  void print(llvm::raw_ostream &os,
             llvm::function_ref<std::string(mlir::Value)> name) const;

private:
  void add(const Monomial &m, int64_t c);
  std::map<Monomial, int64_t> terms;
};

/// The address of element `coords` of a pointer tensor:
/// base + elemBytes * (scalar + sum_d coeff[d] * coords[d]).
struct AddressForm {
  mlir::Value base; ///< a kernel argument
  int64_t elemBytes = 0;
  Poly scalar;
  llvm::SmallVector<Poly> coeff;
};

/// The form of a tensor of pointers (or of one pointer, rank 0), or none.
std::optional<AddressForm> getAddressForm(mlir::Value ptr);
/// The form of scalar pointer `base` plus a tensor of element `offsets` (a
/// buffer resource's addresses), or none.
std::optional<AddressForm> getAddressForm(mlir::Value base,
                                          mlir::Value offsets);

/// Whether LLVM can know nothing more of `v` than that it is some integer:
/// a kernel argument, a program id or count, or a loop induction variable.
bool isOpaqueToLLVM(mlir::Value v);

/// Accesses of one thread through pointer tensors `ptrs` (of one kernel
/// argument, each with a distributed layout), in vectors of `vecs[i]`
/// consecutive registers: how many each tensor issues, when no two of all
/// these accesses can be merged by LLVM -- for every pair and lane, their
/// distance is not a constant LLVM could prove (a polynomial in kernel
/// arguments, program ids and induction variables), or a constant that
/// leaves them neither overlapping nor adjacent within 16 bytes. None when
/// an address has no form, a register repeats another, the layout has
/// other than `warpSize` lanes, or some pair may merge.
std::optional<llvm::SmallVector<unsigned>>
countUnmergeableAccesses(llvm::ArrayRef<mlir::Value> ptrs,
                         llvm::ArrayRef<unsigned> vecs, unsigned warpSize);

/// One op's accesses for countUnmergeableAccesses: their address form, the
/// tensor whose layout places them, and the elements per access.
struct CountedAccesses {
  AddressForm form;
  mlir::RankedTensorType type;
  unsigned vec;
};
/// The same for accesses given by their forms (a buffer resource's base
/// plus offsets, say).
std::optional<llvm::SmallVector<unsigned>>
countUnmergeableAccesses(llvm::ArrayRef<CountedAccesses> ops,
                         unsigned warpSize);

} // namespace kiln

#endif
