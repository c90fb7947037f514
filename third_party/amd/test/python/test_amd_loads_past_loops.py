"""Scales loaded before a GEMM's main loop and applied in its epilogue (aiter's gemm_a8w8)
stay live across the loop, next to its accumulators and prefetched tiles; short of
registers, the allocator spilled them before the loop and reloaded them after it (int8
gemm_a8w8 on gfx950: all 20 of its spilled dwords). After LLVM's optimizer Serialize moves
such loads, with the offsets and masks only they read, to their first use after the loop
(kiln::sinkLoadsPastLoops): the loop's barriers order shared memory only, and the loop
writes nothing else."""

from __future__ import annotations

import re

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def scales_after_loop(a_ptr, b_ptr, x_ptr, out_ptr, n, BM: kl.constexpr,
                      BN: kl.constexpr, NW: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 16], [4, 16], [NW, 1], [1, 0])
    rows = kl.arange(0, BM, layout=kl.SliceLayout(1, blocked))
    cols = kl.arange(0, BN, layout=kl.SliceLayout(0, blocked))
    a_scale = kl.load(a_ptr + rows)
    b_scale = kl.load(b_ptr + cols)
    acc = kl.zeros([BM, BN], kl.float32, layout=blocked)
    for i in range(n):
        acc = acc * 0.5 + kl.load(x_ptr + i)
        kl.barrier()
    acc *= a_scale[:, None] * b_scale[None, :]
    kl.store(out_ptr + rows[:, None] * BN + cols[None, :], acc.to(kl.bfloat16))


def test_scale_loads_after_loop():
    c = scales_after_loop.warmup("*fp32:16", "*fp32:16", "*fp32:16", "*bf16:16", "i32",
                                 64, 64, 4, num_warps=4, target="hip:gfx950")
    llir = c.asm["llir"]
    # No load before the loop's first phi: the scales are read after the loop, past the
    # barrier (which LLVM's own passes do not move them across).
    loads = [m.start() for m in re.finditer(r"= (tail )?(call .*buffer\.)?load", llir)]
    assert len(loads) >= 3, llir
    assert min(loads) > llir.index(" phi "), llir
