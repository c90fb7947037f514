"""Named barriers on the GPU: two warp groups alternate through them
(test/Python/named_barrier_kernels.py), each turn building on the other's last write; any
turn taken out of order breaks the count."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import named_barrier_kernels as K  # noqa: E402


@pytest.mark.parametrize("n", [0, 1, 2, 5, 100])
def test_ping_pong(target, n):
    if not target.startswith("cuda:"):
        pytest.skip("named barriers are NVIDIA's")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the worker partition asks for registers (setmaxnreg, sm_90)")
    log = torch.full((2 * n + 1,), -1, dtype=torch.int32, device="cuda")
    for _ in range(3):
        log.fill_(-1)
        K.ping_pong[(8,)](log, n)
        torch.cuda.synchronize()
        expect = torch.arange(1, 2 * n + 1, dtype=torch.int32, device="cuda")
        assert torch.equal(log[:2 * n], expect), log[:2 * n].tolist()
        assert log[2 * n].item() == -1
