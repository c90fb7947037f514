"""mbarriers (kiln.language.nvidia.hopper.mbarrier) on the GPU: phases complete in order
(a wait on the wrong parity would hang, so the run is also a liveness check), and data
written before thread 0's arrival is read correctly by every thread after the wait.
Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy
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


@kiln.jit
def copy_through_mbarrier(out, inp, xnumel, XBLOCK: kl.constexpr, YBLOCK: kl.constexpr,
                          NOINC: kl.constexpr = False):
    """Gluon's async_copy.mbarrier_arrive: masked cp.async copies (zeros past xnumel), never
    committed, land at an mbarrier wait; with NOINC every thread's arrival (.noinc) counts
    toward an init count of one per thread, and no other arrive completes the phase."""
    smem = kl.allocate_shared_memory(inp.dtype.element_ty, [XBLOCK, YBLOCK],
                                     kl.SwizzledSharedLayout(1, 1, 1, order=[1, 0]))
    block: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    xi = kl.arange(0, XBLOCK, kl.SliceLayout(1, block))[:, None]
    yi = kl.arange(0, YBLOCK, kl.SliceLayout(0, block))[None, :]
    async_copy.async_copy_global_to_shared(smem, inp + xi * YBLOCK + yi, xi < xnumel)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    if NOINC:
        mbarrier.init(bar, count=32 * kl.num_warps())
        async_copy.mbarrier_arrive(bar, increment_count=False)
    else:
        mbarrier.init(bar, count=1)
        async_copy.mbarrier_arrive(bar)
        mbarrier.arrive(bar)
    mbarrier.wait(bar, 0)
    kl.store(out + xi * YBLOCK + yi, smem.load(block))


@pytest.mark.parametrize("noinc", [False, True])
def test_copy_through_mbarrier(hopper, noinc):
    out = torch.full((32, 32), float("nan"), device="cuda")
    inp = torch.randn((20, 32), device="cuda")
    copy_through_mbarrier[(1,)](out, inp, inp.shape[0], XBLOCK=32, YBLOCK=32, NOINC=noinc,
                                num_warps=4)
    torch.testing.assert_close(out[:20], inp, rtol=0, atol=0)
    torch.testing.assert_close(out[20:], torch.zeros((12, 32), device="cuda"), rtol=0, atol=0)
