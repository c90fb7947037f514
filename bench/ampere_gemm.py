"""mma_v2 (mma.sync) bf16 GEMM: Kiln's examples/ampere.py kernel against the same kernel in
Gluon (the file's text with the imports swapped back, built here, so the two cannot drift)
and cuBLAS (torch.matmul), in one run on a GPU machine. Prints TFLOP/s (median of
triton.testing.do_bench) and same-run ratios; checks each result against torch first.

    python3 bench/ampere_gemm.py [--sizes 2048,4096,8192] [--rounds 3]

mma.sync is the sm_80 tensor-core path: on an H100 cuBLAS uses wgmma, so Kiln/cuBLAS here
says how far the Ampere path is from the Hopper one, and Kiln/Gluon compares the compilers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from examples import ampere  # noqa: E402
from gluon_port import gluon_module  # noqa: E402

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2048,4096,8192")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cfg", default="BM=128,BN=128,BK=32,STAGES=4,WARPS_M=2,WARPS_N=2")
    args = ap.parse_args(argv)
    import triton
    from triton.testing import do_bench
    cfg = {k: int(v) for k, v in (kv.split("=") for kv in args.cfg.split(","))}
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, triton "
          f"{triton.__version__}, cfg {cfg}")
    try:
        gl_mod = gluon_module("ampere")
        gluon_err = None
    except Exception as e:  # pragma: no cover - depends on the machine
        gl_mod, gluon_err = None, f"{type(e).__name__}: {e}"
    sides = {"cublas": lambda a, b, c: torch.matmul(a, b, out=c),
             "kiln": lambda a, b, c: ampere.kiln_mma_v2_matmul(a, b, out=c, **cfg)}
    if gl_mod is not None:
        sides["gluon"] = lambda a, b, c: gl_mod.kiln_mma_v2_matmul(a, b, out=c, **cfg)
    else:
        print(f"gluon unavailable: {gluon_err}")
    print(f"{'size':>6} " + " ".join(f"{s:>8}" for s in sides) +
          "  kiln/cublas  kiln/gluon   (TFLOP/s, median of rounds)")
    for n in [int(s) for s in args.sizes.split(",")]:
        a = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        b = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        ref = a.float() @ b.float()
        tflops = {s: [] for s in sides}
        for name, fn in list(sides.items()):
            c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
            try:
                fn(a, b, c)
                torch.cuda.synchronize()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                if err > 1e-2:
                    raise AssertionError(f"relative error {err:.3g}")
            except Exception as e:
                print(f"  {name} failed at {n}: {type(e).__name__}: {str(e)[:300]}")
                del sides[name], tflops[name]
        for _ in range(args.rounds):
            for name, fn in sides.items():
                c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
                ms = do_bench(lambda: fn(a, b, c), return_mode="median")
                tflops[name].append(2 * n ** 3 / ms / 1e9)
        med = {s: statistics.median(v) for s, v in tflops.items()}
        ratio = lambda x, y: (f"{med[x] / med[y]:11.3f}" if x in med and y in med
                              else f"{'-':>11}")
        print(f"{n:>6} " + " ".join(f"{med[s]:8.1f}" for s in med) +
              f"  {ratio('kiln', 'cublas')}  {ratio('kiln', 'gluon')}")


if __name__ == "__main__":
    main()
