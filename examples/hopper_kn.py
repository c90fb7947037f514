"""The textbook Gluon GEMM: C = A @ B with A [M, K] and B [K, N] both row-major -- the
layouts ``torch.matmul(a, b)`` hands you -- written as a Gluon user writes it (grouped tile
order with Python's ``min``, a TMA + mbarrier ring, asynchronous wgmma reading B
N-contiguous). Swapping the imports for ``triton.experimental.gluon``'s gives the same kernel
in Gluon.

``kiln_matmul_kn(a, b)`` is the host wrapper (``tuned=True``: kiln.autotune picks the tile
among KN_CONFIGS); examples/hopper.py's ``gemm_kernel`` is the same GEMM with B given
transposed ([N, K]).
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

__all__ = ["matmul_kn_kernel", "kiln_matmul_kn", "kiln_matmul_kn_launcher", "KN_CONFIGS",
           "matmul_kn_tuned"]


@kiln.jit
def matmul_kn_kernel(a_desc, b_desc, c_desc, M, N, K,
                     STAGES: gl.constexpr, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    dtype: gl.constexpr = a_desc.dtype

    # Grouped tile order: GROUP_M row blocks share each column block (L2 reuse).
    pid = gl.program_id(0)
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BM
    off_n = pid_n * BN

    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BK, BN], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    step_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    num_k = gl.cdiv(K, BK)

    for s in gl.static_range(STAGES - 1):
        live = num_k > s
        mbarrier.expect(bars.index(s), step_bytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, s * BK], bars.index(s), a_bufs.index(s),
                                        pred=live)
        tma.async_copy_global_to_shared(b_desc, [s * BK, off_n], bars.index(s), b_bufs.index(s),
                                        pred=live)

    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0],
                                                         warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
    for i in range(num_k):
        slot = i % STAGES
        mbarrier.wait(bars.index(slot), (i // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot), acc, is_async=True)
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
        if num_warps > 4:
            # Each warpgroup's wait retires only its own wgmma: every warp passes its
            # wait before the slot is refilled (tile-check-async-safety says so).
            gl.thread_barrier()
        nxt = i + STAGES - 1
        live = nxt < num_k
        ns = nxt % STAGES
        mbarrier.expect(bars.index(ns), step_bytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK], bars.index(ns),
                                        a_bufs.index(ns), pred=live)
        tma.async_copy_global_to_shared(b_desc, [nxt * BK, off_n], bars.index(ns),
                                        b_bufs.index(ns), pred=live)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))

    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@kiln.jit
def matmul_kn_kernel_tiled(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr,
                           BN: gl.constexpr, BK: gl.constexpr, STAGES: gl.constexpr,
                           GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """matmul_kn_kernel with its tile named: the descriptors' blocks must be [BM, BK],
    [BK, BN] and [BM, BN] (the autotuned GEMM's pre_hook sets them per config)."""
    gl.static_assert(a_desc.block_type.shape[0] == BM and a_desc.block_type.shape[1] == BK)
    gl.static_assert(b_desc.block_type.shape[0] == BK and b_desc.block_type.shape[1] == BN)
    gl.static_assert(c_desc.block_type.shape[0] == BM and c_desc.block_type.shape[1] == BN)
    matmul_kn_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES, GROUP_M, num_warps)


def _set_tile_blocks(nargs):
    """A Config pre_hook: each descriptor's block and NVMMA layout for this config's tile."""
    BM, BN, BK = nargs["BM"], nargs["BN"], nargs["BK"]
    for name, block in (("a_desc", [BM, BK]), ("b_desc", [BK, BN]), ("c_desc", [BM, BN])):
        desc = nargs[name]
        desc.block_shape = block
        desc.layout = gl.NVMMASharedLayout.get_default_for(block, desc.dtype)


# Tiles and ring depths kiln_matmul_kn(..., tuned=True) chooses among, once per (M, N, K)
# and dtype.
KN_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 3, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=8,
                pre_hook=_set_tile_blocks),
    kiln.Config({"BM": 64, "BN": 256, "BK": 64, "STAGES": 4, "GROUP_M": 8}, num_warps=4,
                pre_hook=_set_tile_blocks),
]
matmul_kn_tuned = kiln.autotune(KN_CONFIGS, key=["M", "N", "K"])(matmul_kn_kernel_tiled)


def _descriptor(t, block):
    import torch
    dtype = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[t.dtype]
    layout = gl.NVMMASharedLayout.get_default_for(list(block), dtype)
    return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block), layout)


def _check_kn(a, b):
    M, K = a.shape
    K2, N = b.shape
    if K != K2 or a.dtype != b.dtype or not (a.is_contiguous() and b.is_contiguous()):
        raise ValueError(f"kiln_matmul_kn: a [M, K] and b [K, N] contiguous of one dtype, got "
                         f"{tuple(a.shape)} {a.dtype} and {tuple(b.shape)} {b.dtype}")
    return M, N, K


def kiln_matmul_kn_launcher(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8, GROUP_M=8,
                            out=None):
    """(run, c) for C = a @ b with a [M, K] and b [K, N] row-major bf16/fp16 CUDA tensors:
    descriptors made once, run() only launches."""
    import torch
    M, N, K = _check_kn(a, b)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
    descs = (_descriptor(a, (BM, BK)), _descriptor(b, (BK, BN)), _descriptor(c, (BM, BN)))
    grid = (((M + BM - 1) // BM) * ((N + BN - 1) // BN),)

    def run():
        matmul_kn_kernel[grid](*descs, M, N, K, STAGES=STAGES, GROUP_M=GROUP_M,
                               num_warps=num_warps)
        return c
    return run, c


def kiln_matmul_kn(a, b, tuned=False, **kwargs):
    """C = a @ b (a [M, K], b [K, N], both row-major). With ``tuned=True`` the tile is
    kiln.autotune's pick among KN_CONFIGS (timed once per (M, N, K), remembered on disk;
    tile arguments are then not taken)."""
    if tuned:
        import torch
        M, N, K = _check_kn(a, b)
        unknown = set(kwargs) - {"out"}
        if unknown:
            raise TypeError(f"kiln_matmul_kn(tuned=True) picks the tile itself; got "
                            f"{sorted(unknown)}")
        out = kwargs.get("out")
        c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
        # Descriptors of any block: the config's pre_hook sets each one's block and layout.
        descs = (_descriptor(a, (128, 64)), _descriptor(b, (64, 128)), _descriptor(c, (128, 128)))
        matmul_kn_tuned[lambda m: (((M + m["BM"] - 1) // m["BM"]) *
                                   ((N + m["BN"] - 1) // m["BN"]),)](*descs, M, N, K)
        return c
    run, _ = kiln_matmul_kn_launcher(a, b, **kwargs)
    return run()
