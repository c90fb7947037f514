"""Warp-specialized bf16 GEMM on an H100 or H200: Kiln's examples/hopper_ws.py against the
same kernel in Gluon (the file's text with the imports swapped, built here, so the two cannot
drift), cuBLAS (torch.matmul), and Kiln's non-specialized kernels of examples/hopper.py, in
one run. Prints TFLOP/s (median of triton.testing.do_bench per round, median of rounds) and
same-run ratios; checks every result against torch first.

    python3 bench/hopper_ws_gemm.py [--sizes 2048,4096,8192] [--rounds 5]

Sides: ws / ws-p (one tile per program / persistent, warp-specialized), plain / plain-p
(examples/hopper.py's gemm_kernel and persistent_gemm_kernel). Descriptors are built once per
side (the *_launcher forms), so only launches are timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from examples import hopper, hopper_ws  # noqa: E402
from gluon_port import gluon_module  # noqa: E402
from timing import gemm_sides, interleaved_tflops  # noqa: E402

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2048,4096,8192")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cfg", default="BM=128,BN=256,BK=64,STAGES=3,num_warps=8")
    args = ap.parse_args(argv)
    import triton
    cfg = {k: int(v) for k, v in (kv.split("=") for kv in args.cfg.split(","))}
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, triton "
          f"{triton.__version__}, cfg {cfg}")
    try:
        gmod, gerr = gluon_module("hopper_ws"), None
    except Exception as e:  # pragma: no cover - depends on the machine
        gmod, gerr = None, f"{type(e).__name__}: {e}"
    makers = {
        "cublas": lambda a, b, c: (lambda: torch.matmul(a, b.T, out=c)),
        "kiln-ws": lambda a, b, c: hopper_ws.kiln_ws_matmul_launcher(a, b, out=c, **cfg)[0],
        "kiln-wsp": lambda a, b, c: hopper_ws.kiln_ws_persistent_matmul_launcher(
            a, b, out=c, **cfg)[0],
        "kiln-plain": lambda a, b, c: hopper.kiln_matmul_launcher(a, b, out=c, **cfg)[0],
        "kiln-plainp": lambda a, b, c: hopper.kiln_persistent_matmul_launcher(
            a, b, out=c, **cfg)[0],
    }
    if gmod is not None:
        makers["gluon-ws"] = lambda a, b, c: gmod.kiln_ws_matmul_launcher(a, b, out=c, **cfg)[0]
        makers["gluon-wsp"] = lambda a, b, c: gmod.kiln_ws_persistent_matmul_launcher(
            a, b, out=c, **cfg)[0]
    else:
        print(f"gluon unavailable: {gerr}")
    for n in [int(s) for s in args.sizes.split(",")]:
        a = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        b = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        runs = gemm_sides(makers, a, b, n)
        tflops = interleaved_tflops(runs, 2 * n ** 3, args.rounds)
        med = {s: statistics.median(v) for s, v in tflops.items()}
        print(f"size {n}: " + ", ".join(f"{s} {med[s]:.1f}" for s in med) + " TFLOP/s")
        for x, y in (("kiln-ws", "cublas"), ("kiln-wsp", "cublas"), ("kiln-ws", "gluon-ws"),
                     ("kiln-wsp", "gluon-wsp"), ("kiln-plainp", "cublas")):
            if x in tflops and y in tflops:
                r = [p / q for p, q in zip(tflops[x], tflops[y])]
                print(f"    {x}/{y}: {statistics.median(r):.3f} "
                      f"[{min(r):.3f}..{max(r):.3f}]")


if __name__ == "__main__":
    main()
