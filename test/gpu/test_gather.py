"""gather and histogram on the GPU against torch on fresh random inputs (kernels:
test/Python/test_gather_dsl.py): warp-local and cross-warp gathers in several layout pairs, 1-D and 2-D, and
histograms with and without a mask, with values outside the bins."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import kiln.language as kl  # noqa: E402
import test_gather_dsl as k  # noqa: E402

W = 32


@pytest.mark.parametrize("pair", range(2))
@pytest.mark.parametrize("K", [16, 64, 128])
def test_gather_2d(target, pair, K):
    sl, il = k.layouts_2d(W)[pair]
    M, N = 64, 16
    src = torch.randn(M, N, device="cuda")
    idx = torch.randint(0, M, (K, N), dtype=torch.int32, device="cuda")
    out = torch.zeros(K, N, device="cuda")
    k.gather2d_kernel[(1,)](src, idx, out, M, N, K, sl, il, 0, num_warps=4)
    torch.testing.assert_close(out, torch.gather(src, 0, idx.long()), rtol=0, atol=0)


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("K", [16, 64])
def test_gather_across_warps(target, case, K):
    """Gathers whose elements live in other warps go through shared memory."""
    sl, il, axis = k.layouts_across_warps(W)[case]
    M, N = 64, 16
    src = torch.randn(M, N, device="cuda")
    if axis == 0:
        idx = torch.randint(0, M, (K, N), dtype=torch.int32, device="cuda")
        out = torch.zeros(K, N, device="cuda")
    else:
        idx = torch.randint(0, N, (M, K), dtype=torch.int32, device="cuda")
        out = torch.zeros(M, K, device="cuda")
    k.gather2d_kernel[(1,)](src, idx, out, M, N, K, sl, il, axis, num_warps=4)
    torch.testing.assert_close(out, torch.gather(src, axis, idx.long()), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.int64, torch.float16])
def test_gather_1d(target, dtype):
    L = kl.BlockedLayout([1], [W], [1], [0])
    src = torch.randint(-2**40, 2**40, (W,), device="cuda").to(dtype)
    idx = torch.randint(0, W, (2 * W,), dtype=torch.int16, device="cuda")
    out = torch.zeros(2 * W, dtype=dtype, device="cuda")
    k.gather1d_kernel[(1,)](src, idx, out, W, 2 * W, L, L, num_warps=1)
    assert torch.equal(out, src[idx.long()])


@pytest.mark.parametrize("m,bins", [(2048, 2), (8, 512), (32, 32), (256, 64), (256, 4096),
                                    (4096, 16384), (4096, 4)])
@pytest.mark.parametrize("masked", [False, True])
def test_histogram(target, m, bins, masked):
    L = kl.BlockedLayout([1], [W], [4], [0])
    x = torch.randint(-3, bins + 3, (m,), dtype=torch.int32, device="cuda")
    z = torch.full((bins,), -1, dtype=torch.int32, device="cuda")
    k.histogram_kernel[(1,)](x, z, m, bins, L, L, masked, num_warps=4)
    keep = (x >= 0) & (x < bins)
    if masked:
        keep &= torch.arange(m, device="cuda") % 3 != 0
    want = torch.bincount(x[keep].long(), minlength=bins).to(torch.int32)
    assert torch.equal(z, want)
