"""fp8 conversions as lowered (lib/Conversion/TileToLLVM/Fp8Conversions.cpp), run on this
machine's CPU through ``convert-tile-to-llvm`` and MLIR's JIT runner, every result compared with
a reference that shares none of the lowering's arithmetic:

* fp8 -> f32: each of the 256 codes decoded from the format's definition with exact rationals;
* f32 -> fp8: the nearest of the format's finite values found by search in its sorted value
  table (ties to the even code; toward zero: the largest not above), saturating past the
  largest finite value and for infinities, NaN to the format's NaN; over every f32 whose low 16
  bits are 0x0000, 0x0001 or 0xFFFF (every rounding boundary of every binade, the exact ties
  and their neighbours, subnormals, both signs, infinities and NaNs).

The integer emulation is run on a target without fp8 instructions (sm_80: every format, scalar
``arith.extf`` / ``arith.truncf``, the same emitter the kernels' registers use). The packed
instructions (sm_90a, gfx942, gfx950) are run as each target lowers them, tensors of 1, 2 and 4
registers a thread from and to f32, f16 and bf16, with a C model of each instruction, written
from the formats' definitions and the instructions' documented behaviour, called in its place
(MODEL_C below): the checks here are of the lowering around the instructions (byte and word
order, the clamp before AMD's, which sources go through f32) and of the semantics as documented;
the hardware itself is checked against torch by test/gpu/test_fp8_gpu.py (NVIDIA; there is no
AMD GPU)."""

from __future__ import annotations

import bisect
import collections
import math
import os
import re
import shutil
import struct
import subprocess
from fractions import Fraction

import pytest

from kiln_test_setup import skip_unless_installed

from jit_runner import KILN_OPT, RUNNER, UTILS, needs_runner

pytestmark = needs_runner

# name: (MLIR type, exponent bits, mantissa bits, bias, NaN/inf convention)
FORMATS = {
    "e4m3": ("f8E4M3FN", 4, 3, 7, "fn"),
    "e5m2": ("f8E5M2", 5, 2, 15, "ieee"),
    "e4m3fnuz": ("f8E4M3FNUZ", 4, 3, 8, "fnuz"),
    "e5m2fnuz": ("f8E5M2FNUZ", 5, 2, 16, "fnuz"),
}


def decode(code: int, fmt) -> object:
    """The exact value of an fp8 code: a Fraction, or 'nan' / 'inf' / '-inf'."""
    _, ebits, mbits, bias, kind = fmt
    sign = -1 if code & 0x80 else 1
    e = (code >> mbits) & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    if kind == "fnuz" and code == 0x80:
        return "nan"
    if kind == "fn" and e == (1 << ebits) - 1 and m == (1 << mbits) - 1:
        return "nan"
    if kind == "ieee" and e == (1 << ebits) - 1:
        return "nan" if m else ("inf" if sign > 0 else "-inf")
    if e == 0:
        if m == 0 and sign < 0:
            return "-0"
        return sign * Fraction(m, 1 << mbits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << mbits)) * Fraction(2) ** (e - bias)


def f32_bits(v) -> int:
    if v == "nan":
        return None
    if v in ("inf", "-inf"):
        return 0x7F800000 | (0x80000000 if v == "-inf" else 0)
    if v == "-0":
        return 0x80000000
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def run_mlir(body: str, target="cuda:sm_80") -> list:
    module = (f'module attributes {{tile.target = "{target}", tile.num_warps = 4 : i32, '
              f'tile.threads_per_warp = 32 : i32}} {{\n'
              f'  func.func private @printI64(i64)\n  func.func private @printNewline()\n'
              f'{body}\n}}\n')
    low = subprocess.run([KILN_OPT, "-", "--convert-scf-to-cf",
                          f"--convert-tile-to-llvm=target={target}"],
                         input=module, capture_output=True, text=True, timeout=120)
    assert low.returncode == 0, low.stderr[-2000:]
    out = subprocess.run([RUNNER, "-", "-e", "main", "-entry-point-result=void",
                          f"--shared-libs={UTILS}"], input=low.stdout, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return [int(x) for x in out.stdout.split()]


def _print(value: str, ty: str) -> str:
    return (f"      %w = arith.extui {value} : {ty} to i64\n"
            f"      func.call @printI64(%w) : (i64) -> ()\n"
            f"      func.call @printNewline() : () -> ()\n")


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_code_to_f32_exactly(name):
    fmt = FORMATS[name]
    body = f"""
  func.func @main() {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c256 = arith.constant 256 : i32
    scf.for %i = %c0 to %c256 step %c1 : i32 {{
      %b = arith.trunci %i : i32 to i8
      %f = arith.bitcast %b : i8 to {fmt[0]}
      %x = arith.extf %f : {fmt[0]} to f32
      %u = arith.bitcast %x : f32 to i32
{_print('%u', 'i32')}    }}
    return
  }}"""
    got = run_mlir(body)
    assert len(got) == 256
    for code, bits in enumerate(got):
        want = decode(code, fmt)
        if want == "nan":
            assert (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF, hex(code)
        else:
            assert bits == f32_bits(want), (name, hex(code), hex(bits), want)


_TABLES: dict = {}


def _table(fmt):
    """The format's finite non-negative values (as floats: each is exact in a double, as is
    every f32), sorted, with their codes."""
    if fmt in _TABLES:
        return _TABLES[fmt]
    vals = {}
    for code in range(128):
        v = decode(code, fmt)
        if isinstance(v, Fraction):
            vals.setdefault(v, code)
    items = sorted(vals.items())
    _TABLES[fmt] = ([float(v) for v, _ in items], [c for _, c in items])
    return _TABLES[fmt]


def reference_code(bits: int, fmt, toward_zero: bool) -> int:
    _, ebits, mbits, bias, kind = fmt
    values, codes = _table(fmt)
    nan = {"fn": 0x7F, "fnuz": 0x80, "ieee": 0x7E}[kind]
    sign = 0x80 if bits >> 31 else 0
    mag = bits & 0x7FFFFFFF
    if mag > 0x7F800000:
        return nan
    if mag == 0x7F800000:
        x = values[-1] + 1  # past the largest: saturates
    else:
        x = struct.unpack("<f", struct.pack("<I", mag))[0]
    if x >= values[-1]:
        code = codes[-1]
    else:
        i = bisect.bisect_right(values, x) - 1  # values[i] <= x < values[i + 1]
        lo, hi = values[i], values[i + 1]
        if toward_zero or x == lo:
            code = codes[i]
        elif x - lo < hi - x:
            code = codes[i]
        elif x - lo > hi - x:
            code = codes[i + 1]
        else:  # a tie: the even code
            code = codes[i] if codes[i] % 2 == 0 else codes[i + 1]
    if code == 0 and kind == "fnuz":
        return 0  # no negative zero
    return sign | code


LOWS = (0x0000, 0x0001, 0xFFFF)


@pytest.mark.parametrize("name,toward_zero", [(n, False) for n in FORMATS] +
                         [("e4m3", True), ("e5m2fnuz", True)])
def test_f32_to_fp8_rounds_and_saturates(name, toward_zero):
    fmt = FORMATS[name]
    mode = " toward_zero" if toward_zero else ""
    body = f"""
  func.func @main() {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %n = arith.constant 65536 : i32
    %c16 = arith.constant 16 : i32
{''.join(f'    %low{k} = arith.constant {v} : i32{chr(10)}' for k, v in enumerate(LOWS))}
    scf.for %i = %c0 to %n step %c1 : i32 {{
      %hi = arith.shli %i, %c16 : i32
{''.join(f'''      %b{k} = arith.ori %hi, %low{k} : i32
      %x{k} = arith.bitcast %b{k} : i32 to f32
      %y{k} = arith.truncf %x{k}{mode} : f32 to {fmt[0]}
      %z{k} = arith.bitcast %y{k} : {fmt[0]} to i8
      %w{k} = arith.extui %z{k} : i8 to i64
      func.call @printI64(%w{k}) : (i64) -> ()
      func.call @printNewline() : () -> ()
''' for k in range(len(LOWS)))}    }}
    return
  }}"""
    got = run_mlir(body)
    assert len(got) == 65536 * len(LOWS)
    bad = []
    for i in range(65536):
        for k, low in enumerate(LOWS):
            bits = (i << 16) | low
            want = reference_code(bits, fmt, toward_zero)
            if got[i * len(LOWS) + k] != want:
                bad.append((hex(bits), hex(got[i * len(LOWS) + k]), hex(want)))
    assert not bad, f"{len(bad)} wrong, e.g. {bad[:8]}"


def test_the_reference_can_fail():
    """Negative control: rounding half away from zero differs from the reference on ties."""
    fmt = FORMATS["e4m3"]
    tie = f32_bits(Fraction(17, 16))  # halfway between 1 and 1.125: the even code is 1.0
    assert reference_code(tie, fmt, False) == 0x38
    assert reference_code(f32_bits(Fraction(19, 16)), fmt, False) == 0x3A  # 1.1875 -> 1.25
    assert reference_code(0x7F800000, fmt, False) == 0x7E  # +inf saturates to 448
    assert math.isclose(float(decode(0x7E, fmt)), 448.0)


# ------------------------------------------------------------------------------------------------
# The packed hardware conversions, on the CPU: each target's lowering is run as lowered, with a
# model of each instruction (written in C below from the formats' definitions and the
# instructions' documented behaviour) called in its place, against the same references.

MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"

# What each instruction computes, as documented:
# * NVIDIA (sm_89+; PTX ISA, cvt): cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2} rounds each source
#   to nearest even; .satfinite makes a NaN a NaN (the model writes 0x7F) and any magnitude past
#   the largest finite value, infinity included, that value with its sign. The first f32 source (the
#   upper f16) goes to the upper byte. cvt.rn.f16x2.{e4m3x2,e5m2x2} is exact, the upper byte the
#   upper f16; a NaN code gives an f16 NaN (the model writes 0x7FFF).
# * AMD (v_cvt_pk_{fp8,bf8}_f32, v_cvt_pk_f32_{fp8,bf8}): gfx942's read and write the FNUZ
#   formats (e4m3fnuz, e5m2fnuz), gfx950's the OCP ones (e4m3fn, e5m2). Down: sources A, B to
#   bytes 0, 1 of the word half word_sel selects, the other half kept from `old`; round to
#   nearest even. Overflow: without the MODE register's FP16_OVFL bit (a kernel's default) a
#   finite magnitude past the largest, and an infinity, become inf (e5m2) or NaN (the others);
#   with it, finite overflow saturates and infinities still give inf / NaN. NaN gives the
#   format's NaN; FNUZ has no negative zero. Up: bytes 2 word_sel and 2 word_sel + 1, exactly.
# Kiln's AMD lowering clamps each source to the largest finite magnitude first (NaN kept), so
# its results must not depend on the overflow behaviour: the model runs both ways.
MODEL_C = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

enum kind { IEEE, FN, FNUZ };
struct fmt { int ebits, mbits, bias; enum kind kind; };
static const struct fmt E4M3 = {4, 3, 7, FN}, E5M2 = {5, 2, 15, IEEE},
                        E4M3FNUZ = {4, 3, 8, FNUZ}, E5M2FNUZ = {5, 2, 16, FNUZ},
                        F16 = {5, 10, 15, IEEE};
enum overflow { SATFINITE, NO_SATURATION, FP16_OVFL };

static double largest(struct fmt f) {
  int top = (1 << f.ebits) - 1;
  double man = 2.0 - ldexp(1.0, -f.mbits);
  if (f.kind == FN) man -= ldexp(1.0, -f.mbits); /* S.1111.111 is NaN */
  return ldexp(man, (f.kind == IEEE ? top - 1 : top) - f.bias);
}

static double decode(unsigned c, struct fmt f) {
  unsigned sign = c >> (f.ebits + f.mbits) & 1, top = (1u << f.ebits) - 1;
  unsigned e = c >> f.mbits & top, m = c & ((1u << f.mbits) - 1);
  if (f.kind == FNUZ && sign && !e && !m) return NAN;
  if (f.kind == FN && e == top && m == (1u << f.mbits) - 1) return NAN;
  if (f.kind == IEEE && e == top) return m ? NAN : sign ? -INFINITY : INFINITY;
  double v = e ? ldexp(1.0 + ldexp(m, -f.mbits), (int)e - f.bias)
               : ldexp(m, 1 - f.bias - f.mbits);
  return sign ? -v : v;
}

/* The code of v, a finite value of the format. */
static unsigned encode(double v, struct fmt f) {
  unsigned sign = signbit(v) ? 1u << (f.ebits + f.mbits) : 0;
  double a = fabs(v);
  int e;
  if (a == 0) return f.kind == FNUZ ? 0 : sign;
  frexp(a, &e);
  e -= 1; /* a in [2^e, 2^(e+1)) */
  if (e < 1 - f.bias) return sign | (unsigned)ldexp(a, f.bias - 1 + f.mbits);
  return sign | (unsigned)(e + f.bias) << f.mbits |
         (unsigned)ldexp(ldexp(a, -e) - 1.0, f.mbits);
}

/* a (finite, >= 0) to the format's precision, ties to even, no largest exponent. */
static double round_even(double a, struct fmt f) {
  int e;
  if (a == 0) return 0;
  frexp(a, &e);
  e -= 1;
  if (e < 1 - f.bias) e = 1 - f.bias;
  return ldexp(nearbyint(ldexp(a, f.mbits - e)), e - f.mbits);
}

static unsigned convert(double x, struct fmt f, enum overflow o) {
  unsigned sign = signbit(x) ? 0x80 : 0;
  unsigned nan = f.kind == FNUZ ? 0x80 : sign | 0x7F;
  if (isnan(x)) return nan;
  double a = isinf(x) ? INFINITY : round_even(fabs(x), f);
  if (a > largest(f)) {
    if (o == SATFINITE || (o == FP16_OVFL && !isinf(x)))
      a = largest(f);
    else
      return f.kind == IEEE ? sign | 0x7C : nan;
  }
  unsigned code = encode(a, f);
  return f.kind == FNUZ && code == 0 ? 0 : sign | code;
}

static uint32_t f32_bits(double v) {
  float x = (float)v;
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static float bits_f32(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}
static uint32_t f16_bits(double v) {
  if (isnan(v)) return 0x7FFF;
  if (isinf(v)) return v < 0 ? 0xFC00 : 0x7C00;
  return encode(v, F16);
}

/* NVIDIA */
#define NV(NAME, FMT)                                                           \
  uint32_t kiln_nv_ff_to_##NAME(float a, float b) {                             \
    return convert(a, FMT, SATFINITE) << 8 | convert(b, FMT, SATFINITE);       \
  }                                                                             \
  uint32_t kiln_nv_f16x2_to_##NAME(uint32_t h) {                                \
    return convert(decode(h >> 16, F16), FMT, SATFINITE) << 8 |                 \
           convert(decode(h & 0xFFFF, F16), FMT, SATFINITE);                    \
  }                                                                             \
  uint32_t kiln_nv_##NAME##_to_f16x2(uint32_t c) {                              \
    return f16_bits(decode(c >> 8 & 0xFF, FMT)) << 16 |                         \
           f16_bits(decode(c & 0xFF, FMT));                                     \
  }
NV(e4m3x2, E4M3)
NV(e5m2x2, E5M2)

/* AMD (OVERFLOW is NO_SATURATION or FP16_OVFL, given when compiling) */
#define AMD(CHIP, OP, FMT)                                                      \
  uint32_t kiln_##CHIP##_pk_##OP##_f32_lo(float a, float b, uint32_t old) {     \
    return (old & 0xFFFF0000u) | convert(a, FMT, OVERFLOW) |                    \
           convert(b, FMT, OVERFLOW) << 8;                                      \
  }                                                                             \
  uint32_t kiln_##CHIP##_pk_##OP##_f32_hi(float a, float b, uint32_t old) {     \
    return (old & 0xFFFFu) | (convert(a, FMT, OVERFLOW) |                       \
                              convert(b, FMT, OVERFLOW) << 8) << 16;            \
  }                                                                             \
  uint64_t kiln_##CHIP##_pk_f32_##OP##_lo(uint32_t w) {                         \
    return (uint64_t)f32_bits(decode(w >> 8 & 0xFF, FMT)) << 32 |               \
           f32_bits(decode(w & 0xFF, FMT));                                     \
  }                                                                             \
  uint64_t kiln_##CHIP##_pk_f32_##OP##_hi(uint32_t w) {                         \
    return kiln_##CHIP##_pk_f32_##OP##_lo(w >> 16);                             \
  }
AMD(gfx942, fp8, E4M3FNUZ)
AMD(gfx942, bf8, E5M2FNUZ)
AMD(gfx950, fp8, E4M3)
AMD(gfx950, bf8, E5M2)

/* Negative control: the instruction without Kiln's clamp in front. */
uint32_t kiln_model_convert(float x, int fmt, int overflow) {
  const struct fmt *f[] = {&E4M3, &E5M2, &E4M3FNUZ, &E5M2FNUZ};
  return convert(x, *f[fmt], (enum overflow)overflow);
}
"""

# target -> (layout lanes, the formats its instructions convert, model library variants)
HW_TARGETS = {
    "cuda:sm_90a": (32, ("e4m3", "e5m2"), ("SATFINITE",)),
    "hip:gfx942": (64, ("e4m3fnuz", "e5m2fnuz"), ("NO_SATURATION", "FP16_OVFL")),
    "hip:gfx950": (64, ("e4m3", "e5m2"), ("NO_SATURATION", "FP16_OVFL")),
}

_MODELS: dict = {}


def model_library(tmp_path_factory, overflow: str) -> str:
    if overflow not in _MODELS:
        cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if cc is None:
            skip_unless_installed("needs a C compiler for the instruction models")
        d = tmp_path_factory.mktemp("fp8model")
        src = d / "model.c"
        src.write_text(MODEL_C)
        lib = d / f"model_{overflow}.so"
        subprocess.run([cc, "-O1", "-shared", "-fPIC", f"-DOVERFLOW={overflow}", str(src),
                        "-o", str(lib), "-lm"], check=True, capture_output=True)
        _MODELS[overflow] = str(lib)
    return _MODELS[overflow]


def use_models(text: str, chip: str) -> str:
    """The lowered module with each instruction replaced by a call of its model."""
    decls, out, n = set(), [], [0]

    def tmp():
        n[0] += 1
        return f"%kiln_m{n[0]}"

    for line in text.splitlines():
        nv = re.match(r'^(\s*)(%\S+) = llvm\.call_intrinsic "llvm\.nvvm\.([\w.]+)\.rn"\((.*)\) '
                      r': \((.*)\) -> (.*)$', line)
        down = re.match(r"^(\s*)(%\S+) = rocdl\.cvt\.pk\.(fp8|bf8)\.f32 (%\S+), (%\S+) -> "
                        r"(%\S+)\[(true|false)\] : i32$", line)
        up = re.match(r"^(\s*)(%\S+) = rocdl\.cvt\.pk\.f32\.(fp8|bf8) (%\S+)\[(true|false)\] "
                      r": vector<2xf32>$", line)
        if nv:
            ind, res, name, args, tys, rty = nv.groups()
            c_args, c_tys = [], []
            for a, t in zip(args.split(", "), tys.split(", ")):
                if t == "vector<2xf16>":
                    b = tmp()
                    out.append(f"{ind}{b} = llvm.bitcast {a} : vector<2xf16> to i32")
                    a, t = b, "i32"
                elif t == "i16":
                    b = tmp()
                    out.append(f"{ind}{b} = llvm.zext {a} : i16 to i32")
                    a, t = b, "i32"
                c_args.append(a)
                c_tys.append(t)
            fn = "kiln_nv_" + name.replace(".", "_")
            decls.add(f"  llvm.func @{fn}({', '.join(c_tys)}) -> i32")
            r = tmp()
            out.append(f"{ind}{r} = llvm.call @{fn}({', '.join(c_args)}) : "
                       f"({', '.join(c_tys)}) -> i32")
            op = "llvm.trunc" if rty == "i16" else "llvm.bitcast"
            out.append(f"{ind}{res} = {op} {r} : i32 to {rty}")
        elif down:
            ind, res, kind, a, b, old, hi = down.groups()
            fn = f"kiln_{chip}_pk_{kind}_f32_{'hi' if hi == 'true' else 'lo'}"
            decls.add(f"  llvm.func @{fn}(f32, f32, i32) -> i32")
            out.append(f"{ind}{res} = llvm.call @{fn}({a}, {b}, {old}) : (f32, f32, i32) -> i32")
        elif up:
            ind, res, kind, w, hi = up.groups()
            fn = f"kiln_{chip}_pk_f32_{kind}_{'hi' if hi == 'true' else 'lo'}"
            decls.add(f"  llvm.func @{fn}(i32) -> i64")
            r = tmp()
            out.append(f"{ind}{r} = llvm.call @{fn}({w}) : (i32) -> i64")
            out.append(f"{ind}{res} = llvm.bitcast {r} : i64 to vector<2xf32>")
        else:
            out.append(line)
    text = "\n".join(out)
    assert "rocdl." not in text and "llvm.nvvm." not in text, "an instruction without a model"
    end = text.rstrip().rfind("}")
    return text[:end] + "\n".join(sorted(decls)) + "\n" + text[end:]


# A sweep: function `fn` (source type `src`, result type `dst`, `regs` registers a thread) called
# `calls` times; register k of call i holds the f32 bits i << 16 | lows[k] or, without lows,
# the integer regs * i + k (every f16 / bf16 / fp8 bit pattern).
Sweep = collections.namedtuple("Sweep", "fn src dst regs calls lows")
_WIDTH = {"f32": 32, "f16": 16, "bf16": 16, "fp8": 8}


def _sweeps(fmt_name: str) -> list:
    return [
        Sweep(f"down_f32_{fmt_name}", "f32", "fp8", 4, 65536, (0x0000, 0x0001, 0x8000, 0xFFFF)),
        Sweep(f"down_pair_{fmt_name}", "f32", "fp8", 2, 65536, (0x7FFF, 0x8001)),
        Sweep(f"down_scalar_{fmt_name}", "f32", "fp8", 1, 65536, (0x4000,)),
        Sweep(f"down_f16_{fmt_name}", "f16", "fp8", 4, 16384, None),
        Sweep(f"down_bf16_{fmt_name}", "bf16", "fp8", 4, 16384, None),
        Sweep(f"up_f32_{fmt_name}", "fp8", "f32", 4, 64, None),
        Sweep(f"up_f16_{fmt_name}", "fp8", "f16", 4, 64, None),
        Sweep(f"up_bf16_{fmt_name}", "fp8", "bf16", 4, 64, None),
        Sweep(f"up_scalar_{fmt_name}", "fp8", "f32", 1, 256, None),
    ]


def _input_bits(sw: Sweep, i: int, k: int) -> int:
    return i << 16 | sw.lows[k] if sw.lows else sw.regs * i + k


def _functions(fmt_name: str, lanes: int) -> str:
    """The tile functions the sweeps call: one conversion of a tensor (or scalar) each."""
    funcs = []
    for sw in _sweeps(fmt_name):
        src, dst = (FORMATS[fmt_name][0] if t == "fp8" else t for t in (sw.src, sw.dst))
        if sw.regs > 1:
            layout = (f"#tile.blocked<{{sizePerThread = [{sw.regs}], threadsPerWarp = [{lanes}], "
                      f"warpsPerCTA = [4], order = [0]}}>")
            n = sw.regs * lanes * 4
            src, dst = f"tensor<{n}x{src}, {layout}>", f"tensor<{n}x{dst}, {layout}>"
        op = "arith.truncf" if sw.dst == "fp8" else "arith.extf"
        funcs.append(f"  func.func @{sw.fn}(%x: {src}) -> {dst} {{\n"
                     f"    %y = {op} %x : {src} to {dst}\n    return %y : {dst}\n  }}")
    return "\n".join(funcs)


def _main(fmt_name: str) -> str:
    """func.func @main: each sweep's inputs through its (lowered) function, every result
    printed, one a line."""
    llvm_ty = {"f32": "f32", "f16": "f16", "bf16": "bf16", "fp8": "i8"}
    lines = ["  func.func private @printI64(i64)", "  func.func private @printNewline()",
             "  func.func @main() {", "    %c0 = arith.constant 0 : i32",
             "    %c1 = arith.constant 1 : i32", "    %c16 = arith.constant 16 : i32"]
    for s, sw in enumerate(_sweeps(fmt_name)):
        in_ty, out_ty = llvm_ty[sw.src], llvm_ty[sw.dst]
        in_int, out_int = f"i{_WIDTH[sw.src]}", f"i{_WIDTH[sw.dst]}"
        lines += [f"    %n{s} = arith.constant {sw.calls} : i32",
                  f"    %regs{s} = arith.constant {sw.regs} : i32",
                  f"    scf.for %i{s} = %c0 to %n{s} step %c1 : i32 {{"]
        args = []
        for k in range(sw.regs):
            if sw.lows:  # f32 bits
                lines += [f"      %h{s}_{k} = arith.shli %i{s}, %c16 : i32",
                          f"      %l{s}_{k} = arith.constant {sw.lows[k]} : i32",
                          f"      %b{s}_{k} = arith.ori %h{s}_{k}, %l{s}_{k} : i32"]
            else:  # every bit pattern of a 16- or 8-bit type
                lines += [f"      %m{s}_{k} = arith.muli %i{s}, %regs{s} : i32",
                          f"      %k{s}_{k} = arith.constant {k} : i32",
                          f"      %a{s}_{k} = arith.addi %m{s}_{k}, %k{s}_{k} : i32",
                          f"      %b{s}_{k} = arith.trunci %a{s}_{k} : i32 to {in_int}"]
            v = f"%b{s}_{k}"
            if in_ty != in_int:
                lines.append(f"      %v{s}_{k} = arith.bitcast {v} : {in_int} to {in_ty}")
                v = f"%v{s}_{k}"
            args.append(v)
        if sw.regs == 1:
            lines.append(f"      %e{s}_0 = llvm.call @{sw.fn}({args[0]}) : ({in_ty}) -> {out_ty}")
        else:
            st_in = f"!llvm.struct<({', '.join([in_ty] * sw.regs)})>"
            st_out = f"!llvm.struct<({', '.join([out_ty] * sw.regs)})>"
            lines.append(f"      %u{s} = llvm.mlir.undef : {st_in}")
            prev = f"%u{s}"
            for k, v in enumerate(args):
                lines.append(f"      %s{s}_{k} = llvm.insertvalue {v}, {prev}[{k}] : {st_in}")
                prev = f"%s{s}_{k}"
            lines.append(f"      %r{s} = llvm.call @{sw.fn}({prev}) : ({st_in}) -> {st_out}")
            lines += [f"      %e{s}_{k} = llvm.extractvalue %r{s}[{k}] : {st_out}"
                      for k in range(sw.regs)]
        for k in range(sw.regs):
            r = f"%e{s}_{k}"
            if out_ty != out_int:
                lines.append(f"      %q{s}_{k} = arith.bitcast {r} : {out_ty} to {out_int}")
                r = f"%q{s}_{k}"
            lines += [f"      %w{s}_{k} = arith.extui {r} : {out_int} to i64",
                      f"      func.call @printI64(%w{s}_{k}) : (i64) -> ()",
                      "      func.call @printNewline() : () -> ()"]
        lines.append("    }")
    lines += ["    return", "  }"]
    return "\n".join(lines)


def _bits_of(value, dst: str):
    """The bits of exact value `value` (decode()'s form) as f32, f16 or bf16; None for NaN."""
    if value == "nan":
        return None
    f32 = f32_bits(value)
    if dst == "f32":
        return f32
    if dst == "bf16":
        return f32 >> 16  # exact: every fp8 value has a short mantissa
    if value in ("inf", "-inf", "-0"):
        return {"inf": 0x7C00, "-inf": 0xFC00, "-0": 0x8000}[value]
    return struct.unpack("<H", struct.pack("<e", float(value)))[0]


_REFS: dict = {}


def _reference(fmt_name: str) -> list:
    """Every sweep's expected results, in print order (None: a NaN)."""
    if fmt_name not in _REFS:
        fmt, want = FORMATS[fmt_name], []
        for sw in _sweeps(fmt_name):
            for i in range(sw.calls):
                for k in range(sw.regs):
                    b = _input_bits(sw, i, k)
                    if sw.dst == "fp8":
                        f32 = {"f32": b, "bf16": b << 16}.get(sw.src)
                        if sw.src == "f16":  # exact in a double, then in an f32
                            h = struct.unpack("<e", struct.pack("<H", b))[0]
                            f32 = None if h != h else struct.unpack("<I", struct.pack("<f", h))[0]
                        nan = f32 is None or (f32 & 0x7FFFFFFF) > 0x7F800000
                        want.append(None if nan else reference_code(f32, fmt, False))
                    else:
                        want.append(_bits_of(decode(b, fmt), sw.dst))
        _REFS[fmt_name] = want
    return _REFS[fmt_name]


def _is_nan(bits: int, ty: str, fmt) -> bool:
    if ty == "fp8":
        return decode(bits, fmt) == "nan"
    exp, man = {"f32": (0x7F800000, 0x7FFFFF), "f16": (0x7C00, 0x3FF),
                "bf16": (0x7F80, 0x7F)}[ty]
    return (bits & exp) == exp and bool(bits & man)


def run_with_models(target: str, lib: str) -> dict:
    """{format: the printed results of every sweep} for the target's hardware formats."""
    lanes, fmts, _ = HW_TARGETS[target]
    results = {}
    for fmt_name in fmts:
        module = (f"module attributes {{tile.num_warps = 4 : i32, tile.threads_per_warp = "
                  f"{lanes} : i32}} {{\n{_functions(fmt_name, lanes)}\n}}\n")
        low = subprocess.run([KILN_OPT, "-", f"--convert-tile-to-llvm=target={target}"],
                             input=module, capture_output=True, text=True, timeout=120)
        assert low.returncode == 0, low.stderr[-2000:]
        # Every function converts by the instructions (no integer arithmetic on the codes).
        for sw in _sweeps(fmt_name):
            body = low.stdout.split(f"llvm.func @{sw.fn}(", 1)[1].split("llvm.func @", 1)[0]
            assert "rocdl.cvt" in body or "llvm.nvvm." in body, (target, sw.fn)
            assert "roundeven" not in body and "uitofp" not in body, (target, sw.fn)
        text = use_models(low.stdout, target.split(":")[1])
        end = text.rstrip().rfind("}")
        text = text[:end] + _main(fmt_name) + "\n" + text[end:]
        llvm = subprocess.run([MLIR_OPT, "-", "--convert-scf-to-cf", "--convert-to-llvm",
                               "--reconcile-unrealized-casts"], input=text, capture_output=True,
                              text=True, timeout=300)
        assert llvm.returncode == 0, llvm.stderr[-2000:]
        out = subprocess.run([RUNNER, "-", "-e", "main", "-entry-point-result=void",
                              f"--shared-libs={UTILS},{lib}"], input=llvm.stdout,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        results[fmt_name] = [int(x) for x in out.stdout.split()]
    return results


@pytest.mark.parametrize("target,overflow", [(t, o) for t, v in HW_TARGETS.items()
                                             for o in v[2]])
def test_instructions_as_lowered_match_the_reference(tmp_path_factory, target, overflow):
    """Every sweep through the target's lowering, the instruction models in place of the
    instructions: the reference's codes and values (a NaN where it has a NaN), whichever
    overflow behaviour the AMD instructions have."""
    if not os.path.exists(MLIR_OPT):
        skip_unless_installed("needs mlir-opt (mlir-22-tools)")
    got = run_with_models(target, model_library(tmp_path_factory, overflow))
    for fmt_name, values in got.items():
        fmt, want = FORMATS[fmt_name], _reference(fmt_name)
        assert len(values) == len(want)
        bad, pos = [], 0
        for sw in _sweeps(fmt_name):
            for j in range(sw.calls * sw.regs):
                g, w = values[pos + j], want[pos + j]
                if not (_is_nan(g, sw.dst, fmt) if w is None else g == w):
                    bad.append((sw.fn, hex(_input_bits(sw, j // sw.regs, j % sw.regs)), hex(g),
                                w if w is None else hex(w)))
            pos += sw.calls * sw.regs
        assert not bad, f"{target} {fmt_name}: {len(bad)} wrong, e.g. {bad[:8]}"


def test_the_models_overflow_without_the_clamp(tmp_path_factory):
    """Negative control: the AMD model without Kiln's clamp does not saturate (so the test above
    would see a lowering that forgot it), and the NVIDIA one does."""
    import ctypes
    lib = ctypes.CDLL(model_library(tmp_path_factory, "NO_SATURATION"))
    lib.kiln_model_convert.restype = ctypes.c_uint32
    lib.kiln_model_convert.argtypes = [ctypes.c_float, ctypes.c_int, ctypes.c_int]
    e4m3, e5m2, e4m3fnuz = 0, 1, 2
    sat, nosat, ovfl = 0, 1, 2
    assert lib.kiln_model_convert(1000.0, e4m3, nosat) == 0x7F  # NaN
    assert lib.kiln_model_convert(1000.0, e4m3, ovfl) == 0x7E  # 448
    assert lib.kiln_model_convert(math.inf, e4m3, ovfl) == 0x7F  # inf stays NaN
    assert lib.kiln_model_convert(1e6, e5m2, nosat) == 0x7C  # inf
    assert lib.kiln_model_convert(-1000.0, e4m3fnuz, nosat) == 0x80  # NaN
    assert lib.kiln_model_convert(-math.inf, e4m3, sat) == 0xFE  # -448
    assert lib.kiln_model_convert(-1e-30, e4m3fnuz, sat) == 0x00  # no negative zero
    assert lib.kiln_model_convert(1.0625, e4m3, sat) == 0x38  # a tie to the even code
