"""gather and histogram (Gluon's): compile-level checks on both vendors and errors at the
user's line. test/gpu/test_gather.py runs the kernels against torch."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

HERE = __file__
TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


@kiln.jit
def gather2d_kernel(src, idx, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
                    SL: kl.constexpr, IL: kl.constexpr, AXIS: kl.constexpr):
    sm = kl.arange(0, M, layout=kl.SliceLayout(1, SL))[:, None]
    sn = kl.arange(0, N, layout=kl.SliceLayout(0, SL))[None, :]
    v = kl.load(src + sm * N + sn)
    if AXIS == 0:
        im = kl.arange(0, K, layout=kl.SliceLayout(1, IL))[:, None]
        ino = kl.arange(0, N, layout=kl.SliceLayout(0, IL))[None, :]
        i = kl.load(idx + im * N + ino)
        kl.store(out + im * N + ino, kl.gather(v, i, 0))
    else:
        im = kl.arange(0, M, layout=kl.SliceLayout(1, IL))[:, None]
        ino = kl.arange(0, K, layout=kl.SliceLayout(0, IL))[None, :]
        i = kl.load(idx + im * K + ino)
        kl.store(out + im * K + ino, kl.gather(v, i, 1))


@kiln.jit
def gather1d_kernel(src, idx, out, M: kl.constexpr, K: kl.constexpr, SL: kl.constexpr,
                    IL: kl.constexpr):
    v = kl.load(src + kl.arange(0, M, SL))
    o = kl.arange(0, K, IL)
    kl.store(out + o, kl.gather(v, kl.load(idx + o), 0))


@kiln.jit
def histogram_kernel(x, z, M: kl.constexpr, B: kl.constexpr, SL: kl.constexpr,
                     DL: kl.constexpr, MASKED: kl.constexpr):
    o = kl.arange(0, M, SL)
    v = kl.load(x + o)
    if MASKED:
        h = kl.histogram(v, B, mask=o % 3 != 0, layout=DL)
    else:
        h = kl.histogram(v, B, layout=DL)
    kl.store(z + kl.arange(0, B, DL), h)


def layouts_2d(w):
    """(src layout, index layout) pairs whose gather along axis 0 stays in each warp: rows
    over registers and lanes, the 4 warps along the columns."""
    return [(kl.BlockedLayout([2, 1], [w, 1], [1, 4], [1, 0]),
             kl.BlockedLayout([2, 1], [w, 1], [1, 4], [1, 0])),
            (kl.BlockedLayout([1, 2], [w // 2, 2], [1, 4], [0, 1]),
             kl.BlockedLayout([4, 1], [w // 4, 4], [1, 4], [1, 0]))]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
def test_gathers_shuffle_within_warps(target, w):
    for sl, il in layouts_2d(w):
        k = kiln.compile(gather2d_kernel, {"src": "*fp32", "idx": "*i32", "out": "*fp32"},
                         {"M": 64, "N": 16, "K": 128, "SL": sl, "IL": il, "AXIS": 0},
                         target=target, num_warps=4, cache=False)
        llir = k.asm["llir"]
        assert "nvvm.shfl.sync.idx" in llir or "llvm.amdgcn.ds.bpermute" in llir
    L = kl.BlockedLayout([1], [w], [1], [0])
    k = kiln.compile(gather1d_kernel, {"src": "*i64", "idx": "*i16", "out": "*i64"},
                     {"M": w, "K": 2 * w, "SL": L, "IL": L}, target=target, num_warps=1,
                     cache=False)
    assert "tile.gather" in k.asm["tile"]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("masked", [False, True])
def test_histogram_compiles(target, w, masked):
    L = kl.BlockedLayout([1], [w], [4], [0])
    for m, b in [(2048, 2), (8, 512), (32, 32), (256, 4096), (4096, 16384)]:
        k = kiln.compile(histogram_kernel, {"x": "*i32", "z": "*i32"},
                         {"M": m, "B": b, "SL": L, "DL": L, "MASKED": masked}, target=target,
                         num_warps=4, cache=False)
        # One shared-memory atomic add an element, no compare against every bin.
        assert "tile.histogram" in k.asm["tile"] and "tile.reduce" not in k.asm["tile"]
        assert re.search(r"atomicrmw add ptr addrspace\(3\)", k.asm["llir"])


@compiled.needs_compiler
def test_histogram_bins_beyond_shared_memory_are_an_error():
    L = kl.BlockedLayout([1], [32], [4], [0])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(histogram_kernel, {"x": "*i32", "z": "*i32"},
                     {"M": 256, "B": 1 << 17, "SL": L, "DL": L, "MASKED": False},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert "shared memory" in str(ei.value)


def layouts_across_warps(w):
    """(src layout, index layout, axis) triples whose gather needs elements of other warps:
    the warps split the gathered axis, or the index layout puts an output in another warp
    than the source rows it needs, or the source is held by several warps at once."""
    cols = kl.BlockedLayout([2, 1], [w, 1], [1, 4], [1, 0])
    rows = kl.BlockedLayout([1, 4], [w // 4, 4], [4, 1], [1, 0])
    return [(cols, cols, 1), (rows, rows, 0), (cols, rows, 0),
            (kl.BlockedLayout([1, 1], [32, w // 32], [4, 1], [1, 0]), cols, 0)]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
def test_a_gather_across_warps_goes_through_shared_memory(target, w):
    """The owner of each source element stores it at its slot, a barrier, each output loads
    the slot of its coordinates; no shuffles."""
    for sl, il, axis in layouts_across_warps(w):
        k = kiln.compile(gather2d_kernel, {"src": "*fp32", "idx": "*i32", "out": "*fp32"},
                         {"M": 64, "N": 16, "K": 16, "SL": sl, "IL": il, "AXIS": axis},
                         target=target, num_warps=4, cache=False)
        assert k.metadata.shared >= 64 * 16 * 4
        llir = k.asm["llir"]
        assert "nvvm.shfl.sync.idx" not in llir and "llvm.amdgcn.ds.bpermute" not in llir
        if target.startswith("cuda"):
            assert "st.shared" in k.asm["ptx"] and "ld.shared" in k.asm["ptx"]


@kiln.jit
def e_gather_rank(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    i = kl.full([1, 128], 0, kl.int32, kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]))
    kl.gather(v, i, 0)  # E:rank


@kiln.jit
def e_histogram_float(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.histogram(kl.load(x + kl.arange(0, 128, L)), 8, layout=L)  # E:float


@compiled.needs_compiler
@pytest.mark.parametrize("fn,marker,anchor,message", [
    (e_gather_rank, "E:rank", "kl.gather",
     r"gather: src and index must have the same rank, got 1 and 2"),
    (e_histogram_float, "E:float", "kl.histogram", r"histogram needs integer values, got fp32"),
])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)
