"""A kernel that promotes each waited wgmma accumulator (acc += raw * scale, the scale a masked
load) before issuing the next wgmma, with an mbarrier wait in between -- the shape of
lmdeploy's blocked-FP8 GEMM -- keeps its wgmma pipelined: ptxas reports no serialization
(C7514 / C7515, "wgmma.mma_async instructions are serialized"). That happened when LLVM moved
the promotion below the next wgmma's issue (out of the mbarrier spin loop, or into the block
that uses it), leaving copies of accumulators of a wgmma in flight. The check is ptxas's own
report on Kiln's PTX."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_wait)

PTXAS = shutil.which("ptxas") or (shutil.which("/usr/local/cuda/bin/ptxas"))
BM, BN, BK = kl.constexpr(64), kl.constexpr(128), kl.constexpr(128)


@kiln.jit
def promoted(a_desc, b_desc, scales, out, M, NUM_K: kl.constexpr):
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                          instr_shape=[16, BN, 32])
    a_s = kl.allocate_shared_memory(a_desc.dtype, [2, BM, BK], a_desc.layout)
    b_s = kl.allocate_shared_memory(b_desc.dtype, [2, BN, BK], b_desc.layout)
    bars = kl.allocate_shared_memory(kl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    nbytes: kl.constexpr = (BM + BN) * BK
    mbarrier.expect(bars.index(0), nbytes)
    tma.async_copy_global_to_shared(a_desc, [0, 0], bars.index(0), a_s.index(0))
    tma.async_copy_global_to_shared(b_desc, [0, 0], bars.index(0), b_s.index(0))
    rows = kl.arange(0, BM, kl.SliceLayout(1, acc_layout))
    final = kl.zeros([BM, BN], kl.float32, acc_layout)
    raw = kl.zeros([BM, BN], kl.float32, acc_layout)
    scale = kl.load(scales + rows, mask=rows < M, other=1.0)
    mbarrier.wait(bars.index(0), 0)
    raw = warpgroup_mma(a_s.index(0), b_s.index(0).permute((1, 0)), raw, is_async=True,
                        use_acc=False)
    next_scale = kl.load(scales + M + rows, mask=rows < M, other=1.0)
    for k in range(1, NUM_K):
        s = k % 2
        mbarrier.expect(bars.index(s), nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, k * BK], bars.index(s), a_s.index(s))
        tma.async_copy_global_to_shared(b_desc, [0, k * BK], bars.index(s), b_s.index(s))
        mbarrier.wait(bars.index(s), (k // 2) & 1)
        raw = warpgroup_mma_wait(num_outstanding=0, deps=(raw, ))
        final += raw * scale[:, None]
        raw = kl.zeros([BM, BN], kl.float32, acc_layout)
        raw = warpgroup_mma(a_s.index(s), b_s.index(s).permute((1, 0)), raw, is_async=True,
                            use_acc=False)
        # The next block's scale, loaded while this wgmma runs (a masked load: a branch).
        scale = next_scale
        next_scale = kl.load(scales + (k + 1) * M + rows, mask=(rows < M) & (k + 1 < NUM_K),
                             other=1.0)
    raw = warpgroup_mma_wait(num_outstanding=0, deps=(raw, ))
    final += raw * scale[:, None]
    cols = kl.arange(0, BN, kl.SliceLayout(0, acc_layout))
    kl.store(out + rows[:, None] * BN + cols[None, :], final)


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas (CUDA toolkit) to read its report")
def test_promotion_keeps_wgmma_pipelined(tmp_path):
    t = kl.tensor_descriptor_type
    bm, bn, bk = BM.value, BN.value, BK.value
    a = kl.NVMMASharedLayout.get_default_for([bm, bk], kl.float8e4nv)
    b = kl.NVMMASharedLayout.get_default_for([bn, bk], kl.float8e4nv)
    k = promoted.warmup(t(kl.float8e4nv, [bm, bk], a), t(kl.float8e4nv, [bn, bk], b),
                        "*fp32", "*fp32", "i32", NUM_K=8, num_warps=4, grid=(1,),
                        target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    assert ptx.count("wgmma.mma_async") == 8  # 2 issues, 4 K steps of 32 each
    path = tmp_path / "promoted.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(path), "-o", str(tmp_path / "p.cubin")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    report = r.stdout + r.stderr
    assert "serialized" not in report, report
    assert "0 bytes spill stores" in report, report
