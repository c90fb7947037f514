"""Two partitions of a warp_specialize reducing across their own warps and moving layouts
through shared memory at the same time (test/Python/ws_scratch_kernels.py), on the GPU against
torch on fresh inputs: their scratch does not overlap and their barriers wait for their own
warps only."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import ws_scratch_kernels as K  # noqa: E402


@pytest.mark.parametrize("worker_warps", [1, 2, 4])
@pytest.mark.parametrize("n", [1, 40])
def test_partitions_reduce_concurrently(target, worker_warps, n):
    if not target.startswith("cuda:"):
        pytest.skip("warp_specialize needs NVIDIA's named barriers")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the workers ask for registers (setmaxnreg, sm_90)")
    rows = 64
    x = torch.randint(-1000, 1000, (n, rows, 32), dtype=torch.int32, device="cuda")
    y = torch.randint(-1000, 1000, (n, rows, 32), dtype=torch.int32, device="cuda")
    out = torch.full((33 + 2 * rows,), -1, dtype=torch.int32, device="cuda")
    for _ in range(3):  # the same answer each time (a race shows as a wrong or changing one)
        K.ws_scratch[(1,)](x, y, out, n, ROWS=rows, WORKER_WARPS=worker_warps, num_warps=4)
        torch.cuda.synchronize()
        row_max = y.amax(dim=2).sum(dim=0)
        assert torch.equal(out[:32], x.sum(dim=(0, 1)).to(torch.int32))
        assert torch.equal(out[32:32 + rows], row_max.to(torch.int32))
        assert out[32 + rows].item() == row_max.sum().item()
        scans = y.amax(dim=2).cumsum(dim=1).sum(dim=0)
        assert torch.equal(out[33 + rows:], scans.to(torch.int32))


@pytest.mark.parametrize("worker_warps", [1, 4])
@pytest.mark.parametrize("n", [1, 37])
def test_partitions_reuse_their_own_dead_buffers(target, worker_warps, n):
    """Each partition stages every round through two buffers that share bytes (the second is
    made after the first is dead) while the other partition does the same on its own bytes:
    the answers are right and the same on every run."""
    if not target.startswith("cuda:") or torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("warp_specialize with register budgets needs sm_90 named barriers")
    rows = 64
    ints = lambda *s: torch.randint(-8, 9, s, device="cuda").to(torch.bfloat16)  # exact in bf16
    x, y, z = ints(n, rows, 64), ints(n, rows, 64), ints(2, rows, 64)
    for _ in range(3):
        out = torch.full_like(x, float("nan"))
        out2 = torch.full_like(y, float("nan"))
        K.ws_dead_buffers[(1,)](x, y, z, out, out2, n, ROWS=rows, WORKER_WARPS=worker_warps,
                                num_warps=4)
        torch.cuda.synchronize()
        assert torch.equal(out, 2 * x + z[0]), (out - (2 * x + z[0])).abs().max()
        assert torch.equal(out2, 2 * y + z[1]), (out2 - (2 * y + z[1])).abs().max()
