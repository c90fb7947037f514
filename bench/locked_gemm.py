#!/usr/bin/env python3
"""bf16 GEMM kernel times at the GPU's locked base clocks (Nsight Compute's
``--clock-control base``): the stable comparison when free-running clocks drift by several %.

    python3 bench/locked_gemm.py [--sides kiln-wsp,gluon-wsp,kiln-ws,gluon-ws,cublas]
                                 [--sizes 4096,8192] [--reps 5]
                                 [--kiln NAME=DIR,...]   # compare several Kiln installs

For each side and size a child process (this file with ``--child``) makes the inputs, checks
one result against torch, then launches the kernel ``reps`` more times inside an NVTX range
"timed"; ncu times those launches (``gpu__time_duration.sum``) with the clocks locked, and this prints the median in
TFLOP/s and the ratios of each Kiln side to its Gluon twin and to cuBLAS. ``--kiln A=/x,B=/y``
runs every Kiln side once per directory put first on PYTHONPATH (``pip install --target``
of two wheels: an A/B in one run); Gluon and cuBLAS run once. Sides: kiln-ws / kiln-wsp
(examples/hopper_ws.py, one tile per program / persistent), kiln-plain / kiln-plainp
(examples/hopper.py), their gluon-* twins (bench/gluon_port.py), cublas (torch.matmul).
Needs the GPU machine: torch, triton 3.6 and ncu.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = dict(BM=128, BN=256, BK=64, STAGES=3, num_warps=8)
# The kernel names ncu filters on: only the GEMM's launches are timed, not the input set-up.
KERNELS = {"kiln": "regex:gemm_kernel", "gluon": "regex:gemm_kernel",
           "cublas": "regex:gemm|nvjet|xmma|cutlass"}


def launcher(side):
    import torch
    sys.path[:0] = [HERE, os.path.join(HERE, "..")]
    family, kind = side.split("-") if "-" in side else (side, "")
    if family == "cublas":
        return lambda a, b, c: (lambda: torch.matmul(a, b.T, out=c))
    if family == "kiln":
        from examples import hopper, hopper_ws
        mods = {"ws": hopper_ws, "wsp": hopper_ws, "plain": hopper, "plainp": hopper}
    else:
        from gluon_port import gluon_module
        mods = {k: gluon_module("hopper_ws" if k.startswith("ws") else "hopper")
                for k in ("ws", "plain")}
        mods = {"ws": mods["ws"], "wsp": mods["ws"], "plain": mods["plain"],
                "plainp": mods["plain"]}
    mod = mods[kind]
    name = {"ws": "kiln_ws_matmul_launcher", "wsp": "kiln_ws_persistent_matmul_launcher",
            "plain": "kiln_matmul_launcher", "plainp": "kiln_persistent_matmul_launcher"}[kind]
    make = getattr(mod, name)
    return lambda a, b, c: make(a, b, out=c, **CFG)[0]


def child(side, n, reps):
    import torch
    a = torch.randn(n, n, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, n, device="cuda").to(torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    run = launcher(side)(a, b, c)
    run()
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    err = ((c.float() - ref).norm() / ref.norm()).item()
    if not err < 1e-2:
        sys.exit(f"{side} at {n}: relative error {err:.3g}")
    torch.cuda.nvtx.range_push("timed")  # ncu times only the launches in this range
    for _ in range(reps):
        run()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def measure(side, n, reps, pythonpath):
    from timing import ncu_locked_ns
    family = side.split("-")[0]
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    cmd = [sys.executable, os.path.abspath(__file__), "--child", side, str(n), str(reps)]
    try:
        times = ncu_locked_ns(cmd, KERNELS[family], env)
    except RuntimeError as e:
        raise RuntimeError(f"{side} {n}: {e}") from None
    sec = statistics.median(times) * 1e-9
    return 2 * n ** 3 / sec / 1e12, len(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("SIDE", "N", "REPS"))
    ap.add_argument("--sides", default="kiln-wsp,gluon-wsp,kiln-ws,gluon-ws,cublas")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--kiln", default="", help="NAME=DIR,...: Kiln installs to compare")
    args = ap.parse_args(argv)
    if args.child:
        side, n, reps = args.child
        return child(side, int(n), int(reps))
    kilns = dict(kv.split("=", 1) for kv in args.kiln.split(",") if kv) or {"kiln": None}
    base = os.environ.get("PYTHONPATH", "")
    for n in [int(s) for s in args.sizes.split(",")]:
        result = {}
        for side in args.sides.split(","):
            # Gluon's twins import examples/hopper.py's checks, so Kiln must import there too.
            variants = kilns.items() if side.startswith("kiln") else \
                [("", next(iter(kilns.values())))]
            for tag, path in variants:
                label = side if not tag or tag == "kiln" else f"{side}@{tag}"
                pp = None if path is None else os.pathsep.join(p for p in (path, base) if p)
                try:
                    result[label], count = measure(side, n, args.reps, pp)
                except RuntimeError as e:
                    print(f"  {label}: {e}")
        print(f"size {n}^3 (locked base clocks, median of {args.reps}), TFLOP/s: " +
              ", ".join(f"{k} {v:.1f}" for k, v in result.items()))
        for label, value in result.items():
            if not label.startswith("kiln"):
                continue
            side = label.split("@")[0]
            twin = "gluon-" + side.split("-", 1)[1]
            for ref in (twin, "cublas"):
                if ref in result:
                    print(f"    {label}/{ref}: {value / result[ref]:.3f}")


if __name__ == "__main__":
    main()
