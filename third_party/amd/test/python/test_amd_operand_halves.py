"""A bf16 mfma operand held across a loop (aiter's sparse paged-attention decode keeps its 16 x
512 Q tile as the A operand of every K block's mfma) is each register's two halves, not a
repacked copy of the upper half. The kWidth 8 layout gives a lane 8 values a K step; gfx950's
16x16x16 bf16 mfma takes 4, so the lowering feeds the lower and the upper four of each loaded
vector to two mfmas. After LLVM's optimizer, instcombine left the upper four as one lane
shuffled out and three inserted; the code generator repacked that into new registers, held
across the loop next to the loaded ones: aiter's kernel took 278 VGPRs (22 of them AGPRs, one
wave per SIMD) where Triton's build takes 256. Serialize now runs vector-combine after its
last instcombine, which makes the chain the shuffle it is: 246 VGPRs, no AGPR, two waves."""

from __future__ import annotations

import re

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def q_times_keys(q_ptr, k_ptr, out_ptr, n, n_rows, D: kl.constexpr, BN: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 8], [8, 8], [1, 4], [1, 0])
    kblocked: kl.constexpr = kl.BlockedLayout([8, 1], [8, 8], [1, 4], [0, 1])
    mfma: kl.constexpr = kl.amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 16],
                                              transposed=True, warps_per_cta=[1, 4])
    rows = kl.arange(0, 16, layout=kl.SliceLayout(1, blocked))
    cols = kl.arange(0, D, layout=kl.SliceLayout(0, blocked))
    # As aiter's kernel: a masked buffer load (rows past n_rows read as zeros).
    q = kl.amd.cdna4.buffer_load(ptr=q_ptr, offsets=rows[:, None] * D + cols[None, :],
                                 mask=(rows < n_rows)[:, None], other=0.0)
    q_op = kl.convert_layout(q, kl.DotOperandLayout(0, mfma, 8))
    kd = kl.arange(0, D, layout=kl.SliceLayout(1, kblocked))
    kn = kl.arange(0, BN, layout=kl.SliceLayout(0, kblocked))
    acc = kl.zeros([16, BN], kl.float32, layout=mfma)
    # Two loops read Q, as the decode's two passes over its key blocks do.
    for i in range(n):
        k = kl.load(k_ptr + i * BN * D + kn[None, :] * D + kd[:, None])
        acc = kl.amd.cdna4.mfma(q_op, kl.convert_layout(k, kl.DotOperandLayout(1, mfma, 8)),
                                acc)
    for i in range(n, 2 * n):
        k = kl.load(k_ptr + i * BN * D + kn[None, :] * D + kd[:, None])
        acc = kl.amd.cdna4.mfma(q_op, kl.convert_layout(k, kl.DotOperandLayout(1, mfma, 8)),
                                acc * 0.5)
    orows = kl.arange(0, 16, layout=kl.SliceLayout(1, mfma))
    ocols = kl.arange(0, BN, layout=kl.SliceLayout(0, mfma))
    kl.store(out_ptr + orows[:, None] * BN + ocols[None, :], acc)


def test_upper_halves_are_shuffles():
    c = q_times_keys.warmup("*bf16:16", "*bf16:16", "*fp32:16", "i32", "i32", 512, 64,
                            num_warps=4,
                            target="hip:gfx950")
    llir = c.asm["llir"]
    # 128 bf16 of Q a thread: 16 loaded vectors of 8, 32 mfma operands of 4.
    assert re.search(r"call <4 x float> @llvm\.amdgcn\.mfma\.f32\.16x16x16bf16\.1k", llir)
    assert not re.search(r"insertelement <4 x i16>", llir), \
        re.findall(r".*insertelement <4 x i16>.*", llir)[:4]
    assert re.search(r"shufflevector <8 x i16> %\S+, <8 x i16> poison, "
                     r"<4 x i32> <i32 4, i32 5, i32 6, i32 7>", llir)
    # Q is 128 bf16 a thread (64 VGPRs); the repacked upper halves took 32 more: 184 VGPRs
    # before, 152 after.
    (vgprs,) = map(int, re.findall(r"\.vgpr_count:\s+(\d+)", c.asm["amdgcn"]))
    assert vgprs <= 160, vgprs
