"""Gluon's ``fpsan.embed`` / ``unembed`` (after Triton 3.8) without a GPU: the constants
against the payloads Triton's lowering gives (1.0 -> 1, 2.0 as an fp32 -> 0x35606380, ...),
the kernels for every float type on NVIDIA and AMD, and the errors at the user's line.
test/gpu/test_fpsan.py checks the kernels' payloads on a GPU."""

from __future__ import annotations

import os
import struct

import pytest

import kiln
import kiln.language as kl
from kiln.language import fpsan

import compiled
from gluon_later_kernels import reference_embed
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_payloads_match_tritons():
    # Values of Triton's FPSan embedding (its lowering's constants, K = 14940041).
    assert fpsan._constants(kl.float32)[2:] == (0xE3F789, 0x0BEAC0C7, 0x74153F39)
    assert fpsan._constants(kl.float16)[1:] == (10, 0x7789, 0x11B7, 0x6E49)
    assert fpsan._constants(kl.bfloat16)[1:] == (7, 0x7789, 0x4E47, 0x31B9)
    assert fpsan._constants(kl.float8e4nv)[1:] == (3, 0x09, 0x47, 0x39)
    assert reference_embed(f32(2.0), kl.float32) == 0x35606380
    assert reference_embed(f32(0.5), kl.float32) == 0x5FDED582
    assert reference_embed(f32(3.0), kl.float32) == 0x4A1B34DC
    assert reference_embed(f32(-2.0), kl.float32) == 0xCA9F9C80
    assert reference_embed(0x4000, kl.float16) == 23408  # 2.0
    assert reference_embed(0x4000, kl.bfloat16) == 25472  # 2.0
    for dt in [kl.float32, kl.float16, kl.float64, kl.float8e5, kl.float8e4b8]:
        w = dt.primitive_bitwidth
        assert reference_embed(fpsan._ONE[dt.name], dt) == 1
        assert reference_embed(1 << (w - 1), dt) == 1 << (w - 1)  # -0.0: INT_MIN
        assert reference_embed(fpsan._ONE[dt.name] | 1 << (w - 1), dt) == (1 << w) - 1  # -1


@pytest.mark.parametrize("w", [8, 16])
def test_embedding_is_one_to_one(w):
    dt = kl.float8e4nv if w == 8 else kl.float16
    assert len({reference_embed(u, dt) for u in range(1 << w)}) == 1 << w


@kiln.jit
def round_trip(x_ptr, p_ptr, y_ptr, DT: kl.constexpr, WARP: kl.constexpr):
    offs = kl.arange(0, 8 * WARP, kl.BlockedLayout([2], [WARP], [4], [0]))
    x = kl.load(x_ptr + offs)
    p = fpsan.embed(x)
    kl.store(p_ptr + offs, p)
    kl.store(y_ptr + offs, fpsan.unembed(p, DT))


TYPES = [("fp32", "i32"), ("fp16", "i16"), ("bf16", "i16"), ("fp64", "i64"),
         ("fp8e4nv", "i8"), ("fp8e5", "i8")]


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("ft,it", TYPES)
def test_kernels_compile_for_every_float_type(target, ft, it):
    dt = {"fp32": kl.float32, "fp16": kl.float16, "bf16": kl.bfloat16, "fp64": kl.float64,
          "fp8e4nv": kl.float8e4nv, "fp8e5": kl.float8e5}[ft]
    k = kiln.compile(round_trip, {"x_ptr": f"*{ft}", "p_ptr": f"*{it}", "y_ptr": f"*{ft}"},
                     {"DT": dt, "WARP": 32 if target.startswith("cuda") else 64},
                     target=target, num_warps=4, cache=False)
    assert k.asm.get("cubin" if target.startswith("cuda") else "hsaco")


@kiln.jit
def e_int(x_ptr):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    fpsan.embed(kl.load(x_ptr + offs))  # E:int


@kiln.jit
def e_width(x_ptr):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    fpsan.unembed(kl.load(x_ptr + offs), kl.float16)  # E:width


@pytest.mark.parametrize("fn,marker,anchor,message", [
    (e_int, "E:int", "fpsan.embed", r"fpsan.embed takes a floating-point type \(fp64, fp32, "
                                     r"fp16, bf16 or fp8\), got int32"),
    (e_width, "E:width", "fpsan.unembed", r"fpsan.unembed: the payload of a fp16 is a 16-bit "
                                          r"integer, got int32")], ids=["int", "width"])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x_ptr": "*i32"}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)
