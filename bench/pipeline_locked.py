#!/usr/bin/env python3
"""Automatic pipelining at locked clocks: bench/pipeline.py's GEMM comparisons (the pipeliner's
kernel vs its hand-pipelined twin vs Triton 3.6's ``tl.dot`` matmul, same tiles and
num_stages) timed by Nsight Compute with the GPU's clocks locked at base
(``--clock-control base``), where free-running clocks and other tenants move bench/pipeline.py's
numbers by several % between runs.

    python3 bench/pipeline_locked.py [--sizes 4096,8192] [--stages 3,4] [--reps 3] [--procs 1]
                                     [--groups tma_nk,tma_kn,mma_v2,ptr_nk]

Each side runs in a child process (this file with ``--child``): it makes the inputs, checks
one result against torch, then launches ``reps`` more times inside an NVTX range "timed"; the
median of those launches is reported in TFLOP/s, with auto/hand and auto/triton. With
``--procs P`` every side runs in P processes, interleaved (all sides once, then again), and
the median over them is reported: a kernel's time moves by a few % from one process to the
next even at locked clocks (where its buffers land). Sides:
the wgmma TMA form (examples/pipelined.py's tma_gemm_kernel, B [N, K] and B [K, N]) against
examples/hopper.py / hopper_kn.py, the mma_v2 cp.async ring against examples/ampere.py, and
the pointer-load wgmma kernel (a cp.async ring) against hopper.py's TMA ring and Triton.
Needs the GPU machine: torch, triton 3.6 and ncu.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..")]

# (group, side) -> (kernel filter for ncu, B layout)
SIDES = {
    ("tma_nk", "auto"): ("regex:^tma_gemm_kernel$", "nk"),
    ("tma_nk", "hand"): ("regex:^gemm_kernel$", "nk"),
    ("tma_nk", "triton"): ("regex:^kernel$", "nk"),
    ("tma_kn", "auto"): ("regex:^tma_gemm_kernel$", "kn"),
    ("tma_kn", "hand"): ("regex:^matmul_kn_kernel$", "kn"),
    ("tma_kn", "triton"): ("regex:^kernel$", "kn"),
    ("ptr_nk", "auto"): ("regex:^wgmma_gemm_kernel$", "nk"),
    ("ptr_nk", "hand"): ("regex:^gemm_kernel$", "nk"),
    ("ptr_nk", "triton"): ("regex:^kernel$", "nk"),
    ("mma_v2", "auto"): ("regex:^mma_v2_gemm_kernel$", "kn"),
    ("mma_v2", "hand"): ("regex:^mma_v2_gemm_kernel$", "kn"),
}
TITLES = {"tma_nk": "wgmma TMA form, B [N, K] (128x128x64, 4 warps)",
          "tma_kn": "wgmma TMA form, B [K, N]", "mma_v2": "mma_v2 + cp.async (128x128x32)",
          "ptr_nk": "wgmma, pointer loads (cp.async ring; hand: the TMA ring)"}


def launcher(group, side, stages):
    from examples import ampere, hopper, hopper_kn, pipelined
    from pipeline import triton_matmul
    wg = dict(BM=128, BN=128, BK=64, STAGES=stages, num_warps=4)
    if group == "mma_v2":
        cfg = dict(BM=128, BN=128, BK=32, STAGES=stages, WARPS_M=2, WARPS_N=2)
        fn = pipelined.mma_v2_matmul if side == "auto" else ampere.kiln_mma_v2_matmul
        return lambda a, b, c: fn(a, b, out=c, **cfg)
    kn = group == "tma_kn"
    if group == "ptr_nk" and side == "auto":
        return lambda a, b, c: pipelined.wgmma_matmul(a, b, out=c, **wg)
    if side == "auto":
        return lambda a, b, c: pipelined.tma_matmul(a, b, out=c, b_kn=kn, **wg)
    if side == "hand":
        fn = hopper_kn.kiln_matmul_kn if kn else hopper.kiln_matmul
        return lambda a, b, c: fn(a, b, out=c, **wg)
    return triton_matmul(128, 128, 64, stages, 4, not kn)


def child(group, side, n, stages, reps):
    import torch
    a = torch.randn(n, n, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, n, device="cuda").to(torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    run = launcher(group, side, stages)
    run(a, b, c)
    torch.cuda.synchronize()
    ref = a.float() @ (b.float() if SIDES[group, side][1] == "kn" else b.float().T)
    err = ((c.float() - ref).norm() / ref.norm()).item()
    if not err < 2e-2:
        sys.exit(f"{group} {side} s{stages} at {n}: relative error {err:.3g}")
    torch.cuda.nvtx.range_push("timed")  # ncu times only the launches in this range
    for _ in range(reps):
        run(a, b, c)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=5, metavar=("GROUP", "SIDE", "N", "STAGES", "REPS"))
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--stages", default="3,4")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--groups", default=",".join(TITLES),
                    help="which comparisons (default all: " + ",".join(TITLES) + ")")
    args = ap.parse_args(argv)
    if args.child:
        group, side, n, stages, reps = args.child
        return child(group, side, int(n), int(stages), int(reps))
    groups = [g for g in args.groups.split(",") if g]
    for group in groups:
        if group not in TITLES:
            sys.exit(f"unknown group {group!r}: one of {', '.join(TITLES)}")
    from timing import ncu_locked_ns
    print("| shape | kernel | stages | auto | hand | triton | auto/hand | auto/triton |")
    print("|---|---|---|---|---|---|---|---|")
    for n in [int(s) for s in args.sizes.split(",")]:
        for stages in [int(s) for s in args.stages.split(",")]:
            for group in groups:
                runs = {}
                for _ in range(args.procs):
                    for (g, side), (kernel, _) in SIDES.items():
                        if g != group:
                            continue
                        cmd = [sys.executable, os.path.abspath(__file__), "--child", group,
                               side, str(n), str(stages), str(args.reps)]
                        try:
                            ns = statistics.median(ncu_locked_ns(cmd, kernel))
                            runs.setdefault(side, []).append(2 * n ** 3 / ns / 1e3)
                        except RuntimeError as e:
                            print(f"  {group} {side} s{stages} {n}: {e}")
                tflops = {k: statistics.median(v) for k, v in runs.items()}
                if args.procs > 1:
                    print("  " + ", ".join(f"{k}: " + " ".join(f"{x:.1f}" for x in v)
                                           for k, v in runs.items()))
                cell = lambda k: f"{tflops[k]:.1f}" if k in tflops else ""  # noqa: E731
                ratio = lambda k: (f"{tflops['auto'] / tflops[k]:.3f}"  # noqa: E731
                                   if "auto" in tflops and k in tflops else "")
                print(f"| {n}³ | {TITLES[group]} | {stages} | {cell('auto')} | {cell('hand')} | "
                      f"{cell('triton')} | {ratio('hand')} | {ratio('triton')} |", flush=True)


if __name__ == "__main__":
    main()
