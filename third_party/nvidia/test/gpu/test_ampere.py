"""The mma_v2 (mma.sync m16n8k16) GEMM of examples/ampere.py on the GPU, through kernel[grid]
on torch tensors: fresh random bf16 and fp16 inputs into a NaN-filled C, checked against the
fp32 product at shapes that are and are not multiples of the tiles, with several warp grids,
tiles and ring depths. mma.sync runs on sm_80 and later, so this runs on an H100 too.
Skips cleanly without torch, a driver or an NVIDIA device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
from examples import ampere  # noqa: E402  (the repository's examples folder)


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda:"):
        pytest.skip(f"mma.sync is NVIDIA-only; this device's target is {target}")
    return target


@pytest.mark.parametrize("m,n,k,dtype,cfg", [
    (1000, 1000, 1000, torch.bfloat16, {}),
    (4096, 4096, 4096, torch.bfloat16, {}),
    (8192, 4096, 2048, torch.float16, {}),
    (16, 8, 16, torch.bfloat16, {"BM": 16, "BN": 8, "BK": 16, "WARPS_M": 1, "WARPS_N": 1,
                                 "STAGES": 2}),
    (77, 4104, 520, torch.bfloat16, {"BM": 64, "BN": 128, "BK": 64, "WARPS_M": 4,
                                     "WARPS_N": 1, "STAGES": 4}),
    (3000, 24, 4096, torch.float16, {"BM": 64, "BN": 32, "BK": 32, "WARPS_M": 2,
                                     "WARPS_N": 2, "STAGES": 2}),
    (512, 520, 264, torch.bfloat16, {"BM": 128, "BN": 64, "BK": 32, "WARPS_M": 4,
                                     "WARPS_N": 2}),
])
def test_mma_v2_gemm(nvidia, m, n, k, dtype, cfg):
    for _ in range(2):
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(k, n, device="cuda").to(dtype)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        ampere.kiln_mma_v2_matmul(a, b, out=c, **cfg)
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        assert not torch.isnan(c).any()
        err = (c.float() - ref).norm() / ref.norm()
        assert err < 1e-2, f"relative error {err:.3g}"
        torch.testing.assert_close(c.float(), ref, rtol=1e-2, atol=1e-2 * k ** 0.5)


@pytest.mark.parametrize("m,n,k", [(1000, 1000, 1000), (4096, 4096, 4096)])
def test_tuned_mma_v2_gemm(nvidia, m, n, k):
    """tuned=True: kiln.autotune's pick among MMA_V2_CONFIGS; whatever it picks, the product
    is right, and the second call launches the remembered pick (the same bits)."""
    a = torch.randn(m, k, device="cuda").to(torch.float16)
    b = torch.randn(k, n, device="cuda").to(torch.float16)
    first = ampere.kiln_mma_v2_matmul(a, b, tuned=True)
    again = ampere.kiln_mma_v2_matmul(a, b, tuned=True)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert ((first.float() - ref).norm() / ref.norm()).item() < 1e-2
    assert torch.equal(first, again)
    assert ampere.mma_v2_gemm_tuned.best_config in ampere.MMA_V2_CONFIGS


def test_mma_v2_rejects_unaligned_rows(nvidia):
    a = torch.randn(64, 30, device="cuda").to(torch.bfloat16)
    b = torch.randn(30, 64, device="cuda").to(torch.bfloat16)
    with pytest.raises(ValueError, match="multiples of 8"):
        ampere.kiln_mma_v2_matmul(a, b)


def test_mma_v2_rejects_a_strided_out(nvidia):
    a = torch.randn(64, 32, device="cuda").to(torch.bfloat16)
    b = torch.randn(32, 64, device="cuda").to(torch.bfloat16)
    out = torch.empty(64, 128, device="cuda", dtype=torch.bfloat16)[:, ::2]
    with pytest.raises(ValueError, match="unit column stride"):
        ampere.kiln_mma_v2_matmul(a, b, out=out)
