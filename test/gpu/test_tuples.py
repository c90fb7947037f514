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
