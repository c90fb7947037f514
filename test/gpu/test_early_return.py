"""Early returns inside ``kl.static_range`` and compile-time tuples (test/Python/
test_early_return_dsl.py's kernels) against a Python reference of the same loop, on fresh random
inputs and limits that make every trip (and none) return."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_early_return_dsl as k  # noqa: E402


def _doubles_until_over(x, limit):
    acc = x.clone()
    for p in range(3):
        if acc.sum().item() > limit:
            return acc + p
        acc = acc * 2.0
    return acc - 1.0


@pytest.mark.parametrize("seed", range(3))
def test_return_inside_static_range(target, seed):
    w = 64 if target.startswith("hip") else 32
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(w, generator=g) + 0.5).cuda()  # positive: each trip doubles the sum
    total = x.sum().item()
    # limits below the first trip's sum, between trips, and above the last (no trip returns)
    for limit in (total * 0.5, total * 1.5, total * 3.0, total * 10.0):
        out = torch.full((w,), float("nan"), device="cuda")
        k.doubles_until_over[(1,)](x, out, limit, W=w, num_warps=1)
        torch.cuda.synchronize()
        torch.testing.assert_close(out.cpu(), _doubles_until_over(x.cpu(), limit), rtol=1e-6,
                                   atol=1e-5)


def test_helper_returns_its_trip(target):
    n = 256
    v = torch.rand(n, device="cuda") * 4
    out = torch.full((n,), -7, dtype=torch.int32, device="cuda")
    limit = 3.0
    k.first_step_kernel[(n,)](v, out, limit, STEPS=4, SCALES=(1, 1), num_warps=1)
    want = []
    for a in v.tolist():
        r = -1
        for i in range(4):
            if a * (i + 1) > limit:
                r = i
                break
        want.append(r)
    assert out.tolist() == want


@pytest.mark.parametrize("value", [5.0, 3.0, 1.0])
def test_return_inside_a_tuple_loop(target, value):
    x = torch.tensor([value], device="cuda")
    out = torch.full((1,), float("nan"), device="cuda")
    k.returns_over_tuple[(1,)](x, out, OFFS=(4.0, 2.0), num_warps=1)
    want = value - 4.0 if value > 4.0 else value - 2.0 if value > 2.0 else value
    assert out.item() == want
