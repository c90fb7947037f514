"""examples/hopper_attention_plain.py compiled for sm_90a without a GPU: its key-block loop
(one K and one V buffer, one mbarrier) is pipelined into a TMA ring with a barrier per slot,
with no remark saying it was left alone, its slots released by every warp on barriers of
their own (no CTA barrier in the loop); num_stages=1 leaves it as written. GPU results:
third_party/nvidia/test/gpu/test_hopper_attention_plain.py."""

from __future__ import annotations

import os
import sys
import warnings

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "examples"))
import hopper_attention_plain  # noqa: E402


def _compile(stages):
    D = 128
    BM, BN, _, W = hopper_attention_plain.PLAIN_CONFIGS[D]

    def desc(rows):
        return kl.tensor_descriptor_type(
            kl.float16, [rows, D], kl.NVMMASharedLayout.get_default_for([rows, D], kl.float16))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = hopper_attention_plain.hopper_attn_fwd_plain_kernel.warmup(
            desc(BM), desc(BN), desc(BN), "*fp16:16", "*fp32:16", 4096, 4096, 16, 16, 0.1,
            CAUSAL=False, STAGES=stages, num_warps=W, grid=(1,), target="cuda:sm_90a")
    return k, [str(w.message) for w in caught]


def test_key_loop_becomes_a_tma_ring():
    k, messages = _compile(2)
    assert not any("not pipelined" in m for m in messages), messages
    ptx = k.asm["ptx"]
    # Q's barrier and two per ring slot: the copies' and the warps' release of the slot.
    assert ptx.count("mbarrier.init") == 5
    # Every warp releases a slot itself (bar.warp.sync, then lane 0 arrives): in the loop
    # no CTA barrier orders the two warpgroups' reads before a refill.
    assert "bar.warp.sync" in ptx
    loop = ptx[ptx.index("wgmma.mma_async"):ptx.rindex("wgmma.mma_async")]
    assert "bar.sync" not in loop and "barrier.sync" not in loop
    # Two slots of K and V (2 x 2 x 128 x 128 fp16) and Q.
    assert k.metadata.shared >= 2 * 2 * 128 * 128 * 2 + 128 * 128 * 2


def test_one_stage_leaves_the_loop_as_written():
    k, _ = _compile(1)
    assert k.asm["ptx"].count("mbarrier.init") == 2
