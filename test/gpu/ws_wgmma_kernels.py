"""A warp-specialized kernel whose wgmma runs in a *worker* partition, shared by
test/gpu/test_ws_wgmma_placement.py (runs it) and test/Python/test_ws_placement_dsl.py (compiles
it for cuda:sm_90a without a GPU).

``ws_wgmma_kernel`` splits the CTA with ``kl.warp_specialize``: the default partition (the
kernel's ``num_warps`` warps) and every worker but one only write a tag; the one worker of 4
warps loads an A [BM, BK] and a B [BN, BK] tile from global memory into NVMMA-swizzled shared
memory, fences, and computes C = A @ B^T with ``warpgroup_mma`` (fp32 accumulator), storing C
to global memory. wgmma needs its 4 warps to be one aligned warpgroup (warps 4k..4k+3); the
worker configurations below (with num_warps 4 or 2) used to put the wgmma worker off a
warpgroup boundary (and hang the GPU) when partitions were laid out in order.

Tags: partition p (0 the default, k + 1 the k-th worker, the wgmma worker included) writes
``p * 1000 + t`` to ``tags[p * SLOT + t]`` for each of its threads t (its index inside the
partition, 0 .. 32 * warps - 1); the rest of the slot is left alone. So every thread of every
partition is seen to run, with its own partition's warp count.

Run as a script it launches one configuration and checks it (the GPU test runs it in a child
process with a timeout, so a hang fails the test instead of blocking the suite):

    python3 test/gpu/ws_wgmma_kernels.py --num-warps 4 --workers 2,4 --shape 64x128x64:bf16
"""

from __future__ import annotations

import argparse
import sys

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import fence_async_shared, warpgroup_mma, warpgroup_mma_wait

# Threads' room per partition in ``tags`` (a partition here has at most 4 warps).
SLOT = 128
# setmaxnreg counts: the wgmma worker keeps a BM x BN fp32 accumulator; taggers need little.
MMA_REGS = 160
TAG_REGS = 24

# (worker_num_warps, index of the wgmma worker among the workers). With num_warps=4, laying
# the workers out in order put the wgmma worker at warps 6-9 ([2, 4]) or 5-8 ([1, 4]), or
# 7-10 ([2, 1, 4]); with num_warps=2 at warps 2-5 ([4]) or 3-6 ([1, 4]). Workers placed
# largest first, each at a multiple of min(its warps, 4), give it warps 4-7 in every
# configuration.
CONFIGS = {
    "4": ((4,), 0),
    "2,4": ((2, 4), 1),
    "4,2": ((4, 2), 0),
    "1,4": ((1, 4), 1),
    "2,1,4": ((2, 1, 4), 2),
}


def worker_config(workers):
    """(worker_num_warps tuple, wgmma worker index) for a list like [2, 4]."""
    key = ",".join(str(w) for w in workers)
    if key not in CONFIGS:
        raise ValueError(f"no configuration for workers {key}; known: {', '.join(CONFIGS)}")
    return CONFIGS[key]


@kiln.jit
def _tag_partition(tags, TAG: kl.constexpr, SLOT: kl.constexpr):
    """Each thread t of this partition writes TAG * 1000 + t to tags[TAG * SLOT + t]."""
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    t = kl.arange(0, 32 * kl.num_warps(), layout)
    kl.store(tags + TAG * SLOT + t, TAG * 1000 + t)


@kiln.jit
def _wgmma_partition(a, b, c, tags, a_smem, b_smem, TAG: kl.constexpr, SLOT: kl.constexpr,
                     BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr):
    """C[BM, BN] (fp32) = A[BM, BK] @ B[BN, BK]^T on this partition's warpgroup: global loads
    into the swizzled buffers, a fence, one wgmma, its wait, and a store of the accumulator."""
    load_layout: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [kl.num_warps(), 1], [1, 0])
    k = kl.arange(0, BK, kl.SliceLayout(0, load_layout))
    am = kl.arange(0, BM, kl.SliceLayout(1, load_layout))
    bn = kl.arange(0, BN, kl.SliceLayout(1, load_layout))
    a_smem.store(kl.load(a + am[:, None] * BK + k[None, :]))
    b_smem.store(kl.load(b + bn[:, None] * BK + k[None, :]))
    # The generic-proxy stores must be visible to wgmma's (async proxy) reads.
    fence_async_shared()

    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[kl.num_warps(), 1], instr_shape=[16, BN, 16])
    acc = kl.zeros([BM, BN], kl.float32, acc_layout)
    acc = warpgroup_mma(a_smem, b_smem.permute((1, 0)), acc, is_async=True)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))

    rows = kl.arange(0, BM, kl.SliceLayout(1, acc_layout))
    cols = kl.arange(0, BN, kl.SliceLayout(0, acc_layout))
    kl.store(c + rows[:, None] * BN + cols[None, :], acc)
    _tag_partition(tags, TAG, SLOT)


@kiln.jit
def ws_wgmma_kernel(a, b, c, tags, A_LAYOUT: kl.constexpr, B_LAYOUT: kl.constexpr,
                    BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
                    WORKERS: kl.constexpr, MMA_AT: kl.constexpr, MMA_REGS: kl.constexpr,
                    TAG_REGS: kl.constexpr, SLOT: kl.constexpr):
    """One program: c = a @ b^T on the wgmma worker (worker MMA_AT of WORKERS warps each);
    the default partition and the other workers write their tags."""
    a_smem = kl.allocate_shared_memory(a.dtype.element_ty, [BM, BK], A_LAYOUT)
    b_smem = kl.allocate_shared_memory(b.dtype.element_ty, [BN, BK], B_LAYOUT)
    default = (_tag_partition, (tags, 0, SLOT))
    if len(WORKERS) == 1:
        kl.warp_specialize([
            default,
            (_wgmma_partition, (a, b, c, tags, a_smem, b_smem, 1, SLOT, BM, BN, BK)),
        ], WORKERS, [MMA_REGS])
    elif len(WORKERS) == 2 and MMA_AT == 0:
        kl.warp_specialize([
            default,
            (_wgmma_partition, (a, b, c, tags, a_smem, b_smem, 1, SLOT, BM, BN, BK)),
            (_tag_partition, (tags, 2, SLOT)),
        ], WORKERS, [MMA_REGS, TAG_REGS])
    elif len(WORKERS) == 2:
        kl.warp_specialize([
            default,
            (_tag_partition, (tags, 1, SLOT)),
            (_wgmma_partition, (a, b, c, tags, a_smem, b_smem, 2, SLOT, BM, BN, BK)),
        ], WORKERS, [TAG_REGS, MMA_REGS])
    else:
        kl.static_assert(len(WORKERS) == 3 and MMA_AT == 2, "configuration not written out")
        kl.warp_specialize([
            default,
            (_tag_partition, (tags, 1, SLOT)),
            (_tag_partition, (tags, 2, SLOT)),
            (_wgmma_partition, (a, b, c, tags, a_smem, b_smem, 3, SLOT, BM, BN, BK)),
        ], WORKERS, [TAG_REGS, TAG_REGS, MMA_REGS])


def constexprs(workers, m, n, k, dtype_name="bf16"):
    """The kernel's compile-time arguments for ``workers`` and an M x N x K problem (one
    tile: BM, BN, BK = M, N, K)."""
    warps, mma_at = worker_config(workers)
    dtype = {"bf16": kl.bfloat16, "fp16": kl.float16}[dtype_name]
    return dict(A_LAYOUT=kl.NVMMASharedLayout.get_default_for([m, k], dtype),
                B_LAYOUT=kl.NVMMASharedLayout.get_default_for([n, k], dtype),
                BM=m, BN=n, BK=k, WORKERS=warps, MMA_AT=mma_at, MMA_REGS=MMA_REGS,
                TAG_REGS=TAG_REGS, SLOT=SLOT)


def signature(dtype_name="bf16"):
    return {"a": f"*{dtype_name}", "b": f"*{dtype_name}", "c": "*fp32", "tags": "*i32"}


def expected_tags(workers, num_warps=4):
    """What ``tags`` holds after a run on a buffer poisoned with -1."""
    import torch
    warps, mma_at = worker_config(workers)
    want = torch.full(((1 + len(warps)) * SLOT,), -1, dtype=torch.int32)
    for p, nw in enumerate((num_warps,) + tuple(warps)):
        want[p * SLOT:p * SLOT + 32 * nw] = p * 1000 + torch.arange(32 * nw, dtype=torch.int32)
    return want


def run_and_check(workers, m, n, k, dtype_name="bf16", num_warps=4, rounds=2):
    """Launches the kernel ``rounds`` times on fresh random inputs and poisoned outputs and
    checks C against torch.matmul and every partition's tags. Raises AssertionError."""
    import torch
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype_name]
    warps, _ = worker_config(workers)
    want_tags = expected_tags(workers, num_warps).cuda()
    for _ in range(rounds):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(n, k, device="cuda", dtype=dtype)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        tags = torch.full(((1 + len(warps)) * SLOT,), -1, device="cuda", dtype=torch.int32)
        ws_wgmma_kernel[(1,)](a, b, c, tags, **constexprs(workers, m, n, k, dtype_name),
                              num_warps=num_warps)
        torch.cuda.synchronize()
        assert torch.equal(tags, want_tags), \
            f"partition tags differ:\n{tags.cpu().tolist()}\nwant\n{want_tags.cpu().tolist()}"
        ref = torch.matmul(a.float(), b.float().T)
        assert not torch.isnan(c).any(), "C has unwritten (NaN) elements"
        # bf16/fp16 products are exact in fp32; only the summation order differs.
        torch.testing.assert_close(c, ref, rtol=1e-4, atol=1e-4 * k ** 0.5)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-warps", type=int, default=4, help="the default partition's")
    parser.add_argument("--workers", required=True, help="worker_num_warps, e.g. 2,4")
    parser.add_argument("--shape", action="append",
                        help="MxNxK:dtype (dtype bf16 or fp16), repeatable; default "
                             "64x128x64:bf16")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")]
    for shape in args.shape or ["64x128x64:bf16"]:
        dims, dtype = shape.split(":")
        m, n, k = (int(d) for d in dims.split("x"))
        what = f"num_warps {args.num_warps}, workers {args.workers}, {dims} {dtype}"
        try:
            run_and_check(workers, m, n, k, dtype, args.num_warps, args.rounds)
        except AssertionError as e:
            raise AssertionError(f"{what}: {e}") from e
        print(f"ok: {what}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
