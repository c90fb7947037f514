"""Indexed shared-memory access (Gluon's ``shared_memory_descriptor.gather``, ``.scatter`` and
``.atomic_scatter_<op>``, as of Triton's main branch): kernels compiled for both vendors, their
errors at the user's line. test/gpu/test_shared_index.py runs the kernels against torch."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)


def shared_layouts(order=(1, 0)):
    """Shared layouts the tests cover: plain, swizzled (bank-conflict free), padded, NVMMA."""
    return [kl.SwizzledSharedLayout(1, 1, 1, list(order)),
            kl.SwizzledSharedLayout(4, 2, 4, list(order)),
            kl.PaddedSharedLayout.with_identity_for([[32, 4]], [64, 64], list(order)),
            kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2)]


def reg_layout(w, warps=4):
    return kl.BlockedLayout([1, 4], [w // 8, 8], [warps, 1], [1, 0])


@kiln.jit
def gather_kernel(src, idx, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
                  AXIS: kl.constexpr, SUB: kl.constexpr, L: kl.constexpr,
                  S: kl.constexpr):
    """out[i, j] = src'[i, idx[i, j]] (AXIS 1) or src'[idx[i, j], j] (AXIS 0), src' the
    [M, N] tile of src at (SUB, SUB) in a 2M x 2N buffer (SUB = 0: the whole buffer)."""
    r = kl.arange(0, 2 * M, kl.SliceLayout(1, L))[:, None]
    c = kl.arange(0, 2 * N, kl.SliceLayout(0, L))[None, :]
    smem = kl.allocate_shared_memory(src.dtype.element_ty, [2 * M, 2 * N], S,
                                     kl.load(src + r * (2 * N) + c))
    view = smem.slice(SUB, M, 0).slice(SUB, N, 1)
    ri = kl.arange(0, M if AXIS == 1 else K, kl.SliceLayout(1, L))[:, None]
    ci = kl.arange(0, K if AXIS == 1 else N, kl.SliceLayout(0, L))[None, :]
    width: kl.constexpr = K if AXIS == 1 else N
    ids = kl.load(idx + ri * width + ci)
    kl.store(out + ri * width + ci, view.gather(ids, axis=AXIS))


@kiln.jit
def scatter_kernel(vals, idx, out, M: kl.constexpr, N: kl.constexpr, AXIS: kl.constexpr,
                   L: kl.constexpr, S: kl.constexpr):
    """out = zeros, then out[i, idx[i, j]] = vals[i, j] (AXIS 1) or out[idx[i, j], j] =
    vals[i, j] (AXIS 0), through a shared buffer."""
    r = kl.arange(0, M, kl.SliceLayout(1, L))[:, None]
    c = kl.arange(0, N, kl.SliceLayout(0, L))[None, :]
    smem = kl.allocate_shared_memory(vals.dtype.element_ty, [M, N], S,
                                     kl.zeros([M, N], vals.dtype.element_ty, L))
    smem.scatter(kl.load(vals + r * N + c), kl.load(idx + r * N + c), axis=AXIS)
    kl.store(out + r * N + c, smem.load(L))


@kiln.jit
def atomic_kernel(vals, idx, mask, old, out, INIT, M: kl.constexpr, N: kl.constexpr,
                  RM: kl.constexpr, RN: kl.constexpr, AXIS: kl.constexpr, OP: kl.constexpr,
                  MASKED: kl.constexpr, L: kl.constexpr, S: kl.constexpr):
    """A [M, N] buffer of INIT; atomic OP of the [RM, RN] vals at idx along AXIS (where mask);
    the old values to old, the buffer to out."""
    r = kl.arange(0, M, kl.SliceLayout(1, L))[:, None]
    c = kl.arange(0, N, kl.SliceLayout(0, L))[None, :]
    smem = kl.allocate_shared_memory(vals.dtype.element_ty, [M, N], S,
                                     kl.full([M, N], INIT, vals.dtype.element_ty, L))
    rr = kl.arange(0, RM, kl.SliceLayout(1, L))[:, None]
    rc = kl.arange(0, RN, kl.SliceLayout(0, L))[None, :]
    v = kl.load(vals + rr * RN + rc)
    i = kl.load(idx + rr * RN + rc)
    m = kl.load(mask + rr * RN + rc) != 0 if MASKED else None
    if OP == "add":
        o = smem.atomic_scatter_add(v, i, axis=AXIS, mask=m)
    elif OP == "max":
        o = smem.atomic_scatter_max(v, i, axis=AXIS, mask=m)
    elif OP == "min":
        o = smem.atomic_scatter_min(v, i, axis=AXIS, mask=m)
    elif OP == "and":
        o = smem.atomic_scatter_and(v, i, axis=AXIS, mask=m)
    elif OP == "or":
        o = smem.atomic_scatter_or(v, i, axis=AXIS, mask=m)
    elif OP == "xor":
        o = smem.atomic_scatter_xor(v, i, axis=AXIS, mask=m)
    else:
        o = smem.atomic_scatter_xchg(v, i, axis=AXIS, mask=m)
    kl.store(old + rr * RN + rc, o, mask=m)
    kl.barrier()
    kl.store(out + r * N + c, smem.load(L))


def _sig(kernel, dtype="fp32"):
    if kernel is gather_kernel:
        return {"src": f"*{dtype}", "idx": "*i32", "out": f"*{dtype}"}
    if kernel is scatter_kernel:
        return {"vals": f"*{dtype}", "idx": "*i32", "out": f"*{dtype}"}
    return {"vals": f"*{dtype}", "idx": "*i32", "mask": "*i8", "old": f"*{dtype}",
            "out": f"*{dtype}", "INIT": dtype}


# NVMMA layouts (the 4th) are NVIDIA's: AMD compiles the other three.
@pytest.mark.parametrize("target,w,s", [("cuda:sm_90a", 32, s) for s in range(4)] +
                         [("hip:gfx942", 64, s) for s in range(3)])
def test_gather_compiles(target, w, s):
    """Swizzled layouts address the index bit by bit; a plain row-major buffer with a shift."""
    S = shared_layouts()[s]
    k = kiln.compile(gather_kernel, _sig(gather_kernel),
                     {"M": 32, "N": 32, "K": 16, "AXIS": 1, "SUB": 32, "L": reg_layout(w),
                      "S": S}, target=target, cache=False)
    if target.startswith("cuda"):
        assert re.search(r"ld\.shared\.(b32|u32|f32)", k.asm["ptx"])


@pytest.mark.parametrize("op", ["add", "max", "min", "and", "or", "xor", "xchg"])
def test_atomic_compiles_to_shared_atomics(op):
    """An atomic whose old values are used in a layout where threads repeat elements acts once
    an element (owner test) and passes the old values on through scratch."""
    k = kiln.compile(atomic_kernel, _sig(atomic_kernel, "i32"),
                     {"M": 16, "N": 32, "RM": 16, "RN": 2, "AXIS": 1, "OP": op, "MASKED": True,
                      "L": kl.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0]),
                      "S": shared_layouts()[0]}, target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    name = {"xchg": "exch"}.get(op, op)
    assert re.search(rf"atom\.(\w+\.)*shared(\.\w+)*\.{name}\.", ptx) or \
        re.search(rf"atom\.shared\.{name}", ptx), ptx[-3000:]


def test_fadd_f16_compiles():
    kiln.compile(atomic_kernel, _sig(atomic_kernel, "fp16"),
                 {"M": 32, "N": 16, "RM": 2, "RN": 16, "AXIS": 0, "OP": "add", "MASKED": False,
                  "L": kl.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0]),
                  "S": shared_layouts()[1]}, target="cuda:sm_90a", cache=False)


# -- errors at the user's line ----------------------------------------------------------------

@kiln.jit
def bad_kernel(x, CASE: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0])
    S: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    smem = kl.allocate_shared_memory(kl.float32, [32, 32], S)
    i = kl.zeros([32, 32], kl.int32, L)
    v = kl.zeros([32, 32], kl.float32, L)
    if CASE == 0:
        smem.gather(i, axis=2)  # E:axis
    elif CASE == 1:
        smem.gather(kl.zeros([32], kl.int32, kl.SliceLayout(0, L)), axis=0)  # E:rank
    elif CASE == 2:
        smem.gather(v, axis=0)  # E:float
    elif CASE == 3:
        smem.atomic_scatter_max(v, i, axis=0)  # E:fmax
    elif CASE == 4:
        smem.scatter(i, i, axis=0)  # E:dtype
    elif CASE == 5:
        ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], S)
        ring.gather(i, axis=0)  # E:ring
    else:
        smem.gather(kl.zeros([64, 32], kl.int32, L), axis=1)  # E:wide


@pytest.mark.parametrize("case,tag,message", [
    (0, "axis", r"gather: axis 2 is out of range for the rank-2 buffer .*"),
    (1, "rank", r"gather: indices of rank 1 for the rank-2 buffer .*: the ranks must match"),
    (2, "float", r"gather: indices must be integers, got fp32"),
    (3, "fmax", r"atomic_scatter_max needs integer values, got fp32"),
    (4, "dtype", r"scatter: values of type int32 for a buffer of fp32: the element types "
                 r"must match"),
    (5, "ring", r"gather: .* has leading ring dimensions; index a slot first \(\.index\(i\)\)"),
    (6, "wide", r"gather: indices \[64, 32\] exceed the buffer \[32, 32\] along dimension 0, "
                r"which is not the axis"),
])
def test_errors_at_the_call(case, tag, message):
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(bad_kernel, {"x": "*fp32"}, {"CASE": case}, target="cuda:sm_90a",
                     cache=False)
    anchor = "smem." if case != 5 else "ring."
    located.assert_located(e.value, HERE, f"E:{tag}", anchor, message, kiln.CompilationError)


@pytest.mark.parametrize("op", ["add", "max", "xchg"])
def test_amd_atomics_and_scatter_compile(op):
    """On a 64-lane target the atomics are LDS atomics (ds_*), once an element."""
    L = kl.BlockedLayout([1, 1], [16, 4], [4, 1], [1, 0])
    k = kiln.compile(atomic_kernel, _sig(atomic_kernel, "i32"),
                     {"M": 16, "N": 32, "RM": 16, "RN": 2, "AXIS": 1, "OP": op, "MASKED": True,
                      "L": L, "S": shared_layouts()[0]}, target="hip:gfx942", cache=False)
    asm = k.asm["amdgcn"]
    name = {"xchg": "wrxchg"}.get(op, op)
    assert re.search(rf"ds_{name}_rtn_(b32|u32|i32)", asm), asm[-2000:]
    kiln.compile(scatter_kernel, _sig(scatter_kernel), {"M": 32, "N": 32, "AXIS": 0,
                 "L": L, "S": shared_layouts()[1]}, target="hip:gfx942", cache=False)
