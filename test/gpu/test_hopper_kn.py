"""The textbook Gluon GEMM (examples/hopper_kn.py): A [M, K] and B [K, N] both row-major,
wgmma reading B N-contiguous (transposed by the instruction), against torch.matmul on fresh
random inputs, ragged shapes included (TMA zero-fills the loads and clips the store; a TMA
descriptor needs row strides of a multiple of 16 bytes, so K and N are multiples of 8)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))
import hopper_kn  # noqa: E402


@pytest.fixture
def hopper(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma and TMA need sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("M,N,K", [(128, 256, 64), (512, 512, 512), (1000, 2056, 72),
                                   (300, 600, 520), (64, 40, 8), (777, 328, 1000)])
def test_matmul_kn(hopper, dtype, M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    out = hopper_kn.kiln_matmul_kn(a, b, out=c)
    torch.cuda.synchronize()
    ref = (a.float() @ b.float()).to(dtype)
    torch.testing.assert_close(out, ref, rtol=2e-2, atol=2e-2 * (K ** 0.5) / 8)


@pytest.mark.parametrize("BN,num_warps", [(128, 4), (64, 4)])
def test_matmul_kn_tile_shapes(hopper, BN, num_warps):
    """Narrower B tiles: one or two swizzle chunks of N per wgmma (the descriptor's leading
    byte offset steps between chunks)."""
    M, N, K = 256, 384, 192
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    out = hopper_kn.kiln_matmul_kn(a, b, BM=64, BN=BN, BK=64, num_warps=num_warps)
    torch.cuda.synchronize()
    torch.testing.assert_close(out.float(), a.float() @ b.float(), rtol=2e-2, atol=0.3)
