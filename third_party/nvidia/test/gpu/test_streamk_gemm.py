"""examples/streamk_gemm.py on a Hopper GPU: the persistent warp-specialized GEMM whose last
tiles are split along K among all programs, against torch on fresh random inputs. The shapes
and program counts cover every plan: tiles a multiple of the programs (no split), fewer tiles
than programs (every tile split), a wave and a remainder, one k-step a tile, pieces of one
k-step, and a second launch (the counters must have been left at zero). Skips cleanly without
torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import streamk_gemm  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"the Stream-K GEMM uses TMA and wgmma (sm_90a); this device's target is "
                    f"{target}")
    return target


@pytest.mark.parametrize("M,N,K,BN,programs", [
    (1024, 1024, 1024, 256, None),   # 32 tiles on min(SMs, 32): every program one whole tile
    (1024, 1024, 1024, 256, 5),      # 32 tiles on 5: 5 whole tiles each, 7 split ones
    (1000, 1304, 712, 256, 7),       # ragged, a wave and a remainder
    (1000, 1304, 712, 128, 13),
    (300, 504, 4000, 256, None),     # 6 tiles on more programs: every tile split
    (256, 512, 64, 256, 3),          # one k-step a tile: pieces are whole or nothing
    (136, 264, 200, 128, 16),        # more programs than k-steps of the split tiles
    (3000, 5000, 4000, 256, None),   # the benchmark's ragged shape
])
def test_streamk_gemm(sm90, M, N, K, BN, programs):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    ref = a.float() @ b.float().T
    c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
    run, _ = streamk_gemm.kiln_streamk_matmul_launcher(a, b, BN=BN, out=c, programs=programs)
    for _ in range(2):  # the second launch finds the counters the first left at zero
        c.fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        torch.testing.assert_close(c.float(), ref, atol=0.5, rtol=2e-2)
