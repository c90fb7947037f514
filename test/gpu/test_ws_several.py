"""Two warp_specialize calls in one kernel (test/Python/ws_several_kernels.py), against torch on
fresh random inputs: the ring hand-off of the first, then three partitions of the second."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import ws_several_kernels as K  # noqa: E402


@pytest.mark.parametrize("n,depth", [(1, 1), (5, 2), (64, 3)])
def test_two_phases(target, n, depth):
    if not target.startswith("cuda:"):
        pytest.skip("warp_specialize needs NVIDIA's named barriers")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the second call moves registers between warp groups (sm_90)")
    block, size = 128, 256
    x = torch.randn(max(n * block, size), device="cuda")
    total = torch.full((block,), float("nan"), device="cuda")
    y, z, w = (torch.full((size,), float("nan"), device="cuda") for _ in range(3))
    for _ in range(3):  # the same results each launch
        K.ws_two_phases[(1,)](x, total, y, z, w, n, BLOCK=block, DEPTH=depth, N=size)
        ref = x[:n * block].view(n, block).sum(0)
        # Same order of additions as the kernel (block after block), in fp32.
        seq = torch.zeros(block, device="cuda")
        for i in range(n):
            seq += x[i * block:(i + 1) * block]
        torch.testing.assert_close(total, seq, rtol=0, atol=0)
        torch.testing.assert_close(total, ref, rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(y, -x[:size], rtol=0, atol=0)
        torch.testing.assert_close(z, x[:size] + 1.0, rtol=0, atol=0)
        torch.testing.assert_close(w, x[:size] * 3.0, rtol=0, atol=0)


@pytest.mark.parametrize("n", [128, 512])
def test_shared_memory_across_calls(target, n):
    """The barriers around each call order shared memory between the calls' partitions and
    the kernel's code between them (racecheck judges this one: no mbarrier involved)."""
    if not target.startswith("cuda:"):
        pytest.skip("warp_specialize needs NVIDIA's named barriers")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the calls move registers between warp groups (sm_90)")
    x = torch.randn(n, device="cuda")
    y, z = (torch.full((n,), float("nan"), device="cuda") for _ in range(2))
    K.ws_shared_across_calls[(1,)](x, y, z, N=n)
    torch.testing.assert_close(z, x, rtol=0, atol=0)
    torch.testing.assert_close(y, x * 2.0, rtol=0, atol=0)
