"""A TMA ring that the pipeliner (tile-nv-pipeline-tma) builds from a num_stages loop whose
blocks every warp reads with shared-memory loads: on 8 warps the warps release each slot on an
"empty" barrier of their own arrivals and the refill waits for it (no CTA barrier per
iteration); on 4 warps the refill follows a CTA barrier. Sums of column blocks against a float64
torch reference on fresh random inputs, and the same bits for every ring depth. Skips cleanly
without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as gl  # noqa: E402
from kiln.language.nvidia.hopper import mbarrier, tma  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a; this device's target is {target}")
    return target


@kiln.jit
def block_sum_kernel(x_desc, out_ptr, C, STAGES: gl.constexpr, num_warps: gl.constexpr):
    """out[r, j] = sum over k of x[r, k * BC + j] for the BR rows of this program."""
    BR: gl.constexpr = x_desc.block_type.shape[0]
    BC: gl.constexpr = x_desc.block_type.shape[1]
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [num_warps, 1], [1, 0])
    row0 = gl.program_id(0) * BR
    buf = gl.allocate_shared_memory(x_desc.dtype, [BR, BC], x_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    acc = gl.zeros([BR, BC], gl.float32, layout)
    phase = 0
    for c in gl.range(0, C, BC, num_stages=STAGES):
        mbarrier.expect(bar, x_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(x_desc, [row0, c], bar, buf)
        mbarrier.wait(bar, phase)
        phase ^= 1
        acc += buf.load(layout)
    mbarrier.invalidate(bar)
    rows = row0 + gl.arange(0, BR, gl.SliceLayout(1, layout))
    cols = gl.arange(0, BC, gl.SliceLayout(0, layout))
    gl.store(out_ptr + rows[:, None] * BC + cols[None, :], acc)


def block_sum(x, stages, warps, BR=64, BC=64):
    from kiln.nvidia.hopper import TensorDescriptor
    R, C = x.shape
    out = torch.full((R, BC), float("nan"), device="cuda")
    layout = gl.NVMMASharedLayout.get_default_for([BR, BC], gl.float32)
    desc = TensorDescriptor.from_tensor(x, [BR, BC], layout)
    block_sum_kernel[(R // BR,)](desc, out, C, STAGES=stages, num_warps=warps)
    return out


@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("R,C", [(128, 64), (256, 1024), (64, 4096)])
def test_block_sum_across_stages(sm90, warps, R, C):
    g = torch.Generator(device="cuda").manual_seed(R * 7 + C + warps)
    x = torch.randn((R, C), device="cuda", generator=g)
    ref = x.double().view(R, C // 64, 64).sum(1)
    outs = {s: block_sum(x, s, warps) for s in range(1, 5)}
    torch.cuda.synchronize()
    assert torch.allclose(outs[1].double(), ref, rtol=1e-5, atol=1e-4)
    for s in range(2, 5):
        assert torch.equal(outs[s], outs[1]), f"num_stages={s} differs from 1"

