"""associative_scan (Gluon's): compile-level checks on both vendors, the in-thread layout it
scans in, and errors at the user's line. test/gpu/test_scan.py runs the kernels."""

from __future__ import annotations

import itertools
import re

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
def _one_of_two(a0, a1, b0, b1):
    return a0 + b0


@kiln.jit
def e_scan_tuple_count(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.associative_scan((v, v), 0, _one_of_two)  # E:count


@kiln.jit
def e_scan_tuple_plain(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.associative_scan((v, v), 0, max)  # E:plain


@kiln.jit
def e_scan_builtin(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.associative_scan(v, 0, max)  # E:builtin


@compiled.needs_compiler
@pytest.mark.parametrize("fn,marker,message,cls", [
    (e_scan_tuple_count, "E:count", r"associative_scan of a tuple of 2: the combine function "
                                    r"returns 1 value\(s\)", kiln.CompilationError),
    (e_scan_tuple_plain, "E:plain", r"associative_scan of a tuple: combine_fn must be a "
                                    r"@kiln\.jit function taking the elements of two tuples .*",
     kiln.CompilationError),
    (e_scan_builtin, "E:builtin", r"associative_scan: combine_fn must be a @kiln\.jit function "
                                  r"of two scalars, got max", kiln.CompilationError),
])
def test_scan_errors_point_at_the_call(fn, marker, message, cls):
    with pytest.raises(cls) as ei:
        kiln.compile(fn, {"x": "*i32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, "kl.associative_scan", message, cls)


@kiln.jit
def scan1d_op_kernel(x, z, N: kl.constexpr, L: kl.constexpr, REVERSE: kl.constexpr,
                     OP: kl.constexpr):
    o = kl.arange(0, N, L)
    v = kl.load(x + o)
    if OP == "add":
        y = kl.associative_scan(v, 0, _add, reverse=REVERSE)
    else:
        y = kl.associative_scan(v, 0, _last_nonzero, reverse=REVERSE)
    kl.store(z + o, y)


@kiln.jit
def _argmax_combine(v0, i0, v1, i1):
    # The running maximum and the index where it was first reached (associative, not
    # commutative: ties keep the earlier operand).
    take = v1 > v0
    return kl.where(take, v1, v0), kl.where(take, i1, i0)


@kiln.jit
def scan_tuple_kernel(x, zv, zi, N: kl.constexpr, L: kl.constexpr, REVERSE: kl.constexpr):
    o = kl.arange(0, N, L)
    v = kl.load(x + o)
    mv, mi = kl.associative_scan((v, o), 0, _argmax_combine, reverse=REVERSE)
    kl.store(zv + o, mv)
    kl.store(zi + o, mi)


# Layouts that place scan-axis bits on warps, with repetitions above them, broadcast lanes
# and warps, and an MMA accumulator (by num_warps = 4 unless given).
ACROSS_WARPS_1D = [
    (1024, "[1],[W],[4]"), (2048, "[4],[W],[4]"), (1024, "[1],[W],[8]"), (256, "[2],[W],[4]"),
    (64, "[1],[W],[4]"), (32, "[1],[W],[4]"),
]


def _blocked_1d(spec, w):
    parts = [int(p.strip("[]").replace("W", str(w))) for p in spec.split(",")]
    return kl.BlockedLayout([parts[0]], [parts[1]], [parts[2]], [0]), parts[2]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("n,spec", ACROSS_WARPS_1D)
def test_scans_across_warps_compile_without_spills(target, w, n, spec):
    L, warps = _blocked_1d(spec, w)
    k = kiln.compile(scan1d_op_kernel, {"x": "*fp32", "z": "*fp32"},
                     {"N": n, "L": L, "REVERSE": False, "OP": "add"},
                     target=target, num_warps=warps, cache=False)
    tile = k.asm["tile"]
    assert "tile.scan" in tile and "tile.convert_layout" not in tile  # scanned in place
    if target.startswith("hip"):
        assert int(re.findall(r"\.vgpr_spill_count:\s+(\d+)", k.asm["amdgcn"])[0]) == 0
    k = kiln.compile(scan_tuple_kernel, {"x": "*fp32", "zv": "*fp32", "zi": "*i32"},
                     {"N": n, "L": L, "REVERSE": True}, target=target, num_warps=warps,
                     cache=False)
    assert "tile.scan" in k.asm["tile"]


@kiln.jit
def scan_in_loop_kernel(x, z, n, L: kl.constexpr):
    # Scans across warps inside a loop and under an if (their shared-memory steps sit in
    # the loop's blocks).
    o = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in range(n):
        acc += kl.associative_scan(kl.load(x + i * 512 + o), 0, _add)
        if i % 2 == 0:
            acc = kl.associative_scan(acc, 0, _add, reverse=True)
    kl.store(z + o, acc)
