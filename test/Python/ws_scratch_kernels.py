"""Partitions of a warp_specialize that each reduce across their own warps and move layouts
through shared memory, at the same time: the scratch each uses must not overlap the other's
(they run concurrently) and each one's barriers must count only its own warps. Compiled by
test_warp_specialize_dsl.py, run by test/gpu/test_ws_scratch.py against torch."""

import kiln
import kiln.language as kl


@kiln.jit
def _col_sums(x, out, n, ROWS: kl.constexpr):
    # n rounds of: column sums of x[i] (across the partition's warps), moved to a layout with
    # one column per lane of one warp, accumulated
    lay: kl.constexpr = kl.BlockedLayout([1, 1], [4, 8], [kl.num_warps(), 1], [1, 0])
    col: kl.constexpr = kl.SliceLayout(0, kl.BlockedLayout([1, 1], [1, 32], [kl.num_warps(), 1],
                                                           [1, 0]))
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, lay))
    c = kl.arange(0, 32, layout=kl.SliceLayout(0, lay))
    acc = kl.zeros([32], kl.int32, layout=col)
    for i in range(n):
        kl.barrier()  # the partition's own warps (lmdeploy's GEMM calls it in its partition)
        v = kl.load(x + i * ROWS * 32 + r[:, None] * 32 + c[None, :])
        acc += kl.convert_layout(kl.sum(v, axis=0), col)
    kl.store(out + kl.arange(0, 32, layout=col), acc)


@kiln.jit
def _row_maxes(y, out, n, ROWS: kl.constexpr):
    # n rounds of: the maximum of each row of y[i] (across lanes), the rows' values moved to
    # another layout, and their running sum down the rows (a scan across the warps); then the
    # maxima's total
    lay: kl.constexpr = kl.BlockedLayout([1, 1], [1, 32], [kl.num_warps(), 1], [1, 0])
    row: kl.constexpr = kl.SliceLayout(1, kl.BlockedLayout([1, 1], [32, 1], [1, kl.num_warps()],
                                                           [0, 1]))
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, lay))
    c = kl.arange(0, 32, layout=kl.SliceLayout(0, lay))
    acc = kl.zeros([ROWS], kl.int32, layout=row)
    scan = kl.zeros([ROWS], kl.int32, layout=kl.SliceLayout(1, lay))
    for i in range(n):
        v = kl.load(y + i * ROWS * 32 + r[:, None] * 32 + c[None, :])
        m = kl.max(v, axis=1)
        acc += kl.convert_layout(m, row)
        scan += kl.cumsum(m, axis=0)
    kl.store(out + 32 + kl.arange(0, ROWS, layout=row), acc)
    kl.store(out + 32 + ROWS, kl.sum(acc, axis=0))
    kl.store(out + 33 + ROWS + r, scan)


@kiln.jit
def ws_scratch(x, y, out, n, ROWS: kl.constexpr, WORKER_WARPS: kl.constexpr):
    """out[0:32] = sum over i, r of x[i, r, :]; out[32:32 + ROWS] = sum over i of the row
    maxima of y[i]; out[32 + ROWS] = their total; out[33 + ROWS:33 + 2 ROWS] = sum over i of
    the maxima's running sums down the rows. The kernel's warps do the first, a worker of
    WORKER_WARPS the rest, both reducing across their warps in every round."""
    kl.warp_specialize([(_col_sums, (x, out, n, ROWS)), (_row_maxes, (y, out, n, ROWS))],
                       [WORKER_WARPS], [80])


@kiln.jit
def _stage_twice(x, out, ring, k: kl.constexpr, n, ROWS: kl.constexpr):
    # n rounds of: x[i] through a buffer, then 2 x[i] + ring[k] through a second buffer allocated
    # after the first is dead (the two share bytes), stored to out[i]
    lay: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [kl.num_warps(), 1], [1, 0])
    sh: kl.constexpr = kl.NVMMASharedLayout.get_default_for([ROWS, 64], kl.bfloat16)
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, lay))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, lay))
    offs = r[:, None] * 64 + c[None, :]
    for i in range(n):
        a = kl.allocate_shared_memory(kl.bfloat16, [ROWS, 64], sh, kl.load(x + i * ROWS * 64 + offs))
        v = a.load(lay)  # a is dead from here
        o = kl.allocate_shared_memory(kl.bfloat16, [ROWS, 64], sh, v * 2 + ring.index(k).load(lay))
        kl.store(out + i * ROWS * 64 + offs, o.load(lay))


@kiln.jit
def ws_dead_buffers(x, y, z, out, out2, n, ROWS: kl.constexpr, WORKER_WARPS: kl.constexpr):
    """out[i] = 2 x[i] + z[0] and out2[i] = 2 y[i] + z[1], the first by the kernel's warps, the
    second by a worker of WORKER_WARPS, each through two buffers per round whose lifetimes do
    not meet: inside each partition the second reuses the first's bytes, while the other
    partition's buffers, live at the same time, keep their own."""
    sh: kl.constexpr = kl.NVMMASharedLayout.get_default_for([ROWS, 64], kl.bfloat16)
    lay: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [kl.num_warps(), 1], [1, 0])
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, lay))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, lay))
    ring = kl.allocate_shared_memory(kl.bfloat16, [2, ROWS, 64], sh)
    for k in kl.static_range(2):
        ring.index(k).store(kl.load(z + k * ROWS * 64 + r[:, None] * 64 + c[None, :]))
    kl.barrier()
    kl.warp_specialize([(_stage_twice, (x, out, ring, 0, n, ROWS)),
                        (_stage_twice, (y, out2, ring, 1, n, ROWS))], [WORKER_WARPS], [120])
