"""``_reinterpret`` views give torch's answers on fresh random inputs; the kernels are
test/Python/test_reinterpret_dsl.py's."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_reinterpret_dsl as k  # noqa: E402


def test_second_half_as_i32(target):
    x = torch.randint(-2**31, 2**31 - 1, (32, 8), dtype=torch.int32, device="cuda")
    out = torch.empty_like(x)
    k.second_half_as_i32[(1,)](x, out, 2048, 32, 8)
    assert torch.equal(out, x)


def test_f32_as_halves(target):
    x = torch.randn(256, device="cuda")
    out = torch.empty(512, dtype=torch.float16, device="cuda")
    k.f32_as_halves[(1,)](x, out, 256)
    assert torch.equal(out.view(torch.int16), x.view(torch.float16).view(torch.int16))


def test_whole_ring_as_one_buffer(target):
    x = torch.randn(16, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.whole_ring_flat[(1,)](x, out, 16)
    assert torch.equal(out, x)
