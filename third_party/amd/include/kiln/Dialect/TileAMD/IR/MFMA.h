//===- MFMA.h - The mfma instructions of CDNA1 to CDNA4 ---------*- C++ -*-===//
//
// One table of the v_mfma forms Kiln lowers: shape, operand types, how many
// K elements a lane holds per instruction, and the chips that have it. The
// op verifier, the lowering and the diagnostics all read it, so a shape the
// verifier accepts is one the lowering can emit.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILEAMD_IR_MFMA_H
#define KILN_DIALECT_TILEAMD_IR_MFMA_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::tile_amd {

/// An operand element kind of the table.
/// FP8 / BF8: the OCP formats (e4m3fn, e5m2); FP8NUZ / BF8NUZ: the FNUZ ones
/// (e4m3fnuz, e5m2fnuz).
enum class MfmaElem { F32, F16, BF16, I8, FP8, BF8, FP8NUZ, BF8NUZ, F64 };

/// How a lane's kBase operand elements are passed to the intrinsic.
enum class MfmaPack {
  Scalar, ///< one element (kBase 1)
  Vector, ///< vector<kBase x element>
  I16s,   ///< bf16 bits as vector<kBase x i16> (the `.1k` forms, and
          ///< CDNA1's two-element bf16 forms)
  I32,    ///< 4 bytes as one i32 (the CDNA1/CDNA2 i8 forms)
  I64,    ///< 8 bytes as one i64
  I32x4,  ///< 16 bytes as vector<4 x i32>
};

struct MfmaInstr {
  /// The ROCDL op, without the `rocdl.` prefix.
  llvm::StringLiteral name;
  unsigned m, n, k;
  /// K elements one lane holds per instruction (k = kBase x 64 / m).
  unsigned kBase;
  MfmaElem a, b;
  /// The accumulator is i32 (else f32, or f64 for f64 operands).
  bool intAcc;
  MfmaPack pack;
  /// CDNA versions that have it: 1 = gfx908, 2 = gfx90a, 3 = gfx942,
  /// 4 = gfx950.
  unsigned minVersion, maxVersion;
};

/// The accumulator's element type of an instruction: i32, f64 (f64 operands) or f32.
inline bool isF64Mfma(const MfmaInstr &i) { return i.a == MfmaElem::F64; }

/// Rows a lane holds consecutively in a block of the accumulator: 4 for 32-bit
/// accumulators, 1 for f64 (each lane of v_mfma_f64_16x16x4 holds rows l / 16,
/// 4 + l / 16, ... of its column).
inline int32_t mfmaAccHeight(unsigned elementBits) { return elementBits == 64 ? 1 : 4; }

/// The table's kind of an element type; nullopt for types no mfma reads.
std::optional<MfmaElem> getMfmaElem(mlir::Type t);

/// The instruction of shape m x n x k reading `a` x `b` into `acc` on CDNA
/// `version`; null if there is none.
const MfmaInstr *lookupMfma(unsigned version, unsigned m, unsigned n,
                            unsigned k, mlir::Type a, mlir::Type b,
                            mlir::Type acc);

/// "[32, 32, 8], [16, 16, 16]": the shapes CDNA `version` has for `a` x `b`
/// into `acc` (empty if none), for diagnostics.
std::string describeMfmaShapes(unsigned version, mlir::Type a, mlir::Type b,
                               mlir::Type acc);

/// "CDNA3 (gfx942)": the generation and chip of a layout version (1 to 4).
llvm::StringRef describeCdnaVersion(unsigned version);

/// A scaled mfma form (CDNA4's v_mfma_scale_f32_*_f8f6f4): m x n x k with k
/// counted in elements, every 32 K elements of a row sharing a scale.
struct MfmaScaledInstr {
  llvm::StringLiteral name;
  unsigned m, n, k;
};

/// The scaled instruction of shape m x n x k on CDNA `version`; null if none.
const MfmaScaledInstr *lookupMfmaScaled(unsigned version, unsigned m,
                                        unsigned n, unsigned k);

/// The instruction's format code for an operand format of Gluon's
/// mfma_scaled ("e4m3" 0, "e5m2" 1, "e2m1" 4); nullopt for other names.
std::optional<unsigned> getMfmaScaledFormat(llvm::StringRef format);

/// K elements per byte of a tensor in `format` (2 for packed e2m1, else 1).
inline unsigned getMfmaScaledPacking(llvm::StringRef format) {
  return format == "e2m1" ? 2 : 1;
}

/// The CDNA version of an AMD chip's arch number (908 -> 1, 910 (gfx90a)
/// -> 2, 942 -> 3, 950 -> 4); 0 for chips without mfma.
unsigned getCdnaVersion(unsigned arch);

} // namespace kiln::tile_amd

#endif
