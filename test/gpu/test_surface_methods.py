"""The tensor methods Kiln added to match Gluon 3.6's surface (argmax, argmin, flip, sort,
item; max with return_indices) against torch (kernels in test/Python/surface_method_kernels.py,
compiled by test/Python/test_gluon_surface.py). Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import surface_method_kernels as K  # noqa: E402  (test/Python is on sys.path)

R, C = 16, 32


def _leftmost(hit, dim):
    """Index of the first True along ``dim`` (torch's argmax does not promise the first)."""
    n = hit.shape[dim]
    pos = torch.arange(n, device=hit.device).view([-1 if d == dim else 1
                                                   for d in range(hit.dim())])
    return torch.where(hit, pos, n).min(dim).values.to(torch.int32)


@pytest.mark.parametrize("ties", [False, True])
def test_argmax_argmin(nvidia, ties):
    x = torch.randn(R, C, device="cuda")
    if ties:  # few distinct values: many ties, which break to the smallest index
        x = torch.randint(0, 3, (R, C), device="cuda").float()
    out = torch.full((2 * R + 2 * C + R,), -1, dtype=torch.int32, device="cuda")
    K.arg_reductions[(1,)](x, out, R=R, C=C)
    refs = [_leftmost(x == x.max(1, keepdim=True).values, 1),
            _leftmost(x == x.min(1, keepdim=True).values, 1),
            _leftmost(x == x.max(0, keepdim=True).values, 0),
            _leftmost(x == x.min(0, keepdim=True).values, 0)]
    torch.testing.assert_close(out[:2 * R + 2 * C], torch.cat(refs), rtol=0, atol=0)
    torch.testing.assert_close(out[2 * R + 2 * C:], refs[0], rtol=0, atol=0)


@pytest.mark.parametrize("descending", [False, True])
def test_flip_and_sort(nvidia, descending):
    x = torch.randn(R, C, device="cuda")
    x[0, :8] = 0.5  # ties in the sort
    out = torch.full((3, R, C), float("nan"), device="cuda")
    K.flip_sort[(1,)](x, out, R=R, C=C, DESCENDING=descending)
    torch.testing.assert_close(out[0], x.flip(1), rtol=0, atol=0)
    torch.testing.assert_close(out[1], x.flip(0), rtol=0, atol=0)
    torch.testing.assert_close(out[2], x.sort(1, descending=descending).values, rtol=0, atol=0)


def test_item(nvidia):
    x = torch.tensor([1.25], device="cuda")
    out = torch.zeros(1, device="cuda")
    K.item_of_one[(1,)](x, out)
    assert out.item() == 2.5
