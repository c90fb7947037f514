"""Layouts left to the compiler (kl.AutoLayout, kl.CoalescedLayout, kl.set_auto_layout) give
the same results as torch on fresh random inputs, ragged shapes included; the kernels are the
ones test/Python/test_auto_layout_dsl.py compiles, launched here."""

from __future__ import annotations

import os
import sys

import pytest

import kiln

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_auto_layout_dsl as k  # noqa: E402


def test_auto_tile(target):
    a = torch.randn(32, 64, device="cuda")
    out = torch.empty_like(a)
    k.auto_tile[(1,)](a, out, 32, 64)
    torch.testing.assert_close(out, a * 2 + 1)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_auto_in_loop(target, n):
    a = torch.full((max(n, 1) * 128,), float("nan"), device="cuda")
    out = torch.empty(128, device="cuda")
    k.auto_in_loop[(1,)](a, out, n)
    acc = torch.zeros(128, device="cuda")
    for i in range(n):
        acc = acc * 0.5 + 1.0
        torch.testing.assert_close(a[i * 128:(i + 1) * 128], acc)
    torch.testing.assert_close(out, acc)


def test_auto_constant_mask(target):
    out = torch.empty(1, device="cuda", dtype=torch.int32)
    k.auto_constant_mask[(1,)](out, 32)
    assert out.item() == 100


def test_two_layouts_with_a_convert(target):
    a = torch.zeros(128, device="cuda")
    out = torch.zeros(128, device="cuda")
    with pytest.warns(kiln.CompilationRemark, match="becomes a convert_layout"):
        k.two_layouts[(1,)](a, out)
    assert torch.all(a == 1.0) and torch.all(out == 2.0)


@pytest.mark.parametrize("xnumel,ynumel", [(1000, 2000), (64, 128), (33, 250)])
def test_coalesced_copy(target, xnumel, ynumel):
    src = torch.randn(xnumel, ynumel, device="cuda")
    dst = torch.full_like(src, float("nan"))
    grid = (triton_cdiv(xnumel, 64), triton_cdiv(ynumel, 128))
    k.coalesced_copy[grid](src, dst, xnumel, ynumel, src.stride(0), 64, 128)
    torch.testing.assert_close(dst, torch.clamp(src, min=0.0))


def triton_cdiv(a, b):
    return (a + b - 1) // b
