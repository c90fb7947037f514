"""examples/fitted_gemm.py on a Hopper GPU: the persistent warp-specialized GEMM with a tile
width BN that need not be a power of two (B in boxes of 128 + N1 + N2 rows, wgmma on BN of a
256-column accumulator, columns past 128 stored from registers), against torch on fresh
random inputs: ragged M, N and K, the splits of BN whose columns past 128 go out by TMA (N1 at
most 32) and one whose go out from registers (N1 64), few programs (tiles walked in turn) and
shapes the tile was fitted for. Skips cleanly without torch, a driver
or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import fitted_gemm  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"the fitted GEMM uses TMA and wgmma (sm_90a); this device's target is "
                    f"{target}")
    return target


@pytest.mark.parametrize("M,N,K,BM,BN,programs", [
    (300, 504, 256, 256, 152, None),     # 128 + 16 + 8, two 64-column TMA stores
    (300, 504, 256, 128, 152, None),     # the same with 128 rows, one TMA store
    (256, 1000, 200, 128, 200, 3),       # 128 + 64 + 8, K not a multiple of BK, 3 programs
    (130, 712, 64, 256, 136, None),      # 128 + 8: past a tile's rows, one k-step
    (512, 2048, 192, 128, 256, 5),       # 128 + 128
    (1000, 1304, 712, 256, 160, 7),      # 128 + 32
    (600, 1000, 320, 256, 176, None),    # 128 + 32 + 16: the second box from column 160
    (600, 1000, 320, 128, 168, None),    # 128 + 32 + 8
    (5000, 3000, 1000, None, None, None),  # fitted
    (3000, 5000, 4000, None, None, None),  # fitted: 256 x 152 on 132 SMs
])
def test_fitted_gemm(sm90, M, N, K, BM, BN, programs):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    ref = a.float() @ b.float().T
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    run, _ = fitted_gemm.kiln_fitted_matmul_launcher(a, b, BM=BM, BN=BN, out=c,
                                                      programs=programs)
    run()
    torch.cuda.synchronize()
    torch.testing.assert_close(c.float(), ref, atol=0.5, rtol=2e-2)
