"""wgmma in every form Gluon allows on Hopper, against torch on fresh random inputs: f16 into
f16 or f32, bf16, tf32 (f32 operands), fp8 e4m3/e5m2 into f16 or f32; A and B K- or
MN-contiguous (16-bit types); NVMMA swizzles 0/32/64/128 and unswizzled core matrices as a
SharedLinearLayout; one or two warpgroups along M or N; the accumulator tile repeated along M
and N. The kernel is the one Triton's test_mma_shared_inputs uses, written with Kiln's names
(its layouts for A, B and the output are set with set_auto_layout)."""

from __future__ import annotations

import itertools

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


@kiln.jit
def mma_kernel(a, b, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
               layout_a: kl.constexpr, layout_b: kl.constexpr, layout_c: kl.constexpr,
               mma_layout: kl.constexpr, shared_a: kl.constexpr, shared_b: kl.constexpr,
               acc_dtype: kl.constexpr, ASYNC: kl.constexpr):
    a_tile = kl.load(kl.set_auto_layout(
        a + kl.arange(0, M)[:, None] * K + kl.arange(0, K)[None, :], layout_a))
    b_tile = kl.load(kl.set_auto_layout(
        b + kl.arange(0, K)[:, None] * N + kl.arange(0, N)[None, :], layout_b))
    smem_a = kl.allocate_shared_memory(a.dtype.element_ty, [M, K], shared_a, a_tile)
    smem_b = kl.allocate_shared_memory(b.dtype.element_ty, [K, N], shared_b, b_tile)
    hopper.fence_async_shared()
    acc = kl.zeros([M, N], dtype=acc_dtype, layout=mma_layout)
    acc = hopper.warpgroup_mma(smem_a, smem_b, acc, is_async=ASYNC)
    if ASYNC:
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    acc = kl.convert_layout(acc, layout_c)
    offs = kl.arange(0, M)[:, None] * N + kl.arange(0, N)[None, :]
    kl.store(kl.set_auto_layout(out + offs, layout_c), acc)


def _unswizzled(rows, cols, transposed, bits):
    """wgmma's unswizzled core matrices for a [rows, cols] buffer with cols contiguous (rows
    contiguous when transposed): 16 bytes of the contiguous dimension, then all of the other,
    then the next 16 bytes."""
    if transposed:
        t = _unswizzled(cols, rows, False, bits)
        return kl.SharedLinearLayout([[c, r] for r, c in t.offset_bases])
    chunk = 128 // bits
    log2 = lambda x: x.bit_length() - 1  # noqa: E731
    bases = [[0, 1 << i] for i in range(log2(chunk))]
    bases += [[1 << i, 0] for i in range(log2(rows))]
    bases += [[0, chunk << i] for i in range(log2(cols // chunk))]
    return kl.SharedLinearLayout(bases)


DTYPES = {"f16": (torch.float16, kl.float16), "bf16": (torch.bfloat16, kl.bfloat16),
          "tf32": (torch.float32, kl.float32), "e4m3": (torch.float8_e4m3fn, kl.float8e4nv),
          "e5m2": (torch.float8_e5m2, kl.float8e5)}

CASES = [
    # (dtype, acc, transpose_a, transpose_b, warps, swizzle_a, swizzle_b, m_reps, n_reps)
    ("f16", "f32", False, True, [4, 1], 128, 128, 1, 1),
    ("f16", "f16", False, True, [4, 1], 64, 32, 2, 2),
    ("f16", "f16", True, False, [4, 2], 32, 64, 1, 2),
    ("f16", "f32", True, False, [8, 1], 128, 64, 2, 1),
    ("bf16", "f32", False, False, [4, 1], 64, 128, 1, 4),
    ("f16", "f32", False, True, [4, 1], 0, 0, 2, 2),
    ("f16", "f16", False, True, [8, 1], 0, 128, 1, 1),
    ("f16", "f32", True, True, [4, 2], 0, 32, 1, 1),
    ("tf32", "f32", False, True, [4, 1], 128, 128, 1, 1),
    ("tf32", "f32", False, True, [4, 2], 32, 0, 2, 2),
    ("e4m3", "f32", False, True, [4, 1], 128, 64, 1, 2),
    ("e4m3", "f16", False, True, [8, 1], 0, 32, 2, 1),
    ("e5m2", "f32", False, True, [4, 1], 64, 64, 1, 1),
]


def _shapes(bits, warps, sw_a, sw_b, ta, tb, m_reps, n_reps):
    m, n, k = 16 * warps[0], 32 * warps[1], 256 // bits

    def at_least(sw, d0, d1, trans):  # one swizzle row along the contiguous dimension
        cols = 8 * max(16, sw) // bits
        if trans:
            return max(d0, cols), max(d1, 8)
        return max(d0, 8), max(d1, cols)
    m, k = at_least(sw_a, m, k, ta)
    k, n = at_least(sw_b, k, n, tb)
    return m * m_reps, n * n_reps, k


@pytest.mark.parametrize("dtype,acc,ta,tb,warps,sw_a,sw_b,m_reps,n_reps", CASES)
@pytest.mark.parametrize("is_async", [False, True])
def test_wgmma_forms(target, dtype, acc, ta, tb, warps, sw_a, sw_b, m_reps, n_reps, is_async):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    torch_dt, kl_dt = DTYPES[dtype]
    bits = torch.finfo(torch_dt).bits
    M, N, K = _shapes(bits, warps, sw_a, sw_b, ta, tb, m_reps, n_reps)
    torch.manual_seed(hash((dtype, acc, M, N, K)) % 2**31)
    a = torch.randn(M, K, device="cuda").to(torch_dt)
    b = torch.randn(K, N, device="cuda").to(torch_dt)
    if dtype == "tf32":  # values tf32 holds exactly
        a = (a.view(torch.int32) & ~0x1FFF).view(torch.float32)
        b = (b.view(torch.int32) & ~0x1FFF).view(torch.float32)
    out = torch.full((M, N), float("nan"), device="cuda")

    def shared(sw, rows, cols, trans):
        if sw == 0:
            return _unswizzled(rows, cols, trans, bits)
        return kl.NVMMASharedLayout(swizzle_byte_width=sw, element_bitwidth=bits, rank=2,
                                    transposed=trans)
    blocked_a = kl.BlockedLayout([1, 8], [1, 32], warps, [0, 1])
    blocked = kl.BlockedLayout([1, 8], [1, 32], warps, [1, 0])
    mma = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=warps,
                                    instr_shape=[16, 32 * n_reps, 256 // bits])
    mma_kernel[(1,)](a, b, out, M, N, K, blocked_a, blocked, blocked, mma,
                     shared(sw_a, M, K, ta), shared(sw_b, K, N, tb),
                     kl.float16 if acc == "f16" else kl.float32, is_async,
                     num_warps=warps[0] * warps[1])
    ref = a.float() @ b.float()
    if acc == "f16":
        ref = ref.half().float()
    tol = {"f16": 1e-2, "bf16": 2e-2, "tf32": 1e-2, "e4m3": 2e-2, "e5m2": 2e-2}[dtype]
    torch.testing.assert_close(out, ref, atol=tol * K ** 0.5, rtol=tol * 4)


@pytest.mark.parametrize("warps", [8, 16])
@pytest.mark.parametrize("is_async", [False, True])
def test_wgmma_repeated_warpgroups(target, warps, is_async):
    """More warpgroups than 64-row blocks (Gluon's tutorial 05 runs 8 warps on M = 64): the
    extra warpgroups repeat warpgroup 0's tiles, and every copy of the result is right."""
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    M, N, K = 64, 64, 32
    torch.manual_seed(warps)
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    out = torch.full((M, N), float("nan"), device="cuda")
    nv = kl.NVMMASharedLayout.get_default_for
    blocked = kl.BlockedLayout([1, 8], [1, 32], [warps, 1], [1, 0])
    mma = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[warps, 1],
                                    instr_shape=[16, 64, 16])
    mma_kernel[(1,)](a, b, out, M, N, K, blocked, blocked, blocked, mma,
                     nv([M, K], kl.float16), nv([K, N], kl.float16), kl.float32, is_async,
                     num_warps=warps)
    torch.testing.assert_close(out, a.float() @ b.float(), atol=1e-2 * K ** 0.5, rtol=4e-2)


@kiln.jit
def rs_kernel(a, b, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
              KW: kl.constexpr):
    """a (M x K, row-major) from registers, b (K x N, row-major) through a K-contiguous shared
    buffer: out = a @ b in fp32."""
    acc_l: kl.constexpr = kl.NVMMADistributedLayout([3, 0], [4, 1], [16, N, 8 * KW])
    ld: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    r = kl.arange(0, M, layout=kl.SliceLayout(1, ld))
    k = kl.arange(0, K, layout=kl.SliceLayout(0, ld))
    x = kl.convert_layout(kl.load(a + r[:, None] * K + k[None, :]), kl.DotOperandLayout(0, acc_l, KW))
    kr = kl.arange(0, K, layout=kl.SliceLayout(1, ld))
    n = kl.arange(0, N, layout=kl.SliceLayout(0, ld))
    bs = kl.allocate_shared_memory(b.dtype.element_ty, [K, N],
                                   kl.NVMMASharedLayout.get_default_for([K, N], b.dtype.element_ty,
                                                                        transposed=True),
                                   kl.load(b + kr[:, None] * N + n[None, :]))
    hopper.fence_async_shared()
    acc = hopper.warpgroup_mma(x, bs, kl.zeros([M, N], kl.float32, acc_l))
    orow = kl.arange(0, M, layout=kl.SliceLayout(1, acc_l))
    ocol = kl.arange(0, N, layout=kl.SliceLayout(0, acc_l))
    kl.store(out + orow[:, None] * N + ocol[None, :], acc)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "e4m3", "e5m2"])
def test_wgmma_a_from_registers(target, dtype):
    """A in registers for 16-bit types (k_width 2) and fp8 (k_width 4: four values a register,
    as Gluon asks), against torch in fp32 on the same rounded inputs."""
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    tdt, _ = DTYPES[dtype]
    M, N, K = 64, 32, 128
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(M, K, device="cuda", generator=g).to(tdt)
    b = torch.randn(K, N, device="cuda", generator=g).to(tdt)
    out = torch.full((M, N), float("nan"), device="cuda")
    rs_kernel[(1,)](a, b, out, M, N, K, 4 if dtype.startswith("e") else 2, num_warps=4)
    # fp8 sums are not kept in full fp32 inside the instruction: the forms test's tolerances
    tol = {"f16": 1e-2, "bf16": 2e-2, "e4m3": 2e-2, "e5m2": 2e-2}[dtype]
    torch.testing.assert_close(out, a.float() @ b.float(), atol=tol * K ** 0.5, rtol=tol * 4)
