"""A 256x256x256 fp8 block of 8 warps on gfx950 (the shape of aiter's Gluon a8w8 GEMM): each
warp's mfma operands read from shared memory (128 + 64 registers a thread) and its 128
accumulators do not fit in 256 VGPRs at once. Kiln lowers the mfma chain with the K steps
outermost (one step's operands live at a time) and, after LLVM's optimizer, moves each
operand's shared-memory reads to just before its first mfma (kiln::sinkSharedLoadsToUses;
test/Target/sink-shared-loads.ll judges the move by running it). aiter's kernel spilled 493
VGPRs (fp8) and 433 (int8) before, 74 and 68 after (Triton's build: 42 and 12); the loop
below, written for this test, spills 14."""

from __future__ import annotations

import re

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def gemm_loop(a_ptr, b_ptr, c_ptr, K, BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
              NW: kl.constexpr):
    mk: kl.constexpr = kl.BlockedLayout([1, 16], [4, 16], [NW, 1], [1, 0])
    kn: kl.constexpr = kl.BlockedLayout([16, 1], [16, 4], [1, NW], [0, 1])
    mfma: kl.constexpr = kl.amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 128],
                                              transposed=True, warps_per_cta=[2, NW // 2])
    sa: kl.constexpr = kl.SwizzledSharedLayout(32, 1, 16, [1, 0])
    sb: kl.constexpr = kl.SwizzledSharedLayout(32, 1, 16, [0, 1])
    offs_a = (kl.arange(0, BM, layout=kl.SliceLayout(1, mk))[:, None] * K
              + kl.arange(0, BK, layout=kl.SliceLayout(0, mk))[None, :])
    offs_b = (kl.arange(0, BK, layout=kl.SliceLayout(1, kn))[:, None]
              + kl.arange(0, BN, layout=kl.SliceLayout(0, kn))[None, :] * K)
    smem_a = kl.allocate_shared_memory(a_ptr.type.element_ty, [BM, BK], layout=sa)
    smem_b = kl.allocate_shared_memory(b_ptr.type.element_ty, [BK, BN], layout=sb)
    a = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs_a)
    b = kl.amd.cdna4.buffer_load(ptr=b_ptr, offsets=offs_b)
    acc = kl.zeros((BM, BN), dtype=kl.float32, layout=mfma)
    for _ in range(kl.cdiv(K, BK) - 1):
        a_ptr += BK
        b_ptr += BK
        smem_a.store(a)
        smem_b.store(b)
        a = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs_a)
        b = kl.amd.cdna4.buffer_load(ptr=b_ptr, offsets=offs_b)
        acc = kl.amd.cdna4.mfma_scaled(
            a=smem_a.load(layout=kl.DotOperandLayout(0, mfma, 32)), a_scale=None,
            a_format="e4m3", b=smem_b.load(layout=kl.DotOperandLayout(1, mfma, 32)),
            b_scale=None, b_format="e4m3", acc=acc)
    offs_c = (kl.arange(0, BM, layout=kl.SliceLayout(1, mfma))[:, None] * BN
              + kl.arange(0, BN, layout=kl.SliceLayout(0, mfma))[None, :])
    kl.amd.cdna4.buffer_store(acc, c_ptr, offs_c)


def test_operand_reads_follow_the_mfma_chain():
    c = gemm_loop.warmup("*fp8e4nv:16", "*fp8e4nv:16", "*fp32:16", 4096, 256, 256, 256, 8,
                         num_warps=8, waves_per_eu=2, target="hip:gfx950")
    asm = c.asm["amdgcn"]
    (spills,) = map(int, re.findall(r"\.vgpr_spill_count:\s+(\d+)", asm))
    assert spills <= 32, spills
    # In the loop, the first mfma comes before the last operand read: reads and mfmas are
    # interleaved, not all reads first.
    loop = asm[asm.index("v_mfma"):]
    body = [l.split()[0] for l in loop.splitlines() if l.strip().startswith(("ds_read", "v_mfma"))]
    first_mfma = body.index(next(x for x in body if x.startswith("v_mfma")))
    last_read = max(i for i, x in enumerate(body) if x.startswith("ds_read"))
    assert first_mfma < last_read
