"""A TMA double buffer whose buffers and mbarriers trade places every iteration (Python
variables swapped in the loop: ping-pong), shared by the GPU test (values against torch) and
the compile tests (the async-safety check follows the swapped buffers and barriers)."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma


@kiln.jit
def tma_ping_pong_sum(desc, y, n_tiles, READ_NEXT: kl.constexpr, num_warps: kl.constexpr):
    """y = the sum of the [BM, BN] tiles at rows 0, BM, 2 BM, ... (n_tiles of them): tile
    i + 1 is loaded by TMA into one buffer, completing on its own barrier, while tile i is
    read from the other; buffers, barriers and phases swap every iteration. READ_NEXT reads
    the buffer still being loaded (a mistake the check reports)."""
    BM: kl.constexpr = desc.block_type.shape[0]
    BN: kl.constexpr = desc.block_type.shape[1]
    L: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [num_warps, 1], [1, 0])
    cur = kl.allocate_shared_memory(desc.dtype, [BM, BN], desc.layout)
    nxt = kl.allocate_shared_memory(desc.dtype, [BM, BN], desc.layout)
    bar_cur = mbarrier.allocate_mbarrier()
    bar_nxt = mbarrier.allocate_mbarrier()
    mbarrier.init(bar_cur, count=1)
    mbarrier.init(bar_nxt, count=1)
    mbarrier.expect(bar_cur, desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, [0, 0], bar_cur, cur)
    acc = kl.zeros([BM, BN], kl.float32, L)
    ph_cur = 0
    ph_nxt = 0
    for i in range(n_tiles):
        more = i + 1 < n_tiles
        mbarrier.expect(bar_nxt, desc.block_type.nbytes, pred=more)
        tma.async_copy_global_to_shared(desc, [(i + 1) * BM, 0], bar_nxt, nxt, pred=more)
        mbarrier.wait(bar_cur, ph_cur)
        if READ_NEXT:
            acc += nxt.load(L).to(kl.float32)  # E:pp-read-next
        else:
            acc += cur.load(L).to(kl.float32)
        kl.thread_barrier()  # every thread has read cur before a load refills it
        ph_cur, ph_nxt = ph_nxt, ph_cur ^ 1
        cur, nxt = nxt, cur
        bar_cur, bar_nxt = bar_nxt, bar_cur
    mbarrier.invalidate(bar_cur)
    mbarrier.invalidate(bar_nxt)
    r = kl.arange(0, BM, kl.SliceLayout(1, L))
    c = kl.arange(0, BN, kl.SliceLayout(0, L))
    kl.store(y + r[:, None] * BN + c[None, :], acc)
