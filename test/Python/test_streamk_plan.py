"""The Stream-K GEMM's work plan (examples/streamk_gemm.py's ``streamk_plan``, the host's copy
of the kernel's arithmetic) on the CPU: every k-step of every tile is done exactly once, runs
are balanced (the busiest program does the average rounded up), a program has at most two pieces that are not whole tiles, and a tile is split
only when P does not divide the tile count. The GPU test (third_party/nvidia/test/gpu/
test_streamk_gemm.py) checks the kernel's own plan by its results."""

from __future__ import annotations

import itertools
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
streamk_gemm = pytest.importorskip("examples.streamk_gemm",
                                   reason="the example imports kiln (built)")

SHAPES = [(4096, 4096, 4096), (3000, 5000, 4000), (2048, 2048, 2048), (1000, 1304, 712),
          (136, 264, 200), (256, 512, 64), (128, 256, 64)]


@pytest.mark.parametrize("M,N,K", SHAPES)
@pytest.mark.parametrize("P", [1, 3, 7, 66, 132])
def test_plan_covers_every_step_once(M, N, K, P):
    BM, BN, BK = 128, 256, 64
    tiles = -(-M // BM) * -(-N // BN)
    P = min(P, tiles)
    dp, KT, per, runs = streamk_gemm.streamk_plan(M, N, K, BM, BN, BK, P)
    done = {}
    for p, pieces in enumerate(runs):
        for tile, k0, k1 in pieces:
            assert 0 <= k0 < k1 <= KT
            for k in range(k0, k1):
                assert (tile, k) not in done, f"tile {tile} step {k}: programs {done[tile, k]}, {p}"
                done[tile, k] = p
        partial = [pc for pc in pieces if (pc[1], pc[2]) != (0, KT)]
        assert len(partial) <= 2
    assert set(done) == set(itertools.product(range(tiles), range(KT)))
    steps = [sum(k1 - k0 for _, k0, k1 in pieces) for pieces in runs]
    # Balanced: the busiest program does the average rounded up, as if every k-step of every
    # tile were dealt out one by one.
    assert max(steps) == -(-sum(steps) // P)
    if tiles % P == 0:
        assert dp == tiles and all(len(pieces) == tiles // P for pieces in runs)
    else:
        assert dp % P == 0 and dp < tiles
