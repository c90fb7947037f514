"""The textbook Gluon GEMM (examples/hopper_kn.py): A [M, K] and B [K, N] both row-major,
wgmma reading B N-contiguous (transposed by the instruction), against torch.matmul on fresh
random inputs, ragged shapes included (TMA zero-fills the loads and clips the store; a TMA
descriptor needs row strides of a multiple of 16 bytes, so K and N are multiples of 8)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
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


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("M,N,K", [(1000, 2056, 72), (2048, 2048, 2048), (777, 328, 1000)])
def test_tuned_matmul_kn(hopper, dtype, M, N, K):
    """tuned=True: kiln.autotune picks among KN_CONFIGS, whose pre_hook sets each TMA
    descriptor's block and layout per config; any pick is correct, on the first call (which
    times the configs) and on the next (the remembered pick)."""
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    ref = (a.float() @ b.float()).to(dtype)
    for _ in range(2):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
        out = hopper_kn.kiln_matmul_kn(a, b, tuned=True, out=c)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, ref, rtol=2e-2, atol=2e-2 * (K ** 0.5) / 8)
    assert hopper_kn.matmul_kn_tuned.best_config in hopper_kn.KN_CONFIGS
    with pytest.raises(TypeError, match="picks the tile itself"):
        hopper_kn.kiln_matmul_kn(a, b, tuned=True, BM=64)


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


import kiln  # noqa: E402
import kiln.language as gl  # noqa: E402
from kiln.language.nvidia.hopper import fence_async_shared, warpgroup_mma  # noqa: E402


@kiln.jit
def mn_major_kernel(at_ptr, b_ptr, c_ptr, M: gl.constexpr, N: gl.constexpr,
                    K: gl.constexpr, A_M_MAJOR: gl.constexpr):
    """One [M, N] tile of C = A @ B with B [K, N] row-major (N-contiguous) and A either
    [M, K] row-major (K-contiguous) or given as A^T [K, M] row-major, read through a permuted
    view (M-contiguous: wgmma reads it transposed)."""
    L: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    rk = gl.arange(0, K, gl.SliceLayout(1, L))
    rn = gl.arange(0, N, gl.SliceLayout(0, L))
    b = gl.load(b_ptr + rk[:, None] * N + rn[None, :])
    sb = gl.allocate_shared_memory(gl.bfloat16, [K, N],
                                   gl.NVMMASharedLayout.get_default_for([K, N], gl.bfloat16), b)
    if A_M_MAJOR:
        rm = gl.arange(0, M, gl.SliceLayout(0, L))
        at = gl.load(at_ptr + rk[:, None] * M + rm[None, :])
        sat = gl.allocate_shared_memory(
            gl.bfloat16, [K, M], gl.NVMMASharedLayout.get_default_for([K, M], gl.bfloat16), at)
        sa = sat.permute((1, 0))
    else:
        rm = gl.arange(0, M, gl.SliceLayout(1, L))
        rka = gl.arange(0, K, gl.SliceLayout(0, L))
        a = gl.load(at_ptr + rm[:, None] * K + rka[None, :])
        sa = gl.allocate_shared_memory(
            gl.bfloat16, [M, K], gl.NVMMASharedLayout.get_default_for([M, K], gl.bfloat16), a)
    fence_async_shared()
    acc_l: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                    instr_shape=[16, N, 16])
    acc = warpgroup_mma(sa, sb, gl.zeros([M, N], gl.float32, acc_l))
    acc = gl.convert_layout(acc, L)
    rmc = gl.arange(0, M, gl.SliceLayout(1, L))
    gl.store(c_ptr + rmc[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("a_m_major", [False, True])
@pytest.mark.parametrize("N", [64, 128])
def test_mn_major_operands(hopper, a_m_major, N):
    M, K = 64, 64
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    src = a.t().contiguous() if a_m_major else a
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
    mn_major_kernel[(1,)](src, b, c, M=M, N=N, K=K, A_M_MAJOR=a_m_major, num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-2)
