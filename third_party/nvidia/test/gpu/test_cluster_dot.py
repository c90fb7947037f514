"""Dots whose accumulator a cluster splits (dot_fma and mma_v2, split along M, N or both, or
repeated): each CTA holds its operands' rows or columns whole along K and computes its part of
the product, against torch. Skips cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_split_kernels import dot_parent, split_dot  # noqa: E402

BASES = {"M": [[1, 0]], "N": [[0, 1]], "MN": [[1, 0], [0, 1]], "repeated": [[0, 0]],
         "M4": [[1, 0], [2, 0]]}


@pytest.mark.parametrize("split", sorted(BASES))
@pytest.mark.parametrize("mma", [False, True])
def test_split_dot(target, split, mma):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")
    bases = BASES[split]
    m, n, k = 128, 64, 32
    dt = torch.float16 if mma else torch.float32
    a = torch.randn((m, k), device="cuda").to(dt)
    b = torch.randn((k, n), device="cuda").to(dt)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    num_ctas = 1 << len(bases)
    split_dot[(num_ctas,)](a, b, c, M=m, N=n, K=k, P=dot_parent(mma, bases),
                           K_WIDTH=2 if mma else 0, MMA=mma, num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    torch.testing.assert_close(c, ref, atol=1e-3 if mma else 1e-4, rtol=1e-3)
