"""warp_specialize inside a loop and inside ifs (test/Python/ws_loop_kernels.py), on the GPU
against torch on fresh inputs: the worker warps take part in every call the kernel's warps
reach, in order, and return when they do."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import ws_loop_kernels as K  # noqa: E402


def _needs_ws(target):
    if not target.startswith("cuda:"):
        pytest.skip("warp_specialize needs NVIDIA's named barriers")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the workers ask for registers (setmaxnreg, sm_90)")


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_in_a_loop(target, n):
    _needs_ws(target)
    block = 64
    x = torch.randint(-1000, 1000, (max(n, 1), block), dtype=torch.int32, device="cuda")
    out = torch.full((max(n, 1), block), -1, dtype=torch.int32, device="cuda")
    calls = torch.zeros(max(n, 1), dtype=torch.int32, device="cuda")
    K.ws_in_loop[(1,)](x, out, calls, n, BLOCK=block)
    torch.cuda.synchronize()
    i = torch.arange(n, device="cuda", dtype=torch.int32)[:, None]
    if n:
        assert torch.equal(out[:n], x[:n] * 2 + i + 1)
        assert torch.equal(calls[:n], i[:, 0] + 1)
    else:
        assert (out == -1).all() and (calls == 0).all()


@pytest.mark.parametrize("n", [0, 3, 6])
def test_in_branches(target, n):
    _needs_ws(target)
    block, programs = 32, 5
    out = torch.full((programs, n + 1, block), -1, dtype=torch.int32, device="cuda")
    K.ws_in_branches[(programs,)](out, n, BLOCK=block)
    torch.cuda.synchronize()
    want = torch.full_like(out, -1)
    for i in range(n):
        want[:, i, :] = (100 if i % 2 == 0 else 200) + i
    want[0::2, n, :] = 7
    assert torch.equal(out, want)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_worker_loop(target, n):
    _needs_ws(target)
    block = 32
    x = torch.randint(-1000, 1000, (max(n, 1), block), dtype=torch.int32, device="cuda")
    out = torch.full((2, block), -1, dtype=torch.int32, device="cuda")
    K.ws_worker_loop[(1,)](x, out, n, BLOCK=block, num_warps=4)
    torch.cuda.synchronize()
    w = torch.tensor([2 if i % 3 == 0 else 1 for i in range(n)], dtype=torch.int32,
                     device="cuda")
    want0 = (x[:n] * w[:, None]).sum(0).to(torch.int32) if n else torch.zeros_like(out[0])
    assert torch.equal(out[0], want0)
    assert torch.equal(out[1], torch.arange(block, dtype=torch.int32, device="cuda") * n)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_pipelined_loops_in_partitions(target, n):
    _needs_ws(target)
    block = 64
    x = torch.randn(n, block, 16, device="cuda")
    y = torch.randn(n, block, 16, device="cuda")
    out = torch.full((2, block, 16), float("nan"), device="cuda")
    K.ws_pipelined_loops[(1,)](x, y, out, n, BLOCK=block, num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(out[0], x.sum(0), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out[1], y.sum(0), rtol=1e-5, atol=1e-5)
