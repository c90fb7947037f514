"""TMA reduce-stores on a Hopper GPU (Gluon's ``tma.async_atomic_add`` / ``_min`` / ``_max`` /
``_and`` / ``_or`` / ``_xor``), against torch on fresh random inputs: each program TMA-loads
its block of ``src`` and reduces it into the same block of ``dst``, whose shape is not a
multiple of the block (the edge boxes are clipped: nothing past the tensor is written), then
waits with ``store_wait(0, read_only=False)`` for the writes. Two programs reducing into one
block both land. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import mbarrier, tma  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA reduce-stores need sm_90a; this device's target is {target}")
    return target


@kiln.jit
def tma_reduce_kernel(src_desc, dst_desc, KIND: kl.constexpr, SAME_BLOCK: kl.constexpr):
    """dst[block] = dst[block] KIND src[block] for this program's block of src, into the
    same block of dst (SAME_BLOCK: into dst's first block, for every program)."""
    BR: kl.constexpr = src_desc.block_type.shape[0]
    BC: kl.constexpr = src_desc.block_type.shape[1]
    r = kl.program_id(0) * BR
    c = kl.program_id(1) * BC
    buf = kl.allocate_shared_memory(src_desc.dtype, [BR, BC], src_desc.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, src_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(src_desc, [r, c], bar, buf)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    if SAME_BLOCK:
        r = 0
        c = 0
    if KIND == "add":
        tma.async_atomic_add(dst_desc, [r, c], buf)
    elif KIND == "min":
        tma.async_atomic_min(dst_desc, [r, c], buf)
    elif KIND == "max":
        tma.async_atomic_max(dst_desc, [r, c], buf)
    elif KIND == "and":
        tma.async_atomic_and(dst_desc, [r, c], buf)
    elif KIND == "or":
        tma.async_atomic_or(dst_desc, [r, c], buf)
    else:
        tma.async_atomic_xor(dst_desc, [r, c], buf)
    tma.store_wait(0, read_only=False)


_KL = {torch.float32: kl.float32, torch.float16: kl.float16, torch.bfloat16: kl.bfloat16,
       torch.int32: kl.int32, torch.int64: kl.int64, torch.uint64: kl.uint64}
_TORCH_OP = {"add": torch.add, "min": torch.minimum, "max": torch.maximum,
             "and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor}


def _random(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    # Negative values too: min and max on int32 compare signed (the map's INT32).
    return torch.randint(-2**20, 2**20, shape, device="cuda", dtype=dtype)


def _desc(t, block, dtype=None):
    """A descriptor of ``t`` (read as ``dtype``: the same bytes as another type)."""
    dtype = dtype or t.dtype
    t = t.view(dtype)
    layout = kl.NVMMASharedLayout.get_default_for(list(block), _KL[dtype])
    return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block), layout)


def _check(out, ref):
    if out.dtype.is_floating_point:
        # dst + src rounded once by each (torch through fp32 for 16-bit types): torch's
        # tolerance for the dtype allows the odd last-bit difference; min and max are exact.
        torch.testing.assert_close(out, ref)
    else:
        assert torch.equal(out, ref)


CASES = ([("add", d) for d in (torch.float32, torch.float16, torch.bfloat16, torch.int32)]
         + [(k, d) for k in ("min", "max") for d in (torch.float16, torch.bfloat16, torch.int32)]
         + [(k, d) for k in ("min", "max") for d in (torch.int64,)]
         # 64-bit bitwise ones on uint64 maps (an int64 map stops the GPU: the DSL refuses it).
         + [(k, d) for k in ("and", "or", "xor") for d in (torch.int32, torch.uint64)])


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k}-{str(d)[6:]}" for k, d in CASES])
def test_reduce_each_kind_clipped(sm90, kind, dtype):
    # 100 x 72 in 32 x 32 blocks: the last block row and column stick out of the tensor.
    shape, block = (100, 72), (32, 32)
    grid = (-(-shape[0] // block[0]), -(-shape[1] // block[1]))
    # uint64: int64 data (torch computes no uint64 bitwise ops on CUDA) behind a uint64 map.
    data = torch.int64 if dtype == torch.uint64 else dtype
    for _ in range(2):
        src = _random(shape, data)
        dst = _random(shape, data)
        ref = _TORCH_OP[kind](dst, src)
        # dst inside a larger buffer: the guard columns and rows past the tensor stay.
        whole = _random((shape[0] + 8, 80), data)
        guard = whole.clone()
        view = whole[:shape[0], :shape[1]]
        view.copy_(dst)
        guard[:shape[0], :shape[1]] = ref
        tma_reduce_kernel[grid](_desc(src, block, dtype), _desc(view, block, dtype), kind,
                                False, num_warps=4)
        torch.cuda.synchronize()
        _check(view, ref)
        assert torch.equal(whole[shape[0]:], guard[shape[0]:])
        assert torch.equal(whole[:, shape[1]:], guard[:, shape[1]:])


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_two_programs_add_into_one_block(sm90, dtype):
    block = (64, 32)
    for _ in range(2):
        src = _random((2 * block[0], block[1]), dtype)
        dst = _random(block, dtype)
        ref = dst + src[:block[0]] + src[block[0]:]
        tma_reduce_kernel[(2, 1)](_desc(src, block), _desc(dst, block), "add", True,
                                  num_warps=4)
        torch.cuda.synchronize()
        if dtype.is_floating_point:
            # The two adds land in either order: each order rounds twice.
            torch.testing.assert_close(dst, ref, rtol=1e-6, atol=1e-6)
        else:
            assert torch.equal(dst, ref)
