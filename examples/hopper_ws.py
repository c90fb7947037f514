"""Kiln's warp-specialized Hopper (sm_90a) GEMM, written with Gluon's names: swapping the
imports for ``triton.experimental.gluon``'s (bench/hopper_ws_gemm.py does exactly that) gives
the same kernel in Gluon.

* ``ws_gemm_kernel``: C[M, N] = A[M, K] @ B[N, K]^T, bf16 in, fp32 accumulation, bf16 out, one
  [BM, BN] tile per program. ``gl.warp_specialize`` splits the CTA: one extra *loader* warp
  fills a STAGES-deep ring of A/B tiles with TMA, and the kernel's own warps (the default
  partition) run asynchronous wgmma on it and the TMA-store epilogue. Each slot has two
  mbarriers: ``ready`` (armed by the loader, completed by TMA's bytes) and ``empty``
  (arrived on by the consumers once the wgmma that read the slot has finished), so the
  loader runs up to STAGES k-steps ahead without any CTA-wide barrier in the main loop.
* ``ws_persistent_gemm_kernel``: the same on min(SM count, tiles) programs: the loader walks
  the program's tiles, pid, pid + num_programs, ..., and keeps the ring full across tile
  boundaries, so the next tile's first loads are in flight during this tile's epilogue.

Host wrappers ``kiln_ws_matmul`` / ``kiln_ws_persistent_matmul`` and their ``*_launcher``
forms take the same arguments as examples/hopper.py's; ``tuned=True`` lets kiln.autotune pick
the tile and ring depth among WS_CONFIGS.
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

__all__ = ["ws_gemm_kernel", "ws_persistent_gemm_kernel", "kiln_ws_matmul",
           "kiln_ws_matmul_launcher", "kiln_ws_persistent_matmul",
           "kiln_ws_persistent_matmul_launcher", "WS_CONFIGS", "ws_gemm_tuned"]


@kiln.jit
def _tile_offsets(tile, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
    """(off_m, off_n) of tile number ``tile``: GROUP_M row blocks share each column block."""
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    tiles_per_group = GROUP_M * num_pid_n
    first_m = (tile // tiles_per_group) * GROUP_M
    group_rows = gl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % tiles_per_group) % group_rows
    pid_n = (tile % tiles_per_group) // group_rows
    return pid_m * BM, pid_n * BN


@kiln.jit
def _tile_range(M, N, BM: gl.constexpr, BN: gl.constexpr, PERSISTENT: gl.constexpr):
    """(first, end, step) of this program's tiles: pid, pid + num_programs, ... below the tile
    count when PERSISTENT, else tile pid alone."""
    first = gl.program_id(0)
    if PERSISTENT:
        end = gl.cdiv(M, BM) * gl.cdiv(N, BN)
        step = gl.num_programs(0)
    else:
        # A constant step: the compiler then sees one trip (a runtime step measured 3%
        # slower on the H100 under locked clocks).
        end = first + 1
        step = 1
    return first, end, step


@kiln.jit
def _ws_loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K,
               STAGES: gl.constexpr, GROUP_M: gl.constexpr, PERSISTENT: gl.constexpr):
    """The loader warp: for each k-step, wait until its slot is empty, arm the slot's ready
    barrier with the bytes of both tiles and start the two TMA loads."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, PERSISTENT)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            # The j-th fill of slot s (j = n // STAGES) waits for the consumers' j-th release
            # of it: phase j-1 of its empty barrier. Parity 1 of a fresh barrier counts as
            # completed, so the first round finds every slot free.
            mbarrier.wait(empty.index(s), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), step_bytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, i * BK], ready.index(s),
                                            a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [off_n, i * BK], ready.index(s),
                                            b_bufs.index(s))
        count += num_k


@kiln.jit
def _ws_mma(a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K,
            BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr,
            PERSISTENT: gl.constexpr):
    """The kernel's warps: wait for a slot, issue its wgmma asynchronously, and once the
    previous k-step's wgmma has finished give that step's slot back to the loader; then the
    epilogue (bf16 tile -> shared -> TMA store, _store_tile)."""
    BM: gl.constexpr = a_bufs.shape[1]
    BN: gl.constexpr = b_bufs.shape[1]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, BN, 16])
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, PERSISTENT)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            mbarrier.wait(ready.index(s), (n // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                                is_async=True)
            # At most this step's wgmma is in flight: step n-1's has read its slot.
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            mbarrier.arrive(empty.index((n + STAGES - 1) % STAGES), pred=i > 0)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        # The tile's last slot is released here, before the epilogue, so that the loader
        # can refill it with the next tile's data meanwhile.
        mbarrier.arrive(empty.index((count + num_k + STAGES - 1) % STAGES), pred=num_k > 0)
        count += num_k
        _store_tile(acc.to(c_desc.dtype), c_desc, c_smem, off_m, off_n)
    tma.store_wait(0)


@kiln.jit
def _halves(t):
    """t's left and right column halves (a register split: no data moves)."""
    BM: gl.constexpr = t.shape[0]
    BN: gl.constexpr = t.shape[1]
    return t.reshape([BM, 2, BN // 2]).permute((0, 2, 1)).split()


@kiln.jit
def _store_block(c, c_desc, c_smem, j: gl.constexpr, off_m, off_n):
    c_smem.index(j).store(c)
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n + j * c_desc.block_type.shape[1]],
                                    c_smem.index(j))


@kiln.jit
def _store_tile(c, c_desc, c_smem, off_m, off_n):
    """The epilogue: the [BM, BN] tile c into C by TMA, in column blocks of c_desc's width
    (BN, BN / 2 or BN / 4), each block's store issued as soon as it is in shared memory, so
    that TMA reads one block while the warps write the next (2048^3 on an H200: 1.006x the
    whole-tile store, 1.009x persistent; 1.002-1.016x at 4096^3 and 8192^3)."""
    EN: gl.constexpr = c_desc.block_type.shape[1]
    BN: gl.constexpr = c.shape[1]
    # The previous tile's TMA stores must have read c_smem before it is overwritten.
    tma.store_wait(0)
    if EN == BN:
        _store_block(c, c_desc, c_smem, 0, off_m, off_n)
    elif 2 * EN == BN:
        c0, c1 = _halves(c)
        _store_block(c0, c_desc, c_smem, 0, off_m, off_n)
        _store_block(c1, c_desc, c_smem, 1, off_m, off_n)
    else:
        gl.static_assert(4 * EN == BN, "C's block is BN, BN / 2 or BN / 4 columns wide")
        left, right = _halves(c)
        c0, c1 = _halves(left)
        c2, c3 = _halves(right)
        _store_block(c0, c_desc, c_smem, 0, off_m, off_n)
        _store_block(c1, c_desc, c_smem, 1, off_m, off_n)
        _store_block(c2, c_desc, c_smem, 2, off_m, off_n)
        _store_block(c3, c_desc, c_smem, 3, off_m, off_n)


@kiln.jit
def ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr,
                   GROUP_M: gl.constexpr, PERSISTENT: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T: one tile per program (PERSISTENT=False, grid cdiv(M, BM) * cdiv(N, BN))
    or the tiles pid, pid + num_programs, ... (PERSISTENT=True). Edges as in
    examples/hopper.py: TMA zero-fills the loads past the tensor and clips the store."""
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
    EN: gl.constexpr = c_desc.block_type.shape[1]
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BN // EN, BM, EN], c_desc.layout)
    gl.warp_specialize([
        (_ws_mma, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K, BK, STAGES, GROUP_M,
                   PERSISTENT)),
        (_ws_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, STAGES, GROUP_M,
                      PERSISTENT)),
    ], [1], [24])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


@kiln.jit
def ws_gemm_kernel_tiled(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                         BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr,
                         PERSISTENT: gl.constexpr, num_warps: gl.constexpr):
    """ws_gemm_kernel with its tile named: the descriptors' blocks must be [BM, BK], [BN, BK]
    and [BM, EN] with EN dividing BN (the epilogue's block; the autotuned GEMM's pre_hook sets
    them per config)."""
    gl.static_assert(a_desc.block_type.shape[0] == BM and a_desc.block_type.shape[1] == BK)
    gl.static_assert(b_desc.block_type.shape[0] == BN and BN % c_desc.block_type.shape[1] == 0)
    ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES, GROUP_M, PERSISTENT, num_warps)


def _epi(BN):
    """The epilogue's block width for a tile BN wide: 64 columns where BN is 128 or 256."""
    return 64 if BN in (128, 256) else BN


def _set_tile_blocks(nargs):
    """A Config pre_hook: each descriptor's block and NVMMA layout for this config's tile."""
    BM, BN, BK = nargs["BM"], nargs["BN"], nargs["BK"]
    for name, block in (("a_desc", [BM, BK]), ("b_desc", [BN, BK]), ("c_desc", [BM, _epi(BN)])):
        desc = nargs[name]
        desc.block_shape = block
        desc.layout = gl.NVMMASharedLayout.get_default_for(block, desc.dtype)


# Tiles and ring depths kiln_ws_matmul(..., tuned=True) chooses among, once per (M, N, K) and
# schedule; each fits in shared memory with its C tile (at most 208 KiB).
WS_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 3, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 128, "BK": 64, "STAGES": 5, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 64, "BN": 256, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
]
ws_gemm_tuned = kiln.autotune(WS_CONFIGS, key=["M", "N", "K", "PERSISTENT"])(ws_gemm_kernel_tiled)


# --- host wrappers ------------------------------------------------------------------------------


def _descriptor(t, block):
    import torch
    dtypes = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}
    layout = gl.NVMMASharedLayout.get_default_for(list(block), dtypes[t.dtype])
    return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block), layout)


def _launcher(a, b, BM, BN, BK, STAGES, num_warps, GROUP_M, out, persistent):
    import torch
    # The plain GEMM's argument checks (torch only, so the Gluon twin shares them too).
    from examples.hopper import _cdiv, _check_gemm
    M, N, K = _check_gemm(a, b, BM, BN, BK, STAGES, num_warps)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    if tuple(c.shape) != (M, N) or c.dtype != torch.bfloat16 or not c.is_contiguous():
        raise ValueError(f"out must be a contiguous bf16 [{M}, {N}] tensor")
    a_desc, b_desc, c_desc = _descriptor(a, (BM, BK)), _descriptor(b, (BN, BK)), \
        _descriptor(c, (BM, _epi(BN)))
    tiles = _cdiv(M, BM) * _cdiv(N, BN)
    if persistent:
        sms = torch.cuda.get_device_properties(a.device).multi_processor_count
        grid = (min(sms, tiles),)
    else:
        grid = (tiles,)

    def run():
        ws_gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K, STAGES=STAGES, GROUP_M=GROUP_M,
                             PERSISTENT=persistent, num_warps=num_warps)
        return c
    return run, c


def kiln_ws_matmul_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8,
                            out=None):
    """(run, c) for C = a @ b.T with ws_gemm_kernel, one tile per program: descriptors and C
    made once; run() only launches."""
    return _launcher(a, b, BM, BN, BK, STAGES, num_warps, GROUP_M, out, persistent=False)


def _tuned(a, b, out, persistent):
    """C = a @ b.T with kiln.autotune's pick among WS_CONFIGS (timed once per (M, N, K) and
    schedule, remembered on disk)."""
    import torch
    from examples.hopper import _cdiv, _check_gemm
    M, N, K = _check_gemm(a, b, 128, 128, 64, 3, 4)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    if tuple(c.shape) != (M, N) or c.dtype != torch.bfloat16 or not c.is_contiguous():
        raise ValueError(f"out must be a contiguous bf16 [{M}, {N}] tensor")
    # Descriptors of any block: the config's pre_hook sets each one's block and layout.
    a_desc, b_desc, c_desc = _descriptor(a, (128, 64)), _descriptor(b, (128, 64)), \
        _descriptor(c, (128, 128))
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count

    def grid(meta):
        tiles = _cdiv(M, meta["BM"]) * _cdiv(N, meta["BN"])
        return (min(sms, tiles) if persistent else tiles,)
    ws_gemm_tuned[grid](a_desc, b_desc, c_desc, M, N, K, PERSISTENT=persistent)
    return c


def kiln_ws_matmul(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8, out=None,
                   tuned=False):
    """C = a @ b.T (a [M, K], b [N, K] bf16 contiguous) with the warp-specialized kernel;
    ``tuned=True``: the tile is kiln.autotune's pick among WS_CONFIGS (the tile arguments are
    then unused)."""
    if tuned:
        return _tuned(a, b, out, persistent=False)
    return kiln_ws_matmul_launcher(a, b, BM, BN, BK, STAGES, num_warps, GROUP_M, out)[0]()


def kiln_ws_persistent_matmul_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8,
                                       GROUP_M=8, out=None):
    """(run, c) for C = a @ b.T with ws_gemm_kernel on min(SM count, tiles) programs."""
    return _launcher(a, b, BM, BN, BK, STAGES, num_warps, GROUP_M, out, persistent=True)


def kiln_ws_persistent_matmul(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8,
                              out=None, tuned=False):
    """C = a @ b.T with the persistent warp-specialized kernel (``tuned=True``: as
    kiln_ws_matmul's)."""
    if tuned:
        return _tuned(a, b, out, persistent=True)
    return kiln_ws_persistent_matmul_launcher(a, b, BM, BN, BK, STAGES, num_warps, GROUP_M,
                                              out)[0]()
