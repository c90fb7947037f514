"""TMA multicast into a thread-block cluster (Gluon's ``async_load(..., multicast=True)``),
compiled for sm_90a: a layout that repeats parts among the cluster's CTAs multicasts (PTX
``.multicast::cluster`` with a ctaMask, issued by the lowest rank), one that does not loads
each CTA's part; the descriptor's box is one CTA's part; barriers are one per CTA and their
inits reach the whole cluster before any copy; ``gl.barrier(cluster=True)`` is the cluster
barrier; and what Kiln does not do is refused at the user's line.
third_party/nvidia/test/gpu/test_tma_multicast.py runs the kernels against torch."""

from __future__ import annotations

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma
from kiln.nvidia.hopper import TensorDescriptor

import compiled
import located
import tma_multicast_kernels as k

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)


def _desc(block, cga, dtype=kl.float16):
    layout = kl.NVMMASharedLayout.get_default_for(block, dtype, cga_layout=cga)
    return kl.tensor_descriptor_type(dtype, block, layout)


def _ptx(fn, sig, constexprs, num_ctas):
    warps = {} if "num_warps" in constexprs else {"num_warps": 4}
    return kiln.compile(fn, sig, constexprs, target="cuda:sm_90a", num_ctas=num_ctas,
                        cache=False, **warps).asm["ptx"]


@pytest.mark.parametrize("ctas_per_cga", [[2, 1], [1, 2], [1, 4], [4, 4], [2, 4]])
def test_multicast_where_parts_repeat(ctas_per_cga):
    """As Gluon's own copy test asserts: .multicast::cluster exactly where a dimension has
    more CTAs than parts."""
    split = [min(c, 2) for c in ctas_per_cga]
    block = [16 * split[0], 16 * split[1]]
    d = _desc(block, k.cga_layout(ctas_per_cga, split))
    ptx = _ptx(k.multicast_copy, {"in_desc": d, "out_desc": d}, {"MULTICAST": True},
               ctas_per_cga[0] * ctas_per_cga[1])
    repeats = any(c > s for c, s in zip(ctas_per_cga, split))
    assert (".multicast::cluster" in ptx) == repeats
    # Each CTA's barrier expects its own part's bytes; the init reaches the cluster first.
    assert f"mbarrier.arrive.expect_tx.shared.b64 _, [%r1], {16 * 16 * 2};" in ptx
    init = ptx.index("mbarrier.init")
    fence = ptx.index("fence.mbarrier_init.release.cluster")
    arrive = ptx.index("barrier.cluster.arrive.relaxed.aligned")
    wait = ptx.index("barrier.cluster.wait.aligned")
    assert init < fence < arrive < wait < ptx.index("cp.async.bulk.tensor")
    if repeats:
        assert "%cluster_ctarank" in ptx


def test_multicast_without_a_cluster_is_a_plain_copy():
    """As Gluon: multicast=True where no CTA repeats a part (one CTA) copies as usual."""
    d = kl.tensor_descriptor_type(kl.float16, [32, 32],
                                  kl.NVMMASharedLayout.get_default_for([32, 32], kl.float16))
    ptx = _ptx(k.multicast_copy, {"in_desc": d, "out_desc": d}, {"MULTICAST": True}, 1)
    assert ".multicast::cluster" not in ptx and "%cluster_ctarank" not in ptx
    assert "barrier.cluster" not in ptx


def test_no_multicast_asked_loads_each_part():
    d = _desc([16, 32], k.cga_layout([1, 4], [1, 2]))
    ptx = _ptx(k.multicast_copy, {"in_desc": d, "out_desc": d}, {"MULTICAST": False}, 4)
    assert ".multicast::cluster" not in ptx and "cp.async.bulk.tensor.2d.shared::cluster" in ptx


@pytest.mark.parametrize("bits_m,bits_n,loads", [(1, 0, 1), (0, 1, 1), (1, 1, 2)])
def test_gemm_multicasts_the_shared_operand(bits_m, bits_n, loads):
    BM, BN, la, lb, acc, out = k.gemm_layouts(bits_m, bits_n)
    sig = {"a_desc": kl.tensor_descriptor_type(kl.float16, [BM, 64], la),
           "b_desc": kl.tensor_descriptor_type(kl.float16, [64, BN], lb),
           "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    ptx = _ptx(k.multicast_gemm, sig, {"MULTICAST": True, "ACC": acc, "OUT": out},
               1 << (bits_m + bits_n))
    assert ptx.count(".multicast::cluster") == loads
    # The cluster barrier of gl.barrier(cluster=True) in the loop (release, acquire).
    assert "barrier.cluster.arrive.aligned;" in ptx
    assert "wgmma.mma_async" in ptx


def test_host_descriptor_box_is_one_ctas_part():
    from test_tensor_descriptor import Tensor, TorchDtype  # CUDA tensor stand-ins
    cga = [[1, 0], [0, 0]]
    layout = kl.NVMMASharedLayout.get_default_for([64, 64], kl.float16, cga_layout=cga)
    desc = TensorDescriptor.from_tensor(Tensor((64, 64), TorchDtype("float16")), [64, 64],
                                        layout)
    assert desc._box() == [32, 64]
    spec = desc._param_spec()
    assert spec["block_shape"] == [64, 64] and spec["layout"]["cga_layout"] == cga
    # What the kernel was compiled for records the same split.
    assert kl.tensor_descriptor_type(kl.float16, [64, 64], layout).param_spec()["layout"] \
        == spec["layout"]


@kiln.jit
def release_everywhere(MASK: kl.constexpr):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=kl.num_ctas())
    mbarrier.arrive(bar, cta_mask=MASK)


@pytest.mark.parametrize("num_ctas,mask,arrives", [(2, 1, 2), (4, 3, 4), (4, 2, 2), (8, 5, 4)])
def test_arrive_in_every_cta_of_the_mask(num_ctas, mask, arrives):
    ptx = _ptx(release_everywhere, {}, {"MASK": mask}, num_ctas)
    assert ptx.count("mbarrier.arrive.shared::cluster.b64") == arrives
    assert ptx.count("mapa.shared::cluster") == arrives


def test_inits_in_a_row_share_one_fence():
    """The cluster GEMM's 2 x 3 inits: one init fence and one relaxed cluster barrier."""
    root = os.path.join(os.path.dirname(HERE), "..", "..", "..")
    sys.path.insert(0, root)
    from examples.cluster_gemm import cluster_gemm_kernel, cluster_layouts
    la, lb, lc, acc = cluster_layouts(2, 128, 256, 64)
    T = kl.tensor_descriptor_type
    sig = {"a_desc": T(kl.bfloat16, [256, 64], la), "b_desc": T(kl.bfloat16, [256, 64], lb),
           "c_desc": T(kl.bfloat16, [256, 256], lc), "M": "i32", "N": "i32", "K": "i32"}
    ptx = _ptx(cluster_gemm_kernel, sig, {"STAGES": 3, "GROUP_M": 8, "PERSISTENT": False,
                                          "ACC": acc, "num_warps": 8}, 2)
    assert ptx.count("mbarrier.init.shared") == 6
    assert ptx.count("fence.mbarrier_init.release.cluster") == 1
    # The kernel's warps' arrival and wait, and the worker warps' arrival at the kernel's
    # entry (they never run the kernel's own code) and their wait after they give their
    # registers back (the kernel's warps' increase, before their barrier, waits for it).
    assert ptx.count("barrier.cluster.arrive.relaxed.aligned") == 2
    assert len(re.findall(r"@%p\d+ barrier\.cluster\.arrive\.relaxed\.aligned", ptx)) == 1
    assert ptx.count("barrier.cluster.wait.aligned") == 2
    dec = ptx.index("setmaxnreg.dec.sync.aligned.u32")
    assert ptx.index("barrier.cluster.wait.aligned", dec) > dec
    assert ptx.rindex("mbarrier.init.shared") < ptx.index("fence.mbarrier_init")
    assert ptx.count(".multicast::cluster") == 1
    assert ptx.count("mbarrier.arrive.shared::cluster.b64") == 4


@kiln.jit
def multicast_ring(d, K):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    phase = 0
    for k in kl.range(0, K, 32, num_stages=3):  # P:ring
        mbarrier.expect(bar, d.nbytes_per_cta)
        tma.async_load(d, [0, k], bar, buf, multicast=True)
        mbarrier.wait(bar, phase)
        phase ^= 1
        kl.barrier(cluster=True)


def test_the_pipeliner_says_why_it_leaves_a_multicast_loop_at_the_users_line():
    line = next(i for i, l in enumerate(open(HERE).read().splitlines(), 1) if "# P:ring" in l)
    with pytest.warns(kiln.CompilationRemark) as record:
        kiln.compile(multicast_ring, {"d": _desc([32, 32], [[0, 0]]), "K": "i32"}, {},
                     target="cuda:sm_90a", num_ctas=2, num_warps=4, cache=False)
    msgs = [(r.filename, r.lineno, str(r.message)) for r in record]
    assert any(f == HERE and n == line and "loop not pipelined: a TMA copy multicasts into "
               "other CTAs of the cluster" in m for f, n, m in msgs), msgs


def test_multicta_barrier_layout():
    assert mbarrier.MBarrierLayout.multicta(4) == mbarrier.MBarrierLayout([[1], [2]])
    with pytest.raises(ValueError, match="two_cta=True"):
        mbarrier.MBarrierLayout.multicta(2, two_cta=True)


@kiln.jit
def e_reduce_repeated(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_add(d, [0, 0], buf)  # E:reduce


@kiln.jit
def e_shared_barrier(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout([[0]]))
    mbarrier.init(bar, count=1)  # E:shared
    tma.async_load(d, [0, 0], bar, buf)


@kiln.jit
def e_two_ctas(d):
    bar = mbarrier.allocate_mbarrier(two_ctas=True)  # E:twoctas


@kiln.jit
def e_multicast_int(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    bar = mbarrier.allocate_mbarrier()
    tma.async_load(d, [0, 0], bar, buf, multicast=1)  # E:mcint


@kiln.jit
def e_mask_range(d):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.arrive(bar, cta_mask=2)  # E:mask


@kiln.jit
def _idle(d):
    pass


@kiln.jit
def e_cluster_barrier_after_ws(d):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_idle, (d,)), (_idle, (d,))], [1], [24])
    kl.barrier(cluster=True)  # E:afterws


@kiln.jit
def e_refill_unordered(d, K):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    phase = 0
    for k in range(0, K, 32):
        mbarrier.expect(bar, d.nbytes_per_cta)
        tma.async_load(d, [0, k], bar, buf, multicast=True)  # E:refill
        mbarrier.wait(bar, phase)
        phase ^= 1
        kl.barrier()  # this CTA's readers only: the others may still read


@kiln.jit
def e_release_counts_one_cta(d, K):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    ready = mbarrier.allocate_mbarrier()
    empty = mbarrier.allocate_mbarrier()
    mbarrier.init(ready, count=1)
    mbarrier.init(empty, count=1)  # E:onecta
    phase = 0
    for k in range(0, K, 32):
        mbarrier.wait(empty, phase ^ 1)
        mbarrier.expect(ready, d.nbytes_per_cta)
        tma.async_load(d, [0, k], ready, buf, multicast=True)
        mbarrier.wait(ready, phase)
        mbarrier.arrive(empty, cta_mask=1)  # both CTAs' readers release the slot
        phase ^= 1


@kiln.jit
def e_release_elsewhere(d, K):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    ready = mbarrier.allocate_mbarrier()
    empty = mbarrier.allocate_mbarrier()
    mbarrier.init(ready, count=1)
    mbarrier.init(empty, count=2)
    phase = 0
    for k in range(0, K, 32):
        mbarrier.expect(ready, d.nbytes_per_cta)
        tma.async_load(d, [0, k], ready, buf, multicast=True)  # E:elsewhere
        mbarrier.wait(ready, phase)
        mbarrier.arrive(empty, cta_mask=1)  # released, but the refill never waits on it
        phase ^= 1


@kiln.jit
def e_mask_type(d):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.arrive(bar, cta_mask=True)  # E:masktype


@kiln.jit
def e_cluster_flag(d):
    kl.barrier(cluster=1)  # E:clusterflag


@kiln.jit
def e_expect_twice(d):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.expect(bar, 64, bytes_per_cta=64)  # E:twice


_REPEAT = _desc([32, 32], [[0, 0]])
ERRORS = [
    (e_reduce_repeated, {"d": kl.tensor_descriptor_type(kl.float32, [32, 32], kl.NVMMASharedLayout.get_default_for([32, 32], kl.float32, cga_layout=[[0, 0]]))}, "E:reduce", "tma.async_atomic_add",
     r"tma.async_atomic_add: the layout's cga_layout \[\(0, 0\)\] gives several CTAs of the "
     r"cluster the same part \(a zero basis\), and each would reduce it into the tensor.*"),
    (e_shared_barrier, {"d": _REPEAT}, "E:shared", "mbarrier.init",
     r"mbarrier.init: a barrier that several CTAs of the cluster share \(a zero basis in its "
     r"cga_layout \[\[0\]\]\) is not supported yet.*"),
    (e_two_ctas, {"d": _REPEAT}, "E:twoctas", "mbarrier.allocate_mbarrier",
     r"allocate_mbarrier: barriers shared by two CTAs of a cluster \(two_ctas=True.*"),
    (e_multicast_int, {"d": _REPEAT}, "E:mcint", "tma.async_load",
     r"tma.async_load: multicast must be a constexpr bool, got 1"),
    (e_mask_range, {"d": _REPEAT}, "E:mask", "mbarrier.arrive",
     r"mbarrier.arrive: cta_mask must be in \[0, num_ctas - 1 = 1\] \(bits of a CTA's rank "
     r"in its cluster\), got 2"),
    (e_cluster_barrier_after_ws, {"d": _REPEAT}, "E:afterws", "kl.barrier",
     r"cluster.arrive: in a kernel with warp_specialize: its worker warps wait for their "
     r"partitions from the kernel's start and never reach this cluster barrier, so the "
     r"cluster would hang .*"),
    (e_refill_unordered, {"d": _REPEAT, "K": "i32"}, "E:refill", "tma.async_load",
     r"tma.async_copy_global_to_shared: multicasts in a loop, refilling its buffer in the "
     r"other CTAs of the cluster that share it, but nothing tells this CTA that they are done "
     r"reading the previous fill.*"),
    (e_release_counts_one_cta, {"d": _REPEAT, "K": "i32"}, "E:onecta", "mbarrier.init",
     r"mbarrier.init: counts 1 arrival a phase, but each arrival with cta_mask = 1 reaches it "
     r"from 2 CTAs \(2 arrivals\): its phase completes before every CTA's readers are done.*"),
    (e_release_elsewhere, {"d": _REPEAT, "K": "i32"}, "E:elsewhere", "tma.async_load",
     r"tma.async_copy_global_to_shared: multicasts in a loop, refilling its buffer in the "
     r"other CTAs of the cluster that share it, but its loop waits on no barrier those CTAs "
     r"arrive on.*"),
    (e_mask_type, {"d": _REPEAT}, "E:masktype", "mbarrier.arrive",
     r"mbarrier.arrive: cta_mask must be a constexpr int, got True"),
    (e_cluster_flag, {"d": _REPEAT}, "E:clusterflag", "kl.barrier",
     r"barrier: cluster must be a constexpr bool, got 1"),
    (e_expect_twice, {"d": _REPEAT}, "E:twice", "mbarrier.expect",
     r"mbarrier.expect: give the byte count once.*"),
]


@pytest.mark.parametrize("fn,sig,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, sig, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target="cuda:sm_90a", num_ctas=2, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)
