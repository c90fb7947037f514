"""The warp-specialized hand-off of test/Python/test_ws_handoff_dsl.py on the GPU: a loader
partition streams n blocks of a [32, 64 n] tensor through a ring of 1 to 3 slots by TMA, the
default partition sums them; against torch on fresh random inputs."""

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_ws_handoff_dsl as k  # noqa: E402

import kiln.language as kl  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_handoff_sums_every_block(target, depth, n):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a, the device is {target}")
    x = torch.randn(32, 64 * n, device="cuda")
    out = torch.zeros(32, 64, device="cuda")
    lay = kl.NVMMASharedLayout.get_default_for([32, 64], kl.float32)
    desc = TensorDescriptor.from_tensor(x, [32, 64], lay)
    k.handoff_kernel[(1,)](desc, out, n, depth, False)
    torch.testing.assert_close(out, x.view(32, n, 64).sum(1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel,rows,args", [
    # a producer warp's single TMA load, no wait before it; the consumer waits on the barrier
    # it completes on, then reads
    ("tma_handoff_once", 64, ()),
    # two TMA loads completing on one barrier under one expect of both; the consumer reads
    # both after one wait
    ("tma_two_halves", 128, (False,)),
])
def test_one_shot_handoffs(target, kernel, rows, args):
    # test/Python/test_async_misuse_dsl.py's kernels of those names
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a, the device is {target}")
    import test_async_misuse_dsl as m
    x = torch.randn(rows, 64, device="cuda").half()
    out = torch.zeros(rows, 64, device="cuda").half()
    desc = TensorDescriptor.from_tensor(x, [64, 64], m.NV64)
    getattr(m, kernel)[(1,)](desc, out, *args, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(out, x)
