"""Swizzled TMA blocks of fewer rows than a swizzle atom compile (the GPU test
third_party/nvidia/test/gpu/test_tma_small_rows.py runs them against torch), except those cut
into several boxes of less than 128 bytes each: TMA needs 128-byte aligned box addresses, so
those are an error at the copy that says how many rows would do."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "test", "gpu"))
import async_edge_kernels as ek  # noqa: E402

KERNELS = os.path.abspath(ek.__file__)

DT = {"bf16": (kl.bfloat16, 16), "fp32": (kl.float32, 32)}


def _compile(rows, cols, dtype, swizzle):
    kl_dt, bits = DT[dtype]
    t = kl.tensor_descriptor_type(kl_dt, [rows, cols], kl.NVMMASharedLayout(swizzle, bits, 2))
    return kiln.compile(ek.tma_scale, {"in_desc": t, "out_desc": t},
                        {"L": ek.tile_layout((rows, cols), ek.TMA_NUM_WARPS)},
                        target="cuda:sm_90a", num_warps=ek.TMA_NUM_WARPS, cache=False)


@pytest.mark.parametrize("rows,cols,dtype,swizzle", [
    (1, 64, "bf16", 128), (1, 256, "bf16", 128), (2, 32, "fp32", 64), (4, 64, "fp32", 64),
    (1, 16, "fp32", 64), (4, 64, "bf16", 32), (2, 16, "bf16", 32), (1, 128, "fp32", 128)])
def test_small_swizzled_blocks_compile(rows, cols, dtype, swizzle):
    k = _compile(rows, cols, dtype, swizzle)
    boxes = cols * DT[dtype][1] // 8 // swizzle
    # One load and one store a box.
    assert k.asm["ptx"].count("cp.async.bulk.tensor.2d") == 2 * boxes


@pytest.mark.parametrize("rows,cols,dtype,swizzle,need", [
    (1, 32, "fp32", 64, 2), (1, 64, "bf16", 32, 4), (2, 64, "bf16", 32, 4)])
def test_boxes_under_128_bytes_are_an_error(rows, cols, dtype, swizzle, need):
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(rows, cols, dtype, swizzle)
    located.assert_located(
        ei.value, KERNELS, "E:tma-box", "tma.async_copy_global_to_shared",
        rf"tma\.async_copy_global_to_shared: this block is {cols * DT[dtype][1] // 8 // swizzle} "
        rf"TMA boxes \(one per swizzle chunk of its rows\) of {rows * swizzle} bytes each, and TMA needs each box's shared-memory "
        rf"address 128-byte aligned: use blocks of at least {need} rows, a wider swizzle, or "
        rf"rows one chunk wide", kiln.CompilationError)
