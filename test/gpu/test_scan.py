"""associative_scan on the GPU against torch on fresh random inputs (kernels:
test/Python/test_scan_dsl.py): both axes, forward and reverse, an associative but not
commutative combine (the operand order shows), several layouts -- lanes and warps along the
axis (shuffles, shared memory), repetitions above the warps, broadcast lanes and warps, MMA
accumulators --, 1-D scans of up to 2048 elements across 4 and 8 warps, a scan of a
(value, index) tuple, and a 1-D scan of ragged length (masked)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import kiln.language as kl  # noqa: E402
import test_scan_dsl as k  # noqa: E402

W = 32
LAYOUTS = [kl.BlockedLayout([1, 4], [4, W // 4], [4, 1], [0, 1]),
           kl.BlockedLayout([2, 2], [8, W // 8], [2, 2], [1, 0]),
           kl.BlockedLayout([1, 2], [1, W], [1, 4], [1, 0]),
           kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]),
           kl.BlockedLayout([1, 1], [1, W], [1, 4], [1, 0]),    # lanes and warps along axis 1
           kl.BlockedLayout([1, 1], [W, 1], [4, 1], [0, 1]),    # ... along axis 0
           kl.BlockedLayout([2, 1], [4, W // 4], [2, 2], [0, 1]),
           kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                     instr_shape=[16, 16, 16])]


def _ref(x, axis, reverse, op):
    if reverse:
        return _ref(x.flip(axis), axis, False, op).flip(axis)
    if op == "add":
        return torch.cumsum(x, dim=axis, dtype=x.dtype)
    out = x.clone()  # last non-zero so far
    n = x.shape[axis]
    for i in range(1, n):
        prev = out.select(axis, i - 1)
        cur = out.select(axis, i)
        cur.copy_(torch.where(cur != 0, cur, prev))
    return out


@pytest.mark.parametrize("layout", LAYOUTS, ids=range(len(LAYOUTS)))
@pytest.mark.parametrize("shape", [(32, 64), (64, 16), (16, 128)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("op", ["add", "last"])
def test_scan_2d(target, layout, shape, axis, reverse, op):
    m, n = shape
    x = torch.randint(-100, 100, shape, dtype=torch.int32, device="cuda")
    if op == "last":
        x = x * (torch.rand(shape, device="cuda") < 0.3)
    z = torch.empty_like(x)
    k.scan2d_kernel[(1,)](x, z, m, n, layout, axis, reverse, op, num_warps=4)
    torch.testing.assert_close(z, _ref(x, axis, reverse, op), rtol=0, atol=0)


@pytest.mark.parametrize("n", [1, 100, 127, 256])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_1d_ragged(target, n, reverse):
    x = torch.randn(n, device="cuda")
    z = torch.full((256,), 7.0, device="cuda")
    k.scan1d_kernel[(1,)](x, z, n, 256, kl.BlockedLayout([2], [W], [4], [0]), reverse,
                          num_warps=4)
    want = torch.cumsum(x.double(), 0) if not reverse else x.double().flip(0).cumsum(0).flip(0)
    torch.testing.assert_close(z[:n].double(), want, rtol=1e-5, atol=1e-4)
    assert torch.all(z[n:] == 7.0)


@pytest.mark.parametrize("n,spec", k.ACROSS_WARPS_1D)
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("op", ["add", "last"])
def test_scan_1d_across_warps(target, n, spec, reverse, op):
    L, warps = k._blocked_1d(spec, W)
    x = torch.randint(-100, 100, (n,), dtype=torch.int32, device="cuda")
    if op == "last":
        x = x * (torch.rand(n, device="cuda") < 0.1)
    z = torch.empty_like(x)
    k.scan1d_op_kernel[(1,)](x, z, n, L, reverse, op, num_warps=warps)
    torch.testing.assert_close(z, _ref(x, 0, reverse, op), rtol=0, atol=0)


def _running_argmax(v, reverse):
    v = v.tolist()
    order = range(len(v) - 1, -1, -1) if reverse else range(len(v))
    best = bi = None
    vals, idx = [0.0] * len(v), [0] * len(v)
    for i in order:
        if best is None or v[i] > best:
            best, bi = v[i], i
        vals[i], idx[i] = best, bi
    return vals, idx


@pytest.mark.parametrize("n,spec", [(1024, "[1],[W],[4]"), (256, "[2],[W],[4]"),
                                    (64, "[1],[W],[4]")])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_of_a_tuple(target, n, spec, reverse):
    L, warps = k._blocked_1d(spec, W)
    x = torch.randint(0, 50, (n,), device="cuda").float()  # many ties: the order shows
    zv, zi = torch.empty_like(x), torch.empty(n, dtype=torch.int32, device="cuda")
    k.scan_tuple_kernel[(1,)](x, zv, zi, n, L, reverse, num_warps=warps)
    vals, idx = _running_argmax(x.cpu(), reverse)
    assert zv.cpu().tolist() == vals
    assert zi.cpu().tolist() == idx


def test_scans_in_a_loop_and_under_an_if(target):
    n = 5
    x = torch.randint(-3, 4, (n, 512), device="cuda").float()
    z = torch.empty(512, device="cuda")
    k.scan_in_loop_kernel[(1,)](x, z, n, kl.BlockedLayout([1], [W], [4], [0]), num_warps=4)
    acc = torch.zeros(512, dtype=torch.float64)
    for i in range(n):
        acc = acc + torch.cumsum(x[i].cpu().double(), 0)
        if i % 2 == 0:
            acc = acc.flip(0).cumsum(0).flip(0)
    # fp32 sums past 2^24: each element's rounding error scales with the largest partial
    # sums (an element near 0 can still carry it), so the absolute tolerance does too; a
    # wrong scan is off by the values themselves
    scale = acc.abs().max().item()
    torch.testing.assert_close(z.cpu().double(), acc, rtol=1e-4, atol=1e-2 + 1e-5 * scale)
