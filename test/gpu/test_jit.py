"""GPU tests the way Triton users write them: ``kernel[grid](torch tensors)``, compiled on the
first call (JIT), checked against torch on fresh random inputs, over many sizes (ragged ones
included) and dtypes. Skips cleanly without torch, a GPU driver or a device.

On the GPU machine this runs against the installed wheel (scripts/device-test.sh).
"""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))
import kernels as K  # noqa: E402  (examples/kernels.py: the examples' layout helpers)

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
NUM_WARPS = 4


def warp(target):
    return 32 if target.startswith("cuda:") else 64


# --- kernels -----------------------------------------------------------------------------


@kiln.jit
def add_kernel(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    mask = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=mask) + kl.load(y + offs, mask=mask), mask=mask)


@kiln.jit
def copy2d_kernel(src, dst, M, N, stride_s, stride_d, BM: kl.constexpr, BN: kl.constexpr,
                  layout: kl.constexpr):
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, layout))
    cols = kl.program_id(1) * BN + kl.arange(0, BN, kl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    v = kl.load(src + rows[:, None] * stride_s + cols[None, :], mask=mask)
    kl.store(dst + rows[:, None] * stride_d + cols[None, :], v, mask=mask)


@kiln.jit
def softmax_kernel(out, inp, M, N, stride_in, stride_out, BM: kl.constexpr, BN: kl.constexpr,
                   layout: kl.constexpr):
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, layout))
    cols = kl.arange(0, BN, kl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = kl.load(inp + rows[:, None] * stride_in + cols[None, :], mask=mask, other=float("-inf"))
    x = x.to(kl.float32)
    e = kl.exp(x - kl.max(x, axis=1)[:, None])
    e = kl.where(mask, e, 0.0)
    y = e / kl.sum(e, axis=1)[:, None]
    kl.store(out + rows[:, None] * stride_out + cols[None, :], y, mask=mask)


@kiln.jit
def transpose_kernel(src, dst, M, N, stride_s, stride_d, B: kl.constexpr,
                     load_layout: kl.constexpr, store_layout: kl.constexpr):
    rows = kl.program_id(0) * B + kl.arange(0, B, kl.SliceLayout(1, load_layout))
    cols = kl.program_id(1) * B + kl.arange(0, B, kl.SliceLayout(0, load_layout))
    t = kl.load(src + rows[:, None] * stride_s + cols[None, :],
                mask=(rows[:, None] < M) & (cols[None, :] < N))
    t = kl.convert_layout(t, store_layout)
    r = kl.program_id(0) * B + kl.arange(0, B, kl.SliceLayout(1, store_layout))
    c = kl.program_id(1) * B + kl.arange(0, B, kl.SliceLayout(0, store_layout))
    kl.store(dst + c[None, :] * stride_d + r[:, None], t, mask=(r[:, None] < M) & (c[None, :] < N))


def rand(shape, dtype):
    return torch.randn(shape, device="cuda", dtype=torch.float32).to(DTYPES[dtype])


def layout_2d(rows, cols, target, vec, order=(1, 0)):
    """The examples' 2-D layout: `vec` contiguous elements along order[0], lanes along it
    up to a warp, warps across."""
    return K.blocked_2d((rows, cols), warp(target), NUM_WARPS, vec=vec, order=order)


# --- tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n", [1, 7, 127, 1000, 4096, 1000003, 2**22 + 5])
def test_vector_add(target, dtype, n):
    x, y = rand(n, dtype), rand(n, dtype)
    out = torch.full_like(x, float("nan"))
    block = 1024
    add_kernel[(kiln.cdiv(n, block),)](
        x, y, out, n, BLOCK=block,
        layout=kl.BlockedLayout([4], [warp(target)], [NUM_WARPS], [0]), num_warps=NUM_WARPS)
    # fp32 exactly; fp16/bf16 at torch's default tolerances (torch adds them in fp32 and
    # rounds twice, the GPU's half-precision add rounds once).
    exact = dict(rtol=0, atol=0) if dtype == "fp32" else {}
    torch.testing.assert_close(out, x + y, **exact)


def test_launch_returns_the_compiled_kernel(target):
    """As Gluon's: kernel[grid](...) returns the compiled kernel, whose metadata reads as
    attributes and, after the launch, holds the registers and spills the driver reports."""
    n = 5000
    x, y = rand(n, "fp32"), rand(n, "fp32")
    out = torch.full_like(x, float("nan"))
    k = add_kernel[(kiln.cdiv(n, 1024),)](
        x, y, out, n, BLOCK=1024,
        layout=kl.BlockedLayout([4], [warp(target)], [NUM_WARPS], [0]), num_warps=NUM_WARPS)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert k.metadata.num_warps == NUM_WARPS and k.metadata.shared == 0
    assert 0 < k.metadata.n_regs <= 255 and k.metadata.n_spills == 0
    assert ("ptx" if target.startswith("cuda:") else "amdgcn") in k.asm
    again = add_kernel[(1,)](x, y, out, n, BLOCK=1024,
                             layout=kl.BlockedLayout([4], [warp(target)], [NUM_WARPS], [0]),
                             num_warps=NUM_WARPS)
    assert again is k


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("M,N,src_stride_pad", [(1, 1, 0), (33, 65, 3), (300, 517, 0),
                                                (1024, 1024, 0), (7, 4099, 16), (2048, 96, 1)])
def test_copy_2d(target, dtype, M, N, src_stride_pad):
    base = rand((M, N + src_stride_pad), dtype)
    src = base[:, :N]  # a strided view when padded
    dst = torch.full((M, N), float("nan"), device="cuda", dtype=DTYPES[dtype])
    BM, BN = 32, 64
    copy2d_kernel[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](
        src, dst, M, N, src.stride(0), dst.stride(0), BM=BM, BN=BN,
        layout=layout_2d(BM, BN, target, vec=4), num_warps=NUM_WARPS)
    torch.testing.assert_close(dst, src, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("M,N", [(1, 1), (7, 33), (128, 1000), (1000, 128), (4099, 64),
                                 (3, 1024)])
def test_softmax(target, dtype, M, N):
    x = rand((M, N), dtype) * 4
    out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
    BN = max(16, 1 << (N - 1).bit_length())
    BM = max(1, min(16, 4096 // BN))
    softmax_kernel[(kiln.cdiv(M, BM),)](
        out, x, M, N, x.stride(0), out.stride(0), BM=BM, BN=BN,
        layout=layout_2d(BM, BN, target, vec=4), num_warps=NUM_WARPS)
    torch.testing.assert_close(out, torch.softmax(x.float(), dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("M,N", [(1, 1), (31, 33), (100, 37), (513, 257), (2048, 1000),
                                 (64, 4096)])
def test_transpose(target, dtype, M, N):
    src = rand((M, N), dtype)
    dst = torch.full((N, M), float("nan"), device="cuda", dtype=DTYPES[dtype])
    B = 64
    transpose_kernel[(kiln.cdiv(M, B), kiln.cdiv(N, B))](
        src, dst, M, N, src.stride(0), dst.stride(0), B=B,
        load_layout=layout_2d(B, B, target, vec=4, order=(1, 0)),
        store_layout=layout_2d(B, B, target, vec=4, order=(0, 1)), num_warps=NUM_WARPS)
    torch.testing.assert_close(dst, src.t(), rtol=0, atol=0)


@kiln.jit
def guarded_double(x, y, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    """Programs past the data return early (``if ...: return``, as Triton kernels write it)."""
    pid = kl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(y + offs, kl.load(x + offs, mask=m) * 2.0, mask=m)


def test_early_return(target):
    n = 3000
    x = rand(n, "fp32")
    y = torch.full((n + 2048,), float("nan"), device="cuda")
    guarded_double[(kiln.cdiv(n, 1024) + 2,)](
        x, y, n, BLOCK=1024, layout=kl.BlockedLayout([4], [warp(target)], [NUM_WARPS], [0]),
        num_warps=NUM_WARPS)
    torch.testing.assert_close(y[:n], x * 2, rtol=0, atol=0)
    assert torch.isnan(y[n:]).all()  # the extra programs wrote nothing


@kiln.jit
def scalar_access(x, y, n, layout: kl.constexpr):
    """Loads and stores through scalar pointers, as Gluon allows them."""
    s = kl.load(x)
    offs = kl.arange(0, 128, layout)
    v = kl.load(x + offs) * s
    kl.store(y + offs, v)
    kl.store(y + 128, kl.sum(v, 0))
    kl.store(y + 129, 7.0, mask=n > 3)
    kl.store(y + 130, 9.0, mask=n > 1000)


def test_scalar_pointer_access(target):
    x = rand(128, "fp32")
    y = torch.full((131,), float("nan"), device="cuda")
    scalar_access[(1,)](x, y, 5, layout=kl.BlockedLayout([1], [warp(target)], [NUM_WARPS], [0]),
                        num_warps=NUM_WARPS)
    want = x * x[0]
    torch.testing.assert_close(y[:128], want, rtol=0, atol=0)
    torch.testing.assert_close(y[128], want.sum(), rtol=1e-5, atol=1e-4)
    assert y[129].item() == 7.0 and torch.isnan(y[130])
