"""``kl.dot_fma`` against torch on fresh random inputs: Gluon's own test_dot_fma shape, a
rectangular fp16 product into fp32, int8 into int32 and a batched product; the kernels are
test/Python/test_dot_fma_dsl.py's."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_dot_fma_dsl as k  # noqa: E402

DT = {"fp32": torch.float32, "fp16": torch.float16, "i8": torch.int8, "i32": torch.int32}


@pytest.mark.parametrize("name", sorted(k.CASES))
def test_dot_fma(target, name):
    c = k.CASES[name]
    M, N, K = c["M"], c["N"], c["K"]
    if c["dt"] == "i8":
        a = torch.randint(-100, 100, (M, K), dtype=torch.int8, device="cuda")
        b = torch.randint(-100, 100, (K, N), dtype=torch.int8, device="cuda")
        acc = torch.randint(-1000, 1000, (M, N), dtype=torch.int32, device="cuda")
        # torch has no integer matmul on CUDA: the reference is computed on the CPU.
        ref = (acc.cpu().long() + a.cpu().long() @ b.cpu().long()).int().cuda()
    else:
        a = torch.randn(M, K, dtype=DT[c["dt"]], device="cuda")
        b = torch.randn(K, N, dtype=DT[c["dt"]], device="cuda")
        acc = torch.randn(M, N, dtype=DT[c["acc"]], device="cuda")
        ref = acc + a.double().matmul(b.double()).to(acc.dtype)
    out = torch.empty_like(acc)
    k.dot_fma_2d[(1,)](a, b, acc, out, M, N, K, c["P"], num_warps=4)
    if c["dt"] == "i8":
        assert torch.equal(out, ref)
    else:
        torch.testing.assert_close(out, ref, atol=1e-3, rtol=1e-3)


def test_dot_fma_batched(target):
    a = torch.randn(2, 8, 4, device="cuda")
    b = torch.randn(2, 4, 16, device="cuda")
    out = torch.empty(2, 8, 16, device="cuda")
    k.dot_fma_batched[(1,)](a, b, out, 2, 8, 16, 4, k.BATCHED_P, num_warps=4)
    torch.testing.assert_close(out, torch.bmm(a, b), atol=1e-4, rtol=1e-4)
