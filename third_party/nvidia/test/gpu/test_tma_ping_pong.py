"""TMA loads into buffers and mbarriers that trade places every iteration (ping-pong), against
torch on fresh random inputs: the sum of n tiles for n of 1 (the loop's one iteration), even
and odd counts. Skips cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiln.language as kl  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402
from pingpong_kernels import tma_ping_pong_sum  # noqa: E402


@pytest.mark.parametrize("n_tiles", [1, 2, 3, 8])
@pytest.mark.parametrize("BM,BN", [(64, 64), (32, 128)])
def test_tma_ping_pong_sum(target, n_tiles, BM, BN):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a; this device's target is {target}")
    x = torch.randn(n_tiles * BM, BN, device="cuda", dtype=torch.float16)
    y = torch.empty(BM, BN, device="cuda", dtype=torch.float32)
    layout = kl.NVMMASharedLayout.get_default_for([BM, BN], kl.float16)
    desc = TensorDescriptor.from_tensor(x, [BM, BN], layout)
    tma_ping_pong_sum[(1,)](desc, y, n_tiles, READ_NEXT=False, num_warps=4)
    torch.cuda.synchronize()
    ref = x.float().reshape(n_tiles, BM, BN).sum(0)
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-4)
