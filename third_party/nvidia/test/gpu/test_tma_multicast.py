"""TMA multicast into a thread-block cluster (Gluon's ``async_load(..., multicast=True)``) on
a Hopper GPU, against torch on fresh random inputs: a block copied through the shared memory
of clusters of 2, 4 and 16 CTAs whose layouts repeat parts (as Gluon's own copy test), and a
GEMM whose A and B blocks are each loaded once for the CTAs that share them. Skips cleanly
without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tma_multicast_kernels as k  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA multicast needs sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("multicast", [True, False])
@pytest.mark.parametrize("ctas_per_cga", [[2, 1], [1, 2], [1, 4], [4, 4]])
def test_multicast_copy(sm90, ctas_per_cga, multicast):
    split = [min(c, 2) for c in ctas_per_cga]
    cga = k.cga_layout(ctas_per_cga, split)
    block = [16 * split[0], 16 * split[1]]
    layout = kl.NVMMASharedLayout.get_default_for(block, kl.float16, cga_layout=cga)
    for _ in range(2):
        inp = torch.randn(block, dtype=torch.float16, device="cuda")
        out = torch.full_like(inp, float("nan"))
        k.multicast_copy[(1,)](TensorDescriptor.from_tensor(inp, block, layout),
                               TensorDescriptor.from_tensor(out, block, layout), multicast,
                               num_warps=4, num_ctas=ctas_per_cga[0] * ctas_per_cga[1])
        torch.cuda.synchronize()
        assert torch.equal(out, inp)


@pytest.mark.parametrize("multicast", [True, False])
@pytest.mark.parametrize("bits_m,bits_n", [(1, 0), (0, 1), (1, 1), (2, 1)])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 712)])
def test_multicast_gemm(sm90, bits_m, bits_n, multicast, M, N, K):
    BM, BN, la, lb, acc, out = k.gemm_layouts(bits_m, bits_n)
    a = torch.randn(M, K, dtype=torch.float16, device="cuda")
    b = torch.randn(K, N, dtype=torch.float16, device="cuda")
    c = torch.full((M, N), float("nan"), dtype=torch.float32, device="cuda")
    grid = (-(-M // BM), -(-N // BN))
    k.multicast_gemm[grid](TensorDescriptor.from_tensor(a, [BM, 64], la),
                           TensorDescriptor.from_tensor(b, [64, BN], lb), c, M, N, K,
                           multicast, acc, out, num_warps=4, num_ctas=1 << (bits_m + bits_n))
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a.float() @ b.float(), atol=2e-2, rtol=1e-3)
