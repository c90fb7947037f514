"""Gluon 3.6 names new in Kiln (umulhi, erf, fdiv, div_rn, sqrt_rn, add/sub/mul, xor_sum,
reduce_or, thread_barrier) against torch / numpy on fresh random inputs; the kernels are
test/Python/test_language_extras_dsl.py's."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_language_extras_dsl as k  # noqa: E402

W = 32
N = 4 * W


def _rand_ints(dtype, n):
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, (n,), dtype=dtype, device="cuda")


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_umulhi(target, dtype):
    x, y = _rand_ints(dtype, N), _rand_ints(dtype, N)
    out = torch.empty_like(x)
    k.binary_kernel[(1,)](x, y, out, N, "umulhi", W, num_warps=4)
    bits = 32 if dtype == torch.int32 else 64
    mask = (1 << bits) - 1
    want = [((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x.tolist(), y.tolist())]
    got = [int(v) & mask for v in out.tolist()]
    assert got == want


def test_erf(target):
    x = torch.randn(N, device="cuda") * 2
    x[:4] = torch.tensor([0.0, -0.0, 5.0, -5.0])
    out = torch.empty_like(x)
    k.unary_kernel[(1,)](x, out, N, "erf", W, num_warps=4)
    err = (out.double() - torch.erf(x.double())).abs().max().item()
    print(f"erf: max abs error {err:.3g} against float64")
    assert err < 1e-6


@pytest.mark.parametrize("op", ["fdiv_ieee", "div_rn"])
def test_divisions_are_ieee(target, op):
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    k.binary_kernel[(1,)](x, y, out, N, op, W, num_warps=4)
    assert torch.equal(out, x / y)  # torch's float32 division is correctly rounded


def test_fdiv_may_be_approximate(target):
    # fdiv(ieee_rounding=False), like `/`, is Triton's approximate f32 division (NVIDIA:
    # div.full.f32, within 2 ulp); AMD targets round to nearest.
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    k.binary_kernel[(1,)](x, y, out, N, "fdiv", W, num_warps=4)
    ref = x / y
    ulps = (out.view(torch.int32).long() - ref.view(torch.int32).long()).abs()
    assert int(ulps.max()) <= 2


def test_sqrt_rn(target):
    x = torch.rand(N, device="cuda") * 100
    out = torch.empty_like(x)
    k.unary_kernel[(1,)](x, out, N, "sqrt_rn", W, num_warps=4)
    assert torch.equal(out, torch.sqrt(x))


@pytest.mark.parametrize("op,ref", [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b),
                                    ("mul", lambda a, b: a * b)])
def test_add_sub_mul(target, op, ref):
    x, y = _rand_ints(torch.int32, N), _rand_ints(torch.int32, N)
    out = torch.empty_like(x)
    k.binary_kernel[(1,)](x, y, out, N, op, W, num_warps=4)
    want = (ref(x.cpu().long(), y.cpu().long()) & 0xFFFFFFFF)
    assert torch.equal(out.cpu().long() & 0xFFFFFFFF, want)  # wraps like int32


@pytest.mark.parametrize("op", ["xor", "or"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_bitwise_reductions(target, op, axis):
    M, Nn = 16, 32
    x = _rand_ints(torch.int32, M * Nn)
    a = x.cpu().numpy().reshape(M, Nn)
    red = np.bitwise_xor if op == "xor" else np.bitwise_or
    want = red.reduce(a, axis=axis) if axis is not None else red.reduce(a.reshape(-1))
    want = np.atleast_1d(want)
    out = torch.zeros(want.size, dtype=torch.int32, device="cuda")
    k.bitwise_reduce_kernel[(1,)](x, out, M, Nn, op, axis, W, num_warps=4)
    assert np.array_equal(out.cpu().numpy(), want)


def test_thread_barrier(target):
    x = torch.randn(8 * W, device="cuda")
    out = torch.empty_like(x)
    k.barrier_kernel[(1,)](x, out, 8 * W, W, num_warps=4)
    assert torch.equal(out, x)


def test_hinted_copy(target):
    """multiple_of / max_contiguous let the copy use 16-byte accesses; the promise holds for a
    start that is a multiple of 4, and the copy is exact."""
    x = torch.randn(1024, device="cuda")
    out = torch.zeros_like(x)
    k.hinted_copy[(1,)](x, out, 8, 512, True, num_warps=4)
    assert torch.equal(out[8:520], x[8:520]) and not out[:8].any() and not out[520:].any()


def test_map_elementwise(target):
    x = torch.randn(128, device="cuda")
    out = torch.empty_like(x)
    k.map_kernel[(1,)](x, out, 1.5, 128, num_warps=4)
    torch.testing.assert_close(out, torch.where(x > 0, x, 1.5 * (torch.exp(x) - 1)),
                               atol=1e-5, rtol=1e-5)


def test_map_elementwise_with_loops(target):
    """Functions that loop on their values (a while, a for over a per-element count, nested
    whiles) give the per-element answers of the same arithmetic done element by element."""
    w = 64 if target.startswith("hip") else 32
    N = 128
    x = torch.rand(N, device="cuda") * 100
    x[:4] = torch.tensor([0.5, 1.0, 2.0, 1000.0], device="cuda")
    kk = torch.randint(-3, 20, (N,), dtype=torch.int32, device="cuda")
    out = torch.full((5 * N,), float("nan"), device="cuda")
    k.map_loop_kernel[(1,)](x, kk, out, N, w, num_warps=4)
    h, n = x.clone(), torch.zeros_like(x)
    while (h > 1).any():
        m = h > 1
        h, n = torch.where(m, h * 0.5, h), n + m
    torch.testing.assert_close(out[:N], n + h, rtol=0, atol=0)
    acc = torch.zeros_like(x)
    for i in range(int(kk.max())):
        acc = torch.where(i < kk, acc + x, acc)
    torch.testing.assert_close(out[N:2 * N], acc, rtol=0, atol=0)
    steps, h = torch.zeros_like(x), x.clone()
    while (h > 1).any():
        m = h > 1
        y = h.clone()
        while ((y > 2) & m).any():
            inner = (y > 2) & m
            y, steps = torch.where(inner, y - 2, y), steps + inner
        h = torch.where(m, h * 0.5, h)
    torch.testing.assert_close(out[2 * N:3 * N], steps, rtol=0, atol=0)
    r = x.clone()
    while (r > 10).any():
        r = torch.where(r > 10, r - 3, r)
    torch.testing.assert_close(out[3 * N:4 * N], torch.where(x > 10, r, -x), rtol=0, atol=0)
    inside = (kk >= 0) & (kk < 10)
    gathered = torch.where(inside, x[kk.clamp(0, N - 1).long()], 0.0)
    torch.testing.assert_close(out[4 * N:], gathered, rtol=0, atol=0)


def test_map_elementwise_with_branches(target):
    """Functions that branch on their values (an early return; nested ifs and an elif) give
    torch's per-element answers."""
    w = 64 if target.startswith("hip") else 32
    x, y = torch.randn(128, device="cuda"), torch.randn(128, device="cuda")
    out = torch.full((256,), float("nan"), device="cuda")
    k.map_branch_kernel[(1,)](x, y, out, 128, w, num_warps=4)
    torch.testing.assert_close(out[:128], torch.where(x > 0, x * 2, -x), rtol=0, atol=0)
    ref = torch.where(x > y, torch.where(y < 0, torch.zeros_like(y), y),
                      torch.where(x < -y, -y, x))
    torch.testing.assert_close(out[128:], ref, rtol=0, atol=0)


def test_ravel(target):
    x = torch.randn(16, 32, device="cuda")
    out = torch.empty(512, device="cuda")
    k.ravel_kernel[(1,)](x, out, 16, 32, num_warps=4)
    assert torch.equal(out, x.ravel())


@pytest.mark.parametrize("nan", [None, "ALL"])
def test_clamp(target, nan):
    """kl.clamp against torch.clamp on fresh random values with NaNs and infinities: a NaN x
    gives lo by default and stays NaN with propagate_nan=ALL."""
    import test_newer_gluon_names_dsl as names
    w = 64 if target.startswith("hip") else 32
    x = torch.randn(4 * w, device="cuda") * 3
    x[::17] = float("nan")
    x[5], x[6] = float("inf"), float("-inf")
    y = torch.empty_like(x)
    names.clamp_kernel[(1,)](x, y, -1.5, 2.0, NAN=nan, W=w)
    torch.cuda.synchronize()
    want = torch.clamp(x, -1.5, 2.0)
    if nan is None:
        want = torch.where(torch.isnan(x), torch.tensor(-1.5, device="cuda"), want)
    torch.testing.assert_close(y, want, equal_nan=True)


@pytest.mark.parametrize("r0,c0,r,c", [(0, 0, None, 32), (None, 96, None, 32), (0, 64, None, 64)])
def test_amd_slice(target, r0, c0, r, c):
    """kl.amd.slice of a 64 x 128 block (registers only) against torch's slicing."""
    import test_newer_gluon_names_dsl as names
    w = 64 if target.startswith("hip") else 32
    rows = 4 * (w // 4)
    r = rows if r is None else r
    r0 = 64 - rows if r0 is None else r0
    x = torch.randn(64, 128, device="cuda")
    y = torch.full((r, c), float("nan"), device="cuda")
    names.slice_kernel[(1,)](x, y, R0=r0, C0=c0, R=r, C=c, W=w)
    assert torch.equal(y, x[r0:r0 + r, c0:c0 + c])


def test_pointer_casts_read_bytes_as_words(target):
    """test_language_extras_dsl.bytes_as_words: uint8 bytes read and written as uint32 words,
    against torch's view of the same bytes."""
    w = 64 if target.startswith("hip") else 32
    src = torch.randint(0, 256, (2048,), device="cuda", dtype=torch.uint8)
    dst = torch.zeros_like(src)
    k.bytes_as_words[(1,)](src, dst, N=512, W=w)
    torch.cuda.synchronize()
    assert torch.equal(dst, src ^ 1)
