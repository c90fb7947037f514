"""TMA blocks of more than 256 rows (a box's most): a 2-D block of up to 4,096 rows is copied
as boxes of 256 rows, one under the other, as Triton does; with rows wider than the swizzle,
as boxes of 256 rows per swizzle chunk. The host descriptor's box follows (``tma_box``).
third_party/nvidia/test/gpu/test_tma_tall_blocks.py copies such blocks on the GPU."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma
from kiln.nvidia.hopper import tma_box

import compiled

pytestmark = compiled.needs_compiler


def desc_type(dtype, block, swizzle=None):
    layout = (kl.NVMMASharedLayout.get_default_for(list(block), dtype) if swizzle is None else
              kl.NVMMASharedLayout(swizzle, dtype.primitive_bitwidth, 2))
    return kl.tensor_descriptor_type(dtype, list(block), layout)


@kiln.jit
def copy_kernel(src, dst, REDUCE: kl.constexpr):
    """The block at (0, 0) of src through shared memory to dst's (0, 0): a TMA load, then a
    TMA store (or an add reduce-store)."""
    buf = kl.allocate_shared_memory(src.dtype, src.block_shape, src.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, src.block_type.nbytes)
    tma.async_copy_global_to_shared(src, [0, 0], bar, buf)
    mbarrier.wait(bar, phase=0, deps=[buf])
    mbarrier.invalidate(bar)
    fence_async_shared()
    if REDUCE:
        tma.async_atomic_add(dst, [0, 0], buf)
    else:
        tma.async_copy_shared_to_global(dst, [0, 0], buf)
    tma.store_wait(0)


def _store_offsets(llir):
    """The shared-memory byte offsets of the TMA stores (or reduce-stores), in order."""
    out = []
    for line in llir.splitlines():
        if "call" in line and ("bulk.tensor.2d.global.shared::cta" in line or
                               "bulk.tensor.reduce" in line):
            m = re.search(r"@global_smem, i32 (\d+)\)", line)
            out.append(int(m.group(1)) if m else 0)
    return out


@pytest.mark.parametrize("dtype,block,swizzle,chunks", [
    (kl.float16, (512, 64), None, 1),    # one 128-byte chunk, 2 pieces of 256 rows
    (kl.float32, (512, 64), 128, 2),     # 2 chunks x 2 pieces
    (kl.float32, (1024, 32), 32, 4),     # Gluon's 1024-pixel im2col output: 4 chunks x 4
])
@pytest.mark.parametrize("reduce", [False, True])
def test_tall_block_is_copied_as_boxes_of_256_rows(dtype, block, swizzle, chunks, reduce):
    d = desc_type(dtype, block, swizzle)
    k = kiln.compile(copy_kernel, {"src": d, "dst": d}, {"REDUCE": reduce},
                     target="cuda:sm_90a", cache=False)
    assert k.asm.get("cubin")  # ptxas took it
    pieces = block[0] // 256
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == chunks * pieces
    # Each chunk's rows are contiguous (rows x chunk bytes), its pieces 256 rows apart.
    row_bytes = block[1] // chunks * dtype.primitive_bitwidth // 8
    expected = [c * block[0] * row_bytes + p * 256 * row_bytes
                for c in range(chunks) for p in range(pieces)]
    assert _store_offsets(k.asm["llir"]) == expected


@pytest.mark.parametrize("block,swizzle,bits,expected", [
    ((512, 64), 128, 16, [256, 64]), ((512, 64), 128, 32, [256, 32]),
    ((256, 64), 128, 16, [256, 64]), ((4096, 8), 0, 16, [256, 8]), ((8, 512), 0, 8, [8, 512])])
def test_host_box(block, swizzle, bits, expected):
    assert tma_box(list(block), swizzle, bits) == expected


def test_more_than_4096_rows_is_refused():
    with pytest.raises(Exception, match=r"must be a power of two in \[1, 4096\]"):
        kiln.compile(copy_kernel, {"src": desc_type(kl.float16, (8192, 8), 0),
                                   "dst": desc_type(kl.float16, (8192, 8), 0)},
                     {"REDUCE": False}, target="cuda:sm_90a", cache=False)
