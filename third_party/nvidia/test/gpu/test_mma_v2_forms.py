"""mma_v2 in the forms Gluon accepts, against torch on fresh random inputs: f16 into an f16
accumulator, bf16 into f32, f32 read as tf32 (m16n8k8), with k_width 2 and 8 (k_width 8 orders
K differently inside each instruction, the same way for a and b). The kernel is Triton's
test_mma_v2 kernel with Kiln's names; it runs on sm_80 and sm_90a alike."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import mma_v2

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


@kiln.jit
def mma_kernel(a_ptr, b_ptr, c_ptr, out_ptr, B: kl.constexpr, KW: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 1], [32, 1], [kl.num_warps(), 1], [1, 0])
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(
        version=[2, 0], warps_per_cta=[kl.num_warps(), 1], instr_shape=[16, 8])
    lhs: kl.constexpr = kl.DotOperandLayout(parent=acc_layout, operand_index=0, k_width=KW)
    rhs: kl.constexpr = kl.DotOperandLayout(parent=acc_layout, operand_index=1, k_width=KW)
    offs = kl.arange(0, B, layout=kl.SliceLayout(1, layout))[:, None] * B + \
        kl.arange(0, B, layout=kl.SliceLayout(0, layout))[None, :]
    a = kl.convert_layout(kl.load(a_ptr + offs), lhs)
    b = kl.convert_layout(kl.load(b_ptr + offs), rhs)
    c = kl.convert_layout(kl.load(c_ptr + offs), acc_layout)
    if c.dtype == kl.bfloat16:
        out = mma_v2(a, b, c.to(kl.float32)).to(kl.bfloat16)
    else:
        out = mma_v2(a, b, c)
    kl.store(out_ptr + offs, kl.convert_layout(out, layout))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("k_width", [2, 8])
@pytest.mark.parametrize("B", [64, 128])
def test_mma_v2_forms(target, dtype, k_width, B):
    torch.manual_seed(B * 10 + k_width)
    a, b, c = (torch.randn(B, B, device="cuda", dtype=dtype) for _ in range(3))
    out = torch.full_like(a, float("nan"))
    mma_kernel[(1,)](a, b, c, out, B, k_width, num_warps=4)
    if dtype == torch.float32:  # tf32 keeps 10 mantissa bits
        ref = torch.addmm(c.double(), a.double(), b.double()).float()
        torch.testing.assert_close(out, ref, atol=0.05 * B ** 0.5 / 8, rtol=1e-2)
    else:
        torch.testing.assert_close(out, torch.addmm(c, a, b), atol=0.05 * B ** 0.5 / 8,
                                   rtol=1e-2)


@kiln.jit
def mma_int8_kernel(a_ptr, b_ptr, c_ptr, out_ptr, B: kl.constexpr, KW: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [kl.num_warps(), 1], [1, 0])
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(
        version=[2, 0], warps_per_cta=[2, kl.num_warps() // 2], instr_shape=[16, 8])
    offs = kl.arange(0, B, layout=kl.SliceLayout(1, layout))[:, None] * B + \
        kl.arange(0, B, layout=kl.SliceLayout(0, layout))[None, :]
    a = kl.convert_layout(kl.load(a_ptr + offs), kl.DotOperandLayout(0, acc_layout, KW))
    b = kl.convert_layout(kl.load(b_ptr + offs), kl.DotOperandLayout(1, acc_layout, KW))
    c = kl.convert_layout(kl.load(c_ptr + offs), acc_layout)
    kl.store(out_ptr + offs, kl.convert_layout(mma_v2(a, b, c), layout))


@pytest.mark.parametrize("k_width", [4, 8, 16])
@pytest.mark.parametrize("B", [64, 128])
def test_mma_v2_int8(target, k_width, B):
    """int8 x int8 -> int32 (m16n8k32), exact against an int64 reference; the accumulators
    that start near int32's top with all-positive products saturate there (.satfinite)."""
    g = torch.Generator(device="cuda").manual_seed(B + k_width)
    a = torch.randint(-128, 128, (B, B), device="cuda", dtype=torch.int8, generator=g)
    b = torch.randint(-128, 128, (B, B), device="cuda", dtype=torch.int8, generator=g)
    c = torch.randint(-2 ** 20, 2 ** 20, (B, B), device="cuda", dtype=torch.int32, generator=g)
    a[:8] = a[:8].abs().clamp(min=1)       # rows 0-7: positive products with columns 0-7 of b
    b[:, :8] = b[:, :8].abs().clamp(min=1)
    c[:8, :8] = 2 ** 31 - 1000             # ... added to a value near the top: saturate
    out = torch.full_like(c, -7)
    mma_int8_kernel[(1,)](a, b, c, out, B, k_width, num_warps=4)
    ref = (c.long().cpu() + a.long().cpu() @ b.long().cpu()).clamp(-2 ** 31, 2 ** 31 - 1)
    assert (ref[:8, :8] == 2 ** 31 - 1).all()  # the test does reach saturation
    assert torch.equal(out.cpu().long(), ref)
