"""reduce with a combine that is not commutative (Gluon's test_reduce_noncommutative, after
Triton 3.8): "take the left one" gives each row's first element and a tuple combine keeping
the left one's first and the right one's last gives both ends, for blocked layouts whose axis
spans registers, lanes and warps, every replica of the result read. Skips cleanly without
torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


@kiln.jit
def take_first(a, b):
    return a


@kiln.jit
def take_endpoints(a_first, a_last, b_first, b_last):
    return a_first, b_last


@kiln.jit
def ends_kernel(X, First, Last, N: kl.constexpr, Layout: kl.constexpr, TUPLE: kl.constexpr):
    rows = kl.arange(0, 16, layout=kl.SliceLayout(1, Layout))
    cols = kl.arange(0, N, layout=kl.SliceLayout(0, Layout))
    offsets = rows[:, None] * N + cols[None, :]
    x = kl.load(X + offsets)
    if TUPLE:
        first, last = kl.reduce((x, x.to(kl.int64)), 1, take_endpoints)
        kl.store(Last + offsets, last[:, None])
    else:
        first = kl.reduce(x, 1, take_first)
    kl.store(First + offsets, first[:, None])


@pytest.mark.parametrize("n", [4, 128])
@pytest.mark.parametrize("order", [[0, 1], [1, 0]])
@pytest.mark.parametrize("warps", [[4, 1], [1, 4]])
@pytest.mark.parametrize("tup", [False, True])
def test_noncommutative_reduce(target, n, order, warps, tup):
    warp = 64 if target.startswith("hip") else 32
    layout = kl.BlockedLayout([1, 2], [4, warp // 4], warps, order)
    x = torch.randint(-1000, 1000, (16, n), device="cuda", dtype=torch.int32)
    first = torch.empty_like(x)
    last = torch.empty_like(x, dtype=torch.int64)
    ends_kernel[(1,)](x, first, last, n, layout, tup, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(first, x[:, :1].expand_as(x))
    if tup:
        assert torch.equal(last, x[:, -1:].to(torch.int64).expand_as(x))
