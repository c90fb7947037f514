"""A loop that carries an f16, bf16, fp8, int8 or int16 tile converted from f32 keeps it in
whole words on NVIDIA too (Backend::packsNarrowPhis; test/Target/pack-truncated-phis.ll and
pack-cast-phis.ll judge the rewrite by running it). LLVM's instcombine folds the phis of a
loop-carried tile's conversions into conversions of f32 phis at the top of the loop: two or
four times the registers, and the conversion moved into the next iteration. In flash attention
the tile is P, the A operand of the next P V wgmma; carried as f32 values, it cost the
warp-specialized kernel 4 % (docs/results-attention.md, "P carried in words")."""

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
    return re.findall(r"= phi (half|bfloat|float|i8|i16|i32|<\d+ x \w+>) ", llir)


# (dtype, the scalar phi it must not be left as, the packed phi, values a word). fp8 values are
# i8 codes rounded by integer arithmetic, packed two i16 to a word; int8 / int16 come from
# fptosi, which instcombine folds into the phi as it does fptrunc.
@pytest.mark.parametrize("dt,scalar,packed,per_word", [
    (kl.float16, "half", "<2 x half>", 2), (kl.bfloat16, "bfloat", "<2 x bfloat>", 2),
    (kl.float8e4nv, "i8", "<2 x i16>", 4), (kl.int8, "i8", "<4 x i8>", 4),
    (kl.int16, "i16", "<2 x i16>", 2)])
def test_rounded_tile_carried_in_words(dt, scalar, packed, per_word):
    # 64 x 64 over 128 threads: 32 values a thread, 32 / per_word words, carried in the loop
    # and its unrolled copies; never 32 f32 phis narrowed at the top (the accumulator is one
    # struct phi).
    c = carry_rounded.warmup("*fp32:16", "*fp32:16", "i32", 64, 64, 4, dt, num_warps=4,
                             target="cuda:sm_90a")
    phis = _phis(c.asm["llir"])
    assert scalar not in phis and "float" not in phis, phis
    words = 32 // per_word
    assert phis.count(packed) >= words and phis.count(packed) % words == 0, phis
    if dt in (kl.float16, kl.bfloat16):  # rounded in pairs, before the back edge
        assert re.search(r"cvt\.rn\.(f16x2|bf16x2)\.f32", c.asm["ptx"])


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
