"""A ring slot released while an asynchronous wgmma may still read it (tile-check-async-safety,
no GPU needed): the consumer arrives on `empty[s]` before `warpgroup_mma_wait` retires its
wgmma of `bufs[s]`, and the loader, which waits on `empty[s]` before refilling `bufs[s]`, may
land the next tile under the read. The error names the arrival's line; the same consumer with
the wait before the arrival, or releasing the previous step's slot after a wait that leaves
one wgmma in flight (examples/hopper_ws.py), compiles."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, warpgroup_mma, warpgroup_mma_wait

import compiled

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from examples import hopper_ws  # noqa: E402

pytestmark = compiled.needs_compiler


@kiln.jit
def _consumer(a_bufs, b_bufs, ready, empty, out, K, BK: kl.constexpr, STAGES: kl.constexpr,
              RELEASE: kl.constexpr):
    """RELEASE 0: the slot released before its wgmma is waited for (the mistake); 1: after
    a wait for all; 2: the previous step's slot, after a wait leaving this step's in flight."""
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[kl.num_warps(), 1], instr_shape=[16, 256, 16])
    acc = kl.zeros([128, 256], dtype=kl.float32, layout=acc_layout)
    num_k = kl.cdiv(K, BK)
    for n in range(num_k):
        s = n % STAGES
        mbarrier.wait(ready.index(s), (n // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                            is_async=True)
        if RELEASE == 0:
            mbarrier.arrive(empty.index(s))  # the line the error names
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        elif RELEASE == 1:
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
            mbarrier.arrive(empty.index(s))
        else:
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            mbarrier.arrive(empty.index((n + STAGES - 1) % STAGES), pred=n > 0)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    rows = kl.arange(0, 128, layout=kl.SliceLayout(1, acc_layout))
    cols = kl.arange(0, 256, layout=kl.SliceLayout(0, acc_layout))
    kl.store(out + rows[:, None] * 256 + cols[None, :], acc)


@kiln.jit
def _ring_kernel(a_desc, b_desc, out, K, STAGES: kl.constexpr, RELEASE: kl.constexpr,
                 num_warps: kl.constexpr):
    BK: kl.constexpr = a_desc.block_type.shape[1]
    a_bufs = kl.allocate_shared_memory(a_desc.dtype, [STAGES, 128, BK], a_desc.layout)
    b_bufs = kl.allocate_shared_memory(b_desc.dtype, [STAGES, 256, BK], b_desc.layout)
    ready = kl.allocate_shared_memory(kl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = kl.allocate_shared_memory(kl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    kl.warp_specialize([
        (_consumer, (a_bufs, b_bufs, ready, empty, out, K, BK, STAGES, RELEASE)),
        (hopper_ws._ws_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, 128, 256, K,
                                STAGES, 8, False)),
    ], [1], [24])
    for s in kl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


def _compile(release):
    t = kl.tensor_descriptor_type
    nv = kl.NVMMASharedLayout.get_default_for
    return _ring_kernel.warmup(
        t(kl.bfloat16, [128, 64], nv([128, 64], kl.bfloat16)),
        t(kl.bfloat16, [256, 64], nv([256, 64], kl.bfloat16)), "*fp32", 4096, STAGES=3,
        RELEASE=release, num_warps=8, grid=(1,), target="cuda:sm_90a")


def _line(marker):
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text)


def test_release_before_the_wgmma_is_waited_for_is_an_error():
    with pytest.raises(kiln.CompilationError) as e:
        _compile(0)
    text = str(e.value)
    assert "mbarrier.arrive releases a ring slot that the asynchronous read of " \
           "warpgroup_mma may still be reading" in text, text
    assert "note: the refill, after a wait on the same slot's barrier" in text, text
    line = _line("# the line the error names")
    lines = text.splitlines()
    # The arrival's line and column, its source and the caret under `mbarrier.arrive`.
    assert lines[0].startswith(f"{__file__}:{line}:13: error: "), lines[0]
    assert lines[1:3] == ["    mbarrier.arrive(empty.index(s))  # the line the error names",
                          "    ^"], lines[:3]


@pytest.mark.parametrize("release", [1, 2])
def test_release_after_the_read_compiles(release):
    assert _compile(release).asm.get("ptx")
