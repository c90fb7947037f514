"""bf16 GEMM on thread-block clusters (examples/cluster_gemm.py: B tiles shared by TMA
multicast) against cuBLAS, examples/hopper_ws.py's warp-specialized kernels and
examples/streamk_gemm.py's persistent kernel with its last tiles split along K and
examples/fitted_gemm.py's with tiles as wide as fill whole waves, same run:
TFLOP/s per side, the median of interleaved rounds, and each Kiln side's per-round ratio to
cuBLAS. Run on a GPU machine:

    python3 bench/cluster_gemm.py [--sizes 2048,4096,8192,3000x5000x4000] [--rounds 7]
    python3 bench/cluster_gemm.py --configs "BN=128,STAGES=5;CLUSTER_M=4,persistent=1"
    python3 bench/cluster_gemm.py --sides cublas,kiln-wsp,kiln-streamk
    python3 bench/cluster_gemm.py --sides kiln-fitted --fitted-tiles 256x152,128x200

``--configs`` adds one side per config (``;``-separated, each ``key=value`` pairs of
kiln_cluster_matmul_launcher's options), timed in the same rounds.

``--fp8``: e4m3 operands with per-tensor fp32 scales, bf16 out, against
``torch._scaled_mm`` (cuBLASLt) with ``use_fast_accum=True`` (``scaled_mm``: the hardware's
accumulation over all of K, as the Kiln kernel's) and ``False`` (``scaled_mm_precise``);
ratios are to ``scaled_mm``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from examples import cluster_gemm, fitted_gemm, hopper_ws, streamk_gemm  # noqa: E402
from timing import gemm_sides, interleaved_tflops  # noqa: E402


def _shape(text):
    dims = [int(x) for x in text.split("x")]
    return dims * 3 if len(dims) == 1 else dims


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2048,4096,8192,3000x5000x4000")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--configs", default="",
                    help="more cluster sides: ';'-separated key=value lists (BM, BN, BK, "
                         "STAGES, GROUP_M, CLUSTER_M, num_warps, persistent)")
    ap.add_argument("--sides", default="",
                    help="comma-separated bf16 sides to time (default: all); cublas is the base")
    ap.add_argument("--fitted-tiles", default="",
                    help="more examples/fitted_gemm.py sides: comma-separated BMxBN tiles")
    ap.add_argument("--fp8", action="store_true",
                    help="e4m3 operands with per-tensor scales, against torch._scaled_mm")
    args = ap.parse_args(argv)
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}")
    if args.fp8:
        return _fp8(args)
    makers = {
        "cublas": lambda a, b, c: (lambda: torch.matmul(a, b.T, out=c)),
        "kiln-ws": lambda a, b, c: hopper_ws.kiln_ws_matmul_launcher(a, b, out=c)[0],
        "kiln-wsp": lambda a, b, c: hopper_ws.kiln_ws_persistent_matmul_launcher(a, b, out=c)[0],
        "kiln-cluster": lambda a, b, c: cluster_gemm.kiln_cluster_matmul_launcher(
            a, b, c, STAGES=args.stages)[0],
        "kiln-clusterp": lambda a, b, c: cluster_gemm.kiln_cluster_matmul_launcher(
            a, b, c, STAGES=args.stages, persistent=True)[0],
        "kiln-streamk": lambda a, b, c: streamk_gemm.kiln_streamk_matmul_launcher(
            a, b, out=c, STAGES=args.stages)[0],
        "kiln-fitted": lambda a, b, c: fitted_gemm.kiln_fitted_matmul_launcher(a, b, out=c)[0],
    }
    if args.sides:
        keep = set(args.sides.split(",")) | {"cublas"}
        makers = {n: m for n, m in makers.items() if n in keep}
    for cfg in filter(None, (c.strip() for c in args.configs.split(";"))):
        kw = {k.strip(): int(v) for k, v in (kv.split("=") for kv in cfg.split(","))}
        if "persistent" in kw:
            kw["persistent"] = bool(kw["persistent"])
        makers[f"cluster[{cfg}]"] = (lambda kw: lambda a, b, c: cluster_gemm.
                                     kiln_cluster_matmul_launcher(a, b, c, **kw)[0])(kw)
    for tile in filter(None, args.fitted_tiles.split(",")):
        bm, bn = (int(x) for x in tile.split("x"))
        makers[f"fitted[{tile}]"] = (lambda bm, bn: lambda a, b, c: fitted_gemm.
                                     kiln_fitted_matmul_launcher(a, b, BM=bm, BN=bn,
                                                                 out=c)[0])(bm, bn)
    for text in args.sizes.split(","):
        M, N, K = _shape(text)
        a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
        b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
        runs = gemm_sides(makers, a, b, text)
        tflops = interleaved_tflops(runs, 2 * M * N * K, args.rounds)
        med = {s: statistics.median(v) for s, v in tflops.items()}
        print(f"{M}x{N}x{K}: " + ", ".join(f"{s} {med[s]:.1f}" for s in med) + " TFLOP/s")
        for x in [n for n in tflops if n != "cublas"]:
            if x in tflops and "cublas" in tflops:
                r = [p / q for p, q in zip(tflops[x], tflops["cublas"])]
                print(f"    {x}/cublas: {statistics.median(r):.3f} [{min(r):.3f}..{max(r):.3f}]")


def _fp8(args):
    sa = torch.tensor([0.75], device="cuda")
    sb = torch.tensor([1.25], device="cuda")
    base = "scaled_mm"
    makers = {
        "scaled_mm": lambda a, b, c: (lambda: torch._scaled_mm(
            a, b.T, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)),
        "scaled_mm_precise": lambda a, b, c: (lambda: torch._scaled_mm(
            a, b.T, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=False)),
        "kiln-cluster": lambda a, b, c: cluster_gemm.kiln_cluster_matmul_launcher(
            a, b, c, a_scale=sa, b_scale=sb)[0],
        "kiln-clusterp": lambda a, b, c: cluster_gemm.kiln_cluster_matmul_launcher(
            a, b, c, persistent=True, a_scale=sa, b_scale=sb)[0],
    }
    for cfg in filter(None, (c.strip() for c in args.configs.split(";"))):
        kw = {k.strip(): int(v) for k, v in (kv.split("=") for kv in cfg.split(","))}
        if "persistent" in kw:
            kw["persistent"] = bool(kw["persistent"])
        makers[f"cluster[{cfg}]"] = (lambda kw: lambda a, b, c: cluster_gemm.
                                     kiln_cluster_matmul_launcher(a, b, c, a_scale=sa,
                                                                  b_scale=sb, **kw)[0])(kw)
    for text in args.sizes.split(","):
        M, N, K = _shape(text)
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        # The scaled_mm sides return their own output: checked through a wrapper that copies
        # it into c, timed without one.
        checks = {n: (lambda m: lambda a, b, c: (lambda: c.copy_(m(a, b, c)())))(m)
                  if n.startswith("scaled_mm") else m for n, m in makers.items()}
        ok = gemm_sides(checks, a, b, text, tol=2e-2, scale=0.75 * 1.25)
        runs = {n: makers[n](a, b, None if n.startswith("scaled_mm") else
                             torch.empty(M, N, device="cuda", dtype=torch.bfloat16))
                for n in ok}
        tflops = interleaved_tflops(runs, 2 * M * N * K, args.rounds)
        med = {s: statistics.median(v) for s, v in tflops.items()}
        print(f"fp8 {M}x{N}x{K}: " + ", ".join(f"{s} {med[s]:.1f}" for s in med) + " TFLOP/s")
        for x in [n for n in tflops if n != base]:
            if base in tflops:
                r = [p / q for p, q in zip(tflops[x], tflops[base])]
                print(f"    {x}/{base}: {statistics.median(r):.3f} [{min(r):.3f}..{max(r):.3f}]")


if __name__ == "__main__":
    main()
