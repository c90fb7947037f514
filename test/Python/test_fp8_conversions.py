"""fp8 conversions as lowered (lib/Conversion/TileToLLVM/Fp8Conversions.cpp), run on this
machine's CPU: scalar ``arith.extf`` / ``arith.truncf`` with an fp8 side go through
``convert-tile-to-llvm`` (the same emitter the kernels' registers use) and MLIR's JIT runner, and
every result is compared with a reference that shares none of the lowering's arithmetic:

* fp8 -> f32: each of the 256 codes decoded from the format's definition with exact rationals;
* f32 -> fp8: the nearest of the format's finite values found by search in its sorted value
  table (ties to the even code; toward zero: the largest not above), saturating past the
  largest finite value and for infinities, NaN to the format's NaN; over every f32 whose low 16
  bits are 0x0000, 0x0001 or 0xFFFF (every rounding boundary of every binade, the exact ties
  and their neighbours, subnormals, both signs, infinities and NaNs).

The GPU check against torch is test/gpu/test_fp8_gpu.py."""

from __future__ import annotations

import bisect
import math
import os
import struct
import subprocess
from fractions import Fraction

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")
RUNNER = "/usr/lib/llvm-22/bin/mlir-runner"
UTILS = "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"

pytestmark = pytest.mark.skipif(
    not all(os.path.exists(p) for p in (KILN_OPT, RUNNER, UTILS)),
    reason="needs build/bin/kiln-opt, mlir-runner and libmlir_c_runner_utils (mlir-22-tools)")

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


def run_mlir(body: str, target="cuda:sm_90a") -> list:
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
