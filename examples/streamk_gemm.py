"""A Hopper (sm_90a) GEMM whose last tiles are shared out by K (Stream-K), written with Gluon's
names: the persistent warp-specialized GEMM of examples/hopper_ws.py, where the tiles that
would leave the last wave part-empty are split along K among all programs.

A persistent GEMM of T equal tiles on P programs takes ceil(T / P) tile times; when P does
not divide T the last wave runs with idle SMs (4096³ in 128 x 256 tiles on 132 SMs: 512 / 132
= 3.88, so 4 waves for 3.88 waves of work; 3000 x 5000 x 4000: 480 tiles, 3.64). Here:

* The first ``dp`` tiles (a multiple of P) go whole to the programs in turn (pid, pid + P,
  ...), as in the persistent GEMM. The k-steps of the ``T - dp`` tiles left, fewer than P
  tiles, are cut into P runs of equal length (the last shorter), one a program, each going
  through consecutive k-steps of consecutive tiles: every program does the average number of
  k-steps, rounded up.
* A run's piece of a tile that covers all of its k-steps is stored as usual. Otherwise the
  piece claims its turn on the tile's first counter (an acquire-release add, GPU scope). The
  pieces that are not last store their fp32 sums in the program's workspace slot (slot 0 for
  the run's first piece, 1 for its last: a run touches at most two tiles), and after the
  partition's barrier one thread adds 1 to the tile's second counter (release). The last
  piece waits for that count (acquire) -- the others have claimed already, so they are
  running and store without waiting for anyone: the kernel needs no co-residency -- adds
  their sums to its own, stores the tile in bf16 and sets both counters back to 0 for the
  next launch. Only the pieces that are not last go through memory.
* The loader warp walks the same pieces (``_piece``), so the ring of examples/hopper_ws.py is
  unchanged. Its allocation and the wgmma loop repeat hopper_ws.py's rather than being shared
  with it, as examples/cluster_gemm.py's do: hopper_ws.py stays a Gluon 3.6 kernel that
  bench/hopper_ws_gemm.py runs in Gluon by swapping imports.

``kiln_streamk_matmul_launcher(a, b)`` is the host wrapper (workspace and counters made once
per shape); bench/cluster_gemm.py times it against cuBLAS and the persistent kernels;
third_party/nvidia/test/gpu/test_streamk_gemm.py checks it against torch.
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

from examples.hopper_ws import _descriptor, _tile_offsets

__all__ = ["streamk_gemm_kernel", "kiln_streamk_matmul", "kiln_streamk_matmul_launcher",
           "streamk_plan"]


@kiln.jit
def _plan(M, N, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr):
    """(dp, KT, per, start, end, t0, pieces): the whole tiles before the split ones, k-steps
    a tile, k-steps a run, this program's run [start, end) in the split tiles' k-steps, its
    first split tile (relative to dp) and how many tiles the run touches."""
    P = gl.num_programs(0)
    pid = gl.program_id(0)
    tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    KT = gl.cdiv(K, BK)
    rem = tiles % P
    dp = tiles - rem
    total = rem * KT
    per = gl.maximum(gl.cdiv(total, P), 1)
    start = gl.minimum(pid * per, total)
    end = gl.minimum(start + per, total)
    t0 = start // KT
    pieces = 0
    if end > start:
        pieces = (end - 1) // KT - t0 + 1
    return dp, KT, per, start, end, t0, pieces


@kiln.jit
def _piece(j, dp, KT, start, end, t0):
    """(tile, u, k0, k1) of a program's trip j (pid, pid + P, ...): a whole tile while j < dp,
    then the run's pieces in turn, u the split tile's index after dp and [k0, k1) its k-steps
    this piece covers."""
    tile = j
    u = 0
    k0 = 0
    k1 = KT
    if j >= dp:
        u = t0 + (j - dp) // gl.num_programs(0)
        tile = dp + u
        k0 = gl.maximum(start - u * KT, 0)
        k1 = gl.minimum(end - u * KT, KT)
    return tile, u, k0, k1


@kiln.jit
def _loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, STAGES: gl.constexpr,
            GROUP_M: gl.constexpr):
    """The loader warp: the whole tiles' k-steps, then this program's run, into the ring."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    dp, KT, per, start, end, t0, pieces = _plan(M, N, K, BM, BN, BK)
    count = 0
    for j in range(gl.program_id(0), dp + pieces * gl.num_programs(0), gl.num_programs(0)):
        # Whole tiles first (j < dp); then the run's pieces, one a trip (j >= dp).
        tile, u, k0, k1 = _piece(j, dp, KT, start, end, t0)
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        for i in range(k0, k1):
            n = count + i - k0
            s = n % STAGES
            mbarrier.wait(empty.index(s), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), step_bytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, i * BK], ready.index(s),
                                            a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [off_n, i * BK], ready.index(s),
                                            b_bufs.index(s))
        count += k1 - k0


@kiln.jit
def _store_tile(acc, c_desc, c_smem, off_m, off_n):
    """The epilogue: bf16 tile -> shared -> TMA store (the previous store has read c_smem)."""
    tma.store_wait(0)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)


@kiln.jit
def _mma(a_bufs, b_bufs, ready, empty, c_desc, c_smem, partial, counters, M, N, K,
         BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr):
    """The kernel's warps: wgmma over each piece's k-steps; a whole tile is stored, a split
    tile's piece goes through the workspace and the tile's counter (module docstring)."""
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, BN, 16])
    P = gl.num_programs(0)
    pid = gl.program_id(0)
    dp, KT, per, start, end, t0, pieces = _plan(M, N, K, BM, BN, BK)
    rows = gl.arange(0, BM, gl.SliceLayout(1, acc_layout))
    cols = gl.arange(0, BN, gl.SliceLayout(0, acc_layout))
    # The workspace holds a tile in the order of the accumulator's registers over the warps
    # (warp, column group of 8, row half, lane): one store or load of a register pair by a
    # warp covers 256 contiguous bytes (row-major, it touched 8 rows' 32 bytes each).
    offs = ((rows // 16) * (16 * BN) + ((rows % 16) // 8) * 64 + (rows % 8) * 8)[:, None] + \
        ((cols // 8) * 128 + cols % 8)[None, :]
    stored = counters + gl.cdiv(M, BM) * gl.cdiv(N, BN)  # the tiles' second counters
    count = 0
    for j in range(pid, dp + pieces * P, P):
        tile, u, k0, k1 = _piece(j, dp, KT, start, end, t0)
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
        steps = k1 - k0
        for i in range(steps):
            n = count + i
            s = n % STAGES
            mbarrier.wait(ready.index(s), (n // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                                is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            mbarrier.arrive(empty.index((n + STAGES - 1) % STAGES), pred=i > 0)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        mbarrier.arrive(empty.index((count + steps + STAGES - 1) % STAGES), pred=steps > 0)
        count += steps
        # The programs whose runs touch this tile (one for a whole tile).
        first_c = (u * KT) // per
        last_c = ((u + 1) * KT - 1) // per
        if (j < dp) | (first_c == last_c):
            _store_tile(acc, c_desc, c_smem, off_m, off_n)
        else:
            slot = 0
            if k0 == 0:
                if pid * per < u * KT:
                    slot = 1
            others = last_c - first_c
            # Claim first: the piece that arrives last adds the others' sums; the others
            # store theirs and count them ready.
            seen = gl.atomic_add(counters + tile, 1, sem="acq_rel", scope="gpu")
            if seen < others:
                # The slot's address first, then the tile's offsets: their constant parts
                # fold into the stores' immediates.
                gl.store((partial + (pid * 2 + slot) * (BM * BN)) + offs, acc)
                # Every thread's stores before the one thread's release.
                gl.thread_barrier()
                gl.atomic_add(stored + tile, 1, sem="release", scope="gpu")
            else:
                # The others have claimed, so they are running and store without waiting
                # for anyone: this wait ends whether or not all programs are resident.
                done = gl.atomic_add(stored + tile, 0, sem="acquire", scope="gpu")
                while done < others:
                    done = gl.atomic_add(stored + tile, 0, sem="acquire", scope="gpu")
                for c in range(first_c, last_c + 1):
                    if c != pid:
                        other = 0
                        if c * per < u * KT:
                            other = 1
                        acc += gl.load((partial + (c * 2 + other) * (BM * BN)) + offs)
                _store_tile(acc, c_desc, c_smem, off_m, off_n)
                gl.atomic_xchg(counters + tile, 0, sem="relaxed", scope="gpu")
                gl.atomic_xchg(stored + tile, 0, sem="relaxed", scope="gpu")
    tma.store_wait(0)


@kiln.jit
def streamk_gemm_kernel(a_desc, b_desc, c_desc, partial, counters, M, N, K,
                        STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T on min(SM count, tiles) programs, the last tiles split along K
    (``partial``: fp32 workspace of 2 * BM * BN per program; ``counters``: two int32 per
    tile, zero before the first launch, left zero by each)."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    dtype: gl.constexpr = a_desc.dtype
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    gl.warp_specialize([
        (_mma, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, partial, counters, M, N, K, BK,
                STAGES, GROUP_M)),
        (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, STAGES, GROUP_M)),
    ], [1], [24])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


def streamk_plan(M, N, K, BM, BN, BK, programs):
    """The host's copy of the kernel's plan, for tests: (dp, KT, per, runs), runs[p] the list
    of (tile, k0, k1) pieces of program p (its whole tiles, then its run's pieces)."""
    tiles = -(-M // BM) * -(-N // BN)
    KT = -(-K // BK)
    dp = tiles - tiles % programs
    total = (tiles - dp) * KT
    per = -(-total // programs) if programs else 0
    runs = []
    for p in range(programs):
        pieces = [(t, 0, KT) for t in range(p, dp, programs)]
        start = min(p * per, total)
        end = min(start + per, total)
        it = start
        while it < end:
            u = it // KT
            k1 = min(end - u * KT, KT)
            pieces.append((dp + u, it - u * KT, k1))
            it = u * KT + k1
        runs.append(pieces)
    return dp, KT, per, runs


def kiln_streamk_matmul_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8,
                                 GROUP_M=8, out=None, programs=None):
    """(run, c) for C = a @ b.T (a [M, K], b [N, K] bf16 contiguous) with streamk_gemm_kernel
    on ``programs`` programs (default min(SM count, tiles)); descriptors, C, the workspace and
    the counters made once, run() only launches."""
    import torch
    from examples.hopper import _cdiv, _check_gemm
    M, N, K = _check_gemm(a, b, BM, BN, BK, STAGES, num_warps)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    if tuple(c.shape) != (M, N) or c.dtype != torch.bfloat16 or not c.is_contiguous():
        raise ValueError(f"out must be a contiguous bf16 [{M}, {N}] tensor")
    a_desc, b_desc, c_desc = _descriptor(a, (BM, BK)), _descriptor(b, (BN, BK)), \
        _descriptor(c, (BM, BN))
    tiles = _cdiv(M, BM) * _cdiv(N, BN)
    if programs is None:
        programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    grid = (max(1, min(programs, tiles)),)
    partial = torch.empty(grid[0] * 2 * BM * BN, device=a.device, dtype=torch.float32)
    counters = torch.zeros(2 * tiles, device=a.device, dtype=torch.int32)

    def run():
        streamk_gemm_kernel[grid](a_desc, b_desc, c_desc, partial, counters, M, N, K,
                                  STAGES=STAGES, GROUP_M=GROUP_M, num_warps=num_warps)
        return c
    return run, c


def kiln_streamk_matmul(a, b, out=None, **kw):
    """C = a @ b.T (see kiln_streamk_matmul_launcher for the options)."""
    return kiln_streamk_matmul_launcher(a, b, out=out, **kw)[0]()
