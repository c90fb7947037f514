#!/usr/bin/env python3
"""A warp-specialized kernel on a cluster of 2 CTAs for compute-sanitizer, with the cluster
GEMM's cross-CTA pieces switched on and off: the loop of examples/cluster_gemm.py for one
256 x 128 tile (K = 256, two ring slots), a loader warp and a warpgroup of wgmma.

    python3 test/gpu/sanitizer_cluster.py --multicast 0 --release own   # no cross-CTA operation
    compute-sanitizer --tool racecheck python3 test/gpu/sanitizer_cluster.py --multicast 1 \\
        --release all                                                     # the GEMM's protocol

    compute-sanitizer --tool racecheck python3 test/gpu/sanitizer_cluster.py --example plain
                                                  # examples/cluster_gemm.py itself, 2 x 2 tiles

--multicast: B's tile copied once into both CTAs by TMA multicast (1), or loaded by each CTA
(0). --release: a consumed slot released in both CTAs (`cta_mask`, the barrier counting two
arrivals; "all") or in its own CTA only ("own"; only without multicast is that a correct
program). Checks C against torch and prints the largest error. Not a pytest file; needs an
sm_90a GPU and torch. docs/gpu-testing.md says what racecheck did with it.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)

import kiln  # noqa: E402
import kiln.language as gl  # noqa: E402
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma,  # noqa: E402
                                         warpgroup_mma, warpgroup_mma_wait)
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402

from examples.cluster_gemm import cluster_layouts  # noqa: E402


@kiln.jit
def _loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, K, STAGES: gl.constexpr,
            MULTICAST: gl.constexpr):
    BK: gl.constexpr = a_desc.block_type.shape[1]
    step_bytes: gl.constexpr = a_desc.nbytes_per_cta + b_desc.nbytes_per_cta
    num_k = gl.cdiv(K, BK)
    for i in range(num_k):
        s = i % STAGES
        mbarrier.wait(empty.index(s), ((i // STAGES) & 1) ^ 1)
        mbarrier.expect(ready.index(s), step_bytes)
        tma.async_load(a_desc, [0, i * BK], ready.index(s), a_bufs.index(s))
        tma.async_load(b_desc, [0, i * BK], ready.index(s), b_bufs.index(s),
                       multicast=MULTICAST)
    # Every slot's last release, as the cluster GEMM's tail: the other CTA's consumers may
    # still arrive on this CTA's barriers.
    for j in range(STAGES):
        n = num_k + j
        mbarrier.wait(empty.index(n % STAGES), ((n // STAGES) & 1) ^ 1)


@kiln.jit
def _mma(a_bufs, b_bufs, ready, empty, c_desc, c_smem, K, BK: gl.constexpr,
         STAGES: gl.constexpr, ACC: gl.constexpr, RELEASE_ALL: gl.constexpr):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    ALL: gl.constexpr = gl.num_ctas() - 1
    num_k = gl.cdiv(K, BK)
    acc = gl.zeros([BM, BN], dtype=gl.float32, layout=ACC)
    for i in range(num_k):
        s = i % STAGES
        mbarrier.wait(ready.index(s), (i // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc,
                            is_async=True)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        if RELEASE_ALL:
            mbarrier.arrive(empty.index(s), cta_mask=ALL)
        else:
            mbarrier.arrive(empty.index(s))
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)
    tma.store_wait(0)


@kiln.jit
def cluster_tile_kernel(a_desc, b_desc, c_desc, K, STAGES: gl.constexpr, ACC: gl.constexpr,
                        MULTICAST: gl.constexpr, RELEASE_ALL: gl.constexpr,
                        num_warps: gl.constexpr):
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
        mbarrier.init(empty.index(s), count=gl.num_ctas() if RELEASE_ALL else 1)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    gl.warp_specialize([
        (_mma, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, K, BK, STAGES, ACC,
                RELEASE_ALL)),
        (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, K, STAGES, MULTICAST)),
    ], [1], [24])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--multicast", type=int, choices=(0, 1), default=1)
    ap.add_argument("--release", choices=("all", "own"), default="all")
    ap.add_argument("--example", choices=("plain", "persistent"),
                    help="run examples/cluster_gemm.py's kernel instead (bf16, M = N = 512, "
                         "K = 512; persistent: on 2 clusters, so each walks several tiles)")
    args = ap.parse_args(argv)
    if args.example:
        return run_example(args.example == "persistent")
    if args.multicast and args.release == "own":
        ap.error("a multicast slot must be released in every CTA it lands in (--release all)")
    import torch
    torch.manual_seed(0)
    CM, BM, BN, BK, K = 2, 128, 128, 64, 256
    a = torch.randn(CM * BM, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(BN, K, device="cuda").to(torch.bfloat16)
    c = torch.zeros(CM * BM, BN, device="cuda", dtype=torch.bfloat16)
    la, lb, lc, acc = cluster_layouts(CM, BM, BN, BK, num_warps=4)
    a_desc = TensorDescriptor.from_tensor(a, [CM * BM, BK], la)
    b_desc = TensorDescriptor.from_tensor(b, [BN, BK], lb)
    c_desc = TensorDescriptor.from_tensor(c, [CM * BM, BN], lc)
    cluster_tile_kernel[(1,)](a_desc, b_desc, c_desc, K, 2, acc, bool(args.multicast),
                              args.release == "all", num_warps=4, num_ctas=CM)
    torch.cuda.synchronize()
    err = (c.float() - a.float() @ b.float().T).abs().max().item()
    print(f"multicast {args.multicast}, release {args.release}: max |C - ref| {err:.4f}")
    return 0 if err < 0.5 else 1


def run_example(persistent):
    import torch
    from examples.cluster_gemm import cluster_gemm_kernel
    torch.manual_seed(0)
    M = N = K = 512
    CM, BM, BN, BK = 2, 128, 256, 64
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    la, lb, lc, acc = cluster_layouts(CM, BM, BN, BK, num_warps=8)
    a_desc = TensorDescriptor.from_tensor(a, [CM * BM, BK], la)
    b_desc = TensorDescriptor.from_tensor(b, [BN, BK], lb)
    c_desc = TensorDescriptor.from_tensor(c, [CM * BM, BN], lc)
    tiles = (M // (CM * BM)) * (N // BN)
    grid = (2 if persistent else tiles,)
    cluster_gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K, 3, 8, persistent, acc,
                              num_warps=8, num_ctas=CM)
    torch.cuda.synchronize()
    err = (c.float() - a.float() @ b.float().T).abs().max().item()
    print(f"cluster_gemm example ({'persistent' if persistent else 'plain'}, {grid[0]} "
          f"clusters, {tiles} tiles): max |C - ref| {err:.4f}")
    return 0 if err < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
