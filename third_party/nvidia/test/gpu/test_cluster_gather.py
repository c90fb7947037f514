"""A gather from and a scatter into a buffer split among the CTAs of a cluster (distributed
shared memory: mapa and ld / st.shared::cluster), against torch: every element read from, or
written to, the CTA holding the element SHIFT places on, for clusters of 2, 4 and 8. Skips
cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_gather_kernels import layouts, rotate_through_peers, scatter_through_peers  # noqa: E402,E501


@pytest.mark.parametrize("num_ctas", [2, 4, 8])
@pytest.mark.parametrize("shift", [1, 32, 45, 100])
def test_rotate_through_peers(target, num_ctas, shift):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")
    block = 32 * num_ctas
    out = torch.full((block,), -1, device="cuda", dtype=torch.int32)
    L, S = layouts(num_ctas)
    rotate_through_peers[(num_ctas,)](out, SHIFT=shift % block, TILE=32, L=L, S=S,
                                      num_warps=1, num_ctas=num_ctas)
    torch.cuda.synchronize()
    i = torch.arange(block, device="cuda", dtype=torch.int32)
    assert torch.equal(out, 3 * ((i + shift % block) % block) + 1)


@pytest.mark.parametrize("num_ctas", [2, 4, 8])
@pytest.mark.parametrize("shift", [1, 32, 45])
def test_scatter_through_peers(target, num_ctas, shift):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")
    block = 32 * num_ctas
    out = torch.full((block,), -1, device="cuda", dtype=torch.int32)
    L, S = layouts(num_ctas)
    scatter_through_peers[(num_ctas,)](out, SHIFT=shift % block, TILE=32, L=L, S=S,
                                       num_warps=1, num_ctas=num_ctas)
    torch.cuda.synchronize()
    i = torch.arange(block, device="cuda", dtype=torch.int32)
    expected = torch.empty_like(out)
    expected[(i + shift % block) % block] = 3 * i + 1
    assert torch.equal(out, expected)
