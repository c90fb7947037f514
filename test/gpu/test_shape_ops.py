"""join, split and permute on the GPU against torch on fresh random inputs (kernels:
test/Python/test_shape_ops_dsl.py); split keeps every bit (-0.0 and NaN payloads); split and
join of layouts still to be inferred (tile.split, tile.join)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_shape_ops_dsl as k  # noqa: E402

W = 32


@pytest.mark.parametrize("layout", range(3))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.int64])
def test_join_split_permute(target, layout, dtype):
    if layout == 2 and not target.startswith("cuda:sm_90"):
        pytest.skip("the wgmma accumulator layout is Hopper's")
    M, N = 32, 64
    if dtype.is_floating_point:
        x = torch.randn(M, N, device="cuda").to(dtype)
        y = torch.randn(M, N, device="cuda").to(dtype)
        x[0, :4] = torch.tensor([-0.0, float("nan"), float("inf"), -float("inf")], dtype=dtype)
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(info.min, info.max, (M, N), dtype=dtype, device="cuda")
        y = torch.randint(info.min, info.max, (M, N), dtype=dtype, device="cuda")
    ab = torch.empty(M, N, 2, dtype=dtype, device="cuda")
    a, b = torch.empty_like(x), torch.empty_like(x)
    t = torch.empty(N, M, dtype=dtype, device="cuda")
    # blocked layouts, and a wgmma accumulator's (joined in Gluon's linear layout)
    L = (k.layouts(W) + [k.MMA])[layout]
    k.shape_ops_kernel[(1,)](x, y, ab, a, b, t, M, N, L, num_warps=4)
    bits = {torch.float32: torch.int32, torch.float16: torch.int16}.get(dtype, dtype)
    same = lambda u, v: torch.equal(u.view(bits), v.view(bits))  # noqa: E731
    assert same(ab, torch.stack([x, y], dim=-1))
    assert same(a, x) and same(b, y)
    assert same(t, x.t().contiguous())


E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


@pytest.mark.parametrize("layout", ["blocked", "mma"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_fp4_to_fp(target, axis, dtype, layout):
    if layout == "mma" and not target.startswith("cuda:sm_90"):
        pytest.skip("the wgmma accumulator layout is Hopper's")
    M, N = 32, 16
    x = torch.randint(0, 256, (M, N), dtype=torch.uint8, device="cuda")
    x[0, :16] = torch.arange(16, dtype=torch.uint8) * 17  # every code, in both nibbles
    out = torch.empty((2 * M, N) if axis == 0 else (M, 2 * N), dtype=dtype, device="cuda")
    dt = {torch.float16: k.kl.float16, torch.bfloat16: k.kl.bfloat16,
          torch.float32: k.kl.float32}[dtype]
    k.fp4_kernel[(1,)](x, out, M, N, axis, dt, num_warps=4,
                       LAYOUT=k.MMA if layout == "mma" else None)
    table = torch.tensor(E2M1 + [-v for v in E2M1], device="cuda")
    lo, hi = table[(x & 15).long()], table[(x >> 4).long()]
    want = torch.stack([lo, hi], dim=axis + 1).reshape(out.shape).to(dtype)
    assert torch.equal(out.view(torch.int16 if dtype != torch.float32 else torch.int32),
                       want.view(torch.int16 if dtype != torch.float32 else torch.int32))


def test_split_of_an_inferred_layout(target):
    # Gluon's test_split_auto_layout_execution, in Kiln's own kernel: every layout but the
    # output's inferred, backward through split and reshape.
    w = 64 if target.startswith("hip:") else 32
    n = 128
    x = torch.randint(-(2 ** 31), 2 ** 31 - 1, (2 * n,), dtype=torch.int32, device="cuda")
    out = torch.empty(n, dtype=torch.int32, device="cuda")
    k.split_auto_kernel[(1,)](x, out, N=n, OUT=k.split_auto_out(w), num_warps=4)
    pairs = x.view(n, 2)
    assert torch.equal(out, pairs[:, 1] - pairs[:, 0])  # int32 wraps on both sides


def test_join_of_inferred_layouts(target):
    w = 64 if target.startswith("hip:") else 32
    n = 128
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty(2 * n, device="cuda")
    k.join_auto_kernel[(1,)](x, y, out, N=n, OUT=k.join_auto_out(w), num_warps=4)
    assert torch.equal(out, torch.stack([x, y], dim=-1).reshape(-1))
