"""Tuples (test/Python/tuple_kernels.py) on the GPU against torch, fresh random inputs:
a tuple of tensors and a scalar passed to kernel[grid], an argmax by kl.reduce over
(values, indices), a tuple grown in static_range and carried through a loop."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import tuple_kernels as K  # noqa: E402



@pytest.mark.parametrize("n", [1, 700, 2048])
def test_tuple_argument(nvidia, n):
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, float("nan"))
    K.copy_pair[(triton_cdiv(n, 512),)]((x, (y, 0.5)), n, N=512)
    torch.testing.assert_close(y, x * 0.5)


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("C", [32, 64])
def test_argmax_by_tuple_reduce(nvidia, C):
    x = torch.randn(64, C, device="cuda")
    x[3, 5] = x[3, 7] = 100.0  # a tie: the lower index wins, as torch.argmax
    vals = torch.full((64,), float("nan"), device="cuda")
    idx = torch.full((64,), -1, dtype=torch.int32, device="cuda")
    K.row_argmax[(4,)](x, vals, idx, C=C)
    torch.testing.assert_close(vals, x.max(1).values, rtol=0, atol=0)
    torch.testing.assert_close(idx.long(), x.argmax(1), rtol=0, atol=0)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_grown_tuple(nvidia, n):
    x = torch.randn(max(n, 1), 128, device="cuda")
    out = torch.full((128,), float("nan"), device="cuda")
    K.grown_tuple[(1,)](x, out, n, N=128)
    ref = x[:n].sum(0) + 1.0 + (2.0 + (x[:n] ** 2).sum(0))
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("warps_c", [1, 2])
def test_welford_by_a_reduce_of_three(nvidia, warps_c):
    """Mean and sum of squared deviations of each row by Welford's combine over a tuple of
    three fp32 tensors (96 bits an element), the row split over one or two warps."""
    x = torch.randn(16, 64, device="cuda") * 3 + 1
    mean = torch.full((16,), float("nan"), device="cuda")
    m2 = torch.full((16,), float("nan"), device="cuda")
    K.welford_rows[(1,)](x, mean, m2, R=16, C=64, WARPS_C=warps_c)
    x64 = x.double()
    torch.testing.assert_close(mean.double(), x64.mean(1), rtol=1e-5, atol=1e-5)
    ref = ((x64 - x64.mean(1, keepdim=True)) ** 2).sum(1)
    torch.testing.assert_close(m2.double(), ref, rtol=1e-4, atol=1e-4)


def test_argmax_of_fp64_with_int64_index(nvidia):
    """An fp64 value and an int64 index (128 bits an element) reduced across four warps;
    a tie between two far-apart positions takes the lower index."""
    x = torch.randn(512, device="cuda", dtype=torch.float64)
    x[37] = x[400] = 1e9
    vals = torch.full((1,), float("nan"), device="cuda", dtype=torch.float64)
    idx = torch.full((1,), -1, device="cuda", dtype=torch.int64)
    K.argmax64[(1,)](x, vals, idx, N=512)
    assert vals.item() == 1e9 and idx.item() == 37
    x = torch.randn(512, device="cuda", dtype=torch.float64)
    K.argmax64[(1,)](x, vals, idx, N=512)
    assert vals.item() == x.max().item() and idx.item() == x.argmax().item()


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_of_three(nvidia, reverse):
    """Running sum, minimum and maximum in one scan of three fp32 tensors across warps."""
    x = torch.randn(512, device="cuda")
    s, lo, hi = (torch.full_like(x, float("nan")) for _ in range(3))
    K.scan3[(1,)](x, s, lo, hi, N=512, REVERSE=reverse)
    y = x.flip(0) if reverse else x
    ref_s, ref_lo, ref_hi = y.cumsum(0), y.cummin(0).values, y.cummax(0).values
    if reverse:
        ref_s, ref_lo, ref_hi = ref_s.flip(0), ref_lo.flip(0), ref_hi.flip(0)
    torch.testing.assert_close(s, ref_s, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(lo, ref_lo, rtol=0, atol=0)
    torch.testing.assert_close(hi, ref_hi, rtol=0, atol=0)
