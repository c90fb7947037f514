"""fp8e4b15 conversions (kiln.language._fp8: Triton's NVIDIA semantics on the f16 bits),
compiled through the whole pipeline on both vendors; the GPU test (test/gpu/test_fp8_gpu.py)
runs every code up and every f16 down against a model written here from the format's
definition, and against Triton's own conversion where Triton is installed."""

from __future__ import annotations

import struct

import pytest

import kiln

import compiled
import fp8_kernels as K


def e4b15_value(code: int) -> float:
    """The value of a code: bias 15, 3 mantissa bits, every code finite."""
    sign = -1.0 if code & 0x80 else 1.0
    e, m = (code >> 3) & 0xF, code & 7
    if e == 0:
        return sign * m / 8 * 2.0 ** (1 - 15)
    return sign * (1 + m / 8) * 2.0 ** (e - 15)


def f16_value(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def e4b15_from_f16(bits: int) -> int:
    """Triton's rounding, from the values: |x| clamped to 1.75 (NaN and inf too), then the
    nearest code, a tie going away from zero."""
    import math
    x = f16_value(bits)
    sign = 0x80 if bits & 0x8000 else 0
    mag = 1.75 if math.isnan(x) or abs(x) > 1.75 else abs(x)
    best = None
    for code in range(0x80):
        d = abs(e4b15_value(code) - mag)
        if best is None or d < best[0] or (d == best[0] and e4b15_value(code) > best[2]):
            best = (d, code, e4b15_value(code))
    return sign | best[1]


def test_the_model_is_the_bit_formula():
    """The value-level model above agrees with the bit formula the lowering uses on every
    f16 (so the GPU test can use the fast one)."""
    for bits in range(0, 1 << 16, 7):
        mag = min(bits & 0x7FFF, 0x3F00)
        formula = (((mag * 2 + 0x80) | (bits & 0x8000)) >> 8) & 0xFF
        assert formula == e4b15_from_f16(bits), hex(bits)


@compiled.needs_compiler
@pytest.mark.parametrize("target", ["cuda:sm_90a", "cuda:sm_80"])
def test_conversions_compile(target):
    kiln.compile(K.e4b15_codes_up, {"Codes": "*u8", "Out16": "*fp16", "Out32": "*fp32"},
                 {"N": 256}, target=target, cache=False)
    for src in ("*fp16", "*fp32", "*bf16"):
        kiln.compile(K.e4b15_down, {"X": src, "Out": "*u8", "n": "i32"}, {"BLOCK": 512},
                     target=target, cache=False)
