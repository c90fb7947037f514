"""Kernels written the simple way -- plain loads in a ``range(..., num_stages=N)`` loop -- that
Kiln's pipeliner turns into asynchronous-copy rings (``tile-pipeline-*`` passes).

* ``mma_v2_gemm_kernel``: examples/ampere.py's GEMM (C = A @ B, fp16/bf16, mma_v2) with plain
  masked ``gl.load``s into ``allocate_shared_memory(value=...)``; the pipeliner makes the
  STAGES-slot cp.async ring ampere.py builds by hand.
* ``wgmma_gemm_kernel``: C = A @ B^T on sm_90a with plain loads into NVMMA-swizzled buffers
  read by ``warpgroup_mma`` (cp.async ring; the wgmma runs before the next copies are issued).
* ``tma_gemm_kernel``: C = A @ B^T on sm_90a written with one TMA buffer per operand and one
  mbarrier (expect, two TMA copies, wait, wgmma); NVIDIA's tile-nv-pipeline-tma makes the
  STAGES-slot TMA ring with one barrier per slot that examples/hopper.py builds by hand.
* ``row_sum_kernel``: out[r] = sum(x[r, :]), a streaming reduction whose loads are used in
  registers: the pipeliner stages them through shared memory in their own layout.

With ``num_stages=1`` (or 0) each loop is left as written, so the results of every
``num_stages`` can be compared bit for bit (test/gpu/test_pipeline.py, bench/pipeline.py).
"""

from __future__ import annotations

import kiln
import kiln.language as gl
from kiln.language.nvidia.ampere import mma_v2
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma, warpgroup_mma

__all__ = ["mma_v2_gemm_kernel", "wgmma_gemm_kernel", "tma_gemm_kernel", "row_sum_kernel",
           "mma_v2_matmul", "wgmma_matmul", "tma_matmul", "row_sum", "WGMMA_CONFIGS",
           "MMA_V2_CONFIGS", "wgmma_gemm_tuned", "mma_v2_gemm_tuned"]


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
    a_ld: gl.constexpr = gl.BlockedLayout([1, 8], [256 // BK, BK // 8], [NW, 1], [1, 0])
    b_ld: gl.constexpr = gl.BlockedLayout([1, 8], [256 // BN, BN // 8], [NW, 1], [1, 0])
    a_sl: gl.constexpr = gl.SwizzledSharedLayout(8, 1, BK // 8, [1, 0])
    b_sl: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 8, [1, 0])
    dtype: gl.constexpr = a_ptr.dtype.element_ty
    # As in ampere.py: sizes and strides are multiples of 8 elements, so every copy moves 16 B.
    K = K // 8 * 8
    N = N // 8 * 8
    stride_am = stride_am // 8 * 8
    stride_bk = stride_bk // 8 * 8
    stride_cm = stride_cm // 8 * 8
    rm = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, a_ld))
    ka = gl.arange(0, BK, gl.SliceLayout(0, a_ld))
    kb = gl.arange(0, BK, gl.SliceLayout(1, b_ld))
    rn = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, b_ld))
    acc = gl.zeros([BM, BN], gl.float32, mma)
    for k0 in gl.range(0, K, BK, num_stages=STAGES):
        a_mask = (rm[:, None] < M) & (k0 + ka[None, :] < K)
        b_mask = (k0 + kb[:, None] < K) & (rn[None, :] < N)
        a = gl.load(a_ptr + rm[:, None] * stride_am + (k0 + ka[None, :]), mask=a_mask, other=0.0)
        b = gl.load(b_ptr + (k0 + kb[:, None]) * stride_bk + rn[None, :], mask=b_mask, other=0.0)
        a_s = gl.allocate_shared_memory(dtype, [BM, BK], a_sl, value=a)
        b_s = gl.allocate_shared_memory(dtype, [BK, BN], b_sl, value=b)
        acc = mma_v2(a_s.load(a_op), b_s.load(b_op), acc)

    rows = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, mma))
    cols = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, mma))
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    gl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :],
             acc.to(c_ptr.dtype.element_ty), mask=c_mask)


@kiln.jit
def wgmma_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                      BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                      STAGES: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T, A [M, K] and B [N, K] row-major (K and C's row stride multiples of 8)."""
    acc_l: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                    instr_shape=[16, BN, 16])
    a_ld: gl.constexpr = gl.BlockedLayout([1, 8], [32 // (BK // 8), BK // 8], [num_warps, 1],
                                          [1, 0])
    dtype: gl.constexpr = a_ptr.dtype.element_ty
    a_sl: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BK], dtype)
    b_sl: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, BK], dtype)
    K = K // 8 * 8
    stride_am = stride_am // 8 * 8
    stride_bn = stride_bn // 8 * 8
    stride_cm = stride_cm // 8 * 8
    rm = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, a_ld))
    rn = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(1, a_ld))
    kk = gl.arange(0, BK, gl.SliceLayout(0, a_ld))
    acc = gl.zeros([BM, BN], gl.float32, acc_l)
    for k0 in gl.range(0, K, BK, num_stages=STAGES):
        k_ok = k0 + kk[None, :] < K
        a = gl.load(a_ptr + rm[:, None] * stride_am + (k0 + kk[None, :]),
                    mask=(rm[:, None] < M) & k_ok, other=0.0)
        b = gl.load(b_ptr + rn[:, None] * stride_bn + (k0 + kk[None, :]),
                    mask=(rn[:, None] < N) & k_ok, other=0.0)
        a_s = gl.allocate_shared_memory(dtype, [BM, BK], a_sl, value=a)
        b_s = gl.allocate_shared_memory(dtype, [BN, BK], b_sl, value=b)
        fence_async_shared()  # the stores above, seen by wgmma (async proxy), as in Gluon
        acc = warpgroup_mma(a_s, b_s.permute((1, 0)), acc)

    # C leaves through shared memory (stmatrix in, 16-byte rows out: the ring's space is
    # free again), so each thread stores 16 bytes at a time instead of the accumulator
    # layout's scattered 4-byte pairs.
    c_l: gl.constexpr = gl.BlockedLayout([1, 8], [32 // (BN // 8), BN // 8], [num_warps, 1],
                                         [1, 0])
    c_s = gl.allocate_shared_memory(dtype, [BM, BN],
                                    gl.NVMMASharedLayout.get_default_for([BM, BN], dtype),
                                    value=acc.to(c_ptr.dtype.element_ty))
    c = c_s.load(c_l)
    rows = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, c_l))
    cols = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, c_l))
    gl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], c,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@kiln.jit
def _tile_offsets(tile, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
    """(off_m, off_n) of tile number ``tile``, GROUP_M row blocks walked together (the same
    order as examples/hopper.py, so the two GEMMs compare)."""
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    tiles_per_group = GROUP_M * num_pid_n
    first_m = (tile // tiles_per_group) * GROUP_M
    group_rows = gl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % tiles_per_group) % group_rows
    pid_n = (tile % tiles_per_group) // group_rows
    return pid_m * BM, pid_n * BN


@kiln.jit
def tma_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr,
                    GROUP_M: gl.constexpr, num_warps: gl.constexpr, B_KN: gl.constexpr = False):
    """C = A @ B^T, A [M, K], B [N, K], C [M, N] through TMA descriptors (zero-filled loads and
    clipped stores at the edges): examples/hopper.py's gemm_kernel written the simple way,
    one buffer per operand and one mbarrier; the pipeliner makes the ring. With ``B_KN``,
    C = A @ B for B [K, N] row-major, read N-contiguous by the wgmma (examples/hopper_kn.py's
    matmul_kn_kernel written the simple way)."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1] if B_KN else b_desc.block_type.shape[0]
    acc_l: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                    instr_shape=[16, BN, 16])
    off_m, off_n = _tile_offsets(gl.program_id(0), M, N, BM, BN, GROUP_M)
    a_s = gl.allocate_shared_memory(a_desc.dtype, [BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    acc = gl.zeros([BM, BN], gl.float32, acc_l)
    phase = 0
    for k in gl.range(0, K, BK, num_stages=STAGES):
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k], bar, a_s)
        if B_KN:
            tma.async_copy_global_to_shared(b_desc, [k, off_n], bar, b_s)
        else:
            tma.async_copy_global_to_shared(b_desc, [off_n, k], bar, b_s)
        mbarrier.wait(bar, phase)
        phase ^= 1
        if B_KN:
            acc = warpgroup_mma(a_s, b_s, acc)
        else:
            acc = warpgroup_mma(a_s, b_s.permute((1, 0)), acc)
    mbarrier.invalidate(bar)
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_s.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_s)
    tma.store_wait(0)


@kiln.jit
def row_sum_kernel(x_ptr, out_ptr, R, C, stride_r, BR: gl.constexpr, BC: gl.constexpr,
                   STAGES: gl.constexpr, num_warps: gl.constexpr, WARP: gl.constexpr = 32,
                   VEC: gl.constexpr = 4):
    """out[r] = sum over c of x[r, c] (fp32), BR rows per program, BC columns per step
    (WARP: threads per warp, 64 on AMD CDNA; VEC: elements per thread and access, 1 for
    gfx942's 4-byte direct-to-LDS copies)."""
    lanes_c: gl.constexpr = min(WARP, BC // VEC)
    layout: gl.constexpr = gl.BlockedLayout([1, VEC], [WARP // lanes_c, lanes_c],
                                            [num_warps, 1], [1, 0])
    C = C // VEC * VEC
    stride_r = stride_r // VEC * VEC
    rows = gl.program_id(0) * BR + gl.arange(0, BR, gl.SliceLayout(1, layout))
    cols = gl.arange(0, BC, gl.SliceLayout(0, layout))
    acc = gl.zeros([BR, BC], gl.float32, layout)
    for c0 in gl.range(0, C, BC, num_stages=STAGES):
        mask = (rows[:, None] < R) & (c0 + cols[None, :] < C)
        acc += gl.load(x_ptr + rows[:, None] * stride_r + (c0 + cols[None, :]), mask=mask,
                       other=0.0)
    gl.store(out_ptr + rows, gl.sum(acc, axis=1), mask=rows < R)


def _cdiv(a, b):
    return (a + b - 1) // b


# Tiles and ring depths for tuned=True: kiln.autotune times these once per (M, N, K) and
# remembers the fastest (on disk too, next to the kernel cache, so a new process does not
# time them again).
WGMMA_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 128, "BK": 64, "STAGES": 4}, num_warps=4),
    kiln.Config({"BM": 128, "BN": 256, "BK": 64, "STAGES": 3}, num_warps=8),
    kiln.Config({"BM": 128, "BN": 64, "BK": 64, "STAGES": 4}, num_warps=4),
    kiln.Config({"BM": 64, "BN": 128, "BK": 64, "STAGES": 4}, num_warps=4),
]
MMA_V2_CONFIGS = [
    kiln.Config({"BM": 128, "BN": 128, "BK": 32, "STAGES": 3, "WARPS_M": 2, "WARPS_N": 2},
                num_warps=4),
    kiln.Config({"BM": 128, "BN": 128, "BK": 32, "STAGES": 4, "WARPS_M": 2, "WARPS_N": 4},
                num_warps=8),
    kiln.Config({"BM": 64, "BN": 128, "BK": 32, "STAGES": 4, "WARPS_M": 2, "WARPS_N": 2},
                num_warps=4),
    kiln.Config({"BM": 128, "BN": 64, "BK": 64, "STAGES": 3, "WARPS_M": 2, "WARPS_N": 2},
                num_warps=4),
]
wgmma_gemm_tuned = kiln.autotune(WGMMA_CONFIGS, key=["M", "N", "K"])(wgmma_gemm_kernel)
mma_v2_gemm_tuned = kiln.autotune(MMA_V2_CONFIGS, key=["M", "N", "K"])(mma_v2_gemm_kernel)


def mma_v2_matmul(a, b, BM=128, BN=128, BK=32, STAGES=3, WARPS_M=2, WARPS_N=2, out=None,
                  tuned=False):
    """a @ b (row-major fp16/bf16, K and N multiples of 8) through mma_v2_gemm_kernel; with
    ``tuned=True`` the tile is kiln.autotune's pick among MMA_V2_CONFIGS (the tile arguments
    are then unused)."""
    import torch
    M, K = a.shape
    _, N = b.shape
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
    if tuned:
        mma_v2_gemm_tuned[lambda m: (_cdiv(M, m["BM"]), _cdiv(N, m["BN"]))](
            a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
        return c
    mma_v2_gemm_kernel[(_cdiv(M, BM), _cdiv(N, BN))](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
        STAGES=STAGES, WARPS_M=WARPS_M, WARPS_N=WARPS_N, num_warps=WARPS_M * WARPS_N)
    return c


def wgmma_matmul(a, b, BM=128, BN=128, BK=64, STAGES=4, num_warps=4, out=None, tuned=False):
    """a @ b.T (a [M, K], b [N, K], row-major bf16/fp16; K, the row strides and C's row stride
    multiples of 8: the kernel assumes 16-byte rows); with ``tuned=True`` the tile is
    kiln.autotune's pick among WGMMA_CONFIGS (the tile arguments are then unused)."""
    import torch
    M, K = a.shape
    N, _ = b.shape
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
    if K % 8 or a.stride(0) % 8 or b.stride(0) % 8 or c.stride(0) % 8 or \
            1 not in (a.stride(1), K) or 1 not in (b.stride(1), K) or c.stride(1) != 1:
        raise ValueError("wgmma_matmul: row-major operands whose K and row strides are "
                         f"multiples of 8, got K={K}, strides {a.stride()}, {b.stride()}, "
                         f"{c.stride()}")
    if tuned:
        wgmma_gemm_tuned[lambda m: (_cdiv(M, m["BM"]), _cdiv(N, m["BN"]))](
            a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
        return c
    wgmma_gemm_kernel[(_cdiv(M, BM), _cdiv(N, BN))](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
        STAGES=STAGES, num_warps=num_warps)
    return c


def tma_matmul(a, b, BM=128, BN=128, BK=64, STAGES=4, num_warps=4, GROUP_M=8, out=None,
               b_kn=False):
    """a @ b.T (a [M, K], b [N, K], row-major bf16/fp16, rows 16-byte aligned) through
    tma_gemm_kernel; a 1-D grid of cdiv(M, BM) * cdiv(N, BN) programs. With ``b_kn``,
    a @ b for b [K, N] row-major."""
    import torch
    from kiln.nvidia.hopper import TensorDescriptor
    M, K = a.shape
    N = b.shape[1] if b_kn else b.shape[0]
    dt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[a.dtype]
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)

    def desc(t, block):
        return TensorDescriptor.from_tensor(
            t, block, gl.NVMMASharedLayout.get_default_for(list(block), dt))
    tma_gemm_kernel[(_cdiv(M, BM) * _cdiv(N, BN),)](
        desc(a, [BM, BK]), desc(b, [BK, BN] if b_kn else [BN, BK]), desc(c, [BM, BN]), M, N, K,
        STAGES=STAGES, GROUP_M=GROUP_M, num_warps=num_warps, B_KN=b_kn)
    return c


def row_sum(x, BR=16, BC=256, STAGES=3, num_warps=4, out=None):
    """x.sum(1) for a row-major fp32 x whose columns are a multiple of 4."""
    import torch
    R, C = x.shape
    out = out if out is not None else torch.empty((R,), device=x.device, dtype=torch.float32)
    row_sum_kernel[(_cdiv(R, BR),)](x, out, R, C, x.stride(0), BR=BR, BC=BC, STAGES=STAGES,
                                    num_warps=num_warps)
    return out
