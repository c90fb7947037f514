"""Hopper TMA + mbarrier + wgmma on the GPU, through kernel[grid] on torch tensors:
examples/hopper.py's TMA copy and its pipelined GEMM (Gluon's kernel with the imports
swapped), checked against torch on fresh random inputs at shapes that are and are not
multiples of the tiles. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
from examples import hopper  # noqa: E402  (the repository's examples folder)


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA and wgmma need sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("shape,dtype,block", [
    ((1000, 520), torch.bfloat16, (64, 128)),
    ((4096, 4096), torch.bfloat16, (64, 128)),
    ((333, 264), torch.float32, (32, 32)),
    ((128, 64), torch.float16, (64, 64)),
])
def test_tma_copy(sm90, shape, dtype, block):
    for _ in range(2):
        x = torch.randn(shape, device="cuda").to(dtype)
        y = torch.full_like(x, float("nan"))
        hopper.kiln_tma_copy(x, block=block, out=y)
        torch.cuda.synchronize()
        assert torch.equal(y, x)


def _reference(a, b):
    return (a.float() @ b.float().T)


def _check_matmul(matmul, m, n, k, cfg, what=""):
    """Twice, on fresh random inputs into a NaN-filled C: matmul(a, b, out=c, **cfg) against
    the fp32 product."""
    for _ in range(2):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        matmul(a, b, out=c, **cfg)
        torch.cuda.synchronize()
        ref = _reference(a, b)
        assert not torch.isnan(c).any()
        err = (c.float() - ref).norm() / ref.norm()
        assert err < 1e-2, f"relative error {err:.3g}{what}"
        torch.testing.assert_close(c.float(), ref, rtol=1e-2, atol=1e-2 * k ** 0.5)


@pytest.mark.parametrize("m,n,k,cfg", [
    (1000, 1000, 1000, {}),
    (4096, 4096, 4096, {}),
    (8192, 4096, 2048, {}),
    (64, 4096, 1024, {}),          # M smaller than one tile
    (4096, 8, 512, {}),            # N smaller than one tile
    (300, 264, 200, {"STAGES": 2}),
    (1024, 1024, 1024, {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "num_warps": 4}),
    (777, 520, 4104, {"BN": 128, "STAGES": 4}),
])
def test_gemm(sm90, m, n, k, cfg):
    _check_matmul(hopper.kiln_matmul, m, n, k, cfg)


@pytest.mark.parametrize("m,n,k", [(1000, 1000, 1000), (4096, 4096, 4096), (777, 520, 4104)])
def test_tuned_gemm(sm90, m, n, k):
    """tuned=True: kiln.autotune picks among GEMM_CONFIGS, whose pre_hook sets each TMA
    descriptor's block and layout per config (Triton's pattern); any pick is correct, and
    the descriptors the hook changed still encode right on the next call."""
    _check_matmul(hopper.kiln_matmul, m, n, k, {"tuned": True})
    assert hopper.gemm_kernel_tuned.best_config in hopper.GEMM_CONFIGS


def _num_sms():
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


@pytest.mark.parametrize("m,n,k,cfg", [
    (1000, 1000, 1000, {}),
    (4096, 4096, 4096, {}),        # ~4 tiles a program on 132 SMs; num_k % STAGES != 0
    (777, 520, 4104, {"BN": 128, "STAGES": 4}),
    (256, 512, 4096, {}),          # 4 tiles: fewer tiles than SMs
    (4096, 4096, 64, {}),          # one k-step a tile: fewer k-steps than prologue slots
    (2000, 3000, 200, {"BN": 128, "STAGES": 2}),
    (3072, 2048, 1024, {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "num_warps": 4}),
])
def test_persistent_gemm(sm90, m, n, k, cfg):
    tiles = hopper._cdiv(m, cfg.get("BM", 128)) * hopper._cdiv(n, cfg.get("BN", 256))
    if (m, n, k) == (256, 512, 4096):
        assert tiles < _num_sms()
    _check_matmul(hopper.kiln_persistent_matmul, m, n, k, cfg, f" ({tiles} tiles)")


def test_persistent_gemm_launcher_reuses_descriptors(sm90):
    """run() relaunches on the same buffers: new values in a and b give a new c."""
    m, n, k = 2048, 2048, 512
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    run, c = hopper.kiln_persistent_matmul_launcher(a, b)
    for _ in range(2):
        a.normal_()
        b.normal_()
        c.fill_(float("nan"))
        assert run() is c
        torch.cuda.synchronize()
        torch.testing.assert_close(c.float(), _reference(a, b), rtol=1e-2, atol=1e-2 * k ** 0.5)


# --- wgmma with A in registers -------------------------------------------------------------

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import mbarrier, tma, warpgroup_mma  # noqa: E402


@kiln.jit
def register_a_gemm_kernel(a_desc, b_desc, c_ptr, M, N, K, stride_cm,
                           num_warps: kl.constexpr):
    """C (fp32) = A @ B^T, one TMA-filled A and B tile per k-step (no ring), A read from shared
    memory into wgmma's register-operand layout, B from shared memory."""
    BM: kl.constexpr = a_desc.block_type.shape[0]
    BK: kl.constexpr = a_desc.block_type.shape[1]
    BN: kl.constexpr = b_desc.block_type.shape[0]
    acc_l: kl.constexpr = kl.NVMMADistributedLayout(version=[3, 0],
                                                    warps_per_cta=[num_warps, 1],
                                                    instr_shape=[16, BN, 16])
    a_op: kl.constexpr = kl.DotOperandLayout(operand_index=0, parent=acc_l, k_width=2)
    a_s = kl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_s = kl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    off_m = kl.program_id(0) * BM
    off_n = kl.program_id(1) * BN
    acc = kl.zeros([BM, BN], kl.float32, acc_l)
    phase = 0
    for k in range(0, K, BK):
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k], bar, a_s)
        tma.async_copy_global_to_shared(b_desc, [off_n, k], bar, b_s)
        mbarrier.wait(bar, phase)
        phase ^= 1
        a = a_s.load(a_op)
        acc = warpgroup_mma(a, b_s.permute((1, 0)), acc)
    mbarrier.invalidate(bar)
    rows = off_m + kl.arange(0, BM, kl.SliceLayout(1, acc_l))
    cols = off_n + kl.arange(0, BN, kl.SliceLayout(0, acc_l))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    kl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)


@pytest.mark.parametrize("m,n,k,BM,BN,BK,num_warps,dtype", [
    (1000, 1000, 1000, 128, 128, 64, 8, torch.bfloat16),
    (256, 264, 520, 64, 64, 32, 4, torch.float16),
    (77, 4104, 200, 64, 256, 64, 4, torch.bfloat16),
])
def test_register_a_gemm(sm90, m, n, k, BM, BN, BK, num_warps, dtype):
    for _ in range(2):
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(n, k, device="cuda").to(dtype)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        a_desc = hopper._descriptor(a, (BM, BK))
        b_desc = hopper._descriptor(b, (BN, BK))
        grid = (hopper._cdiv(m, BM), hopper._cdiv(n, BN))
        register_a_gemm_kernel[grid](a_desc, b_desc, c, m, n, k, c.stride(0),
                                     num_warps=num_warps)
        torch.cuda.synchronize()
        ref = a.float() @ b.float().T
        assert not torch.isnan(c).any()
        torch.testing.assert_close(c, ref, rtol=2e-3, atol=2e-3 * k ** 0.5)
