"""Shared-memory buffers chosen at run time: picked by an ``if``, swapped in a loop (ping-pong),
and a cp.async double buffer whose two halves trade places every iteration -- against torch on
fresh random inputs. Kiln follows such a buffer to the buffers it may be: its barrier pass orders
an access to it against their bytes, and they die after its last use, so later buffers take
their bytes; these check that what runs is right."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.ampere import async_copy as cp  # noqa: E402

SH = kl.SwizzledSharedLayout(4, 1, 8, [1, 0])


@kiln.jit
def pingpong_kernel(x_ptr, y_ptr, n, N: kl.constexpr, W: kl.constexpr):
    """y = x * 2**n: each step reads one buffer and writes twice it into the other, then the
    two swap."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [W // 4, 4], [4, 1], [1, 0])
    r = kl.arange(0, N, kl.SliceLayout(1, L))
    c = kl.arange(0, N, kl.SliceLayout(0, L))
    offs = r[:, None] * N + c[None, :]
    a = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    b = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    a.store(kl.load(x_ptr + offs))
    for i in range(n):
        b.store(a.load(L) * 2.0)
        a, b = b, a
    kl.store(y_ptr + offs, a.load(L))


@kiln.jit
def nested_kernel(x_ptr, y_ptr, n, m, N: kl.constexpr, W: kl.constexpr):
    """y = x + n * ceil(m / 2): a buffer swapped under an if inside two loops, and read
    back after a while loop that swaps it n more times without writing."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [W // 4, 4], [4, 1], [1, 0])
    r = kl.arange(0, N, kl.SliceLayout(1, L))
    c = kl.arange(0, N, kl.SliceLayout(0, L))
    offs = r[:, None] * N + c[None, :]
    a = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    b = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    a.store(kl.load(x_ptr + offs))
    for i in range(n):
        for j in range(m):
            if j % 2 == 0:
                b.store(a.load(L) + 1.0)
                a, b = b, a
    b.store(a.load(L))  # both buffers hold the result now
    k = 0
    while k < n:
        a, b = b, a
        k += 1
    kl.store(y_ptr + offs, a.load(L))


@kiln.jit
def choose_kernel(x_ptr, y_ptr, flag, N: kl.constexpr, W: kl.constexpr):
    """y = x where flag > 0, else x + 1: the buffer read is picked at run time."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [W // 4, 4], [4, 1], [1, 0])
    r = kl.arange(0, N, kl.SliceLayout(1, L))
    c = kl.arange(0, N, kl.SliceLayout(0, L))
    offs = r[:, None] * N + c[None, :]
    a = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    b = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    a.store(kl.load(x_ptr + offs))
    b.store(kl.load(x_ptr + offs) + 1.0)
    if flag > 0:
        s = a
    else:
        s = b
    kl.store(y_ptr + offs, s.load(L))


@kiln.jit
def reuse_after_choice_kernel(x_ptr, y_ptr, flag, n, N: kl.constexpr, W: kl.constexpr):
    """y = 2 ** (n + 1) * x + 1 through buffers chosen by an if and swapped by a loop, then a
    buffer allocated after both, which takes their bytes once they are dead, written and read
    back by other threads (a transposed layout)."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [W // 4, 4], [4, 1], [1, 0])
    T: kl.constexpr = kl.BlockedLayout([4, 1], [4, W // 4], [1, 4], [0, 1])
    r = kl.arange(0, N, kl.SliceLayout(1, L))
    c = kl.arange(0, N, kl.SliceLayout(0, L))
    offs = r[:, None] * N + c[None, :]
    a = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    b = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    if flag > 0:
        s = a
    else:
        s = b
    s.store(kl.load(x_ptr + offs) * 2.0)
    v = s.load(T)
    cur = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    nxt = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    cur.store(kl.convert_layout(v, L))
    for i in range(n):
        nxt.store(cur.load(T) * 2.0)
        cur, nxt = nxt, cur
    w = cur.load(T) + 1.0
    out = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    out.store(w)
    kl.store(y_ptr + offs, out.load(L))


@kiln.jit
def double_buffer_sum_kernel(x_ptr, y_ptr, tiles, N: kl.constexpr):
    """y = the sum of x's `tiles` [N, N] tiles: tile i + 1 is copied (cp.async) into one
    buffer while tile i is read from the other, and the two swap every iteration."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    r = kl.arange(0, N, kl.SliceLayout(1, L))
    c = kl.arange(0, N, kl.SliceLayout(0, L))
    offs = r[:, None] * N + c[None, :]
    cur = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    nxt = kl.allocate_shared_memory(kl.float32, [N, N], SH)
    cp.async_copy_global_to_shared(cur, x_ptr + offs)
    cp.commit_group()
    acc = kl.zeros([N, N], kl.float32, L)
    for i in range(tiles):
        more = i + 1 < tiles
        cp.async_copy_global_to_shared(nxt, x_ptr + (i + 1) * N * N + offs,
                                       mask=(offs < N * N) & more)
        cp.commit_group()
        cp.wait_group(1)  # tile i has landed
        acc += cur.load(L)
        cur, nxt = nxt, cur
    cp.wait_group(0)
    kl.store(y_ptr + offs, acc)


def _w(target):
    return 64 if target.startswith("hip") else 32


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_pingpong(target, n):
    x = torch.randn(32 * 32, device="cuda")
    y = torch.empty_like(x)
    pingpong_kernel[(1,)](x, y, n, N=32, W=_w(target), num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(y, x * 2.0 ** n)


@pytest.mark.parametrize("n,m", [(0, 3), (1, 1), (3, 4), (2, 5)])
def test_nested(target, n, m):
    x = torch.randn(32 * 32, device="cuda")
    y = torch.empty_like(x)
    nested_kernel[(1,)](x, y, n, m, N=32, W=_w(target), num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x + float(n * ((m + 1) // 2)), rtol=0, atol=1e-5)


@pytest.mark.parametrize("flag", [1, 0, -3])
def test_choose(target, flag):
    x = torch.randn(32 * 32, device="cuda")
    y = torch.empty_like(x)
    choose_kernel[(1,)](x, y, flag, N=32, W=_w(target), num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(y, x if flag > 0 else x + 1.0)


@pytest.mark.parametrize("tiles", [1, 2, 7])
def test_double_buffer(nvidia, tiles):
    x = torch.randn(tiles, 32, 32, device="cuda")
    y = torch.empty(32, 32, device="cuda")
    double_buffer_sum_kernel[(1,)](x, y, tiles, N=32, num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x.sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("flag,n", [(1, 0), (0, 1), (1, 4), (-2, 3)])
def test_reuse_after_choice(target, flag, n):
    x = torch.randn(32 * 32, device="cuda")
    y = torch.empty_like(x)
    reuse_after_choice_kernel[(1,)](x, y, flag, n, N=32, W=_w(target), num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(y, x * 2.0 ** (n + 1) + 1.0)
