"""Correct async kernels at the edges of what the compiler handles, shared by
test/gpu/test_async_edge_cases.py (runs them against torch) and
test/Python/test_async_misuse_dsl.py (compiles them without a GPU: no error, no warning).

* ``one_slot_ring``: a cp.async ring of NBUF slots, NBUF = 1 included, that wraps every
  iteration: copy tile k into slot k % NBUF, commit, wait_group(0), read it, repeat. With one
  slot every copy overwrites what the previous iteration read (a write after read), and when
  the read layout differs from the copy layout every thread reads other threads' copies (a
  read after write): both need CTA barriers, which Kiln places;
* ``one_element``: a one-element shared buffer, filled by cp.async (4 bytes, every thread of
  the layout holding the same element) or by ``.store``;
* ``token_branch``: two committed groups and ``cp.wait_for`` on the token an ``if`` on a
  runtime value picks (Kiln's extension: the wait count must be right for both choices; with
  the flag specialized to 1 the branch folds and the count is 1);
* ``tma_scale``: a TMA load completed on an mbarrier, read by the threads, written to a second
  buffer, fenced and TMA-stored (out = 2 * in), one block per program; the tests run it with
  a one-row [1, 64] block (the one-row TMA box) and with [8, 64] blocks on tensors of fewer
  rows (the box hangs off the tensor's edge);
* ``wgmma_small_n``: one warpgroup_mma of [BM, BK] x [BK, BN] with BN = 8 (m64n8k16), operands
  stored by the threads and fenced, the result awaited with warpgroup_mma_wait(0).

Layout helpers build the constexprs for the tests; nothing here imports torch.
"""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy as cp
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_wait)

__all__ = ["one_slot_ring", "one_element", "token_branch", "tma_scale", "wgmma_small_n",
           "NUM_WARPS", "BLOCK", "SH1", "DTYPES", "copy_layout", "reversed_layout",
           "read_layout", "tile_layout", "ring_constexprs", "one_element_constexprs",
           "token_constexprs", "tma_layout", "tma_signature", "tma_constexprs",
           "wgmma_constexprs", "TMA_BLOCKS", "TMA_NUM_WARPS", "WGMMA_SHAPES",
           "RING_SIG", "ONE_SIG", "TOKEN_SIG", "WGMMA_SIG"]

NUM_WARPS = 4
BLOCK = 512  # elements of one cp.async tile: 4 fp32 (one 16-byte copy) per thread
SH1 = kl.SwizzledSharedLayout(1, 1, 1, [0])


@kiln.jit
def one_slot_ring(x, y, n_tiles, BLOCK: kl.constexpr, NBUF: kl.constexpr, CL: kl.constexpr,
                  LL: kl.constexpr, SH: kl.constexpr):
    """y = 2 * x + k for tile k of the program's n_tiles tiles of BLOCK elements (program p
    owns tiles p * n_tiles ..), each tile copied into slot k % NBUF, awaited with
    wait_group(0) and read back in LL."""
    ring = kl.allocate_shared_memory(kl.float32, [NBUF, BLOCK], SH)
    offs_c = kl.arange(0, BLOCK, CL)
    offs_l = kl.arange(0, BLOCK, LL)
    first = kl.program_id(0) * n_tiles
    for k in range(n_tiles):
        base = (first + k) * BLOCK
        cp.async_copy_global_to_shared(ring.index(k % NBUF), x + base + offs_c)
        cp.commit_group()
        cp.wait_group(0)
        v = ring.index(k % NBUF).load(LL)
        kl.store(y + base + offs_l, v * 2.0 + k)


@kiln.jit
def one_element(x, y, L1: kl.constexpr, VIA: kl.constexpr):
    """y[0] = x[0] + 1 through a one-element shared buffer (VIA "async": cp.async; else
    ``.store``)."""
    offs = kl.arange(0, 1, L1)
    buf = kl.allocate_shared_memory(kl.float32, [1], SH1)
    if VIA == "async":
        cp.async_copy_global_to_shared(buf, x + offs)
        cp.commit_group()
        cp.wait_group(0)
    else:
        buf.store(kl.load(x + offs))
    kl.store(y + offs, buf.load(L1) + 1.0)


@kiln.jit
def token_branch(x, y, flag, BLOCK: kl.constexpr, CL: kl.constexpr, LL: kl.constexpr):
    """y = x[:BLOCK] (+ x[BLOCK:2 * BLOCK] when flag <= 0), the halves copied as two groups.
    The wait is on the first group's token when flag > 0, else on the second's; the second
    half is read only where its own token was waited for. Either way the first half has
    landed (groups complete in order)."""
    offs = kl.arange(0, BLOCK, CL)
    a = kl.allocate_shared_memory(kl.float32, [BLOCK], SH1)
    b = kl.allocate_shared_memory(kl.float32, [BLOCK], SH1)
    cp.async_copy_global_to_shared(a, x + offs)
    first = cp.commit_group()
    cp.async_copy_global_to_shared(b, x + BLOCK + offs)
    second = cp.commit_group()
    if flag > 0:
        token = first
    else:
        token = second
    cp.wait_for(token)
    out = a.load(LL)
    if flag <= 0:
        out = out + b.load(LL)
    kl.store(y + kl.arange(0, BLOCK, LL), out)
    cp.wait_group(0)  # no copy outlives the program (b's, where flag > 0)


@kiln.jit
def tma_scale(in_desc, out_desc, L: kl.constexpr):
    """out = 2 * in, one [BR, BC] block per program on a 2-D grid (rows, columns): TMA load on
    an mbarrier, read by the threads in L, stored to a second buffer, fenced, TMA store."""
    BR: kl.constexpr = in_desc.block_type.shape[0]
    BC: kl.constexpr = in_desc.block_type.shape[1]
    off_r = kl.program_id(0) * BR
    off_c = kl.program_id(1) * BC
    src = kl.allocate_shared_memory(in_desc.dtype, [BR, BC], in_desc.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [off_r, off_c], bar, src)  # E:tma-box
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    v = src.load(L)
    dst = kl.allocate_shared_memory(out_desc.dtype, [BR, BC], out_desc.layout)
    dst.store(v * 2.0)
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [off_r, off_c], dst)
    tma.store_wait(0)


@kiln.jit
def wgmma_small_n(a, b, c, BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
                  LA: kl.constexpr, LB: kl.constexpr, SA: kl.constexpr, SB: kl.constexpr,
                  ACC: kl.constexpr):
    """c [BM, BN] (fp32) = a [BM, BK] @ b [BN, BK]^T (bf16, row-major, contiguous), one
    program: both operands stored to NVMMA buffers by the threads, fenced, one asynchronous
    warpgroup_mma, warpgroup_mma_wait(0)."""
    ra = kl.arange(0, BM, kl.SliceLayout(1, LA))
    ka = kl.arange(0, BK, kl.SliceLayout(0, LA))
    rb = kl.arange(0, BN, kl.SliceLayout(1, LB))
    kb = kl.arange(0, BK, kl.SliceLayout(0, LB))
    a_s = kl.allocate_shared_memory(kl.bfloat16, [BM, BK], SA)
    b_s = kl.allocate_shared_memory(kl.bfloat16, [BN, BK], SB)
    a_s.store(kl.load(a + ra[:, None] * BK + ka[None, :]))
    b_s.store(kl.load(b + rb[:, None] * BK + kb[None, :]))
    fence_async_shared()
    acc = kl.zeros([BM, BN], kl.float32, ACC)
    acc = warpgroup_mma(a_s, b_s.permute((1, 0)), acc, is_async=True)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    rc = kl.arange(0, BM, kl.SliceLayout(1, ACC))
    cc = kl.arange(0, BN, kl.SliceLayout(0, ACC))
    kl.store(c + rc[:, None] * BN + cc[None, :], acc)


# --- constexprs -------------------------------------------------------------------------------

RING_SIG = {"x": "*fp32:16", "y": "*fp32:16", "n_tiles": "i32"}
ONE_SIG = {"x": "*fp32:16", "y": "*fp32:16"}
TOKEN_SIG = {"x": "*fp32:16", "y": "*fp32:16", "flag": "i32"}
WGMMA_SIG = {"a": "*bf16:16", "b": "*bf16:16", "c": "*fp32:16"}


def copy_layout(num_warps=NUM_WARPS):
    """BLOCK elements, 4 consecutive fp32 per thread (16-byte cp.async), warps in order."""
    return kl.BlockedLayout([4], [32], [num_warps], [0])


def reversed_layout():
    """The same 512 elements, 4 consecutive ones per thread, with the lane and warp bits
    reversed: each thread reads (almost only) elements other threads copied."""
    return kl.DistributedLinearLayout(
        reg_bases=[[1], [2]], lane_bases=[[256], [128], [64], [32], [16]],
        warp_bases=[[8], [4]], block_bases=[], shape=[BLOCK])


def read_layout(kind):
    return copy_layout() if kind == "same" else reversed_layout()


def ring_constexprs(nbuf, read="same"):
    return dict(BLOCK=BLOCK, NBUF=nbuf, CL=copy_layout(), LL=read_layout(read), SH=SH1)


def one_element_constexprs(via):
    return dict(L1=kl.BlockedLayout([1], [32], [NUM_WARPS], [0]), VIA=via)


def token_constexprs(read="same"):
    return dict(BLOCK=BLOCK, CL=copy_layout(), LL=read_layout(read))


DTYPES = {"bf16": kl.bfloat16, "fp16": kl.float16, "fp32": kl.float32}


def tma_layout(block, dtype):
    """The default NVMMA layout of a TMA block of ``dtype`` ("bf16", "fp32", ...), the one
    examples/hopper.py's descriptors use."""
    return kl.NVMMASharedLayout.get_default_for(list(block), DTYPES[dtype])


def tma_signature(block, dtype):
    """tma_scale's signature: two descriptors of ``block`` tiles in the default layout."""
    d = kl.tensor_descriptor_type(DTYPES[dtype], list(block), tma_layout(block, dtype))
    return {"in_desc": d, "out_desc": d}


def tma_constexprs(block, num_warps=None):
    num_warps = num_warps or TMA_NUM_WARPS
    return {"L": tile_layout(block, num_warps)}


# One-row [1, 64] blocks (the one-row TMA box: get_default_for gives them swizzle 0) and
# [8, 64] blocks (8 rows, the fewest a swizzled NVMMA buffer has: 128-byte swizzle, one box a
# row in bf16, two in fp32). The tests copy tensors of 1 to 20 rows with them. Two warps: 64
# threads cover a [1, 64] block exactly, so no two threads hold the same element.
TMA_BLOCKS = [((1, 64), "bf16"), ((1, 64), "fp32"), ((8, 64), "bf16"), ((8, 64), "fp32")]
TMA_NUM_WARPS = 2


def tile_layout(block, num_warps):
    """A row-major register layout of a [rows, cols] tile (powers of two, at least 32 * 2
    elements) with no thread holding an element another one holds: up to 8 consecutive
    columns per thread, the lanes along the row, then the warps down the rows."""
    rows, cols = block
    spt = max(1, min(8, cols, rows * cols // (32 * num_warps)))
    lanes_c = min(32, cols // spt)
    lanes_r = 32 // lanes_c
    warps_r = min(num_warps, max(1, rows // lanes_r))
    return kl.BlockedLayout([1, spt], [lanes_r, lanes_c], [warps_r, num_warps // warps_r],
                            [1, 0])


def wgmma_constexprs(BM, BN, BK, num_warps=NUM_WARPS):
    acc = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                    instr_shape=[16, BN, 16])
    return dict(BM=BM, BN=BN, BK=BK, LA=tile_layout((BM, BK), num_warps),
                LB=tile_layout((BN, BK), num_warps),
                SA=kl.NVMMASharedLayout.get_default_for([BM, BK], kl.bfloat16),
                SB=kl.NVMMASharedLayout.get_default_for([BN, BK], kl.bfloat16), ACC=acc)


# (BM, BN, BK) of wgmma_small_n: N = 8 (m64n8k16), with one and two 64-row blocks per warpgroup.
WGMMA_SHAPES = [(64, 8, 64), (128, 8, 32)]
