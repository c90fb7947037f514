"""kiln.language.amd.cdna3/cdna4.scaled_upcast (Gluon's names after Triton 3.6): fp8 and packed
fp4 values times raw E8M0 scales in fp16 or bf16, compiled for gfx942 and gfx950 (the result's
layout for fp4 is fp4_to_fp's, which the scale must have), and every misuse refused at the
user's line. No AMD GPU has run it: the values are what the conversions and the fp32 multiply
it is made of compute (kiln.language.amd._scaled_upcast)."""

from __future__ import annotations

import os

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3, cdna4

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
L = kl.BlockedLayout([1, 4], [8, 8], [4, 1], [1, 0])
ARCH = {"hip:gfx942": 3, "hip:gfx950": 4}


@kiln.jit
def upcast_fp8(x, s, out, ARCH: kl.constexpr, ET: kl.constexpr):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    if ARCH == 3:
        kl.store(out + offs, cdna3.scaled_upcast(v, e, ET))
    else:
        kl.store(out + offs, cdna4.scaled_upcast(v, e, ET))


@kiln.jit
def upcast_fp4(x, s, out, ARCH: kl.constexpr, ET: kl.constexpr, AXIS: kl.constexpr,
               R: kl.constexpr, C: kl.constexpr, OUT: kl.constexpr):
    """x: R x C bytes (two e2m1 a byte along AXIS); s, out: the unpacked shape, in OUT (the
    result's layout)."""
    offs = kl.arange(0, R, kl.SliceLayout(1, L))[:, None] * C + \
        kl.arange(0, C, kl.SliceLayout(0, L))[None, :]
    R2: kl.constexpr = R * 2 if AXIS == 0 else R
    C2: kl.constexpr = C * 2 if AXIS == 1 else C
    o2 = kl.arange(0, R2, kl.SliceLayout(1, OUT))[:, None] * C2 + \
        kl.arange(0, C2, kl.SliceLayout(0, OUT))[None, :]
    v, e = kl.load(x + offs), kl.load(s + o2)
    if ARCH == 3:
        kl.store(out + o2, cdna3.scaled_upcast(v, e, ET, axis=AXIS))
    else:
        kl.store(out + o2, cdna4.scaled_upcast(v, e, ET, axis=AXIS))


def _fp4_out_layout(axis):
    """The layout fp4_to_fp gives the unpacked result of a tensor in L along ``axis``."""
    from kiln.language._shape_ops import _fp4_layout
    return _fp4_layout(L, [32, 32], axis)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("src", ["*fp8e4nv", "*fp8e5"])
@pytest.mark.parametrize("et,out", [(kl.float16, "*fp16"), (kl.bfloat16, "*bf16")])
def test_fp8_compiles(target, src, et, out):
    k = kiln.compile(upcast_fp8, {"x": src, "s": "*u8", "out": out},
                     {"ARCH": ARCH[target], "ET": et}, target=target, num_warps=4, cache=False)
    llir = k.asm["llir"]
    # 2**(e - 127) as the fp32 with exponent field e: the byte shifted by 23, one multiply.
    assert "shl" in llir and "fmul" in llir
    assert "global_store" in k.asm["amdgcn"]


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("axis", [0, 1])
def test_fp4_compiles(target, axis):
    k = kiln.compile(upcast_fp4, {"x": "*u8", "s": "*i8", "out": "*bf16"},
                     {"ARCH": ARCH[target], "ET": kl.bfloat16, "AXIS": axis, "R": 32, "C": 32,
                      "OUT": _fp4_out_layout(axis)}, target=target, num_warps=4, cache=False)
    assert "global_store" in k.asm["amdgcn"]


@kiln.jit
def e_elem(x, s, out):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    r = cdna4.scaled_upcast(v, e, kl.float32)  # E:elem
    kl.store(out + offs, r)


@kiln.jit
def e_scale_dtype(x, s, out):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    r = cdna4.scaled_upcast(v, e, kl.float16)  # E:scale
    kl.store(out + offs, r)


@kiln.jit
def e_fp8_axis(x, s, out):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    r = cdna3.scaled_upcast(v, e, kl.float16, axis=0)  # E:axis
    kl.store(out + offs, r)


@kiln.jit
def e_fp4_shape(x, s, out):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    r = cdna4.scaled_upcast(v, e, kl.float16, axis=1)  # E:shape
    kl.store(out + offs, r)


@kiln.jit
def e_src_dtype(x, s, out):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    v, e = kl.load(x + offs), kl.load(s + offs)
    r = cdna4.scaled_upcast(v, e, kl.float16)  # E:src
    kl.store(out + offs, r)


@kiln.jit
def e_layout(x, s, out):
    M: kl.constexpr = kl.BlockedLayout([4, 1], [8, 8], [1, 4], [0, 1])
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    o2 = kl.arange(0, 32, kl.SliceLayout(1, M))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, M))[None, :]
    v, e = kl.load(x + offs), kl.load(s + o2)
    r = cdna4.scaled_upcast(v, e, kl.float16)  # E:layout
    kl.store(out + offs, r)


ERRORS = [
    (e_src_dtype, {"x": "*fp32", "s": "*u8", "out": "*fp16"}, "E:src", "cdna4.scaled_upcast",
     r"scaled_upcast: src must be fp8 \(float8e4nv, float8e5\) or fp4 packed two a byte "
     r"\(int8 or uint8\), got fp32"),
    (e_layout, {"x": "*fp8e4nv", "s": "*u8", "out": "*fp16"}, "E:layout", "cdna4.scaled_upcast",
     r"scaled_upcast: scale's layout .* must be the result's .*"),
    (e_elem, {"x": "*fp8e4nv", "s": "*u8", "out": "*fp32"}, "E:elem", "cdna4.scaled_upcast",
     r"scaled_upcast: elem_type must be float16 or bfloat16, got kl.float32"),
    (e_scale_dtype, {"x": "*fp8e4nv", "s": "*fp32", "out": "*fp16"}, "E:scale",
     "cdna4.scaled_upcast",
     r"scaled_upcast: scale must hold raw E8M0 bytes \(int8 or uint8\), got fp32"),
    (e_fp8_axis, {"x": "*fp8e5", "s": "*u8", "out": "*fp16"}, "E:axis", "cdna3.scaled_upcast",
     r"scaled_upcast: axis must be None for fp8 src, got 0"),
    (e_fp4_shape, {"x": "*u8", "s": "*u8", "out": "*fp16"}, "E:shape", "cdna4.scaled_upcast",
     r"scaled_upcast: scale has shape \[32, 32\], the result \[32, 64\]"),
]


@pytest.mark.parametrize("fn,sig,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, sig, marker, anchor, message):
    target = "hip:gfx942" if fn is e_fp8_axis else "hip:gfx950"
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target=target, num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)
