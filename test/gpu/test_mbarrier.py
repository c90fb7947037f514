"""mbarriers (kiln.language.nvidia.hopper.mbarrier) on the GPU: phases complete in order
(a wait on the wrong parity would hang, so the run is also a liveness check), and data
written before thread 0's arrival is read correctly by every thread after the wait.
Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

L = kl.BlockedLayout([1], [32], [4], [0])
# Lane order reversed inside each warp and the warps reversed: every thread reads elements
# other threads wrote.
R = kl.DistributedLinearLayout(reg_bases=[], lane_bases=[[64], [32], [16], [8], [4]],
                               warp_bases=[[2], [1]], block_bases=[], shape=[128])


@kiln.jit
def phases(x, y, ROUNDS: kl.constexpr):
    offs = kl.arange(0, 128, L)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    buf = kl.allocate_shared_memory(kl.float32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    acc = kl.zeros([128], kl.float32, R)
    for i in range(ROUNDS):
        buf.store(kl.load(x + offs) * (i + 1))
        mbarrier.arrive(bar)
        mbarrier.wait(bar, i % 2)
        acc += buf.load(R)
    mbarrier.invalidate(bar)
    kl.store(y + kl.arange(0, 128, R), acc)


@pytest.fixture
def hopper(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"mbarrier.try_wait.parity needs sm_90; this device's target is {target}")
    return target


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_phases(hopper, rounds):
    for _ in range(3):
        x = torch.randn(128, device="cuda")
        y = torch.full_like(x, float("nan"))
        phases[(4,)](x, y, ROUNDS=rounds, num_warps=4)
        torch.cuda.synchronize()
        want = x * sum(range(1, rounds + 1))
        torch.testing.assert_close(y, want, rtol=1e-6, atol=1e-5)
