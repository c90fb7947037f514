"""A Hopper (sm_90a) GEMM whose tiles fill whole waves: the persistent warp-specialized GEMM
of examples/hopper_ws.py with a tile width BN that need not be a power of two.

A persistent GEMM of T tiles on P programs takes ceil(T / P) tile times. With 128 x 256 tiles,
C = 3000 x 5000 is 24 x 20 = 480 tiles on 132 SMs: 3.64 waves of work in 4 waves' time, and
the last column of tiles computes 256 columns for the 136 that exist. In 256 x 152 tiles it is
12 x 33 = 396 tiles, 3 waves exactly, with 16 columns of padding (cuBLAS picks this tile for
this shape too). ``fitted_tile`` picks BM and BN that way: the pair whose waves take the least
time.

The pieces that are not powers of two:

* B's tile of BN rows is loaded by TMA in up to three boxes of power-of-two rows (152 = 128 +
  16 + 8), one descriptor each, into one [256, BK] ring slot (rows 128 and 144 start on a
  1,024-byte swizzle atom);
* ``warpgroup_mma(..., cols=BN)`` (a Kiln extension) multiplies into the first BN columns of
  a 256-column accumulator, one m64n152k16 instruction per 64 rows and K step; the other
  columns are zeros the compiler keeps in no register (a thread holds 152 values of a 256 x
  152 tile, as cuBLAS's kernel does);
* the epilogue stores columns 0-127 by TMA from shared memory (two 64-column boxes through one
  buffer when BM is 256) and the rest (BN - 128 of them) straight from registers, masked
  (6 KB a 128-row tile at BN 152).

``kiln_fitted_matmul_launcher(a, b)`` is the host wrapper; bench/cluster_gemm.py times it
(``kiln-fitted``, ``--fitted-tiles``) against cuBLAS and the other Kiln GEMMs;
third_party/nvidia/test/gpu/test_fitted_gemm.py checks it against torch,
test/Python/test_fitted_tile.py the tile choice.
"""

from __future__ import annotations

import kiln
import kiln.language as gl
from kiln.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

from examples.hopper_ws import _descriptor, _tile_offsets, _tile_range

__all__ = ["fitted_gemm_kernel", "fitted_tile", "kiln_fitted_matmul",
           "kiln_fitted_matmul_launcher"]


@kiln.jit
def _loader(a_desc, b0_desc, b1_desc, b2_desc, a_bufs, b_bufs, ready, empty, M, N, K,
            BN: gl.constexpr, N1: gl.constexpr, N2: gl.constexpr, STAGES: gl.constexpr,
            GROUP_M: gl.constexpr):
    """The loader warp: each k-step's A box and B's BN rows in boxes of 128, N1 and N2 rows."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + BN * BK * 2
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, True)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            mbarrier.wait(empty.index(s), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), step_bytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, i * BK], ready.index(s),
                                            a_bufs.index(s))
            b = b_bufs.index(s)
            tma.async_copy_global_to_shared(b0_desc, [off_n, i * BK], ready.index(s),
                                            b.slice(0, 128, dim=0))
            if N1 > 0:
                tma.async_copy_global_to_shared(b1_desc, [off_n + 128, i * BK], ready.index(s),
                                                b.slice(128, N1, dim=0))
            if N2 > 0:
                tma.async_copy_global_to_shared(b2_desc, [off_n + 128 + N1, i * BK],
                                                ready.index(s), b.slice(128 + N1, N2, dim=0))
        count += num_k


@kiln.jit
def _halves(x):
    """A [rows, 2w] tensor's columns [0, w) and [w, 2w) (register moves only)."""
    rows: gl.constexpr = x.shape[0]
    w: gl.constexpr = x.shape[1] // 2
    return x.reshape([rows, 2, w]).permute(0, 2, 1).split()


@kiln.jit
def _mma(a_bufs, b_bufs, ready, empty, c_desc, c_smem, c_ptr, M, N, K, BN: gl.constexpr,
         BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr):
    """The kernel's warps: wgmma on BN of the accumulator's 256 columns, then the epilogue
    (columns 0-127 by TMA, the rest by masked stores)."""
    BM: gl.constexpr = c_desc.block_type.shape[0]
    CW: gl.constexpr = c_desc.block_type.shape[1]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, 256, 16])
    TAIL: gl.constexpr = BN - 128
    TW: gl.constexpr = 32 if TAIL <= 32 else (64 if TAIL <= 64 else 128)
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, True)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        acc = gl.zeros([BM, 256], dtype=gl.float32, layout=acc_layout)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            mbarrier.wait(ready.index(s), (n // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                                is_async=True, cols=BN)
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            mbarrier.arrive(empty.index((n + STAGES - 1) % STAGES), pred=i > 0)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        mbarrier.arrive(empty.index((count + num_k + STAGES - 1) % STAGES), pred=num_k > 0)
        count += num_k
        lo, hi = _halves(acc)
        if CW == 128:
            tma.store_wait(0)
            c_smem.store(lo.to(gl.bfloat16))
            fence_async_shared()
            tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
        else:  # 256 rows: two 64-column boxes through one buffer
            l0, l1 = _halves(lo)
            tma.store_wait(0)
            c_smem.store(l0.to(gl.bfloat16))
            fence_async_shared()
            tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
            tma.store_wait(0)
            c_smem.store(l1.to(gl.bfloat16))
            fence_async_shared()
            tma.async_copy_shared_to_global(c_desc, [off_m, off_n + 64], c_smem)
        # Columns 128 .. BN-1 from registers: the narrowest power-of-two part holding them.
        if TW < 128:
            hi, _ = _halves(hi)
        if TW < 64:
            hi, _ = _halves(hi)
        rows = off_m + gl.arange(0, BM, gl.SliceLayout(1, hi.type.layout))
        cols = gl.arange(0, TW, gl.SliceLayout(0, hi.type.layout))
        mask = (rows[:, None] < M) & (cols[None, :] < TAIL) & (off_n + 128 + cols[None, :] < N)
        gl.store((c_ptr + off_n + 128) + (rows[:, None] * N + cols[None, :]),
                 hi.to(gl.bfloat16), mask=mask)
    tma.store_wait(0)


@kiln.jit
def fitted_gemm_kernel(a_desc, b0_desc, b1_desc, b2_desc, c_desc, c_ptr, M, N, K,
                       BN: gl.constexpr, N1: gl.constexpr, N2: gl.constexpr,
                       STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T in [BM, BN] tiles on min(SM count, tiles) programs, BN = 128 + N1 + N2
    (N1, N2 powers of two or 0); b0/b1/b2_desc: B in boxes of 128, N1 and N2 rows (pass
    b0_desc for an absent one); c_desc: C in [BM, 128] boxes (BM 128) or [BM, 64] (BM 256);
    c_ptr: C itself."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    gl.static_assert(BN == 128 + N1 + N2, "BN must be 128 + N1 + N2")
    dtype: gl.constexpr = a_desc.dtype
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, 256, BK], b0_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, c_desc.block_type.shape[1]],
                                       c_desc.layout)
    gl.warp_specialize([
        (_mma, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, c_ptr, M, N, K, BN, BK, STAGES,
                GROUP_M)),
        (_loader, (a_desc, b0_desc, b1_desc, b2_desc, a_bufs, b_bufs, ready, empty, M, N, K,
                   BN, N1, N2, STAGES, GROUP_M)),
    ], [1], [24])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


def fitted_tile(M, N, programs):
    """(BM, BN) for an M x N output on ``programs`` programs: BM 128 with BN a multiple of 8
    from 136 to 256, or BM 256 with BN up to 192 (its accumulator takes BN registers a
    thread), BN = 128 plus at most two powers of two; the pair whose tiles take the least
    time -- ceil(tiles / programs) waves of BM x BN each -- ties to BM 256 (less traffic a
    flop), then to the wider tile (fewer epilogues)."""
    def pow2_or_0(x):
        return x == 0 or x & (x - 1) == 0
    best = None
    for bm in (256, 128):
        for bn in range(256 if bm == 128 else 192, 135, -8):
            t = bn - 128
            if not any(pow2_or_0(n1) and pow2_or_0(t - n1) for n1 in range(0, t + 1, 8)):
                continue
            tiles = -(-M // bm) * -(-N // bn)
            cost = -(-tiles // programs) * bm * bn
            if best is None or cost < best[0]:
                best = (cost, bm, bn)
    return best[1], best[2]


def _split(bn):
    """(N1, N2) with bn = 128 + N1 + N2, N1 >= N2 powers of two or 0."""
    t = bn - 128
    for n1 in range(t, -1, -8):
        n2 = t - n1
        if (n1 == 0 or n1 & (n1 - 1) == 0) and (n2 == 0 or n2 & (n2 - 1) == 0) and n1 >= n2:
            return n1, n2
    raise ValueError(f"BN={bn} is not 128 plus two powers of two")


def kiln_fitted_matmul_launcher(a, b, BN=None, BM=None, BK=64, STAGES=None, num_warps=8,
                                GROUP_M=8, out=None, programs=None):
    """(run, c) for C = a @ b.T (a [M, K], b [N, K] bf16 contiguous) with fitted_gemm_kernel:
    BM and BN from ``fitted_tile`` unless given (BN a multiple of 8, 128 plus at most two
    powers of two, from 136 to 256 with BM 128 or to 192 with BM 256); descriptors and C made
    once, run() only launches."""
    import torch
    from examples.hopper import _cdiv, _check_gemm
    if programs is None:
        programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    if BN is None and BM is None:
        BM, BN = fitted_tile(a.shape[0], b.shape[0], programs)
    BM = BM or (128 if BN > 192 else 256)
    if BM not in (128, 256):
        raise ValueError(f"BM must be 128 or 256, got {BM}")
    if BN is None or BN % 8 or not 136 <= BN <= (256 if BM == 128 else 192):
        raise ValueError(f"BN must be a multiple of 8 from 136 to {256 if BM == 128 else 192} "
                         f"with BM={BM}, got {BN}")
    if STAGES is None:
        STAGES = 4 if BM == 128 else 3
    M, N, K = _check_gemm(a, b, BM, 256, BK, STAGES, num_warps)
    N1, N2 = _split(BN)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    if tuple(c.shape) != (M, N) or c.dtype != torch.bfloat16 or not c.is_contiguous():
        raise ValueError(f"out must be a contiguous bf16 [{M}, {N}] tensor")
    a_desc = _descriptor(a, (BM, BK))
    b0 = _descriptor(b, (128, BK))
    b1 = _descriptor(b, (N1, BK)) if N1 else b0
    b2 = _descriptor(b, (N2, BK)) if N2 else b0
    c_desc = _descriptor(c, (BM, 128 if BM == 128 else 64))
    grid = (max(1, min(programs, _cdiv(M, BM) * _cdiv(N, BN))),)

    def run():
        fitted_gemm_kernel[grid](a_desc, b0, b1, b2, c_desc, c, M, N, K, BN=BN, N1=N1, N2=N2,
                                 STAGES=STAGES, GROUP_M=GROUP_M, num_warps=num_warps)
        return c
    run.tile = (BM, BN)
    return run, c


def kiln_fitted_matmul(a, b, out=None, **kw):
    """C = a @ b.T (see kiln_fitted_matmul_launcher for the options)."""
    return kiln_fitted_matmul_launcher(a, b, out=out, **kw)[0]()
