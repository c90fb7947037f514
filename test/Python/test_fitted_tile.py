"""The fitted GEMM's tile choice (examples/fitted_gemm.py's ``fitted_tile`` and the launcher's
split of BN into TMA boxes) on the CPU, against a brute force over every tile it may pick (128
x 256, or BM 128 or 256 with BN from 136 to 176): the pick takes the least wave time (waves
times tile area over the shape's measured speed) and its BN is 128 plus at most two powers of
two. The GPU test (third_party/nvidia/test/gpu/test_fitted_gemm.py) runs the picks."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
fitted_gemm = pytest.importorskip("examples.fitted_gemm",
                                  reason="the example imports kiln (built)")


def _allowed():
    yield 128, 256
    for bm in (128, 256):
        for bn in range(136, 177, 8):
            yield bm, bn


def _wave_time(M, N, P, bm, bn):
    tiles = -(-M // bm) * -(-N // bn)
    speed = 1.0 if bn == 256 else fitted_gemm._SPEED[bm]
    return -(-tiles // P) * bm * bn / speed


@pytest.mark.parametrize("M,N", [(3000, 5000), (4096, 4096), (8192, 8192), (2048, 2048),
                                 (6000, 5000), (1000, 1304), (128, 136), (777, 9000)])
@pytest.mark.parametrize("P", [132, 114, 7, 1])
def test_the_pick_takes_the_least_wave_time(M, N, P):
    bm, bn = fitted_gemm.fitted_tile(M, N, P)
    assert (bm, bn) in set(_allowed())
    assert _wave_time(M, N, P, bm, bn) <= min(_wave_time(M, N, P, *t) for t in _allowed()) + 1e-6
    n1, n2 = fitted_gemm._split(bn)
    assert 128 + n1 + n2 == bn and n1 >= n2
    assert all(x == 0 or x & (x - 1) == 0 for x in (n1, n2))


def test_known_shapes():
    # 3000 x 5000 on 132 SMs: 12 x 33 = 396 tiles of 256 x 152, 3 waves (cuBLAS's tile too).
    assert fitted_gemm.fitted_tile(3000, 5000, 132) == (256, 152)
    assert fitted_gemm.fitted_tile(4096, 4096, 132) == (128, 256)
    # 128 x 136 measured slower here than 128 x 256 (0.87 against 0.91 of cuBLAS): the
    # speed factors keep the pick off it.
    assert fitted_gemm.fitted_tile(5000, 3000, 132) != (128, 136)


@pytest.mark.parametrize("bm", [128, 256])
def test_a_given_height(bm):
    M, N, P = 3000, 5000, 132
    got = fitted_gemm.fitted_tile(M, N, P, bm)
    assert got[0] == bm
    assert _wave_time(M, N, P, *got) == min(_wave_time(M, N, P, *t) for t in _allowed()
                                             if t[0] == bm)


def test_bad_widths_are_refused():
    with pytest.raises(ValueError, match="is not 128 plus two powers of two"):
        fitted_gemm._split(128 + 56)  # 32 + 16 + 8: three boxes
