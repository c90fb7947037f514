"""hopper.async_store on a Hopper GPU (Gluon's name after Triton 3.6; its own test_core.py
checks the same round trip): values stored into shared memory by st.async in each CTA of a
cluster of two, waited for on an mbarrier that expects the buffer's bytes, read back and
compared with torch. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from async_store_kernels import async_store_roundtrip  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"st.async needs sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("block,v,dt,torch_dt", [
    (128, 1, kl.int32, torch.int32), (256, 2, kl.float16, torch.float16),
    (512, 4, kl.int32, torch.int32), (1024, 8, kl.int32, torch.int32),
    (64, 1, kl.int32, torch.int32)])  # 64: every element in two threads, stored once
@pytest.mark.parametrize("cga", [[[0]], [[1]]])
def test_async_store_roundtrip(sm90, block, v, dt, torch_dt, cga):
    out = torch.full((block,), -1, device="cuda", dtype=torch_dt)
    async_store_roundtrip[(1,)](out, block, v, dt, cga, num_warps=4, num_ctas=2)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.arange(block, device="cuda", dtype=torch_dt))
