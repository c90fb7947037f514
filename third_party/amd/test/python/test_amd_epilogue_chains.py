"""An elementwise chain over a tile a loop left in registers (aiter's GEMM epilogues: the
accumulator times a_scale[:, None] * b_scale[None, :], rounded to bf16 and stored) is lowered
one operation at a time over the whole tile: all the scale products, then all the multiplies,
then all the conversions, then the stores. After LLVM's optimizer Serialize moves each of
those computations to just before its first user (kiln::sinkToFirstUses), so that one
element's chain runs at a time; left op by op, the products were live next to the
accumulators, and the 256 x 256 kernel below took 256 VGPRs and spilled 8 (the a8w8 GEMMs
50 and 25), where it needs 164."""

from __future__ import annotations

import re

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def scaled_epilogue(a_ptr, b_ptr, out_ptr, n, BM: kl.constexpr, BN: kl.constexpr,
                    NW: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 16], [4, 16], [NW, 1], [1, 0])
    rows = kl.arange(0, BM, layout=kl.SliceLayout(1, blocked))
    cols = kl.arange(0, BN, layout=kl.SliceLayout(0, blocked))
    a_scale = kl.load(a_ptr + rows)
    b_scale = kl.load(b_ptr + cols)
    acc = kl.zeros([BM, BN], kl.float32, layout=blocked)
    for i in range(n):
        acc = acc * 0.5 + 1.0
    acc *= a_scale[:, None] * b_scale[None, :]
    kl.store(out_ptr + rows[:, None] * BN + cols[None, :], acc.to(kl.bfloat16))


def test_epilogue_chain_one_element_at_a_time():
    # 128 accumulators a thread (256 x 256 over 512 threads).
    c = scaled_epilogue.warmup("*fp32:16", "*fp32:16", "*bf16:16", "i32", 256, 256, 8,
                               num_warps=8, target="hip:gfx950")
    asm = c.asm["amdgcn"]
    (vgprs,) = map(int, re.findall(r"\.vgpr_count:\s+(\d+)", asm))
    (spills,) = map(int, re.findall(r"\.vgpr_spill_count:\s+(\d+)", asm))
    assert spills == 0
    # The accumulators, the scales (8 + 16) and addresses; not a second tile of products.
    assert vgprs <= 192, vgprs
