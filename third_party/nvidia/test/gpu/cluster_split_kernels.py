"""Kernels on tensors and buffers split among a cluster's CTAs, shared by the GPU tests (values
against torch) and the compile tests: loads and stores that reach other CTAs' parts of a buffer
(distributed shared memory) -- a tensor split differently from the buffer, views sliced along
a split dimension --, and dots whose accumulator the cluster splits."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import mma_v2


def split_rows(num_ctas, rank=2):
    """cga bases splitting dimension 0 among ``num_ctas`` CTAs (CTA r holds the r-th block)."""
    return [[1 << b] + [0] * (rank - 1) for b in range(num_ctas.bit_length() - 1)]


def split_cols(num_ctas):
    return [[0, 1 << b] for b in range(num_ctas.bit_length() - 1)]


def whole(num_ctas, rank=2):
    """cga bases that give every CTA the whole tensor."""
    return [[0] * rank for _ in range(num_ctas.bit_length() - 1)]


@kiln.jit
def transpose_through_peers(inp, out, M: kl.constexpr, N: kl.constexpr, SRC: kl.constexpr,
                            DST: kl.constexpr, SMEM: kl.constexpr):
    """out = inp^T: an [M, N] tile split by SRC is transposed in registers, stored into an
    [N, M] buffer split by SMEM, and read back split by DST (all three split differently)."""
    m = kl.arange(0, M, layout=kl.SliceLayout(1, SRC))[:, None]
    n = kl.arange(0, N, layout=kl.SliceLayout(0, SRC))[None, :]
    value = kl.load(inp + m * N + n)
    smem = kl.allocate_shared_memory(kl.float32, [N, M], SMEM)
    smem.store(value.trans())
    kl.barrier(cluster=True)
    rn = kl.arange(0, N, layout=kl.SliceLayout(1, DST))[:, None]
    rm = kl.arange(0, M, layout=kl.SliceLayout(0, DST))[None, :]
    kl.store(out + rn * M + rm, smem.load(DST))


# Shared linear layouts whose block bases move elements between CTAs by other than whole parts
# (a CTA's part is no box): the buffer's [ROWS, 32] int32 elements, 32 columns by the first five
# offset bases.
_COLS = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]
SCATTERED = {
    # 2 CTAs, 4 rows: CTA 0 holds rows 0 and 3, CTA 1 rows 2 and 1 (Gluon's own test's layout).
    "rows_0_3": kl.SharedLinearLayout(_COLS + [[3, 0]], block_bases=[[2, 0]]),
    # 2 CTAs, 4 rows: row bit 0 and column bit 4 mixed.
    "row_and_column": kl.SharedLinearLayout(_COLS[:4] + [[1, 16], [2, 0]],
                                            block_bases=[[1, 0]]),
    # 4 CTAs, 8 rows: each CTA two rows, XOR-scrambled.
    "four_ctas": kl.SharedLinearLayout(_COLS + [[6, 0]], block_bases=[[2, 0], [7, 0]]),
    # 4 CTAs, 4 rows: split by rank bit 0 as rows_0_3; every pair along bit 1 holds a copy.
    "with_copies": kl.SharedLinearLayout(_COLS + [[3, 0]], block_bases=[[2, 0], [0, 0]]),
}


@kiln.jit
def slice_of_peers(inp, values, result, final, OP: kl.constexpr, ROWS: kl.constexpr,
                   COLS: kl.constexpr, START: kl.constexpr, LEN: kl.constexpr,
                   ALLOC: kl.constexpr, TILE: kl.constexpr, SMEM: kl.constexpr,
                   TILE_ROWS: kl.constexpr, PLAIN: kl.constexpr):
    """A [ROWS, COLS] buffer split by rows; its rows START .. START + LEN as a view (in other
    CTAs' parts) loaded, stored, gathered from (columns pairwise swapped), scattered into or
    updated by atomics (the same) in the TILE layout; ``final`` gets the whole buffer
    afterwards."""
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, ALLOC))[:, None]
    c = kl.arange(0, COLS, layout=kl.SliceLayout(0, ALLOC))[None, :]
    smem = kl.allocate_shared_memory(kl.int32, [ROWS, COLS], SMEM, kl.load(inp + r * COLS + c))
    kl.barrier(cluster=True)
    view = smem.slice(START, LEN, dim=0)
    tr = kl.arange(0, LEN, layout=kl.SliceLayout(1, TILE))[:, None]
    tc = kl.arange(0, COLS, layout=kl.SliceLayout(0, TILE))[None, :]
    swapped = (tc ^ 1) + tr * 0
    if OP == "load":
        kl.store(result + tr * COLS + tc, view.load(TILE))
    elif OP == "gather":
        kl.store(result + tr * COLS + tc, view.gather(swapped, axis=1))
    else:
        update = kl.load(values + tr * COLS + tc)
        if OP == "store":
            view.store(update)
        elif OP == "scatter":
            view.scatter(update, swapped, axis=1)
        elif OP == "atomic":  # old values used: add, then one more (red.inc)
            old = view.atomic_scatter_add(update, swapped, axis=1)  # E:atomic
            # Every CTA's own old values (not only the acting CTA's): through a buffer split
            # as the tile (PLAIN), read back split by rows, each CTA storing its rows.
            mine = kl.allocate_shared_memory(kl.int32, [LEN, COLS], PLAIN)
            mine.store(old)
            rr = kl.arange(0, LEN, layout=kl.SliceLayout(1, TILE_ROWS))[:, None]
            rc = kl.arange(0, COLS, layout=kl.SliceLayout(0, TILE_ROWS))[None, :]
            kl.store(result + rr * COLS + rc, mine.load(TILE_ROWS))
            view.atomic_scatter_add(kl.full([LEN, COLS], 1, kl.int32, TILE), swapped, axis=1)
        else:  # "xor", old values unused (red), the first 16 columns' values only
            view.atomic_scatter_xor(update, swapped, axis=1, mask=(tc < 16) & (tr >= 0))
    kl.barrier(cluster=True)
    kl.store(final + r * COLS + c, smem.load(ALLOC))


@kiln.jit
def split_dot(a, b, c, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr, P: kl.constexpr,
              K_WIDTH: kl.constexpr, MMA: kl.constexpr):
    """c = a @ b with the accumulator in P (split among the CTAs): dot_fma (a BlockedLayout
    P) or mma_v2 (an NVMMADistributedLayout P); each CTA computes its part of c."""
    A: kl.constexpr = kl.DotOperandLayout(0, P, K_WIDTH)
    B: kl.constexpr = kl.DotOperandLayout(1, P, K_WIDTH)
    am = kl.arange(0, M, layout=kl.SliceLayout(1, A))[:, None]
    ak = kl.arange(0, K, layout=kl.SliceLayout(0, A))[None, :]
    bk = kl.arange(0, K, layout=kl.SliceLayout(1, B))[:, None]
    bn = kl.arange(0, N, layout=kl.SliceLayout(0, B))[None, :]
    x = kl.load(a + am * K + ak)
    y = kl.load(b + bk * N + bn)
    acc = kl.zeros([M, N], kl.float32, P)
    if MMA:
        acc = mma_v2(x, y, acc)
    else:
        acc = kl.dot_fma(x, y, acc)
    cm = kl.arange(0, M, layout=kl.SliceLayout(1, P))[:, None]
    cn = kl.arange(0, N, layout=kl.SliceLayout(0, P))[None, :]
    kl.store(c + cm * N + cn, acc)


def dot_parent(mma, bases):
    if mma:
        return kl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8], cga_layout=bases)
    return kl.BlockedLayout([1, 4], [4, 8], [2, 2], [1, 0], cga_layout=bases)


@kiln.jit
def fill_every_copy(inp, out, ROWS: kl.constexpr, COLS: kl.constexpr, SRC: kl.constexpr,
                    DST: kl.constexpr, SMEM: kl.constexpr):
    """A buffer every CTA holds a copy of (SMEM repeats the CTAs), allocated from a tensor the
    CTAs split by rows (SRC): each CTA's rows must reach every copy. Read back split by
    columns (DST), so that each CTA reads, in its own copy, rows the other CTAs wrote."""
    r = kl.arange(0, ROWS, layout=kl.SliceLayout(1, SRC))[:, None]
    c = kl.arange(0, COLS, layout=kl.SliceLayout(0, SRC))[None, :]
    smem = kl.allocate_shared_memory(kl.int32, [ROWS, COLS], SMEM, kl.load(inp + r * COLS + c))
    kl.barrier(cluster=True)
    dr = kl.arange(0, ROWS, layout=kl.SliceLayout(1, DST))[:, None]
    dc = kl.arange(0, COLS, layout=kl.SliceLayout(0, DST))[None, :]
    kl.store(out + dr * COLS + dc, smem.load(DST))
