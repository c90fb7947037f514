"""NVIDIA code addresses shared, constant and local memory with 32-bit pointers (the NVPTX data
layout's p3:32:32, p4, p5): a 64-bit shared address costs a register pair and 64-bit adds at
every ld/st.shared, wgmma descriptor and mbarrier operand, and shared memory is at most
228 KiB. Checked on the PTX of a kernel that stages a tile through shared memory and of
examples/hopper.py's TMA + wgmma GEMM; the GPU tests (test/gpu) run both."""

from __future__ import annotations

import os
import re
import sys

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


@kiln.jit
def stage(x, out):
    blk: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    offs = (kl.arange(0, 64, kl.SliceLayout(1, blk))[:, None] * 64
            + kl.arange(0, 64, kl.SliceLayout(0, blk))[None, :])
    smem = kl.allocate_shared_memory(kl.float32, [64, 64],
                                     kl.SwizzledSharedLayout(4, 2, 8, [1, 0]))
    smem.store(kl.load(x + offs))
    kl.store(out + offs, smem.load(blk) * 2.0)


def shared_operands(ptx):
    """The address registers of every ld/st.shared."""
    return re.findall(r"(?:ld|st)\.shared(?:\.v\d)?\.\w+\s+(?:\S+,\s*)?\[(%\w+)", ptx)


def test_shared_addresses_are_32_bit():
    k = stage.warmup("*fp32:16", "*fp32:16", num_warps=4, target="cuda:sm_90a")
    assert "p3:32:32" in k.asm["llir"]
    regs = shared_operands(k.asm["ptx"])
    assert regs and all(r.startswith("%r") and not r.startswith("%rd") for r in regs), regs


def test_hopper_gemm_descriptors_and_barriers_in_32_bits():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper  # noqa: E402  (examples/hopper.py)
    lay_a = kl.NVMMASharedLayout.get_default_for([128, 64], kl.bfloat16)
    lay_c = kl.NVMMASharedLayout.get_default_for([128, 128], kl.bfloat16)
    desc = kl.tensor_descriptor_type
    k = hopper.gemm_kernel.warmup(desc(kl.bfloat16, [128, 64], lay_a),
                                  desc(kl.bfloat16, [128, 64], lay_a),
                                  desc(kl.bfloat16, [128, 128], lay_c), 4096, 4096, 4096,
                                  STAGES=3, GROUP_M=8, num_warps=4, grid=(1,),
                                  target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    waits = re.findall(r"mbarrier\.try_wait\.parity\.shared\.b64\s+\w+,\s*\[(%\w+)\]", ptx)
    assert waits and all(not r.startswith("%rd") for r in waits), waits
