"""Warp specialization on the GPU: examples/hopper_ws.py's GEMM (a TMA loader warp feeding the
kernel's wgmma warps through ready/empty mbarriers), one tile per program and persistent,
through kernel[grid] on torch tensors, checked against torch on fresh random inputs at shapes
that are and are not multiples of the tiles. Skips cleanly without torch, a driver or an
sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
from examples import hopper_ws  # noqa: E402  (the repository's examples folder)


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma and TMA need sm_90a; this device's target is {target}")
    return target


def _check(matmul, m, n, k, cfg):
    for _ in range(2):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        matmul(a, b, out=c, **cfg)
        torch.cuda.synchronize()
        ref = a.float() @ b.float().T
        assert not torch.isnan(c).any()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, f"relative error {err:.3g}"
        torch.testing.assert_close(c.float(), ref, rtol=1e-2, atol=1e-2 * k ** 0.5)


SHAPES = [(1000, 1000, 1000), (4096, 4096, 4096), (8192, 4096, 2048), (77, 4104, 520),
          (3000, 24, 4096), (128, 256, 64), (256, 512, 8)]
CFGS = [dict(), dict(BM=128, BN=128, BK=64, STAGES=4, num_warps=4)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("cfg", CFGS, ids=["128x256x64-s3-w8", "128x128x64-s4-w4"])
def test_ws_gemm(sm90, m, n, k, cfg):
    _check(hopper_ws.kiln_ws_matmul, m, n, k, cfg)


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("cfg", CFGS, ids=["128x256x64-s3-w8", "128x128x64-s4-w4"])
def test_ws_persistent_gemm(sm90, m, n, k, cfg):
    _check(hopper_ws.kiln_ws_persistent_matmul, m, n, k, cfg)



@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("m,n,k", [(1000, 1000, 1000), (2048, 2048, 2048), (777, 520, 4104)])
def test_tuned_ws_gemm(sm90, persistent, m, n, k):
    """tuned=True: kiln.autotune picks among WS_CONFIGS (the pre_hook sets each TMA
    descriptor's block per config) for one tile per program and for the persistent schedule;
    any pick is correct, on the first call (which times the configs) and the next."""
    fn = hopper_ws.kiln_ws_persistent_matmul if persistent else hopper_ws.kiln_ws_matmul
    _check(fn, m, n, k, {"tuned": True})
    assert hopper_ws.ws_gemm_tuned.best_config in hopper_ws.WS_CONFIGS
