"""examples/cluster_gemm.py on a Hopper GPU: the warp-specialized GEMM on clusters of 2 and 4
CTAs along M, B tiles shared by TMA multicast and the ring's slots released in every CTA
(``mbarrier.arrive(..., cta_mask=)``), one tile a cluster and persistent, against torch on
fresh random inputs, square and ragged. Skips cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import cluster_gemm  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters with TMA multicast need sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("cluster_m,BN,stages", [(2, 256, 3), (2, 128, 4), (4, 128, 4)])
@pytest.mark.parametrize("M,N,K", [(1024, 1024, 1024), (1000, 1304, 712), (136, 264, 64)])
def test_cluster_gemm(sm90, persistent, cluster_m, BN, stages, M, N, K):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    for _ in range(2):  # a second launch reuses the kernel and finds fresh barriers
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        cluster_gemm.kiln_cluster_matmul(a, b, c, BN=BN, STAGES=stages, CLUSTER_M=cluster_m,
                                         persistent=persistent)
        torch.cuda.synchronize()
        torch.testing.assert_close(c.float(), a.float() @ b.float().T, atol=0.5, rtol=2e-2)


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("cluster_m,BN,stages", [(2, 256, 3), (2, 128, 4)])
@pytest.mark.parametrize("M,N,K", [(1024, 1024, 1024), (1000, 1304, 768), (136, 264, 128)])
def test_cluster_gemm_fp8(sm90, persistent, cluster_m, BN, stages, M, N, K):
    """e4m3 operands with per-tensor scales (fp32 scalars on the device), bf16 out: against
    the scaled fp32 product of the same fp8 values (the hardware accumulates all of K in its
    own precision, as torch._scaled_mm's use_fast_accum)."""
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("this torch has no float8_e4m3fn")
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
    sa = torch.rand(1, device="cuda") + 0.5
    sb = torch.rand(1, device="cuda") + 0.5
    ref = (a.float() @ b.float().T) * (sa * sb)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    cluster_gemm.kiln_cluster_matmul(a, b, c, BN=BN, STAGES=stages, CLUSTER_M=cluster_m,
                                     persistent=persistent, a_scale=sa, b_scale=sb)
    torch.cuda.synchronize()
    torch.testing.assert_close(c.float(), ref, atol=2e-2 * ref.abs().max().item(), rtol=2e-2)


def test_cluster_gemm_scales_go_with_fp8(sm90):
    a = torch.randn(64, 64, device="cuda").to(torch.bfloat16)
    with pytest.raises(ValueError, match="fp8 operands take a_scale and b_scale"):
        cluster_gemm.kiln_cluster_matmul(a, a, a_scale=torch.ones(1, device="cuda"),
                                         b_scale=torch.ones(1, device="cuda"))
