"""A loop that carries an fp8 or f16 tile (the next block prefetched into registers while the
current one goes through shared memory, as aiter's GEMMs do) keeps it in whole words on AMD:
after LLVM's optimizer Serialize packs a block's 8-bit phis four to an i32 and its 16-bit
phis two to one (kiln::packNarrowPhis; test/Target/pack-narrow-phis.ll judges the rewrite by
running it). Without that, every byte of the tile took a VGPR of its own: 213 VGPRs for the
fp8 kernel below, where the packed loop needs 102."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def carry(a_ptr, out_ptr, n, BM: kl.constexpr, BK: kl.constexpr, NW: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 16], [4, 16], [NW, 1], [1, 0])
    shared: kl.constexpr = kl.SwizzledSharedLayout(16, 1, 16, [1, 0])
    offs = (kl.arange(0, BM, layout=kl.SliceLayout(1, blocked))[:, None] * BK
            + kl.arange(0, BK, layout=kl.SliceLayout(0, blocked))[None, :])
    smem = kl.allocate_shared_memory(a_ptr.type.element_ty, [BM, BK], layout=shared)
    a = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs)
    for i in range(n):
        a_ptr += BM * BK
        nxt = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs)
        smem.store(a)
        kl.store(out_ptr + offs, smem.load(layout=blocked))
        a = nxt


@pytest.mark.parametrize("elem,bytes_per_thread", [("fp8e4nv", 128), ("fp16", 256)])
def test_loop_carried_tile_in_words(elem, bytes_per_thread):
    # 256 x 256 (fp8) or 256 x 128 (fp16) elements over 512 threads: 32 words a thread either
    # way, carried from one iteration to the next.
    bk = 256 if elem == "fp8e4nv" else 128
    c = carry.warmup(f"*{elem}:16", f"*{elem}:16", "i32", 256, bk, 8, num_warps=8,
                     target="hip:gfx950")
    llir, asm = c.asm["llir"], c.asm["amdgcn"]
    narrow = "i8" if elem == "fp8e4nv" else "half"
    assert not re.search(rf"= phi {narrow} ", llir)
    assert re.search(r"= phi (i32|<4 x i8>|<2 x half>) ", llir)
    (vgprs,) = map(int, re.findall(r"\.vgpr_count:\s+(\d+)", asm))
    (spills,) = map(int, re.findall(r"\.vgpr_spill_count:\s+(\d+)", asm))
    words = bytes_per_thread // 4
    assert spills == 0
    # The carried tile (32 words), the tile loaded for the next iteration (32), the tile read
    # back from shared memory (32) and addresses: far below a VGPR per byte or per half.
    assert vgprs <= 3 * words + 16, vgprs


@kiln.jit
def convert_next(a_ptr, s_ptr, out_ptr, n, BM: kl.constexpr, BK: kl.constexpr,
                 NW: kl.constexpr):
    # The next block's fp8 bytes, scaled and rounded to bf16 at the end of the iteration (as
    # aiter's sparse paged-attention decode does with its fp8 values), carried to the next.
    blocked: kl.constexpr = kl.BlockedLayout([1, 16], [8, 8], [1, NW], [1, 0])
    shared: kl.constexpr = kl.SwizzledSharedLayout(8, 1, 16, [1, 0])
    rows = kl.arange(0, BM, layout=kl.SliceLayout(1, blocked))[:, None]
    cols = kl.arange(0, BK, layout=kl.SliceLayout(0, blocked))[None, :]
    offs = rows * BK + cols
    soffs = rows * (BK // 64) + cols // 64
    smem = kl.allocate_shared_memory(kl.bfloat16, [BM, BK], layout=shared)
    raw = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs)
    scale = kl.amd.cdna4.buffer_load(ptr=s_ptr, offsets=soffs)
    a = (raw.to(kl.float32) * scale).to(kl.bfloat16)
    acc = kl.zeros([BM, BK], kl.float32, layout=blocked)
    for i in range(1, n):
        raw = kl.amd.cdna4.buffer_load(ptr=a_ptr, offsets=offs + i * BM * BK)
        scale = kl.amd.cdna4.buffer_load(ptr=s_ptr, offsets=soffs + i * BM * (BK // 64))
        smem.store(a)
        acc = acc * 0.5 + smem.load(layout=blocked).to(kl.float32)
        a = (raw.to(kl.float32) * scale).to(kl.bfloat16)
    smem.store(a)
    acc = acc + smem.load(layout=blocked).to(kl.float32)
    kl.store(out_ptr + offs, acc)


def test_loop_of_truncated_tile_is_rotated():
    # LLVM's instcombine turns the bf16 phis into f32 phis truncated in the loop's header: 64
    # truncations, too many for the optimizer to rotate the loop. Packing the phis moves them
    # back to the latch, and the loop is rotated then (a block that branches to itself). Left
    # testing at the top, the loop kept what its exit reads from the header (the accumulator)
    # live across the whole body: 131 VGPRs where the rotated loop needs 102 (aiter's fp8
    # sparse paged-attention decode: 417 where it needs 294).
    c = convert_next.warmup("*fp8e4nv:16", "*fp32:16", "*fp32:16", "i32", 16, 512, 4,
                            num_warps=4, target="hip:gfx950")
    llir, asm = c.asm["llir"], c.asm["amdgcn"]
    assert re.search(r"^([\w.]+):\s+; preds = [^\n]*%\1\b", llir, re.M), "loop not rotated"
    (vgprs,) = map(int, re.findall(r"\.vgpr_count:\s+(\d+)", asm))
    (spills,) = map(int, re.findall(r"\.vgpr_spill_count:\s+(\d+)", asm))
    assert spills == 0
    assert vgprs <= 112, vgprs
