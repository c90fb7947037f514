"""warp_specialize inside a loop and inside an if (Gluon allows both): the worker warps wait for
each call and learn at its start barrier which one it is. Compiled by
test_warp_specialize_dsl.py, run by test/gpu/test_ws_loops.py against torch."""

import kiln
import kiln.language as kl


@kiln.jit
def _fill(slot, x, i, BLOCK: kl.constexpr):
    # worker: row i of x into the ring slot i % 2 (the loop's counter reaches it through shared
    # memory; the slot's view is recomputed from it)
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    slot.store(kl.load(x + i * BLOCK + offs) * 2 + i)


@kiln.jit
def _count(calls, i):
    # default partition: that it ran for each i
    kl.store(calls + i, i + 1)


@kiln.jit
def ws_in_loop(x, out, calls, n, BLOCK: kl.constexpr):
    """out[i] = (x[i] * 2 + i) + 1 for i < n, row i staged in shared memory by a worker."""
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    smem: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [0])
    ring = kl.allocate_shared_memory(kl.int32, [2, BLOCK], smem)
    offs = kl.arange(0, BLOCK, layout)
    for i in range(n):
        slot = ring.index(i % 2)
        kl.warp_specialize([(_count, (calls, i)), (_fill, (slot, x, i, BLOCK))], [1], [24])
        kl.store(out + i * BLOCK + offs, slot.load(layout) + 1)


@kiln.jit
def _mark(out, v, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    kl.store(out + offs, offs * 0 + v)


@kiln.jit
def _idle(out, v, BLOCK: kl.constexpr):
    pass


@kiln.jit
def ws_in_branches(out, n, BLOCK: kl.constexpr):
    """Program p: for i < n, a call chosen by i's parity (two different warp_specializes in one
    loop), then one more call only for even programs. out[p, i] = 100 + i (even i, the first
    call's worker) or 200 + i (odd i, the second's); out[p, n] = 7 for even p, untouched
    otherwise."""
    p = kl.program_id(0)
    row = out + p * (n + 1) * BLOCK
    for i in range(n):
        if i % 2 == 0:
            kl.warp_specialize([(_idle, (row, i, BLOCK)),
                                (_mark, (row + i * BLOCK, 100 + i, BLOCK))], [1], [24])
        else:
            kl.warp_specialize([(_idle, (row, i, BLOCK)),
                                (_mark, (row + i * BLOCK, 200 + i, BLOCK))], [2], [24])
    if p % 2 == 0:
        kl.warp_specialize([(_idle, (row, 0, BLOCK)),
                            (_mark, (row + n * BLOCK, 7, BLOCK))], [1], [24])


@kiln.jit
def _sum_rows(x, out, n, BLOCK: kl.constexpr):
    # worker: a loop and a branch inside the partition, carrying a tensor in the worker's own
    # one-warp layout (a producer's running sum, as a loader counts what it waited for)
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    acc = offs * 0
    for i in range(n):
        v = kl.load(x + i * BLOCK + offs)
        if i % 3 == 0:
            acc += v * 2
        else:
            acc += v
    kl.store(out + offs, acc)


@kiln.jit
def ws_worker_loop(x, out, n, BLOCK: kl.constexpr):
    """out[0] = sum over i < n of x[i] * (2 if i % 3 == 0 else 1), summed by a one-warp worker
    in a loop; out[1] = n * offs by the kernel's own warps in theirs."""
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    kl.warp_specialize([(_idle, (out, 0, BLOCK)), (_sum_rows, (x, out, n, BLOCK))], [1], [40])
    acc = offs * 0
    for i in range(n):
        acc += offs
    kl.store(out + BLOCK + offs, acc)


@kiln.jit
def _pipelined_sum(x, out, n, BLOCK: kl.constexpr, SLOT: kl.constexpr):
    # a loop the compiler pipelines (cp.async ring of 3 slots) inside a partition
    lay: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [kl.num_warps(), 1], [1, 0])
    r = kl.arange(0, BLOCK, layout=kl.SliceLayout(1, lay))
    c = kl.arange(0, 16, layout=kl.SliceLayout(0, lay))
    acc = kl.zeros([BLOCK, 16], kl.float32, layout=lay)
    for i in kl.range(0, n, num_stages=3):
        acc += kl.load(x + i * BLOCK * 16 + r[:, None] * 16 + c[None, :])
    kl.store(out + SLOT * BLOCK * 16 + r[:, None] * 16 + c[None, :], acc)


@kiln.jit
def ws_pipelined_loops(x, y, out, n, BLOCK: kl.constexpr):
    """out[0] = sum over i < n of x[i] ([BLOCK, 16] tiles), by the kernel's warps; out[1] the
    same of y by a 4-warp worker; each partition's loop pipelined with its own ring."""
    kl.warp_specialize([(_pipelined_sum, (x, out, n, BLOCK, 0)),
                        (_pipelined_sum, (y, out, n, BLOCK, 1))], [4], [128])
