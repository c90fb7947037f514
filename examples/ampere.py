"""Kiln's Ampere (sm_80+) tensor-core GEMM: ``mma_v2`` on operands staged by ``cp.async``,
written with Gluon's names (``triton.experimental.gluon`` -> ``kiln`` is the only change).

* ``mma_v2_gemm_kernel``: C[M, N] = A[M, K] @ B[K, N] (row-major, bf16 or fp16 in, fp32
  accumulation, C in C's dtype). A STAGES-deep ring of A and B tiles in swizzled shared memory
  filled by masked 16-byte ``cp.async`` copies (ragged edges read zeros), one commit group per
  k-step, ``wait_group(STAGES - 1)`` before a slot is read into the ``DotOperandLayout`` s of
  an ``NVMMADistributedLayout(version=[2, 0])`` accumulator, ``mma_v2`` (m16n8k16
  ``mma.sync``), a masked store. Kiln places the CTA barriers between the ring's reads and
  its refills.

``kiln_mma_v2_matmul`` is the host wrapper third_party/nvidia/test/gpu/test_ampere.py calls.
"""

from __future__ import annotations

import kiln
import kiln.language as gl
from kiln.language.nvidia.ampere import async_copy as cp
from kiln.language.nvidia.ampere import mma_v2

__all__ = ["mma_v2_gemm_kernel", "kiln_mma_v2_matmul"]


@kiln.jit
def mma_v2_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                       BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                       STAGES: gl.constexpr, WARPS_M: gl.constexpr, WARPS_N: gl.constexpr):
    NW: gl.constexpr = WARPS_M * WARPS_N
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[2, 0],
                                                  warps_per_cta=[WARPS_M, WARPS_N],
                                                  instr_shape=[16, 8])
    a_op: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=2)
    b_op: gl.constexpr = gl.DotOperandLayout(operand_index=1, parent=mma, k_width=2)
    # 8 elements (16 bytes) per thread and copy, rows of the tile across the warps.
    a_ld: gl.constexpr = gl.BlockedLayout([1, 8], [256 // BK, BK // 8], [NW, 1], [1, 0])
    b_ld: gl.constexpr = gl.BlockedLayout([1, 8], [256 // BN, BN // 8], [NW, 1], [1, 0])
    a_sl: gl.constexpr = gl.SwizzledSharedLayout(8, 1, BK // 8, [1, 0])
    b_sl: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 8, [1, 0])
    dtype: gl.constexpr = a_ptr.dtype.element_ty
    # K, N and the row strides are multiples of 8 elements (16 bytes; the host wrapper
    # checks). Written so, the alignment analysis sees it (rows start 16-byte aligned, masks
    # change only every 8 elements) and every copy moves 16 bytes.
    K = K // 8 * 8
    N = N // 8 * 8
    stride_am = stride_am // 8 * 8
    stride_bk = stride_bk // 8 * 8
    stride_cm = stride_cm // 8 * 8

    a_smem = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_sl)
    b_smem = gl.allocate_shared_memory(dtype, [STAGES, BK, BN], b_sl)
    rm = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, a_ld))
    ka = gl.arange(0, BK, gl.SliceLayout(0, a_ld))
    kb = gl.arange(0, BK, gl.SliceLayout(1, b_ld))
    rn = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, b_ld))
    num_k = gl.cdiv(K, BK)

    # Prologue: k-steps 0 .. STAGES-2 in flight, one commit group each.
    for s in gl.static_range(STAGES - 1):
        k0 = s * BK
        a_mask = (rm[:, None] < M) & (k0 + ka[None, :] < K)
        b_mask = (k0 + kb[:, None] < K) & (rn[None, :] < N)
        cp.async_copy_global_to_shared(
            a_smem.index(s), a_ptr + rm[:, None] * stride_am + (k0 + ka[None, :]), mask=a_mask)
        cp.async_copy_global_to_shared(
            b_smem.index(s), b_ptr + (k0 + kb[:, None]) * stride_bk + rn[None, :], mask=b_mask)
        cp.commit_group()

    acc = gl.zeros([BM, BN], gl.float32, mma)
    for k in range(num_k):
        # Refill the slot k-step k-1 was read from with k-step k+STAGES-1 (past the end the
        # masks are all false: the copy zero-fills, and every iteration commits one group).
        nxt = k + STAGES - 1
        k0 = nxt * BK
        a_mask = (rm[:, None] < M) & (k0 + ka[None, :] < K)
        b_mask = (k0 + kb[:, None] < K) & (rn[None, :] < N)
        cp.async_copy_global_to_shared(
            a_smem.index(nxt % STAGES), a_ptr + rm[:, None] * stride_am + (k0 + ka[None, :]),
            mask=a_mask)
        cp.async_copy_global_to_shared(
            b_smem.index(nxt % STAGES), b_ptr + (k0 + kb[:, None]) * stride_bk + rn[None, :],
            mask=b_mask)
        cp.commit_group()
        cp.wait_group(STAGES - 1)  # k-step k's group has landed
        a = a_smem.index(k % STAGES).load(a_op)
        b = b_smem.index(k % STAGES).load(b_op)
        acc = mma_v2(a, b, acc)
    cp.wait_group(0)

    rows = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, mma))
    cols = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, mma))
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    gl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
             acc.to(c_ptr.dtype.element_ty), mask=c_mask)


# Tiles, ring depths and warp grids kiln_mma_v2_matmul(..., tuned=True) chooses among, once
# per (M, N, K) (the pick is remembered on disk, next to the kernel cache).
MMA_V2_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 128, "BK": 32, "STAGES": 3, "WARPS_M": 2, "WARPS_N": 2},
                num_warps=4),
    kiln.Config({"BM": 128, "BN": 128, "BK": 32, "STAGES": 4, "WARPS_M": 2, "WARPS_N": 4},
                num_warps=8),
    kiln.Config({"BM": 128, "BN": 256, "BK": 32, "STAGES": 3, "WARPS_M": 2, "WARPS_N": 4},
                num_warps=8),
    kiln.Config({"BM": 64, "BN": 128, "BK": 64, "STAGES": 3, "WARPS_M": 2, "WARPS_N": 2},
                num_warps=4),
]
mma_v2_gemm_tuned = kiln.autotune(MMA_V2_CONFIGS, key=["M", "N", "K"])(mma_v2_gemm_kernel)


def kiln_mma_v2_matmul(a, b, BM=128, BN=128, BK=32, STAGES=3, WARPS_M=2, WARPS_N=2,
                       out=None, tuned=False):
    """a @ b for row-major torch tensors a [M, K] and b [K, N] (bf16 or fp16; rows 16-byte
    aligned), through mma_v2_gemm_kernel; the result in a's dtype. With ``tuned=True`` the
    tile is kiln.autotune's pick among MMA_V2_CONFIGS (the tile arguments are then
    unused)."""
    import torch

    M, K = a.shape
    K2, N = b.shape
    assert K == K2, (a.shape, b.shape)
    a, b = a.contiguous(), b.contiguous()
    if K % 8 or N % 8:
        raise ValueError(f"kiln_mma_v2_matmul: K and N must be multiples of 8 (16-byte rows "
                         f"for the 16-byte copies), got K={K}, N={N}")
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
    if tuple(c.shape) != (M, N) or c.stride(1) != 1 or c.stride(0) % 8:
        raise ValueError(f"kiln_mma_v2_matmul: out must be [{M}, {N}] with unit column stride "
                         f"and a row stride that is a multiple of 8, got shape "
                         f"{list(c.shape)} and strides {list(c.stride())}")
    if tuned:
        mma_v2_gemm_tuned[lambda m: (_cdiv(M, m["BM"]), _cdiv(N, m["BN"]))](
            a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
        return c
    grid = (_cdiv(M, BM), _cdiv(N, BN))
    mma_v2_gemm_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                             BM=BM, BN=BN, BK=BK, STAGES=STAGES, WARPS_M=WARPS_M,
                             WARPS_N=WARPS_N, num_warps=WARPS_M * WARPS_N)
    return c


def _cdiv(a, b):
    return (a + b - 1) // b
