"""associative_scan (Gluon's): compile-level checks on both vendors, the in-thread layout it
scans in, and errors at the user's line. test/gpu/test_scan.py runs the kernels."""

from __future__ import annotations

import itertools

import pytest

import kiln
import kiln.language as kl
from kiln.language._scan import scan_layout

import compiled
import located

HERE = __file__
TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


@kiln.jit
def _add(a, b):
    return a + b


@kiln.jit
def _last_nonzero(a, b):
    # Associative, not commutative: the order of the operands shows.
    return kl.where(b != 0, b, a)


@kiln.jit
def scan2d_kernel(x, z, M: kl.constexpr, N: kl.constexpr, L: kl.constexpr, AXIS: kl.constexpr,
                  REVERSE: kl.constexpr, OP: kl.constexpr):
    om = kl.arange(0, M, layout=kl.SliceLayout(1, L))[:, None]
    on = kl.arange(0, N, layout=kl.SliceLayout(0, L))[None, :]
    v = kl.load(x + om * N + on)
    if OP == "add":
        y = kl.associative_scan(v, AXIS, _add, reverse=REVERSE)
    else:
        y = kl.associative_scan(v, AXIS, _last_nonzero, reverse=REVERSE)
    kl.store(z + om * N + on, y)


@kiln.jit
def scan1d_kernel(x, z, n, N: kl.constexpr, L: kl.constexpr, REVERSE: kl.constexpr):
    o = kl.arange(0, N, L)
    v = kl.load(x + o, mask=o < n, other=0)
    kl.store(z + o, kl.associative_scan(v, 0, _add, reverse=REVERSE), mask=o < n)


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("axis,reverse,op", list(itertools.product([0, 1], [False, True],
                                                                     ["add", "last"])))
def test_scans_compile(target, w, axis, reverse, op):
    L = kl.BlockedLayout([1, 4], [4, w // 4], [4, 1], [0, 1])
    k = kiln.compile(scan2d_kernel, {"x": "*i32", "z": "*i32"},
                     {"M": 32, "N": 64, "L": L, "AXIS": axis, "REVERSE": reverse, "OP": op},
                     target=target, num_warps=4, cache=False)
    assert "tile.scan" in k.asm["tile"]
    k = kiln.compile(scan1d_kernel, {"x": "*fp32", "z": "*fp32", "n": "i32"},
                     {"N": 256, "L": kl.BlockedLayout([2], [w], [4], [0]), "REVERSE": reverse},
                     target=target, num_warps=4, cache=False)
    assert "tile.scan" in k.asm["tile"]


@pytest.mark.parametrize("w,num_warps", [(32, 4), (64, 4), (32, 8), (32, 1)])
def test_scan_layout_keeps_the_axis_in_each_thread(w, num_warps):
    """Every lane and warp basis of the scan layout moves along other dimensions only, and
    every element is held (checked on the F2 bases, over many shapes)."""
    from kiln.compiler.compiler import _require_compiler
    _require_compiler()
    for shape in ([128], [1, 64], [64, 1], [32, 64], [16, 8], [4, 8, 16], [2, 256]):
        for axis in range(len(shape)):
            ll = kl.to_linear_layout(scan_layout(shape, axis, w, num_warps), shape)
            for b in ll.lane_bases + ll.warp_bases:
                assert b[axis] == 0, (shape, axis, b)
            reach = {tuple([0] * len(shape))}
            for b in ll.reg_bases + ll.lane_bases + ll.warp_bases:
                reach |= {tuple(x ^ y for x, y in zip(c, b)) for c in reach}
            assert len(reach) == _prod(shape), (shape, axis)


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


@kiln.jit
def e_scan_tuple(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.associative_scan((v, v), 0, _add)  # E:tuple


@kiln.jit
def e_scan_builtin(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.associative_scan(v, 0, max)  # E:builtin


@kiln.jit
def e_scan_big(x):
    L: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 2048, L))
    kl.associative_scan(v, 0, _add)  # E:big


@compiled.needs_compiler
@pytest.mark.parametrize("fn,marker,message,cls", [
    (e_scan_tuple, "E:tuple", r"associative_scan of a tuple of tensors is not supported yet; "
                              r"scan one tensor", kiln.CompilationError),
    (e_scan_builtin, "E:builtin", r"associative_scan: combine_fn must be a @kiln\.jit function "
                                  r"of two scalars, got max", kiln.CompilationError),
    (e_scan_big, "E:big", r"associative_scan holds the whole axis in each thread: 2048 "
                          r"elements a thread .*", kiln.CompilationError),
])
def test_scan_errors_point_at_the_call(fn, marker, message, cls):
    with pytest.raises(cls) as ei:
        kiln.compile(fn, {"x": "*i32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, "kl.associative_scan", message, cls)
