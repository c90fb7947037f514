"""convert_layout in rounds (a tile larger than the shared memory left for it) gives torch's
result on fresh random inputs; the kernels are test/Python/test_convert_rounds_dsl.py's."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_convert_rounds_dsl as k  # noqa: E402


def test_transpose_in_rounds(target):
    x = torch.randn(256, 256, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.transpose_big[(1,)](x, out, 256, 256, k.ROW, k.COL, num_warps=8)
    torch.testing.assert_close(out, (x * 3.0 - 1.0).t().contiguous())


def test_rounds_beside_a_live_buffer(target):
    x = torch.randn(128, 256, device="cuda")
    y = torch.randn(128, 256, device="cuda")
    out = torch.full_like(x, float("nan"))
    keep = torch.full_like(x, float("nan"))
    k.convert_beside_buffer[(1,)](x, y, out, keep, 128, 256, k.ROW, k.COL, k.SH, num_warps=8)
    torch.testing.assert_close(out, x + 1.0)
    torch.testing.assert_close(keep, y * 2.0)
