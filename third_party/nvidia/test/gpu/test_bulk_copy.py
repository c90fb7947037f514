"""hopper.bulk.async_load on a Hopper GPU (Gluon's name after Triton 3.8): contiguous global
bytes copied into shared memory by cp.async.bulk, completing on an mbarrier, read back and
compared with torch -- a constant and a run-time byte count, a copy of part of the buffer, a
two-slot ring refilled by bulk copies, and a multicast into both CTAs of a cluster. Skips
cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from bulk_kernels import copy_kernel, multicast_kernel, ring_kernel  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"cp.async.bulk needs sm_90; this device's target is {target}")
    return target


@pytest.mark.parametrize("n", [256, 1024, 4096])
@pytest.mark.parametrize("runtime", [False, True])
def test_copy(sm90, n, runtime):
    src = torch.randn(n, device="cuda")
    dst = torch.full((n,), float("nan"), device="cuda")
    copy_kernel[(1,)](src, dst, n * 4, n, runtime, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(dst, src)


def test_copy_offset_source(sm90):
    # A 16-byte aligned source inside a larger tensor.
    n = 1024
    big = torch.randn(3 * n, device="cuda")
    dst = torch.empty(n, device="cuda")
    copy_kernel[(1,)](big[n:], dst, n * 4, n, True, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(dst, big[n:2 * n])


@pytest.mark.parametrize("steps", [1, 2, 5, 8])
def test_ring(sm90, steps):
    n = 512
    src = torch.randn(steps * n, device="cuda")
    dst = torch.empty(n, device="cuda")
    ring_kernel[(1,)](src, dst, steps, n, num_warps=4)
    torch.cuda.synchronize()
    ref = src.view(steps, n).sum(0)
    torch.testing.assert_close(dst, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("multicast", [False, True])
def test_multicast(sm90, multicast):
    n = 1024
    src = torch.randn(n, device="cuda")
    dst = torch.full((2 * n,), float("nan"), device="cuda")
    multicast_kernel[(1,)](src, dst, n, multicast, num_warps=4, num_ctas=2)
    torch.cuda.synchronize()
    assert torch.equal(dst, torch.cat([src, src]))
