"""The kernels of hopper.bulk.async_load's tests (DSL and GPU): contiguous bytes copied into
shared memory by cp.async.bulk, completing on an mbarrier, read back and written out."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import bulk, mbarrier

SH = kl.SwizzledSharedLayout(1, 1, 1, [0])
ROW = kl.BlockedLayout([4], [32], [4], [0])


@kiln.jit
def copy_kernel(src, dst, n_bytes, N: kl.constexpr, RUNTIME: kl.constexpr):
    buf = kl.allocate_shared_memory(kl.float32, [N], SH)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, N * 4)
    if RUNTIME:
        bulk.async_load(buf, src, n_bytes, bar)
    else:
        bulk.async_load(buf, src, N * 4, bar)
    mbarrier.wait(bar, 0)
    offs = kl.arange(0, N, ROW)
    kl.store(dst + offs, buf.load(ROW))
    mbarrier.invalidate(bar)


@kiln.jit
def ring_kernel(src, dst, steps, N: kl.constexpr):
    """A two-slot ring refilled by bulk copies, each slot's barrier flipping its phase."""
    buf = kl.allocate_shared_memory(kl.float32, [2, N], SH)
    bars = kl.allocate_shared_memory(kl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    offs = kl.arange(0, N, ROW)
    acc = kl.zeros([N], kl.float32, ROW)
    for s in kl.static_range(2):
        mbarrier.expect(bars.index(s), N * 4, pred=s < steps)
        bulk.async_load(buf.index(s), src + s * N, N * 4, bars.index(s), pred=s < steps)
    for i in range(steps):
        slot = i % 2
        mbarrier.wait(bars.index(slot), (i // 2) % 2)
        acc += buf.index(slot).load(ROW)
        kl.thread_barrier()
        nxt = i + 2
        more = nxt < steps
        mbarrier.expect(bars.index(slot), N * 4, pred=more)
        bulk.async_load(buf.index(slot), src + nxt * N, N * 4, bars.index(slot), pred=more)
    kl.store(dst + offs, acc)


CLUSTER_SH = kl.SwizzledSharedLayout(1, 1, 1, [0], cga_layout=[[0]])


@kiln.jit
def multicast_kernel(src, dst, N: kl.constexpr, MULTICAST: kl.constexpr):
    """Two CTAs share one buffer part (a zero cga basis): one copy lands in both."""
    buf = kl.allocate_shared_memory(kl.float32, [N], CLUSTER_SH)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.fence_init_release_cluster()
    kl.barrier(cluster=True)
    mbarrier.expect(bar, N * 4)
    bulk.async_load(buf, src, N * 4, bar, multicast=MULTICAST)
    mbarrier.wait(bar, 0)
    # Row r of the output is CTA r's copy of the buffer (the row dimension split between
    # the two CTAs, the columns whole in each).
    out: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [1, 4], [1, 0], cga_layout=[[1, 0]])
    rows = kl.arange(0, 2, kl.SliceLayout(1, out))
    cols = kl.arange(0, N, kl.SliceLayout(0, out))
    values = buf.load(kl.SliceLayout(0, out))
    kl.store(dst + rows[:, None] * N + cols[None, :], values[None, :])
    kl.barrier(cluster=True)
