"""wgmma on subslices of swizzled shared buffers (Gluon's ``smem.slice(start, length, dim)``
as an operand): row slices at a swizzle atom (lmdeploy's persistent FP8 GEMM multiplies
``a.slice(64, 64, dim=0)``), K slices inside and past a 128-byte swizzle row, N slices of an
MN-contiguous B, in bf16 and e4m3, against torch on fresh random inputs. The descriptor of a
slice is the buffer's base plus (offset XOR the slice's start); a wrong start reads other
rows or columns, which the reference sees."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


@kiln.jit
def sliced_mma(a, b, out, MA: kl.constexpr, KA: kl.constexpr, NB: kl.constexpr,
               M0: kl.constexpr, ML: kl.constexpr, K0: kl.constexpr, KL: kl.constexpr,
               N0: kl.constexpr, NL: kl.constexpr, shared_a: kl.constexpr,
               shared_b: kl.constexpr, mma: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    ra = kl.arange(0, MA, layout=kl.SliceLayout(1, blocked))[:, None]
    ca = kl.arange(0, KA, layout=kl.SliceLayout(0, blocked))[None, :]
    rb = kl.arange(0, KA, layout=kl.SliceLayout(1, blocked))[:, None]
    cb = kl.arange(0, NB, layout=kl.SliceLayout(0, blocked))[None, :]
    smem_a = kl.allocate_shared_memory(a.dtype.element_ty, [MA, KA], shared_a,
                                       kl.load(a + ra * KA + ca))
    smem_b = kl.allocate_shared_memory(b.dtype.element_ty, [KA, NB], shared_b,
                                       kl.load(b + rb * NB + cb))
    hopper.fence_async_shared()
    sa = smem_a.slice(M0, ML, dim=0).slice(K0, KL, dim=1)
    sb = smem_b.slice(K0, KL, dim=0).slice(N0, NL, dim=1)
    acc = kl.zeros([ML, NL], dtype=kl.float32, layout=mma)
    acc = hopper.warpgroup_mma(sa, sb, acc)
    acc = kl.convert_layout(acc, blocked)
    ro = kl.arange(0, ML, layout=kl.SliceLayout(1, blocked))[:, None]
    co = kl.arange(0, NL, layout=kl.SliceLayout(0, blocked))[None, :]
    kl.store(out + ro * NL + co, acc)


CASES = [
    # (dtype, [MA, KA, NB], (M0, ML), (K0, KL), (N0, NL), swizzle a, swizzle b, b K-major)
    ("bf16", [128, 64, 64], (64, 64), (0, 64), (0, 64), 128, 128, False),   # rows at an atom
    ("bf16", [64, 128, 64], (0, 64), (64, 64), (0, 64), 128, 128, False),   # K past a row
    ("bf16", [64, 64, 64], (0, 64), (32, 32), (0, 64), 128, 128, False),    # K inside a row
    ("bf16", [64, 64, 64], (0, 64), (16, 16), (0, 64), 64, 64, True),       # K = one step
    ("bf16", [64, 64, 128], (0, 64), (0, 64), (64, 64), 128, 128, False),   # N of MN-major B
    ("bf16", [128, 64, 128], (64, 64), (32, 32), (64, 32), 128, 64, False),  # all three
    ("e4m3", [128, 128, 64], (64, 64), (0, 128), (0, 64), 128, 128, True),  # lmdeploy's
    ("e4m3", [64, 128, 64], (0, 64), (64, 64), (0, 64), 128, 128, True),
]


@pytest.mark.parametrize("dtype,shape,ms,ks,ns,sw_a,sw_b,b_kmajor", CASES)
def test_wgmma_subslice(target, dtype, shape, ms, ks, ns, sw_a, sw_b, b_kmajor):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    torch_dt, kl_dt = {"bf16": (torch.bfloat16, kl.bfloat16),
                       "e4m3": (torch.float8_e4m3fn, kl.float8e4nv)}[dtype]
    bits = torch.finfo(torch_dt).bits
    MA, KA, NB = shape
    torch.manual_seed(hash((dtype, tuple(shape), ms, ks, ns)) % 2**31)
    a = torch.randn(MA, KA, device="cuda").to(torch_dt)
    b = torch.randn(KA, NB, device="cuda").to(torch_dt)
    (m0, ml), (k0, kl_), (n0, nl) = ms, ks, ns
    out = torch.full((ml, nl), float("nan"), device="cuda")
    shared_a = kl.NVMMASharedLayout(swizzle_byte_width=sw_a, element_bitwidth=bits, rank=2)
    shared_b = kl.NVMMASharedLayout(swizzle_byte_width=sw_b, element_bitwidth=bits, rank=2,
                                    transposed=b_kmajor)
    mma = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                    instr_shape=[16, nl, 256 // bits])
    sliced_mma[(1,)](a, b, out, MA, KA, NB, m0, ml, k0, kl_, n0, nl, shared_a, shared_b, mma,
                     num_warps=4)
    ref = a[m0:m0 + ml, k0:k0 + kl_].float() @ b[k0:k0 + kl_, n0:n0 + nl].float()
    torch.testing.assert_close(out, ref, atol=2e-2 * kl_ ** 0.5, rtol=5e-2)
