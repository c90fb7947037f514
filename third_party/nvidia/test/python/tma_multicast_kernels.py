"""Kernels of the TMA multicast tests (DSL and GPU): a block copied into a cluster whose
layout repeats parts among its CTAs, and a GEMM whose operands are shared by TMA multicast.
Shared by test_tma_multicast_dsl.py and ../gpu/test_tma_multicast.py."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma, warpgroup_mma


def cga_layout(ctas_per_cga, split, order=(1, 0)):
    """Cluster bases for a 2-D block: the CTA rank's bits go along ``order`` (fastest
    dimension first); along dimension d the first log2(split[d]) bits split it, the rest of
    its log2(ctas_per_cga[d]) bits repeat the parts (zero bases)."""
    bases = []
    for d in order:
        for bit in range(ctas_per_cga[d].bit_length() - 1):
            vec = [0, 0]
            if bit < split[d].bit_length() - 1:
                vec[d] = 1 << bit
            bases.append(vec)
    return bases


@kiln.jit
def multicast_copy(in_desc, out_desc, MULTICAST: kl.constexpr):
    """out[block at 0, 0] = in[block at 0, 0], through each CTA's shared memory."""
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.nbytes_per_cta)
    tma.async_copy_global_to_shared(in_desc, [0, 0], bar, smem, multicast=MULTICAST)
    mbarrier.wait(bar, phase=0, deps=[smem])
    tma.async_copy_shared_to_global(out_desc, [0, 0], smem)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


@kiln.jit
def multicast_gemm(a_desc, b_desc, c_ptr, M, N, K, MULTICAST: kl.constexpr,
                   ACC: kl.constexpr, OUT: kl.constexpr):
    """C = A @ B (fp32), one cluster per (BM, BN) block of C: A's block split along M among
    the cluster's CTAs and repeated along N, B's the other way round, each repeated part
    loaded once for the CTAs that share it when MULTICAST."""
    BM: kl.constexpr = a_desc.block_shape[0]
    BK: kl.constexpr = a_desc.block_shape[1]
    BN: kl.constexpr = b_desc.block_shape[1]
    a_s = kl.allocate_shared_memory(a_desc.dtype, a_desc.block_shape, a_desc.layout)
    b_s = kl.allocate_shared_memory(b_desc.dtype, b_desc.block_shape, b_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    off_m = kl.program_id(0) * BM
    off_n = kl.program_id(1) * BN
    acc = kl.zeros([BM, BN], kl.float32, ACC)
    phase = 0
    for k in range(0, K, BK):
        mbarrier.expect(bar, a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
        tma.async_load(a_desc, [off_m, k], bar, a_s, multicast=MULTICAST)
        tma.async_load(b_desc, [k, off_n], bar, b_s, multicast=MULTICAST)
        mbarrier.wait(bar, phase)
        phase ^= 1
        acc = warpgroup_mma(a_s, b_s, acc)
        # Every CTA of the cluster is done reading the slots before any refills them.
        kl.barrier(cluster=True)
    mbarrier.invalidate(bar)
    out = kl.convert_layout(acc, OUT)
    rows = off_m + kl.arange(0, BM, kl.SliceLayout(1, OUT))
    cols = off_n + kl.arange(0, BN, kl.SliceLayout(0, OUT))
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], out,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def gemm_layouts(bits_m, bits_n, dtype=kl.float16, BK=64):
    """(BM, BN, A's, B's shared layouts, the accumulator's and the output's layouts) of a
    cluster of 2**bits_m x 2**bits_n CTAs, each computing a 64 x 64 part of C."""
    m = [[1 << i, 0] for i in range(bits_m)]
    n = [[0, 1 << i] for i in range(bits_n)]
    a_cga = m + [[0, 0]] * bits_n
    b_cga = [[0, 0]] * bits_m + n
    c_cga = m + n
    BM, BN = 64 << bits_m, 64 << bits_n
    la = kl.NVMMASharedLayout.get_default_for([BM, BK], dtype, cga_layout=a_cga)
    lb = kl.NVMMASharedLayout.get_default_for([BK, BN], dtype, cga_layout=b_cga)
    acc = kl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16], cga_layout=c_cga)
    out = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0], cga_layout=c_cga)
    return BM, BN, la, lb, acc, out
