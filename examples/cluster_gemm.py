"""A Hopper (sm_90a) GEMM on thread-block clusters, written with Gluon's names: the
warp-specialized GEMM of examples/hopper_ws.py, where the CLUSTER_M CTAs of a cluster that
compute the row blocks of one column block share its B tiles through TMA multicast.

* ``cluster_gemm_kernel``: C[M, N] = A[M, K] @ B[N, K]^T, bf16 in, fp32 accumulation, bf16 out,
  one [CLUSTER_M * BM, BN] tile per cluster (``num_ctas=CLUSTER_M``): A's block is split along
  M among the cluster's CTAs (``cga_layout`` [[1, 0]]) and so is C's; B's block is the same
  for all of them (a zero basis), so each k-step's B tile is copied once, by the CTA of rank
  0, into every CTA's ring (``tma.async_load(..., multicast=True)``), halving B's traffic
  from L2.
* The ring: each CTA has its own ``ready`` and ``empty`` barriers per slot. ``ready`` expects
  the bytes its CTA receives (its part of A and the whole B tile). The slot's B tile is
  written by another CTA, so a slot is free only once every CTA of the cluster has read it:
  each consumer arrives on ``empty`` in every CTA of the cluster (``mbarrier.arrive(...,
  cta_mask=...)``), whose barriers count CLUSTER_M arrivals a phase.
* No CTA leaves while another may still arrive on its barriers: each loader ends by
  waiting for the last STAGES releases too (a cluster barrier cannot follow
  ``warp_specialize``: its worker warps would never reach it).
* ``PERSISTENT=True``: min(SM count / CLUSTER_M, tiles) clusters walk the tiles, as
  examples/hopper_ws.py's persistent form.
* fp8: A and B in float8e4nv (both K-major, as wgmma reads 8-bit operands), per-tensor scales
  ``a_scale`` and ``b_scale`` (fp32 scalars on the device, as ``torch._scaled_mm`` takes them)
  applied to the fp32 accumulator in the epilogue, bf16 out; BK = 128 (128-byte rows).

The loader and consumer repeat examples/hopper_ws.py's with the cluster's changes
(per-CTA bytes, ``multicast=``, ``cta_mask=``, the loader's tail) rather than adding them
there: hopper_ws.py stays a Gluon 3.6 kernel, which bench/hopper_ws_gemm.py runs in Gluon by
swapping imports, and Gluon 3.6 has none of those.

``kiln_cluster_matmul(a, b_t)`` is the host wrapper (bench/cluster_gemm.py times it against
cuBLAS and examples/hopper_ws.py's kernels).
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

# A program's tiles and their offsets, as in the GEMM without clusters (a program is a
# cluster here, its tile the cluster's: CLUSTER_M * BM rows).
from examples.hopper_ws import _tile_offsets, _tile_range

__all__ = ["cluster_gemm_kernel", "kiln_cluster_matmul", "kiln_cluster_matmul_launcher",
           "cluster_layouts"]


@kiln.jit
def _loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, STAGES: gl.constexpr,
            GROUP_M: gl.constexpr, PERSISTENT: gl.constexpr):
    """The loader warp of each CTA: wait until its slot is free in every CTA of the cluster,
    arm the slot's ready barrier with the bytes this CTA receives, load this CTA's part of A
    and (rank 0, for all) the B tile."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    step_bytes: gl.constexpr = a_desc.nbytes_per_cta + b_desc.nbytes_per_cta
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, PERSISTENT)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            mbarrier.wait(empty.index(s), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), step_bytes)
            tma.async_load(a_desc, [off_m, i * BK], ready.index(s), a_bufs.index(s))
            tma.async_load(b_desc, [off_n, i * BK], ready.index(s), b_bufs.index(s),
                           multicast=True)
        count += num_k
    # The tail: wait for the last STAGES releases too. Every CTA's consumers arrive on this
    # CTA's barriers, so this CTA must not leave before they have (nor before its multicast
    # copies, which they waited for, have landed).
    for j in range(STAGES):
        n = count + j
        mbarrier.wait(empty.index(n % STAGES), ((n // STAGES) & 1) ^ 1)


@kiln.jit
def _mma(a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K, a_scale, b_scale,
         BK: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr,
         PERSISTENT: gl.constexpr, ACC: gl.constexpr):
    """The kernel's warps: wgmma on each slot, releasing the previous step's slot in every CTA
    of the cluster once its wgmma has finished; then the TMA-store epilogue of this CTA's
    part of C."""
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    ALL: gl.constexpr = gl.num_ctas() - 1  # every rank bit: all CTAs of the cluster
    num_k = gl.cdiv(K, BK)
    first, end, step = _tile_range(M, N, BM, BN, PERSISTENT)
    if a_scale is not None:
        scale = gl.load(a_scale) * gl.load(b_scale)
    count = 0
    for tile in range(first, end, step):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        acc = gl.zeros([BM, BN], dtype=gl.float32, layout=ACC)
        for i in range(num_k):
            n = count + i
            s = n % STAGES
            mbarrier.wait(ready.index(s), (n // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                                is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
            mbarrier.arrive(empty.index((n + STAGES - 1) % STAGES), pred=i > 0, cta_mask=ALL)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        mbarrier.arrive(empty.index((count + num_k + STAGES - 1) % STAGES), pred=num_k > 0,
                        cta_mask=ALL)
        count += num_k
        if a_scale is not None:
            acc = acc * scale
        tma.store_wait(0)
        c_smem.store(acc.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@kiln.jit
def cluster_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr,
                        GROUP_M: gl.constexpr, PERSISTENT: gl.constexpr, ACC: gl.constexpr,
                        num_warps: gl.constexpr, a_scale=None, b_scale=None):
    """C = A @ B^T, one cluster tile per program (a program is a cluster: launch with
    ``num_ctas`` = the CTAs that the layouts' ``cga_layout`` splits A's block among); with
    ``a_scale`` and ``b_scale`` (pointers to fp32 scalars), C = a_scale * b_scale * A @ B^T."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    dtype: gl.constexpr = a_desc.dtype
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], b_desc.layout)
    ready = mbarrier.allocate_mbarrier(batch=STAGES)
    empty = mbarrier.allocate_mbarrier(batch=STAGES)
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        # One arrival a phase from each CTA's consumers.
        mbarrier.init(empty.index(s), count=gl.num_ctas())
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    gl.warp_specialize([
        (_mma, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K, a_scale, b_scale, BK,
                STAGES, GROUP_M, PERSISTENT, ACC)),
        (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, STAGES, GROUP_M,
                   PERSISTENT)),
    ], [1], [24])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


def cluster_layouts(cluster_m, BM, BN, BK, dtype=gl.bfloat16, num_warps=8,
                    out_dtype=gl.bfloat16):
    """(A's, B's, C's shared layouts, the accumulator's layout) of a cluster of ``cluster_m``
    CTAs along M, each computing a [BM, BN] part; A and B in ``dtype``, C in ``out_dtype``."""
    bits = cluster_m.bit_length() - 1
    split = [[1 << i, 0] for i in range(bits)]
    same = [[0, 0]] * bits
    la = gl.NVMMASharedLayout.get_default_for([cluster_m * BM, BK], dtype, cga_layout=split)
    lb = gl.NVMMASharedLayout.get_default_for([BN, BK], dtype, cga_layout=same)
    lc = gl.NVMMASharedLayout.get_default_for([cluster_m * BM, BN], out_dtype,
                                              cga_layout=split)
    k = 32 if dtype.primitive_bitwidth == 8 else 16  # wgmma's K per instruction
    acc = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                    instr_shape=[16, BN, k], cga_layout=split)
    return la, lb, lc, acc


def kiln_cluster_matmul_launcher(a, b_t, out=None, BM=128, BN=256, BK=None, STAGES=3,
                                 GROUP_M=8, CLUSTER_M=2, num_warps=8, persistent=False,
                                 a_scale=None, b_scale=None):
    """(run, c) for c = a @ b_t.T with 2-D bf16 CUDA tensors a [M, K], b_t [N, K] (torch's
    layout), on clusters of CLUSTER_M CTAs along M each computing a [BM, BN] part:
    descriptors and c made once, run() only launches. fp8 (float8_e4m3fn) a and b_t take
    ``a_scale`` and ``b_scale`` (one-element fp32 CUDA tensors) and give a bf16 c =
    a_scale * b_scale * a @ b_t.T, as ``torch._scaled_mm(a, b_t.T, a_scale, b_scale,
    out_dtype=torch.bfloat16)``. BK defaults to 128-byte rows (64 for bf16, 128 for fp8)."""
    import torch
    M, K = a.shape
    N = b_t.shape[0]
    fp8 = a.dtype == torch.float8_e4m3fn
    if fp8 != (a_scale is not None) or (a_scale is None) != (b_scale is None):
        raise ValueError("fp8 operands take a_scale and b_scale; bf16 operands take neither")
    dtype = gl.float8e4nv if fp8 else gl.bfloat16
    BK = BK or (128 if fp8 else 64)
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    la, lb, lc, acc = cluster_layouts(CLUSTER_M, BM, BN, BK, dtype=dtype, num_warps=num_warps)
    a_desc = TensorDescriptor.from_tensor(a, [CLUSTER_M * BM, BK], la)
    b_desc = TensorDescriptor.from_tensor(b_t, [BN, BK], lb)
    c_desc = TensorDescriptor.from_tensor(c, [CLUSTER_M * BM, BN], lc)
    tiles = -(-M // (CLUSTER_M * BM)) * -(-N // BN)
    if persistent:
        sms = torch.cuda.get_device_properties(a.device).multi_processor_count
        grid = (min(sms // CLUSTER_M, tiles),)
    else:
        grid = (tiles,)

    def run():
        cluster_gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K, STAGES, GROUP_M, persistent,
                                  acc, num_warps=num_warps, num_ctas=CLUSTER_M,
                                  a_scale=a_scale, b_scale=b_scale)
        return c
    return run, c


def kiln_cluster_matmul(a, b_t, out=None, **kw):
    """c = a @ b_t.T (see kiln_cluster_matmul_launcher for the options)."""
    return kiln_cluster_matmul_launcher(a, b_t, out, **kw)[0]()
