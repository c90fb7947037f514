"""Gluon names added after Triton 3.6 that ported kernels meet first: ``clamp``,
``expect_zero``, ``aggregate_replace`` and ``barrier(cluster=...)`` (their Gluon forms, as in
Triton's main branch). test/gpu/test_language_extras.py runs clamp against torch."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import cluster, mbarrier

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
L = kl.BlockedLayout([1], [32], [4], [0])


@kl.aggregate
class Pair:
    a: kl.tensor
    b: kl.tensor

    def __init__(self, a, b):
        self.a = a
        self.b = b


@kiln.jit
def clamp_kernel(x, y, lo, hi, NAN: kl.constexpr, W: kl.constexpr):
    """y = clamp(x, lo, hi) for 4 * W elements (W: the target's lanes a warp)."""
    offs = kl.arange(0, 4 * W, kl.BlockedLayout([1], [W], [4], [0]))
    kl.store(y + offs, kl.clamp(kl.load(x + offs), lo, hi, propagate_nan=NAN))


@pytest.mark.parametrize("target,w", [("cuda:sm_90a", 32), ("hip:gfx942", 64)])
@pytest.mark.parametrize("nan,ops", [(None, {"llvm.maxnum.f32", "llvm.minnum.f32"}),
                                     ("ALL", {"llvm.maximum.f32", "llvm.minimum.f32"})])
def test_clamp_is_max_then_min(nan, ops, target, w):
    """minimum(maximum(x, lo), hi); propagate_nan=ALL keeps a NaN x NaN (IEEE maximum /
    minimum), the default gives lo for it (maxnum / minnum)."""
    k = kiln.compile(clamp_kernel, {"x": "*fp32", "y": "*fp32", "lo": "fp32", "hi": "fp32"},
                     {"NAN": nan, "W": w}, target=target, cache=False)
    assert set(re.findall(r"llvm\.(?:minnum|maxnum|minimum|maximum)\.f32", k.asm["llir"])) == ops


@kiln.jit
def clamp_bf16(x, y):
    offs = kl.arange(0, 128, L)
    c = kl.clamp(kl.load(x + offs), -1.0, 1.0)
    kl.static_assert(c.dtype == kl.float32)  # bf16 computes in f32 and stays there, as Triton
    kl.store(y + offs, c)


@kiln.jit
def clamp_int(x, y):
    offs = kl.arange(0, 128, L)
    kl.store(y + offs, kl.clamp(kl.load(x + offs), 0, 3))  # E:clamp-int


def test_clamp_types():
    kiln.compile(clamp_bf16, {"x": "*bf16", "y": "*fp32"}, {}, target="cuda:sm_90a",
                 cache=False)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(clamp_int, {"x": "*i32", "y": "*i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:clamp-int", "kl.clamp",
                           r"clamp is only supported for floating-point types, got int32",
                           kiln.CompilationError)


@kiln.jit
def expect_zero_kernel(x, y):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs)
    kl.store(y + offs, kl.expect_zero(v, offs < 64))


@pytest.mark.parametrize("debug", [False, True])
def test_expect_zero_asserts_only_in_debug_mode(debug):
    k = kiln.compile(expect_zero_kernel, {"x": "*fp32", "y": "*fp32"}, {}, target="cuda:sm_90a",
                     debug=debug, cache=False)
    assert ("__assertfail" in k.asm["ptx"]) == debug


@kiln.jit
def replace_kernel(x, y):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs)
    p = Pair(v, v)
    q = kl.aggregate_replace(p, b=v * 2.0)
    kl.store(y + offs, q.a + q.b)


@kiln.jit
def replace_unknown(x, y):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs)
    q = kl.aggregate_replace(Pair(v, v), c=v)  # E:replace-unknown
    kl.store(y + offs, q.a)


def test_aggregate_replace():
    """A copy with the named fields replaced (the constructor does not run again); an
    unknown field is an error at the call. Outside kernels it is a plain function."""
    k = kiln.compile(replace_kernel, {"x": "*fp32", "y": "*fp32"}, {}, target="cuda:sm_90a",
                     cache=False)
    assert "fmul" in k.asm["llir"] or "fadd" in k.asm["llir"]
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(replace_unknown, {"x": "*fp32", "y": "*fp32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:replace-unknown", "kl.aggregate_replace",
                           r"Pair has no field 'c' \(its fields: a, b\)", kiln.CompilationError)
    host = Pair(1, 2)
    assert (kl.aggregate_replace(host, a=5).a, kl.aggregate_replace(host, a=5).b) == (5, 2)
    with pytest.raises(TypeError, match="expects an aggregate instance"):
        kl.aggregate_replace(3, a=1)


@kiln.jit
def cluster_barrier(x):
    kl.barrier(cluster=True)


def test_cluster_barrier():
    """With one CTA a program, the CTA barrier (as Gluon); across several, the cluster
    barrier (arrive releases, wait acquires)."""
    k = kiln.compile(cluster_barrier, {"x": "*fp32"}, {}, target="cuda:sm_90a", cache=False)
    assert "bar.sync" in k.asm["ptx"] and "barrier.cluster" not in k.asm["ptx"]
    k = kiln.compile(cluster_barrier, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_ctas=2,
                     cache=False)
    ptx = k.asm["ptx"]
    assert ptx.index("barrier.cluster.arrive.aligned;") < ptx.index("barrier.cluster.wait.aligned;")


@kiln.jit
def mbarrier_batch_kernel(x, y, BATCH: kl.constexpr):
    one = mbarrier.allocate_mbarrier()
    bars = mbarrier.allocate_mbarrier(batch=BATCH)
    mbarrier.init(one, count=1)
    for i in kl.static_range(BATCH):
        mbarrier.init(bars.index(i), count=1)
    offs = kl.arange(0, 128, L)
    kl.store(y + offs, kl.load(x + offs))
    for i in kl.static_range(BATCH):
        mbarrier.arrive(bars.index(i))
        mbarrier.wait(bars.index(i), 0)
        mbarrier.invalidate(bars.index(i))
    mbarrier.invalidate(one)


@kiln.jit
def mbarrier_cluster_kernel(x):
    mbarrier.allocate_mbarrier(two_ctas=True)  # E:two-ctas


def test_allocate_mbarrier():
    """mbarrier.allocate_mbarrier (Gluon after 3.6; also in nvidia.ampere.mbarrier): one
    word, or a batch indexed one by one, each an 8-byte mbarrier the ops accept."""
    from kiln.language.nvidia import ampere
    assert ampere.mbarrier.allocate_mbarrier is not None
    k = kiln.compile(mbarrier_batch_kernel, {"x": "*fp32", "y": "*fp32"}, {"BATCH": 3},
                     target="cuda:sm_90a", cache=False)
    assert k.asm["ptx"].count("mbarrier.init.shared") == 4
    assert re.search(r"tile\.local_alloc.*memdesc<3x1xi64", k.asm["tile"])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(mbarrier_cluster_kernel, {"x": "*fp32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:two-ctas", "mbarrier.allocate_mbarrier",
                           r"allocate_mbarrier: barriers shared by two CTAs of a cluster "
                           r"\(two_ctas=True, for Blackwell's two-CTA MMA\) are not supported",
                           kiln.CompilationError)
    # In a cluster: one word in each CTA (Gluon's [num_ctas] of MBarrierLayout.multicta).
    k = kiln.compile(mbarrier_batch_kernel, {"x": "*fp32", "y": "*fp32"}, {"BATCH": 3},
                     target="cuda:sm_90a", num_ctas=2, cache=False)
    assert re.search(r"tile\.local_alloc.*memdesc<3x1xi64", k.asm["tile"])
    assert k.asm["ptx"].count("mbarrier.init.shared") == 4


@kiln.jit
def cluster_barrier_kernel(x, y):
    from_cluster = kl.load(x + kl.arange(0, 128, L))
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.fence_init_release_cluster()
    cluster.barrier(relaxed=True)
    cluster.arrive()
    cluster.wait()
    kl.store(y + kl.arange(0, 128, L), from_cluster)
    mbarrier.invalidate(bar)


def test_cluster_barriers_and_the_init_fence():
    """hopper.cluster.arrive / wait / barrier(relaxed=) and mbarrier.fence_init_release_cluster
    (Gluon after 3.6) as PTX's barrier.cluster and fence.mbarrier_init; sm_80 has neither."""
    for ctas in (1, 2):
        k = kiln.compile(cluster_barrier_kernel, {"x": "*fp32", "y": "*fp32"}, {},
                         target="cuda:sm_90a", num_ctas=ctas, cache=False)
        ptx = k.asm["ptx"]
        assert "barrier.cluster.arrive.relaxed.aligned" in ptx
        assert re.search(r"barrier\.cluster\.arrive\.aligned", ptx)
        # In a cluster the top-level init has its own fence and relaxed cluster barrier too.
        assert ptx.count("barrier.cluster.wait.aligned") == (2 if ctas == 1 else 3)
        assert "fence.mbarrier_init.release.cluster" in ptx
    with pytest.raises(kiln.CompilationError, match=r"needs sm_90 or later; cuda:sm_80 has none"):
        kiln.compile(cluster_barrier_kernel, {"x": "*fp32", "y": "*fp32"}, {},
                     target="cuda:sm_80", cache=False)


@kiln.jit
def slice_kernel(x, y, R0: kl.constexpr, C0: kl.constexpr, R: kl.constexpr, C: kl.constexpr,
                 W: kl.constexpr):
    """y = x[R0:R0+R, C0:C0+C] of a 64 x 128 block, by kl.amd.slice (registers only)."""
    layout: kl.constexpr = kl.BlockedLayout([1, 8], [W // 4, 4], [4, 1], [1, 0])
    rows = kl.arange(0, 64, kl.SliceLayout(1, layout))[:, None]
    cols = kl.arange(0, 128, kl.SliceLayout(0, layout))[None, :]
    v = kl.load(x + rows * 128 + cols)
    s = kl.amd.slice(v, [R, C], [R0, C0])  # E:slice
    r = kl.arange(0, R, kl.SliceLayout(1, layout))[:, None]
    c = kl.arange(0, C, kl.SliceLayout(0, layout))[None, :]
    kl.store(y + r * C + c, s)


@pytest.mark.parametrize("target,w", [("cuda:sm_90a", 32), ("hip:gfx950", 64)])
def test_amd_slice_picks_registers(target, w):
    """amd.slice (Gluon after 3.6) of whole tiles of the layout's threads: register picks only
    (no shared memory, no shuffles)."""
    rows = 4 * (w // 4)  # the layout's rows per tile: 32 (32 lanes) or 64 (64 lanes)
    k = kiln.compile(slice_kernel, {"x": "*fp32", "y": "*fp32"},
                     {"R0": 64 - rows, "C0": 96, "R": rows, "C": 32, "W": w}, target=target,
                     cache=False)
    assert "tile.extract_slice" in k.asm["tile"]
    assert "addrspace(3)" not in k.asm["llir"]
    assert "shfl" not in k.asm["llir"] and "bpermute" not in k.asm["llir"]


def test_amd_slice_errors():
    with pytest.raises(kiln.CompilationError) as ei:  # 16 columns: fewer than the lanes span
        kiln.compile(slice_kernel, {"x": "*fp32", "y": "*fp32"},
                     {"R0": 0, "C0": 0, "R": 32, "C": 16, "W": 32}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:slice", "kl.amd.slice",
                           r"slice: layout .* places the slice on other threads than "
                           r"the source \(its lane bases differ\).*",
                           kiln.CompilationError)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(slice_kernel, {"x": "*fp32", "y": "*fp32"},
                     {"R0": 0, "C0": 48, "R": 32, "C": 32, "W": 32}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:slice", "kl.amd.slice",
                           r"slice: offset 48 along dimension 1 must be a multiple of the "
                           r"slice's size 32 there", kiln.CompilationError)
    for cx, message in [
            ({"R0": 0, "C0": 128, "R": 32, "C": 32},
             r"slice: offset \[0, 128\] \+ shape \[32, 32\] exceeds the source shape "
             r"\[64, 128\]"),
            ({"R0": 0, "C0": 0, "R": 32, "C": 48}, r"slice: shape \[32, 48\] must be powers of 2")]:
        with pytest.raises(kiln.CompilationError) as ei:
            kiln.compile(slice_kernel, {"x": "*fp32", "y": "*fp32"}, dict(cx, W=32),
                         target="cuda:sm_90a", cache=False)
        located.assert_located(ei.value, HERE, "E:slice", "kl.amd.slice", message,
                               kiln.CompilationError)


@pytest.mark.parametrize("ctas,split,order,bases", [
    ([2, 1], [2, 1], [1, 0], [[1, 0]]),
    ([1, 4], [1, 2], [1, 0], [[0, 1], [0, 0]]),
    ([4, 4], [2, 2], [1, 0], [[0, 1], [0, 0], [1, 0], [0, 0]]),
    ([4, 2], [4, 1], [0, 1], [[1, 0], [2, 0], [0, 0]]),
    ([2, 2, 1], [2, 2, 1], [2, 1, 0], [[0, 1, 0], [1, 0, 0]]),
])
def test_make_cga_layout(ctas, split, order, bases):
    """Gluon's make_cga_layout (CGAEncodingAttr::fromSplitParams): along each dimension, in
    ``order``, the split's bits move by powers of two, then the repeats are zero bases."""
    assert kl.make_cga_layout(ctas, split, order) == bases


@pytest.mark.parametrize("args,message", [
    (([2, 1], [2], [1, 0]), r"need one entry per dimension"),
    (([2, 1], [2, 1], [0, 0]), r"cta_order \[0, 0\] is not a permutation of 0\.\.1"),
    (([3, 1], [1, 1], [1, 0]), r"must be powers of two, got 3"),
    (([2, 1], [4, 1], [1, 0]), r"dimension 0 has 2 CTAs, not a multiple of its split 4"),
    (([8, 4], [8, 4], [1, 0]), r"32 CTAs; a cluster has at most 16"),
])
def test_make_cga_layout_errors(args, message):
    with pytest.raises(ValueError, match=message):
        kl.make_cga_layout(*args)
