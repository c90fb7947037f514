"""Loads and stores across the CTAs of a cluster (distributed shared memory), against torch:
a transpose through a buffer split one way between tensors split two other ways, and views of
a row-split buffer sliced along its split (load, store, gather, scatter, atomics), for
clusters of 2 and 4. Skips cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_split_kernels import (SCATTERED, fill_every_copy, slice_of_peers,  # noqa: E402
                                   split_cols, split_rows, transpose_through_peers, whole)


def _needs_clusters(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")


@pytest.mark.parametrize("num_ctas", [2, 4])
@pytest.mark.parametrize("m,n", [(256, 64), (64, 128)])
def test_transpose_through_peers(target, num_ctas, m, n):
    _needs_clusters(target)
    src = kl.BlockedLayout([1, n // 4], [32, 1], [1, 4], [0, 1], cga_layout=split_rows(num_ctas))
    dst = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=split_cols(num_ctas))
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(num_ctas))
    inp = torch.randn((m, n), device="cuda", dtype=torch.float32)
    out = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float32)
    transpose_through_peers[(num_ctas,)](inp, out, M=m, N=n, SRC=src, DST=dst, SMEM=smem,
                                         num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    assert torch.equal(out, inp.T)


@pytest.mark.parametrize("op", ["load", "store", "gather", "scatter", "atomic", "xor"])
@pytest.mark.parametrize("num_ctas,rows,start,length", [(2, 4, 2, 2), (2, 8, 2, 2),
                                                        (4, 16, 8, 8), (4, 16, 12, 4),
                                                        (4, 16, 4, 4), (2, 8, 0, 8)])
@pytest.mark.parametrize("tile_split", ["whole", "rows"])
def test_slice_of_peers(target, op, num_ctas, rows, start, length, tile_split):
    _needs_clusters(target)
    cols = 32
    if tile_split == "rows" and length < num_ctas:
        pytest.skip("a tile split by rows needs a row for each CTA")
    tile_bases = whole(num_ctas) if tile_split == "whole" else split_rows(num_ctas)
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(num_ctas))
    tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=tile_bases)
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(num_ctas))
    tile_rows = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0],
                                 cga_layout=split_rows(num_ctas))
    # Each CTA keeps its old values in its own buffer (split as the tile: no stores into
    # other CTAs, which would need a cluster barrier before them).
    plain = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=tile_bases)
    inp = torch.randint(-1000, 1000, (rows, cols), device="cuda", dtype=torch.int32)
    values = torch.randint(-1000, 1000, (length, cols), device="cuda", dtype=torch.int32)
    result = torch.full((length, cols), -7, device="cuda", dtype=torch.int32)
    final = torch.full_like(inp, -7)
    slice_of_peers[(num_ctas,)](inp, values, result, final, OP=op, ROWS=rows, COLS=cols,
                                START=start, LEN=length, ALLOC=alloc, TILE=tile, SMEM=smem,
                                TILE_ROWS=tile_rows, PLAIN=plain, num_warps=4,
                                num_ctas=num_ctas)
    torch.cuda.synchronize()
    part = inp[start:start + length]
    swap = torch.arange(cols, device="cuda") ^ 1
    expected = inp.clone()
    if op == "load":
        assert torch.equal(result, part)
    elif op == "gather":
        assert torch.equal(result, part[:, swap])
    elif op == "store":
        expected[start:start + length] = values
    elif op == "scatter":
        expected[start:start + length][:, swap] = values
    elif op == "atomic":  # once per element, however many CTAs hold the tile; every CTA
        assert torch.equal(result, part[:, swap])  # got the old values
        expected[start:start + length][:, swap] += values + 1
    else:
        expected[start:start + length][:, swap[:16]] ^= values[:, :16]
    assert torch.equal(final, expected)


_SCATTERED_SHAPES = {"rows_0_3": (2, 4), "row_and_column": (2, 4), "four_ctas": (4, 8),
                     "with_copies": (4, 4)}


@pytest.mark.parametrize("op", ["load", "store", "gather", "scatter", "atomic", "xor"])
@pytest.mark.parametrize("name", sorted(_SCATTERED_SHAPES))
@pytest.mark.parametrize("where", ["upper", "lower", "one_row", "all"])
@pytest.mark.parametrize("tile_split", ["whole", "rows"])
def test_slice_of_scattered_parts(target, op, name, where, tile_split):
    # A buffer whose CTA parts are no boxes (SharedLinearLayout block bases that move rows
    # between CTAs by other than whole parts): the same program as test_slice_of_peers.
    _needs_clusters(target)
    num_ctas, rows = _SCATTERED_SHAPES[name]
    start, length = {"upper": (0, rows // 2), "lower": (rows // 2, rows // 2),
                     "one_row": (rows - 1, 1), "all": (0, rows)}[where]
    if tile_split == "rows" and length < num_ctas:
        pytest.skip("a tile split by rows needs a row for each CTA")
    if name == "with_copies" and op in ("atomic", "xor") and tile_split == "rows":
        pytest.skip("an error (the DSL test): the values split where the buffer has copies")
    cols = 32
    tile_bases = whole(num_ctas) if tile_split == "whole" else split_rows(num_ctas)
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(num_ctas))
    tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=tile_bases)
    plain = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=tile_bases)
    inp = torch.randint(-1000, 1000, (rows, cols), device="cuda", dtype=torch.int32)
    values = torch.randint(-1000, 1000, (length, cols), device="cuda", dtype=torch.int32)
    result = torch.full((length, cols), -7, device="cuda", dtype=torch.int32)
    final = torch.full_like(inp, -7)
    slice_of_peers[(num_ctas,)](inp, values, result, final, OP=op, ROWS=rows, COLS=cols,
                                START=start, LEN=length, ALLOC=alloc, TILE=tile,
                                SMEM=SCATTERED[name], TILE_ROWS=alloc, PLAIN=plain,
                                num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    part = inp[start:start + length]
    swap = torch.arange(cols, device="cuda") ^ 1
    expected = inp.clone()
    if op == "load":
        assert torch.equal(result, part)
    elif op == "gather":
        assert torch.equal(result, part[:, swap])
    elif op == "store":
        expected[start:start + length] = values
    elif op == "scatter":
        expected[start:start + length][:, swap] = values
    elif op == "atomic":
        assert torch.equal(result, part[:, swap])
        expected[start:start + length][:, swap] += values + 1
    else:
        expected[start:start + length][:, swap[:16]] ^= values[:, :16]
    assert torch.equal(final, expected)


@pytest.mark.parametrize("num_ctas", [2, 4])
@pytest.mark.parametrize("smem_bases", ["zero", "none"])
def test_fill_every_copy(target, num_ctas, smem_bases):
    # Each CTA's rows reach every CTA's copy of the buffer (a store fans out to the copies).
    _needs_clusters(target)
    rows, cols = 32, 64
    src = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_rows(num_ctas))
    dst = kl.BlockedLayout([1, 1], [2, 16], [4, 1], [1, 0], cga_layout=split_cols(num_ctas))
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0],
                                   cga_layout=whole(num_ctas) if smem_bases == "zero" else None)
    inp = torch.randint(-1000, 1000, (rows, cols), device="cuda", dtype=torch.int32)
    out = torch.full_like(inp, -7)
    fill_every_copy[(num_ctas,)](inp, out, ROWS=rows, COLS=cols, SRC=src, DST=dst, SMEM=smem,
                                 num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    assert torch.equal(out, inp)


def test_block_bases_reach_peers(target):
    # A buffer split by a shared linear layout's block bases (rows), written from a tensor
    # split by columns and read back split by rows: every element crosses to its CTA.
    _needs_clusters(target)
    rows, cols = 64, 32
    offsets = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0],
               [16, 0]]
    smem = kl.SharedLinearLayout(offset_bases=offsets, block_bases=[[32, 0]])
    src = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_cols(2))
    dst = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_rows(2))
    inp = torch.randint(-1000, 1000, (rows, cols), device="cuda", dtype=torch.int32)
    out = torch.full_like(inp, -7)
    fill_every_copy[(2,)](inp, out, ROWS=rows, COLS=cols, SRC=src, DST=dst, SMEM=smem,
                          num_warps=4, num_ctas=2)
    torch.cuda.synchronize()
    assert torch.equal(out, inp)
