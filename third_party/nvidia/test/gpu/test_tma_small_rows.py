"""Swizzled TMA blocks of fewer rows than a swizzle atom (1, 2 and 4 rows of 32-, 64- and
128-byte swizzles, one to four boxes wide): TMA swizzles by address, so the later boxes of
such a block continue the pattern, and Kiln's layout must put every element where TMA does.
Each block is loaded by TMA, read by the threads (the layout's addresses), doubled, written back
by the threads and stored by TMA, against torch on fresh random inputs; a wrong address either
way shows as a wrong element. Skips cleanly without torch, a driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "test", "gpu"))
import async_edge_kernels as ek  # noqa: E402
import kiln.language as kl  # noqa: E402

TORCH = {"bf16": torch.bfloat16, "fp32": torch.float32}
BITS = {"bf16": 16, "fp32": 32}

# (rows, columns, dtype, swizzle): rows below 8, rows of 1 to 4 swizzle widths; a block of
# several boxes each less than 128 bytes is a compile error (TMA aligns boxes to 128 bytes:
# test_tma_small_rows_dsl.py), so those are left out.
ALL = [(r, c, d, s)
       for r in (1, 2, 4)
       for d, s, widths in (("bf16", 128, (64, 128, 256)), ("fp32", 64, (16, 32, 64)),
                            ("bf16", 32, (16, 64)), ("fp32", 128, (32, 64)))
       for c in widths]
CASES = [(r, c, d, s) for r, c, d, s in ALL
         if c * {"bf16": 2, "fp32": 4}[d] == s or r * s % 128 == 0]


@pytest.mark.parametrize("rows,cols,dtype,swizzle", CASES,
                         ids=[f"{r}x{c}-{d}-sw{s}" for r, c, d, s in CASES])
def test_small_swizzled_blocks(target, rows, cols, dtype, swizzle):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a; this device's target is {target}")
    from kiln.nvidia.hopper import TensorDescriptor
    layout = kl.NVMMASharedLayout(swizzle, BITS[dtype], 2)
    shape = (rows * 3, cols * 2)  # a 3 x 2 grid of blocks
    for _ in range(2):
        x = torch.randn(shape, device="cuda").to(TORCH[dtype])
        y = torch.full(shape, float("nan"), device="cuda", dtype=TORCH[dtype])
        dx = TensorDescriptor(x, list(shape), list(x.stride()), [rows, cols], layout)
        dy = TensorDescriptor(y, list(shape), list(y.stride()), [rows, cols], layout)
        ek.tma_scale[(3, 2)](dx, dy, num_warps=ek.TMA_NUM_WARPS,
                             L=ek.tile_layout((rows, cols), ek.TMA_NUM_WARPS))
        torch.cuda.synchronize()
        assert torch.equal(y, x * 2)
