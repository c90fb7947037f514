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
  buffer when BM is 256) and the rest by TMA too, in unswizzled boxes of N1 and N2 columns
  written into the halves of that buffer (columns past 128 stored from registers instead ran
  the 256 x 152 tile 5 % slower); a BN whose N1 is over 32 stores them from registers.

128 x 256 is the persistent kernel of examples/hopper_ws.py itself (the launcher calls it).
The tile order, tile range and register split come from hopper_ws.py; the loader's ring loop
repeats its shape with B's boxes in place of its one copy (as examples/cluster_gemm.py's does):
hopper_ws.py stays a Gluon 3.6 kernel that bench/hopper_ws_gemm.py runs in Gluon unchanged.
Measured against cuBLAS (docs/results.md, "Tiles that fill whole waves"): 3000x5000x4000 at
0.95 (the 128 x 256 kernel 0.89), 6000x5000x4000 at 0.98 (0.93).

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

from kiln.nvidia.hopper import TensorDescriptor

from examples.hopper_ws import _descriptor, _halves, _tile_offsets, _tile_range

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
def _store_tail_tma(hi, c1_desc, c2_desc, c_smem, off_m, off_n, BM: gl.constexpr,
                    N1: gl.constexpr, N2: gl.constexpr):
    """Columns 128 .. 128 + N1 + N2 (N1 <= 32, N2 < N1) by TMA, in boxes of N1 and N2 columns
    from unswizzled tiles in the two halves of c_smem (once its 64-column boxes are read)."""
    h64 = _halves(hi)[0]  # columns 128-191
    h32, r32 = _halves(h64)  # 128-159, 160-191
    if N1 == 32:
        t1 = h32
        rest = r32  # N2 from column 160
    else:
        h16, r16 = _halves(h32)
        rest = r16  # N2 from column 144 (N1 16) or 136 (N1 8)
        if N1 == 16:
            t1 = h16
        else:
            t1, rest = _halves(h16)
    if N2 > 0:
        t2 = rest
        if N2 < t2.shape[1]:
            t2 = _halves(t2)[0]
        if N2 < t2.shape[1]:
            t2 = _halves(t2)[0]
    tma.store_wait(0)
    # c_smem's two halves, each one contiguous range: its two 64-column blocks (BM 128), or
    # its two row halves (BM 256: one 64-column block).
    if c_smem.shape[1] > 64:
        p1 = c_smem.slice(0, 64, dim=1)
        p2 = c_smem.slice(64, 64, dim=1)
    else:
        p1 = c_smem.slice(0, BM // 2, dim=0)
        p2 = c_smem.slice(BM // 2, BM // 2, dim=0)
    s1 = p1._reinterpret(gl.bfloat16, [BM, N1], c1_desc.layout)
    s1.store(t1.to(gl.bfloat16))
    if N2 > 0:
        s2 = p2._reinterpret(gl.bfloat16, [BM, N2], c2_desc.layout)
        s2.store(t2.to(gl.bfloat16))
    fence_async_shared()
    tma.async_copy_shared_to_global(c1_desc, [off_m, off_n + 128], s1)
    if N2 > 0:
        tma.async_copy_shared_to_global(c2_desc, [off_m, off_n + 128 + N1], s2)


@kiln.jit
def _store_tail_registers(hi, c_ptr, off_m, off_n, M, N, BM: gl.constexpr, BN: gl.constexpr):
    """Columns 128 .. BN-1 straight from registers, masked: the narrowest power-of-two part of
    ``hi`` (columns 128-255) that holds them."""
    TAIL: gl.constexpr = BN - 128
    TW: gl.constexpr = 32 if TAIL <= 32 else (64 if TAIL <= 64 else 128)
    if TW < 128:
        hi, _ = _halves(hi)
    if TW < 64:
        hi, _ = _halves(hi)
    rows = off_m + gl.arange(0, BM, gl.SliceLayout(1, hi.type.layout))
    cols = gl.arange(0, TW, gl.SliceLayout(0, hi.type.layout))
    mask = (rows[:, None] < M) & (cols[None, :] < TAIL) & (off_n + 128 + cols[None, :] < N)
    gl.store((c_ptr + off_n + 128) + (rows[:, None] * N + cols[None, :]), hi.to(gl.bfloat16),
             mask=mask)


@kiln.jit
def _mma(a_bufs, b_bufs, ready, empty, c_desc, c1_desc, c2_desc, c_smem, c_ptr, M, N, K,
         BN: gl.constexpr, N1: gl.constexpr, N2: gl.constexpr, BK: gl.constexpr,
         STAGES: gl.constexpr, GROUP_M: gl.constexpr):
    """The kernel's warps: wgmma on BN of the accumulator's 256 columns, then the epilogue
    (columns 0-127 by TMA, the rest by masked stores)."""
    BM: gl.constexpr = c_desc.block_type.shape[0]
    CW: gl.constexpr = c_desc.block_type.shape[1]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, 256, 16])
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
        if N1 <= 32:
            _store_tail_tma(hi, c1_desc, c2_desc, c_smem, off_m, off_n, BM, N1, N2)
        else:
            _store_tail_registers(hi, c_ptr, off_m, off_n, M, N, BM, BN)
    tma.store_wait(0)


@kiln.jit
def fitted_gemm_kernel(a_desc, b0_desc, b1_desc, b2_desc, c_desc, c1_desc, c2_desc, c_ptr, M, N, K,
                       BN: gl.constexpr, N1: gl.constexpr, N2: gl.constexpr,
                       STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T in [BM, BN] tiles on min(SM count, tiles) programs, BN = 128 + N1 + N2
    (N1, N2 powers of two or 0); b0/b1/b2_desc: B in boxes of 128, N1 and N2 rows (pass
    b0_desc for an absent one); c_desc: C in [BM, 128] boxes (BM 128) or [BM, 64] (BM 256);
    c1/c2_desc: C in unswizzled [BM, N1] and [BM, N2] boxes (the columns past 128, when N1
    is at most 32; c1_desc for an absent one); c_ptr: C itself (the columns past 128 when N1
    is more than 32)."""
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
        (_mma, (a_bufs, b_bufs, ready, empty, c_desc, c1_desc, c2_desc, c_smem, c_ptr, M, N,
                K, BN, N1, N2, BK, STAGES, GROUP_M)),
        (_loader, (a_desc, b0_desc, b1_desc, b2_desc, a_bufs, b_bufs, ready, empty, M, N, K,
                   BN, N1, N2, STAGES, GROUP_M)),
    ], [1], [24])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


# Each tile shape's speed on one SM relative to 128 x 256's, measured on an H200
# (bench/cluster_gemm.py, 2026-12-02): 256 x 152 ran 3000x5000x4000 at 0.95 of it and 8192^3
# (256 x 168) at 1.01; 128 x 136 ran 5000x3000x4000 at 0.89.
_SPEED = {128: 0.89, 256: 0.97}


def fitted_tile(M, N, programs, BM=None):
    """(BM, BN) for an M x N output on ``programs`` programs: 128 x 256 (examples/hopper_ws.py's
    persistent kernel), or BM 128 or 256 with BN 128 plus at most two powers of two of which
    the larger is at most 32 (136 to 176: the columns past 128 go out by TMA; BN is also the
    registers a thread's accumulator takes at BM 256); the pair whose tiles take the least
    time -- ceil(tiles / programs) waves of BM x BN each, divided by the shape's measured
    speed (_SPEED) -- ties to BM 256, then to the wider tile. ``BM``: only tiles of that
    height."""
    best = None
    for bm, bn in _tiles():
        if BM is not None and bm != BM:
            continue
        tiles = -(-M // bm) * -(-N // bn)
        cost = -(-tiles // programs) * bm * bn / (1.0 if bn == 256 else _SPEED[bm])
        if best is None or cost < best[0] - 1e-9:
            best = (cost, bm, bn)
    return best[1], best[2]


def _tiles():
    """The (BM, BN) fitted_tile chooses from, in the order it breaks ties."""
    yield 128, 256
    for bm in (256, 128):
        for bn in (176, 168, 160, 152, 144, 136):
            yield bm, bn


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
    BN (and BM unless given) from ``fitted_tile`` unless BN is given (a multiple of 8, 128 plus
    at most two powers of two, from 136 to 256 with BM 128 or to 192 with BM 256; BM then
    defaults to 256 up to BN 192); descriptors and C made once, run() only launches. 128 x
    256 runs examples/hopper_ws.py's persistent kernel, on every SM (``programs`` unused)."""
    import torch
    from examples.hopper import _cdiv, _check_gemm
    if programs is None:
        programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    if BM not in (None, 128, 256):
        raise ValueError(f"BM must be 128 or 256, got {BM}")
    if BN is None:
        BM, BN = fitted_tile(a.shape[0], b.shape[0], programs, BM)
    BM = BM or (128 if BN > 192 else 256)
    if (BM, BN) == (128, 256):  # a power-of-two tile: the persistent kernel of hopper_ws.py
        from examples.hopper_ws import kiln_ws_persistent_matmul_launcher
        run, c = kiln_ws_persistent_matmul_launcher(a, b, BK=BK, STAGES=STAGES or 3,
                                                    num_warps=num_warps, GROUP_M=GROUP_M,
                                                    out=out)
        run.tile = (BM, BN)
        return run, c
    if BN % 8 or not 136 <= BN <= (256 if BM == 128 else 192):
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
    plain = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16, rank=2)
    c1 = TensorDescriptor(c, [M, N], [N, 1], [BM, min(N1, 32)], plain)
    c2 = TensorDescriptor(c, [M, N], [N, 1], [BM, N2], plain) if N2 else c1
    grid = (max(1, min(programs, _cdiv(M, BM) * _cdiv(N, BN))),)

    def run():
        fitted_gemm_kernel[grid](a_desc, b0, b1, b2, c_desc, c1, c2, c, M, N, K, BN=BN, N1=N1,
                                 N2=N2,
                                 STAGES=STAGES, GROUP_M=GROUP_M, num_warps=num_warps)
        return c
    run.tile = (BM, BN)
    return run, c


def kiln_fitted_matmul(a, b, out=None, **kw):
    """C = a @ b.T (see kiln_fitted_matmul_launcher for the options)."""
    return kiln_fitted_matmul_launcher(a, b, out=out, **kw)[0]()
