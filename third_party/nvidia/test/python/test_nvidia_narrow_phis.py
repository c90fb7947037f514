"""A loop that carries an f16 or bf16 tile rounded from f32 keeps it in whole words on NVIDIA
too (Backend::packsNarrowPhis; test/Target/pack-truncated-phis.ll judges the rewrite by
running it). LLVM's instcombine folds the phis of a loop-carried tile's truncations into
truncations of f32 phis at the top of the loop: twice the registers, and the conversion moved
into the next iteration. In flash attention the tile is P, the A operand of the next P V
wgmma: carried as f32, ptxas placed the exponentials in the registers of the P V wgmma in
flight and waited for it before the softmax (SCHEDULE 1-3 then measured as order 0)."""

from __future__ import annotations

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "examples"))
import hopper_attention  # noqa: E402

import compiled  # noqa: E402

pytestmark = compiled.needs_compiler


@kiln.jit
def carry_rounded(x_ptr, out_ptr, n, BM: kl.constexpr, BK: kl.constexpr, NW: kl.constexpr,
                  DT: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [NW, 1], [1, 0])
    offs = (kl.arange(0, BM, layout=kl.SliceLayout(1, blocked))[:, None] * BK
            + kl.arange(0, BK, layout=kl.SliceLayout(0, blocked))[None, :])
    a = kl.load(x_ptr + offs).to(DT)
    acc = kl.zeros([BM, BK], kl.float32, layout=blocked)
    for i in range(1, n):
        nxt = (kl.load(x_ptr + offs + i * BM * BK) * 2.0).to(DT)
        acc = acc * 0.5 + a.to(kl.float32)
        a = nxt
    kl.store(out_ptr + offs, acc + a.to(kl.float32))


def _phis(llir):
    return re.findall(r"= phi (half|bfloat|float|i32|<2 x half>|<2 x bfloat>) ", llir)


@pytest.mark.parametrize("dt,name", [(kl.float16, "half"), (kl.bfloat16, "bfloat")])
def test_rounded_tile_carried_in_words(dt, name):
    # 64 x 64 over 128 threads: 32 values a thread, 16 words.
    c = carry_rounded.warmup("*fp32:16", "*fp32:16", "i32", 64, 64, 4, dt, num_warps=4,
                             target="cuda:sm_90a")
    phis = _phis(c.asm["llir"])
    assert name not in phis
    # The tile's 32 halves are 16 words (in the loop and in its unrolled copies), never 32
    # f32 phis truncated at the top (the accumulator is one struct phi).
    packed = phis.count(f"<2 x {name}>")
    assert packed >= 16 and packed % 16 == 0, phis
    assert "float" not in phis, phis
    # Rounded in pairs, before the back edge.
    ptx = c.asm["ptx"]
    assert re.search(r"cvt\.rn\.(f16x2|bf16x2)\.f32", ptx), ptx[:2000]


def test_attention_carries_p_in_words():
    # examples/hopper_attention.py's warp-specialized kernel, issue order 3: the loop carries
    # P (64 x 128 f16 a warpgroup: 64 halves a thread) as 32 words, in each consumer's loop.
    D = 128
    BN, stages, regs = hopper_attention.WS_CONFIGS[D]

    def desc(rows):
        return kl.tensor_descriptor_type(
            kl.float16, [rows, D], kl.NVMMASharedLayout.get_default_for([rows, D], kl.float16))

    k = hopper_attention.hopper_attn_fwd_ws_kernel.warmup(
        desc(64), desc(BN), desc(BN), "*fp16:16", "*fp32:16", "*i32:16", "*i32:16", 16, 16, 0.1,
        1, 1, 1, 1, CAUSAL=False, STAGES=stages, CONSUMER_REGS=regs, PRODUCER_REGS=24,
        SCHEDULE=3, num_warps=4, CONSUMERS=2, target="cuda:sm_90a")
    phis = _phis(k.asm["llir"])
    assert "half" not in phis
    # 32 words in each of the two consumers' loops (and the loops' copies), where instcombine
    # left 64 f32 phis each.
    assert phis.count("<2 x half>") >= 2 * 32 and phis.count("<2 x half>") % 32 == 0, phis
