"""wgmma over the accumulator's first ``cols`` columns (``warpgroup_mma(..., cols=)``, a Kiln
extension): the instructions' N is ``cols`` where it ends inside an instruction tile, the
tiles past it are not issued, and the other columns of the result are zero. Checked
against torch on fresh random inputs with a random starting accumulator, for bf16, f16 into
f16, fp8 and tf32, B K- or MN-contiguous, one or two warpgroups along M, synchronous and
asynchronous. A wrong N or a wrong register prefix shows in the comparison (the columns past
``cols`` must come back exactly zero)."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


@kiln.jit
def cols_mma(a, b, c, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
             COLS: kl.constexpr, shared_a: kl.constexpr, shared_b: kl.constexpr,
             mma: kl.constexpr, ASYNC: kl.constexpr, WARPS: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [WARPS, 1], [1, 0])
    ra = kl.arange(0, M, layout=kl.SliceLayout(1, blocked))[:, None]
    ka = kl.arange(0, K, layout=kl.SliceLayout(0, blocked))[None, :]
    kb = kl.arange(0, K, layout=kl.SliceLayout(1, blocked))[:, None]
    nb = kl.arange(0, N, layout=kl.SliceLayout(0, blocked))[None, :]
    smem_a = kl.allocate_shared_memory(a.dtype.element_ty, [M, K], shared_a,
                                       kl.load(a + ra * K + ka))
    smem_b = kl.allocate_shared_memory(b.dtype.element_ty, [K, N], shared_b,
                                       kl.load(b + kb * N + nb))
    hopper.fence_async_shared()
    offs = ra * N + nb
    acc = kl.convert_layout(kl.load(c + offs), mma)
    acc = hopper.warpgroup_mma(smem_a, smem_b, acc, is_async=ASYNC, cols=COLS)
    if ASYNC:
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    kl.store(out + offs, kl.convert_layout(acc, blocked))


DTYPES = {"bf16": (torch.bfloat16, kl.bfloat16), "f16": (torch.float16, kl.float16),
          "e4m3": (torch.float8_e4m3fn, kl.float8e4nv), "tf32": (torch.float32, kl.float32)}

CASES = [
    # (dtype, acc, M, N, K, instruction N, cols, b K-major, warps, async)
    ("bf16", "f32", 128, 256, 64, 256, 152, True, 8, True),    # the ragged GEMM's tile
    ("bf16", "f32", 64, 256, 64, 64, 152, False, 4, False),    # tiles of 64, B MN-major
    ("bf16", "f32", 64, 256, 64, 256, 8, True, 4, True),       # the narrowest
    ("bf16", "f32", 128, 128, 32, 128, 120, False, 8, False),
    ("f16", "f16", 64, 64, 32, 64, 40, True, 4, True),         # f16 pairs
    ("e4m3", "f32", 64, 128, 64, 128, 24, True, 4, False),
    ("tf32", "f32", 64, 64, 32, 64, 56, True, 4, True),
]


@pytest.mark.parametrize("dtype,acc_dt,M,N,K,instr_n,cols,b_kmajor,warps,is_async", CASES)
def test_wgmma_cols(target, dtype, acc_dt, M, N, K, instr_n, cols, b_kmajor, warps, is_async):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    torch_dt, kl_dt = DTYPES[dtype]
    acc_torch = {"f32": torch.float32, "f16": torch.float16}[acc_dt]
    bits = torch.finfo(torch_dt).bits
    torch.manual_seed(hash((dtype, M, N, K, instr_n, cols)) % 2**31)
    a = torch.randn(M, K, device="cuda").to(torch_dt)
    b = torch.randn(K, N, device="cuda").to(torch_dt)
    c = torch.randn(M, N, device="cuda").to(acc_torch)
    out = torch.full((M, N), float("nan"), device="cuda", dtype=acc_torch)
    swizzle = min(128, K * bits // 8)
    shared_a = kl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=2)
    shared_b = kl.NVMMASharedLayout(swizzle_byte_width=swizzle if b_kmajor else 128,
                                    element_bitwidth=bits, rank=2, transposed=b_kmajor)
    mma = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[warps, 1],
                                    instr_shape=[16, instr_n, 256 // bits])
    k = cols_mma[(1,)](a, b, c, out, M, N, K, cols, shared_a, shared_b, mma, is_async, warps,
                       num_warps=warps)
    widths = {int(w) for w in re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)",
                                         k.asm["ptx"])}
    assert widths == {min(instr_n, cols - o) for o in range(0, cols, instr_n)}
    prec = torch.float32
    ref = c.float().clone()
    ref[:, :cols] += (a.to(prec) @ b[:, :cols].to(prec))
    got = out.float()
    assert torch.equal(got[:, cols:], torch.zeros_like(got[:, cols:])), "columns past cols"
    tol = {"f32": 2e-2, "f16": 6e-2}[acc_dt] * K ** 0.5
    if dtype == "tf32":
        tol = 5e-2 * K ** 0.5
    torch.testing.assert_close(got[:, :cols], ref[:, :cols], atol=tol, rtol=5e-2)
