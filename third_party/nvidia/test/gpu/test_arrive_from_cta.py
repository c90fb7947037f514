"""mbarrier.arrive(from_cta=) (Gluon's, after Triton 3.8) in clusters on a Hopper GPU: the
CTA whose rank has the bits outside the mask clear arrives on every barrier of its group, so
each CTA's barrier (count 1) completes once per round and every CTA goes on; a wrong routing
would hang or complete a phase early. Skips cleanly without torch, a driver or an sm_90
device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import cluster, mbarrier  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")
    return target


@kiln.jit
def rounds_kernel(out, ROUNDS: kl.constexpr, FROM_CTA: kl.constexpr):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    for i in range(ROUNDS):
        mbarrier.arrive(bar, from_cta=FROM_CTA)
        mbarrier.wait(bar, phase=i & 1)
    mbarrier.invalidate(bar)
    kl.atomic_add(out + cluster.cta_rank(), 1)


@pytest.mark.parametrize("num_ctas,from_cta", [(2, 0), (2, 1), (4, 0), (4, 2), (8, 5), (8, 0)])
def test_every_cta_gets_one_arrival_a_round(sm90, num_ctas, from_cta):
    out = torch.zeros(num_ctas, dtype=torch.int32, device="cuda")
    rounds_kernel[(1,)](out, 16, from_cta, num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.ones_like(out))
