"""TMA loads into buffers and mbarriers that a loop swaps (ping-pong,
third_party/nvidia/test/gpu/pingpong_kernels.py): the right form compiles without a warning,
and reading the buffer a load is still filling is an error at the read, which the check
finds by following the swapped buffers and barriers (they name no allocation in the loop)."""

from __future__ import annotations

import os
import sys
import warnings

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu")
sys.path.insert(0, GPU)
from pingpong_kernels import tma_ping_pong_sum  # noqa: E402

KERNELS = os.path.abspath(os.path.join(GPU, "pingpong_kernels.py"))


def _compile(read_next, BM=64, BN=64):
    layout = kl.NVMMASharedLayout.get_default_for([BM, BN], kl.float16)
    sig = {"desc": kl.tensor_descriptor_type(kl.float16, [BM, BN], layout), "y": "*fp32",
           "n_tiles": "i32"}
    return kiln.compile(tma_ping_pong_sum, sig, {"READ_NEXT": read_next, "num_warps": 4},
                        target="cuda:sm_90a", num_warps=4, cache=False)


@pytest.mark.parametrize("BM,BN", [(64, 64), (32, 128)])
def test_ping_pong_compiles_silently(BM, BN):
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = _compile(False, BM, BN)
    assert k.warnings == []
    ptx = k.asm["ptx"]
    # One copy before the loop and one in it, each a box per 128 bytes of a row (the swizzle).
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 2 * (BN * 2 // 128)
    assert "mbarrier.try_wait.parity" in ptx
    # The two [BM, BN] fp16 buffers and the two barriers (each buffer 1,024-byte aligned).
    assert k.metadata["shared"] <= 2 * BM * BN * 2 + 1024 + 16


def test_reading_the_buffer_being_loaded_is_an_error_at_the_read():
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(True)
    located.assert_located(
        ei.value, KERNELS, "E:pp-read-next", "nxt.load",
        r"smem\.load reads shared memory that the barrier-completed write of "
        r"tma\.async_copy_global_to_shared may still be writing: no wait on the barrier it "
        r"completes on comes between them", kiln.CompilationError)
