"""tl.tensor's methods on Kiln tensors (test/Python/tensor_method_kernels.py) against torch on
fresh random inputs. Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import tensor_method_kernels as K  # noqa: E402  (test/Python is on sys.path)



def test_unary_methods(nvidia):
    R, C = 16, 32
    x = torch.randn(R, C, device="cuda") * 2
    out = torch.full((12, R, C), float("nan"), device="cuda")
    K.unary_methods[(1,)](x, out, R=R, C=C)
    both = ((x > 0) & (x < 1)) | (x < -1)
    refs = [x.exp(), x.abs().sqrt(), x.floor(), x.ceil(), torch.sigmoid(x),
            torch.softmax(x, 1), x.cumsum(1), x.flip(1).cumprod(1).flip(1), torch.erf(x),
            both.float(), torch.exp2(x).log2(), x.to(torch.int32).float()]
    for i, ref in enumerate(refs):
        torch.testing.assert_close(out[i], ref, rtol=2e-5, atol=2e-5, msg=f"method {i}")


def test_transpose_methods(nvidia):
    N = 32
    x = torch.randn(N, N, device="cuda")
    t = torch.full_like(x, float("nan"))
    p = torch.full_like(x, float("nan"))
    K.transpose_methods[(1,)](x, t, p, N=N)
    torch.testing.assert_close(t, x.T.contiguous(), rtol=0, atol=0)
    torch.testing.assert_close(p, x, rtol=0, atol=0)


def test_atomic_methods(nvidia):
    N = 128
    x = torch.randn(N, device="cuda")
    acc = torch.zeros(12, device="cuda")
    acc[8:] = -float("inf")
    K.atomic_methods[(1,)](acc, x, N=N)
    torch.testing.assert_close(acc[:8], x.view(-1, 8).sum(0), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(acc[8:], x.view(-1, 4).max(0).values, rtol=0, atol=0)
