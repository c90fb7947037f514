#!/usr/bin/env python3
"""The textbook GEMM (examples/hopper_kn.py: B [K, N] row-major, read N-contiguous by wgmma)
against the B-transposed one (examples/hopper.py gemm_kernel: B [N, K]) and cuBLAS
(torch.matmul), same run, same tiles (128x256x64, 3 stages, 8 warps). Prints TFLOP/s and the
ratios; run on a GPU machine with the wheel installed."""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, HERE)

import hopper  # noqa: E402
import hopper_kn  # noqa: E402
from timing import median_ms  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    import torch
    print(f"{'size':>6} {'round':>5} {'kn':>8} {'b^T':>8} {'cuBLAS':>8} {'kn/b^T':>7} "
          f"{'kn/cuBLAS':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        bt = b.t().contiguous()
        run_kn, c_kn = hopper_kn.kiln_matmul_kn_launcher(a, b)
        run_t, c_t = hopper.kiln_matmul_launcher(a, bt)
        run_kn(), run_t()
        ref = a.float() @ b.float()
        for name, c in (("kn", c_kn), ("b^T", c_t)):
            err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
            assert err < 1e-2, f"{name}: max error {err} of the largest |C|"
        flops = 2 * n ** 3
        for r in range(args.rounds):
            ms = {name: median_ms(fn)[0] for name, fn in
                  (("kn", run_kn), ("b^T", run_t), ("cublas", lambda: torch.matmul(a, b)))}
            t = {k: flops / (v * 1e-3) / 1e12 for k, v in ms.items()}
            print(f"{n:>6} {r:>5} {t['kn']:8.1f} {t['b^T']:8.1f} {t['cublas']:8.1f} "
                  f"{t['kn'] / t['b^T']:7.3f} {t['kn'] / t['cublas']:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
