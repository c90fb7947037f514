"""examples/conv_im2col.py (implicit-GEMM convolution: TMA im2col + wgmma in a ring) compiles
for sm_90a with its im2col copies and passes the async-safety check (unlike the one-slot form
of Gluon's tutorial, whose next loads overwrite the slot a wgmma may still read).
third_party/nvidia/test/gpu/test_conv_im2col.py runs it against torch."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import tma

import compiled

pytestmark = compiled.needs_compiler
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import conv_im2col  # noqa: E402


def _sig(BM, BN, BK, dtype=kl.float16):
    la = kl.NVMMASharedLayout.get_default_for([BM, BK], dtype)
    lb = kl.NVMMASharedLayout.get_default_for([BN, BK], dtype)
    lc = kl.NVMMASharedLayout.get_default_for([BM, BN], dtype)
    sig = {"in_desc": tma.tensor_descriptor_im2col_type(dtype, [BM, BK], la, 4),
           "w_desc": kl.tensor_descriptor_type(dtype, [BN, BK], lb),
           "out_desc": kl.tensor_descriptor_type(dtype, [BM, BN], lc)}
    for name in ("S", "Ci", "OH", "OW", "pad", "stride", "num_steps", "CI_STEPS"):
        sig[name] = "i32"
    return sig


@pytest.mark.parametrize("BM,BN,BK,STAGES,warps", [(128, 64, 64, 3, 4), (64, 128, 32, 4, 4),
                                                   (128, 128, 64, 3, 8)])
def test_conv_kernel_compiles_to_a_ring_of_im2col_copies(BM, BN, BK, STAGES, warps):
    k = kiln.compile(conv_im2col.conv2d_im2col_kernel, _sig(BM, BN, BK),
                     {"STAGES": STAGES, "num_warps": warps}, target="cuda:sm_90a",
                     num_warps=warps, cache=False)
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")
    # STAGES - 1 in the prologue and one a step (chunks of a 128-byte swizzle: BK of fp16
    # up to 64 is one box).
    assert ptx.count("cp.async.bulk.tensor.4d.shared::cluster.global") == STAGES
    assert ".im2col" in ptx and "wgmma.mma_async" in ptx


def test_conv_kernel_compiles_with_a_1x1_filter_and_one_channel_step():
    """A 1x1 filter over BK channels: the launcher specializes S, CI_STEPS and num_steps to 1,
    so the tap offsets (r, s) are compile-time ints, which the im2col copy takes as they are."""
    sig = _sig(128, 64, 64)
    for name in ("S", "CI_STEPS", "num_steps"):
        del sig[name]
    k = kiln.compile(conv_im2col.conv2d_im2col_kernel, sig,
                     {"STAGES": 3, "num_warps": 4, "S": 1, "CI_STEPS": 1, "num_steps": 1},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert ".im2col" in k.asm["ptx"] and "wgmma.mma_async" in k.asm["ptx"]
