"""Layouts the kernel leaves to the compiler (issue 24, item 2): ``kl.arange``/``kl.full``/
``kl.zeros`` without a layout and ``kl.AutoLayout()`` take what ``kl.set_auto_layout`` fixes;
``kl.CoalescedLayout()`` is chosen from the pointers a load or store reads. The C++ pass
tile-resolve-layouts resolves both (its lit file checks the rules); these tests check the DSL
surface, the resolved code, and that every error and remark points at the user's line."""

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError, CompilationRemark

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
B2 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
L1 = kl.BlockedLayout([1], [32], [4], [0])
L4 = kl.BlockedLayout([4], [32], [4], [0])


def _compile(fn, sig, constexprs=None):
    return kiln.compile(fn, sig, constexprs or {}, target="cuda:sm_90a", cache=False)


@kiln.jit
def auto_tile(a, out, M: kl.constexpr, N: kl.constexpr):
    offs = kl.arange(0, M)[:, None] * N + kl.arange(0, N)[None, :]
    x = kl.load(kl.set_auto_layout(a + offs, B2))
    kl.store(out + offs, x * 2.0 + kl.full([M, N], 1.0, kl.float32))


def test_auto_layouts_follow_set_auto_layout():
    k = _compile(auto_tile, {"a": "*fp32:16", "out": "*fp32:16"}, {"M": 32, "N": 64})
    assert "#tile.auto" in k.asm["tile"] and "tile.set_auto_layout" in k.asm["tile"]
    # B2 gives each thread 4 contiguous floats: 16-byte loads and stores, as with
    # layouts written out by hand.
    ptx = k.asm["ptx"]
    assert re.search(r"ld\.global(\.\w+)*\.v4\.b32", ptx), ptx[:2000]
    assert re.search(r"st\.global(\.\w+)*\.v4\.b32", ptx)
    assert not k.warnings


@kiln.jit
def auto_in_loop(a, out, n):
    acc = kl.zeros([128], kl.float32)  # carried with AutoLayout: init, body and result agree
    offs = kl.arange(0, 128)
    for i in range(n):
        acc = acc * 0.5 + 1.0
        kl.store(kl.set_auto_layout(a + i * 128 + offs, L4), acc)
    kl.store(out + offs, kl.full([128], 0.0, kl.float32, L4) + acc)


def test_auto_layout_through_a_loop():
    k = _compile(auto_in_loop, {"a": "*fp32:16", "out": "*fp32:16", "n": "i32"})
    assert re.search(r"st\.global(\.\w+)*\.v4\.b32", k.asm["ptx"])
    assert not k.warnings


@kiln.jit
def auto_constant_mask(out, tpw: kl.constexpr):
    # Triton's test_auto_layout_constant: AutoLayout values meet a fixed one in `&=`.
    mask = kl.full((16, 16), True, kl.int1,
                   kl.BlockedLayout([1, 1], [1, tpw], [1, 4], [1, 0]))
    mask &= (kl.arange(0, 16, kl.AutoLayout()) < 10).expand_dims(0)
    mask &= (kl.arange(0, 16, kl.AutoLayout()) < 10).expand_dims(1)
    kl.store(out, kl.sum(kl.sum(mask.to(kl.int32), 1), 0))


def test_auto_layout_meets_a_fixed_layout():
    k = _compile(auto_constant_mask, {"out": "*i32"}, {"tpw": 32})
    assert "ptx" in k.asm and not k.warnings


@kiln.jit
def two_layouts(a, out):
    x = kl.arange(0, 128)
    kl.store(kl.set_auto_layout(a + x, L1), kl.full([128], 1.0, kl.float32, L1))
    kl.store(kl.set_auto_layout(out + x, L4), kl.full([128], 2.0, kl.float32, L4))  # CONFLICT


def test_a_second_layout_becomes_a_convert_with_a_remark():
    with pytest.warns(CompilationRemark, match="becomes a convert_layout"):
        k = _compile(two_layouts, {"a": "*fp32", "out": "*fp32"})
    assert len(k.warnings) == 1, k.warnings
    r = k.warnings[0]
    assert isinstance(r, CompilationRemark)
    line, col = located.where(HERE, "CONFLICT", "kl.set_auto_layout")
    assert (r.file, r.line, r.col) == (HERE, line, col)
    assert "becomes a convert_layout from BlockedLayout([1], [32], [4], [0]) to " in r.message
    assert "to BlockedLayout([4], [32], [4], [0]): an earlier set_auto_layout" in r.message


@kiln.jit
def unreached(a):
    x = kl.arange(0, 128)  # UNREACHED
    kl.store(a, kl.sum(x, 0))


def test_a_layout_nothing_fixes_is_an_error_at_the_line():
    with pytest.raises(CompilationError) as e:
        _compile(unreached, {"a": "*i32"})
    located.assert_located(e.value, HERE, "UNREACHED", "kl.arange",
                           r"cannot infer the layout of 'tensor \[128\] int32, AutoLayout': no "
                           r"kl.set_auto_layout or fixed-layout operand reaches it; give it a "
                           r"layout", CompilationError)


@kiln.jit
def fix_twice(a):
    x = kl.set_auto_layout(kl.arange(0, 128), L1)
    y = kl.set_auto_layout(x, L4)  # TWICE
    kl.store(a + y, 1)


@kiln.jit
def reshape_auto(a):
    x = kl.arange(0, 128).reshape(4, 32)  # RESHAPE
    kl.store(a, kl.sum(kl.sum(x, 1), 0))


@kiln.jit
def slice_of_auto(a):
    x = kl.arange(0, 128, kl.SliceLayout(0, kl.AutoLayout()))  # SLICE
    kl.store(a + x, 1)


@kiln.jit
def auto_as_convert_target(a):
    x = kl.convert_layout(kl.arange(0, 128, L1), kl.AutoLayout())  # CONVERT
    kl.store(a + x, 1)


@pytest.mark.parametrize("fn, marker, anchor, message", [
    (fix_twice, "TWICE", "kl.set_auto_layout",
     r"set_auto_layout input must have AutoLayout, but its layout is BlockedLayout\(.*\)"),
    # A reshape of an AutoLayout tensor is AutoLayout too (Gluon's); nothing fixes this one.
    (reshape_auto, "RESHAPE", "kl.arange",
     r"cannot infer the layout of 'tensor \[128\] int32, AutoLayout': no kl.set_auto_layout or "
     r"fixed-layout operand reaches it; give it a layout"),
    (slice_of_auto, "SLICE", "kl.SliceLayout",
     r"SliceLayout: parent must be a concrete layout, got AutoLayout\(\) \(a slice of a value "
     r"with it is inferred with it\)"),
    (auto_as_convert_target, "CONVERT", "kl.convert_layout",
     r"convert_layout: AutoLayout\(\) is only for values the compiler lays out .*"),
])
def test_misuse_is_an_error_at_the_line(fn, marker, anchor, message):
    with pytest.raises(CompilationError) as e:
        _compile(fn, {"a": "*i32"})
    located.assert_located(e.value, HERE, marker, anchor, message, CompilationError)


@kiln.jit
def coalesced_copy(src, dst, xnumel, ynumel, xs, XB: kl.constexpr, YB: kl.constexpr):
    # Triton's test_coalesced_layout, shortened: the row stride is a runtime value, the column
    # stride 1, so the columns are contiguous.
    ix = kl.program_id(0) * XB + kl.arange(0, XB, kl.CoalescedLayout())
    iy = kl.program_id(1) * YB + kl.arange(0, YB, kl.CoalescedLayout())
    offs = xs * ix[:, None] + iy[None, :]
    mask = (ix[:, None] < xnumel) & (iy[None, :] < ynumel)
    kl.store(dst + offs, kl.maximum(kl.load(src + offs, mask=mask), 0.0), mask=mask)


def test_coalesced_layout_vectorizes_the_contiguous_dimension():
    k = _compile(coalesced_copy, {"src": "*fp32:16", "dst": "*fp32:16", "xnumel": "i32:16",
                                  "ynumel": "i32:16", "xs": "i32:16"}, {"XB": 64, "YB": 128})
    ptx = k.asm["ptx"]
    assert re.search(r"ld\.global(\.\w+)*\.v4\.b32", ptx), ptx[:2000]
    assert re.search(r"st\.global(\.\w+)*\.v4\.b32", ptx)


@kiln.jit
def coalesced_unused(a):
    x = kl.arange(0, 128, kl.CoalescedLayout())  # NOACCESS
    kl.store(a, kl.sum(x, 0))


def test_coalesced_layout_needs_an_access():
    with pytest.raises(CompilationError) as e:
        _compile(coalesced_unused, {"a": "*i32"})
    located.assert_located(e.value, HERE, "NOACCESS", "kl.arange",
                           r"no load or store reads pointers laid out like .*", CompilationError)


@kiln.jit
def _coalesced_copy(x, y, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, kl.AutoLayout())
    offs = kl.set_auto_layout(offs, kl.CoalescedLayout())
    m = offs < n
    kl.store(y + offs, kl.load(x + offs, mask=m), mask=m)


def test_coalesced_offsets_set_by_set_auto_layout_vectorize():
    # The coalesced layout is chosen from what the axis analysis knows of the offsets, through
    # set_auto_layout: 4 fp32 a thread, and with a length divisible by 16 (as a launch
    # specializes it) the mask is constant over them: 16-byte loads and stores, as in Gluon.
    k = kiln.compile(_coalesced_copy, {"x": "*fp32:16", "y": "*fp32:16", "n": "i32:16"},
                     {"BLOCK": 1024}, target="cuda:sm_90a", num_warps=4)
    ptx = k.asm["ptx"]
    assert ptx.count("ld.global.v4.b32") == 2 and "ld.global.b32" not in ptx, ptx
    assert ptx.count("st.global.v4.b32") == 2, ptx


@kiln.jit
def _auto_load_reshape(X, Out):
    acc: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    row: kl.constexpr = kl.SliceLayout(1, acc)
    flat: kl.constexpr = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
    sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    buf = kl.allocate_shared_memory(kl.float32, [1, 64], sh)
    c = kl.arange(0, 64, kl.SliceLayout(0, flat))
    buf.store(kl.load(X + c[None, :]))
    s = kl.set_auto_layout(buf.load(kl.AutoLayout()).reshape((64,)), row)
    r = kl.arange(0, 64, row)
    k = kl.arange(0, 16, kl.SliceLayout(0, acc))
    kl.store(Out + r[:, None] * 16 + k[None, :], s[:, None] * (k[None, :] + 1).to(kl.float32))


def test_shared_load_in_auto_layout_reshaped_then_fixed():
    """Gluon's smem.load(AutoLayout()).reshape(...) then set_auto_layout (lmdeploy's
    persistent FP8 GEMM reads its row scales so): the load takes the fixed layout's registers
    in its own shape (tile-resolve-layouts.mlir pins the layout)."""
    k = kiln.compile(_auto_load_reshape, {"X": "*fp32", "Out": "*fp32"}, target="cuda:sm_90a",
                     cache=False)
    assert k.asm.get("cubin") or k.asm.get("ptx")
