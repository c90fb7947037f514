"""The kernels Kiln exists for, compiled without a GPU by ``examples/compile_all.py``
(README's main job): the cp.async ring of Gluon's async-copy tutorial (NVIDIA), the TMA +
mbarrier + wgmma GEMM (sm_90a), and the AMD direct-to-LDS ring (gfx942, gfx950). For each,
what the compiler made of the asynchrony: the async instructions, the waits it computed
(``cp.async.wait_group N``, ``wgmma.wait_group N``, ``s_waitcnt vmcnt(N)``) and, on AMD, the
verdict of the independent vmcnt simulator over the final assembly
(third_party/amd/tools/amdgcn_waits.py)."""

from __future__ import annotations

import os
import re
import sys

import kiln
import kiln.language as kl

import hopper
import kernels as K

SH = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
SH1 = kl.SwizzledSharedLayout(1, 1, 1, [0])


def _ring(target):
    layout = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    p = "*fp16:16"
    return kiln.compile(K.ring_add, {"a": p, "b": p, "c": p, "M": "i32", "N": "i32:16",
                                     "ROWS": "i32:16"},
                        dict(BM=32, BN=64, NBUF=3, CL=layout, LL=layout, SH=SH),
                        target=target, num_warps=4)


def _gemm(target):
    nv = kl.NVMMASharedLayout.get_default_for([128, 64], kl.bfloat16)
    nv256 = kl.NVMMASharedLayout.get_default_for([128, 256], kl.bfloat16)
    t = kl.tensor_descriptor_type
    return hopper.gemm_kernel.warmup(t(kl.bfloat16, [128, 64], nv),
                                     t(kl.bfloat16, [256, 64], nv),
                                     t(kl.bfloat16, [128, 256], nv256), 4096, 4096, 4096,
                                     STAGES=3, GROUP_M=8, num_warps=8, grid=(1,), target=target)


def _amd_ring(target):
    spt = 4 if target == "hip:gfx950" else 1
    return kiln.compile(K.amd_stream_ring, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                        dict(BLOCK=1024, NBUF=3, L=kl.BlockedLayout([spt], [64], [4], [0]),
                             SH=SH1, BUFFER_COPY=True, RELAXED=False, STORE=False),
                        target=target, num_warps=4)


# name -> (targets, compile)
ASYNC_KERNELS = {
    "cp_async_ring": (("cuda:sm_80", "cuda:sm_90a"), _ring),
    "tma_wgmma_gemm": (("cuda:sm_90a",), _gemm),
    "amd_lds_ring": (("hip:gfx942", "hip:gfx950"), _amd_ring),
}

_ASYNC = [("cp.async", r"\bcp\.async\.(?:ca|cg)\.shared\.global"),
          ("tma load", r"cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global"),
          ("tma store", r"cp\.async\.bulk\.tensor\.\dd\.global\.shared::cta"),
          ("wgmma", r"\bwgmma\.mma_async"),
          ("lds dma", r"(?:buffer_load_dword\w*\b[^\n]*\blds\b|global_load_lds_dword\w*)")]
_WAITS = [r"cp\.async\.wait_group\s+\d+", r"wgmma\.wait_group\.sync\.aligned\s+\d+",
          r"cp\.async\.bulk\.wait_group(?:\.read)?\s+\d+", r"s_waitcnt vmcnt\(\d+\)"]


def summarize(kernel):
    """(async instructions, distinct waits, checker verdict) of a compiled kernel."""
    asm = kernel.asm.get("ptx") or kernel.asm.get("amdgcn") or ""
    counts = [f"{n} {name}" for name, rx in _ASYNC if (n := len(re.findall(rx, asm)))]
    waits = []
    for rx in _WAITS:
        for w in re.findall(rx, asm):
            w = re.sub(r"\s+", " ", re.sub(r"\.sync\.aligned", "", w))
            if w not in waits:
                waits.append(w)
    verdict = "async-safety: ok"  # tile-check-async-safety passed, or it would not compile
    if "amdgcn" in kernel.asm:
        # The AMD backend's vmcnt checker (a developer tool beside the backend).
        tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "third_party",
                             "amd", "tools")
        if tools not in sys.path:
            sys.path.insert(0, tools)
        import amdgcn_waits
        reports = amdgcn_waits.check(kernel.asm["amdgcn"])
        bad = sum(len(r.violations) for r in reports)
        verdict += ("; vmcnt check: ok" if reports and not bad
                    else f"; vmcnt check: {bad} violation(s)")
    return ", ".join(counts) or "-", ", ".join(waits) or "-", verdict


def compile_async(targets, out=None):
    """Rows (kernel, target, async instructions, waits, checker) and failures; with ``out``,
    each kernel's stages are written to ``out/<target>/<kernel>``."""
    rows, failures = [], []
    for name, (kinds, build) in ASYNC_KERNELS.items():
        for target in kinds:
            if target not in targets:
                continue
            try:
                kernel = build(target)
                if out:
                    kernel.write_stages(os.path.join(out, target.replace(":", "_"), name))
                rows.append((name, target, *summarize(kernel)))
            except Exception as e:  # report every failure, then go on
                failures.append((name, target, e))
                rows.append((name, target, "FAILED", "-", "-"))
    return rows, failures
