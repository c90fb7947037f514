"""TMA blocks of more than 256 rows on a Hopper GPU, against torch on fresh random inputs:
each program copies its block of ``src`` (a TMA load of boxes of 256 rows per swizzle chunk)
into the same block of ``dst`` (a TMA store, or an add reduce-store, of the same boxes);
shapes that are not multiples of the block clip the edge boxes. Kernels:
third_party/nvidia/test/python/test_tma_tall_blocks_dsl.py's layouts. Skips cleanly without
torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a; this device's target is {target}")
    return target


@kiln.jit
def block_copy_kernel(src, dst, REDUCE: kl.constexpr):
    BR: kl.constexpr = src.block_type.shape[0]
    BC: kl.constexpr = src.block_type.shape[1]
    r = kl.program_id(0) * BR
    c = kl.program_id(1) * BC
    buf = kl.allocate_shared_memory(src.dtype, [BR, BC], src.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, src.block_type.nbytes)
    tma.async_copy_global_to_shared(src, [r, c], bar, buf)
    mbarrier.wait(bar, phase=0, deps=[buf])
    mbarrier.invalidate(bar)
    fence_async_shared()
    if REDUCE:
        tma.async_atomic_add(dst, [r, c], buf)
    else:
        tma.async_copy_shared_to_global(dst, [r, c], buf)
    tma.store_wait(0, read_only=False)


TORCH = {kl.float16: torch.float16, kl.float32: torch.float32, kl.bfloat16: torch.bfloat16}


@pytest.mark.parametrize("dtype,block,swizzle", [
    (kl.float16, [512, 64], 128), (kl.float32, [512, 64], 128), (kl.float32, [1024, 32], 32),
    (kl.bfloat16, [2048, 16], 32), (kl.float16, [512, 8], 0)])
@pytest.mark.parametrize("shape", ["exact", "ragged"])
@pytest.mark.parametrize("reduce", [False, True])
def test_tall_blocks(sm90, dtype, block, swizzle, shape, reduce):
    rows = 2 * block[0] if shape == "exact" else 2 * block[0] - 300
    cols = 2 * block[1] if shape == "exact" else 2 * block[1] + 8
    t = TORCH[dtype]
    src = torch.randint(-8, 8, (rows, cols), device="cuda").to(t)
    dst0 = torch.randint(-8, 8, (rows, cols), device="cuda").to(t)
    dst = dst0.clone()
    layout = kl.NVMMASharedLayout(swizzle, dtype.primitive_bitwidth, 2)
    sd = TensorDescriptor.from_tensor(src, block, layout)
    dd = TensorDescriptor.from_tensor(dst, block, layout)
    grid = (-(-rows // block[0]), -(-cols // block[1]))
    block_copy_kernel[grid](sd, dd, reduce)
    torch.cuda.synchronize()
    ref = dst0 + src if reduce else src
    assert torch.equal(dst, ref)
