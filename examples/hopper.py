"""Kiln's Hopper (sm_90a) kernels, written with Gluon's names: swapping the imports for
``triton.experimental.gluon``'s gives the same kernels in Gluon (bench/gluon_port.py does
exactly that for the benches; bench/gluon_hopper.py names the result).

* ``gemm_kernel``: C[M, N] = A[M, K] @ B[N, K]^T, bf16 in, fp32 accumulation, bf16 out: a
  STAGES-deep ring of TMA-filled A/B tiles in NVMMA-swizzled shared memory, one mbarrier per
  slot, asynchronous wgmma with one group in flight, a TMA-store epilogue.
* ``persistent_gemm_kernel``: the same GEMM on a grid of min(SM count, tiles) programs, each
  walking tiles pid, pid + num_programs, ... with its ring, barriers and C tile allocated
  once; the ring's slot and phase run on across tiles, and a tile's TMA store overlaps the
  next tile's main loop.
* ``tma_copy_kernel``: out = in, one block per program (TMA load, mbarrier wait, TMA store).

Host wrappers ``kiln_matmul`` / ``kiln_persistent_matmul`` / ``kiln_tma_copy`` and their
``*_launcher`` forms (descriptors built once) are what bench/hopper_gemm.py and
third_party/nvidia/test/gpu/test_hopper.py call.
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

__all__ = ["gemm_kernel", "persistent_gemm_kernel", "tma_copy_kernel", "kiln_matmul",
           "kiln_matmul_launcher", "kiln_persistent_matmul", "kiln_persistent_matmul_launcher",
           "kiln_tma_copy", "kiln_tma_copy_launcher", "gemm_descriptors"]


@kiln.jit
def _tile_offsets(tile, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
    """(off_m, off_n) of tile number ``tile``: GROUP_M consecutive row blocks share each column
    block (examples/hopper_ws.py has the same helper; each example stays one file)."""
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    tiles_per_group = GROUP_M * num_pid_n
    first_m = (tile // tiles_per_group) * GROUP_M
    group_rows = gl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % tiles_per_group) % group_rows
    pid_n = (tile % tiles_per_group) // group_rows
    return pid_m * BM, pid_n * BN


@kiln.jit
def gemm_kernel(a_desc, b_desc, c_desc, M, N, K,
                STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T for one [BM, BN] tile of C per program (1-D grid of
    cdiv(M, BM) * cdiv(N, BN) programs, GROUP_M row blocks walked together for L2 reuse).

    A tiles are [BM, BK] at (off_m, k); B tiles are [BN, BK] at (off_n, k) and feed wgmma
    through a transposed view. K need not be a multiple of BK and M, N need not be multiples
    of BM, BN: TMA zero-fills the loads past the tensor's edge and clips the store."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    dtype: gl.constexpr = a_desc.dtype

    off_m, off_n = _tile_offsets(gl.program_id(0), M, N, BM, BN, GROUP_M)

    # The ring: STAGES slots of A and B, one TMA barrier per slot.
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    num_k = gl.cdiv(K, BK)

    # Prologue: k-steps 0 .. STAGES-2 into slots 0 .. STAGES-2 (none past the last k-step, so
    # no copy is left in flight at the end).
    for s in gl.static_range(STAGES - 1):
        live = num_k > s
        mbarrier.expect(bars.index(s), step_bytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, s * BK], bars.index(s), a_bufs.index(s),
                                        pred=live)
        tma.async_copy_global_to_shared(b_desc, [off_n, s * BK], bars.index(s), b_bufs.index(s),
                                        pred=live)

    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)

    for i in range(num_k):
        slot = i % STAGES
        # The j-th fill of a slot (j = i // STAGES) completes the barrier's phase j.
        mbarrier.wait(bars.index(slot), (i // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot).permute((1, 0)), acc,
                            is_async=True)
        # At most this step's wgmma stays in flight: the one of step i-1 has finished reading
        # its slot, (i-1) % STAGES == (i+STAGES-1) % STAGES, which now takes step i+STAGES-1.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
        if num_warps > 4:
            # Each warpgroup's wait retires only its own wgmma: every warp passes its
            # wait before the slot is refilled (tile-check-async-safety says so).
            gl.thread_barrier()
        nxt = i + STAGES - 1
        live = nxt < num_k
        ns = nxt % STAGES
        mbarrier.expect(bars.index(ns), step_bytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK], bars.index(ns), a_bufs.index(ns),
                                        pred=live)
        tma.async_copy_global_to_shared(b_desc, [off_n, nxt * BK], bars.index(ns), b_bufs.index(ns),
                                        pred=live)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))

    # Epilogue: bf16 tile -> NVMMA shared buffer -> TMA store (clipped at the edges of C).
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@kiln.jit
def persistent_gemm_kernel(a_desc, b_desc, c_desc, M, N, K,
                           STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T, persistent: a 1-D grid of at most one program per SM, each walking the
    tiles pid, pid + num_programs, ... (in gemm_kernel's grouped order) with one A/B ring,
    one set of slot barriers and one C tile allocated once.

    A k-step counter carried across tiles picks the ring slot (count % STAGES) and the
    barrier phase ((count // STAGES) & 1), so the ring runs on from one tile into the next.
    A tile's TMA store is waited for only before the next tile's epilogue writes the C
    buffer, so it overlaps that tile's main loop. Edges as in gemm_kernel (TMA zero-fills
    the loads and clips the store)."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    dtype: gl.constexpr = a_desc.dtype

    num_tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    num_k = gl.cdiv(K, BK)

    # Allocated once per program: the ring, its barriers and the C tile.
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])

    # k-steps of this program's earlier tiles: its k-step i of the current tile is the
    # (count + i)-th fill of the ring, slot (count + i) % STAGES, phase ((count + i) // STAGES) & 1.
    count = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)

        # Prologue: k-steps 0 .. STAGES-2 (every wgmma of the previous tile has finished, so
        # all slots are free).
        for s in gl.static_range(STAGES - 1):
            live = num_k > s
            ps = (count + s) % STAGES
            mbarrier.expect(bars.index(ps), step_bytes, pred=live)
            tma.async_copy_global_to_shared(a_desc, [off_m, s * BK], bars.index(ps),
                                            a_bufs.index(ps), pred=live)
            tma.async_copy_global_to_shared(b_desc, [off_n, s * BK], bars.index(ps),
                                            b_bufs.index(ps), pred=live)

        acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
        for i in range(num_k):
            step = count + i
            slot = step % STAGES
            mbarrier.wait(bars.index(slot), (step // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot).permute((1, 0)), acc,
                                is_async=True)
            # The wgmma of step-1 has finished reading its slot, which now takes k-step
            # i+STAGES-1 of this tile (as in gemm_kernel).
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            if num_warps > 4:
                # Each warpgroup's wait retires only its own wgmma: every warp passes its
                # wait before the slot is refilled (tile-check-async-safety says so).
                gl.thread_barrier()
            nxt = i + STAGES - 1
            live = nxt < num_k
            ns = (count + nxt) % STAGES
            mbarrier.expect(bars.index(ns), step_bytes, pred=live)
            tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK], bars.index(ns),
                                            a_bufs.index(ns), pred=live)
            tma.async_copy_global_to_shared(b_desc, [off_n, nxt * BK], bars.index(ns),
                                            b_bufs.index(ns), pred=live)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        count += num_k

        # Epilogue: the previous tile's TMA store must have finished reading c_smem before
        # it is overwritten; that store ran under this tile's main loop.
        tma.store_wait(0)
        c_smem.store(acc.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)

    tma.store_wait(0)
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))


@kiln.jit
def tma_copy_kernel(in_desc, out_desc):
    """out = in, one [BR, BC] block per program on a 2-D grid (rows, columns): TMA load into
    shared memory, wait on the mbarrier, TMA store from the same buffer."""
    BR: gl.constexpr = in_desc.block_type.shape[0]
    BC: gl.constexpr = in_desc.block_type.shape[1]
    off_r = gl.program_id(0) * BR
    off_c = gl.program_id(1) * BC
    buf = gl.allocate_shared_memory(in_desc.dtype, [BR, BC], in_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [off_r, off_c], bar, buf)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    tma.async_copy_shared_to_global(out_desc, [off_r, off_c], buf)
    tma.store_wait(0)


# --- host wrappers ------------------------------------------------------------------------------


@kiln.jit
def gemm_kernel_tiled(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                      BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr,
                      num_warps: gl.constexpr):
    """gemm_kernel with its tile named: the descriptors' blocks must be [BM, BK], [BN, BK]
    and [BM, BN] (the autotuned GEMM's pre_hook sets them per config)."""
    gl.static_assert(a_desc.block_type.shape[0] == BM and a_desc.block_type.shape[1] == BK)
    gl.static_assert(b_desc.block_type.shape[0] == BN and c_desc.block_type.shape[1] == BN)
    gemm_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES, GROUP_M, num_warps)


def _set_tile_blocks(nargs):
    """A Config pre_hook (as Triton's TMA autotuning tutorials write it): each descriptor's
    block and NVMMA layout for this config's tile."""
    BM, BN, BK = nargs["BM"], nargs["BN"], nargs["BK"]
    for name, block in (("a_desc", [BM, BK]), ("b_desc", [BN, BK]), ("c_desc", [BM, BN])):
        desc = nargs[name]
        desc.block_shape = block
        desc.layout = gl.NVMMASharedLayout.get_default_for(block, desc.dtype)


# Tiles and ring depths kiln_matmul(..., tuned=True) chooses among, once per (M, N, K).
GEMM_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 3, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 64, "BN": 256, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
]
gemm_kernel_tuned = kiln.autotune(GEMM_CONFIGS, key=["M", "N", "K"])(gemm_kernel_tiled)


def _gl_dtype(torch_dtype):
    import torch
    table = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16, torch.float32: gl.float32}
    if torch_dtype not in table:
        raise TypeError(f"unsupported dtype {torch_dtype} (bf16, fp16 or fp32)")
    return table[torch_dtype]


def _descriptor(t, block):
    """A host TMA descriptor of the 2-D tensor t with [block] tiles in the default
    NVMMA-swizzled shared layout (zero padding out of bounds)."""
    layout = gl.NVMMASharedLayout.get_default_for(list(block), _gl_dtype(t.dtype))
    return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block), layout)


def _cdiv(a, b):
    return (a + b - 1) // b


def gemm_descriptors(a, b, c, BM, BN, BK):
    """(a_desc, b_desc, c_desc) for gemm_kernel: A [M, K] in [BM, BK] tiles, B [N, K] in
    [BN, BK] tiles, C [M, N] in [BM, BN] tiles."""
    return _descriptor(a, (BM, BK)), _descriptor(b, (BN, BK)), _descriptor(c, (BM, BN))


def _check_gemm(a, b, BM, BN, BK, STAGES, num_warps):
    import torch
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"expected A [M, K] and B [N, K], got {list(a.shape)} and {list(b.shape)}")
    if a.dtype != torch.bfloat16 or b.dtype != torch.bfloat16:
        raise TypeError(f"expected bf16 inputs, got {a.dtype} and {b.dtype}")
    if not (a.is_contiguous() and b.is_contiguous()):
        raise ValueError("A and B must be contiguous (TMA needs unit stride along K)")
    M, K = a.shape
    N = b.shape[0]
    if K % 8 or N % 8:
        raise ValueError(f"TMA needs 16-byte aligned row strides: K={K} and N={N} must be "
                         f"multiples of 8")
    if STAGES < 2:
        raise ValueError("STAGES must be at least 2")
    if num_warps % 4 or BM % (16 * num_warps) or BN > 256 or BN % 8:
        raise ValueError(f"wgmma tile: need num_warps % 4 == 0, BM % (16 * num_warps) == 0, "
                         f"BN <= 256, BN % 8 == 0; got BM={BM}, BN={BN}, num_warps={num_warps}")
    return M, N, K


def kiln_matmul_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8,
                          out=None):
    """(run, c) for C = a @ b.T: the descriptors and C [M, N] bf16 (``out`` if given) are made
    once; run() only launches gemm_kernel (and returns c). For timing the kernel without the
    host-side descriptor set-up of every call."""
    import torch
    M, N, K = _check_gemm(a, b, BM, BN, BK, STAGES, num_warps)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    a_desc, b_desc, c_desc = gemm_descriptors(a, b, c, BM, BN, BK)
    grid = (_cdiv(M, BM) * _cdiv(N, BN),)

    def run():
        gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K, STAGES=STAGES, GROUP_M=GROUP_M,
                          num_warps=num_warps)
        return c
    return run, c


def kiln_matmul(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8, out=None,
                tuned=False):
    """C = a @ b.T with gemm_kernel: a [M, K], b [N, K] bf16 contiguous CUDA tensors; returns
    C [M, N] bf16 (``out`` if given). Grid: cdiv(M, BM) * cdiv(N, BN) programs. With
    ``tuned=True`` the tile is kiln.autotune's pick among GEMM_CONFIGS (timed once per
    (M, N, K), remembered on disk; the tile arguments are then unused)."""
    if tuned:
        import torch
        M, N, K = _check_gemm(a, b, 128, 128, 64, 3, 4)
        c = out if out is not None else torch.empty((M, N), device=a.device,
                                                    dtype=torch.bfloat16)
        # Descriptors of any block: the config's pre_hook sets each one's block and layout.
        a_desc, b_desc, c_desc = gemm_descriptors(a, b, c, 128, 128, 64)
        gemm_kernel_tuned[lambda m: (_cdiv(M, m["BM"]) * _cdiv(N, m["BN"]),)](
            a_desc, b_desc, c_desc, M, N, K)
        return c
    run, _ = kiln_matmul_launcher(a, b, BM=BM, BN=BN, BK=BK, STAGES=STAGES,
                                   num_warps=num_warps, GROUP_M=GROUP_M, out=out)
    return run()


def _num_sms(device):
    import torch
    return torch.cuda.get_device_properties(device).multi_processor_count


def kiln_persistent_matmul_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8,
                                    GROUP_M=8, out=None):
    """(run, c) for C = a @ b.T with persistent_gemm_kernel: descriptors and C [M, N] bf16
    (``out`` if given) made once; run() only launches (and returns c). Grid: one program per
    SM, at most one per tile (min(SM count, cdiv(M, BM) * cdiv(N, BN)))."""
    import torch
    M, N, K = _check_gemm(a, b, BM, BN, BK, STAGES, num_warps)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    a_desc, b_desc, c_desc = gemm_descriptors(a, b, c, BM, BN, BK)
    grid = (min(_num_sms(a.device), _cdiv(M, BM) * _cdiv(N, BN)),)

    def run():
        persistent_gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K, STAGES=STAGES,
                                     GROUP_M=GROUP_M, num_warps=num_warps)
        return c
    return run, c


def kiln_persistent_matmul(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8,
                           out=None):
    """C = a @ b.T with persistent_gemm_kernel (arguments and result as kiln_matmul's)."""
    run, _ = kiln_persistent_matmul_launcher(a, b, BM=BM, BN=BN, BK=BK, STAGES=STAGES,
                                             num_warps=num_warps, GROUP_M=GROUP_M, out=out)
    return run()


def kiln_tma_copy_launcher(x, block=(64, 128), out=None, num_warps=4):
    """(run, y) for y = x (2-D contiguous bf16/fp16/fp32): descriptors and y (``out`` if
    given) made once; run() only launches tma_copy_kernel (and returns y)."""
    import torch
    if x.dim() != 2 or not x.is_contiguous():
        raise ValueError(f"expected a contiguous 2-D tensor, got shape {list(x.shape)}")
    if (x.shape[1] * x.element_size()) % 16:
        raise ValueError("TMA needs a 16-byte aligned row stride")
    y = out if out is not None else torch.empty_like(x)
    in_desc, out_desc = _descriptor(x, block), _descriptor(y, block)
    grid = (_cdiv(x.shape[0], block[0]), _cdiv(x.shape[1], block[1]))

    def run():
        tma_copy_kernel[grid](in_desc, out_desc, num_warps=num_warps)
        return y
    return run, y


def kiln_tma_copy(x, block=(64, 128), out=None, num_warps=4):
    """y = x (a copy of the 2-D contiguous tensor x, bf16/fp16/fp32) with tma_copy_kernel, one
    block per program; returns y (``out`` if given)."""
    run, _ = kiln_tma_copy_launcher(x, block=block, out=out, num_warps=num_warps)
    return run()
