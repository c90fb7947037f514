"""warp_specialize returns the default partition's values (test/Python/ws_return_kernels.py),
against torch on fresh random inputs; the worker partition's store happens too."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import ws_return_kernels as K  # noqa: E402


def test_default_partition_returns(target):
    if not target.startswith("cuda:"):
        pytest.skip("the kernels' layouts have 32 lanes")
    x = torch.randn(128, device="cuda")
    y = torch.randn(128, device="cuda")
    y0 = y.clone()
    out = torch.full_like(x, float("nan"))
    K.ws_default_returns[(1,)](x, y, out, N=128)
    torch.testing.assert_close(out, x * 2.0, rtol=0, atol=0)
    torch.testing.assert_close(y, y0 + 1.0, rtol=0, atol=0)
