"""examples/hopper.py's TMA GEMM with ``kiln_matmul(..., tuned=True)`` (``--kernel nt``: B
given [N, K]), examples/hopper_kn.py's with ``kiln_matmul_kn(..., tuned=True)`` (``--kernel
kn``: B [K, N] row-major) or examples/hopper_ws.py's warp-specialized one (``--kernel ws``,
``ws_persistent``): kiln.autotune's pick among the example's configs (a Config pre_hook
sets each TMA descriptor's block per config, as Triton's tutorials do) against each config
launched fixed and against cuBLAS (torch.matmul), same run, interleaved rounds, each ratio
the median of same-round ratios. TFLOP/s, bf16.

    python3 bench/hopper_tuned.py [--kernel nt|kn|ws|ws_persistent] [--size 4096] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from examples import hopper, hopper_kn, hopper_ws  # noqa: E402
from kiln.testing import do_bench  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", choices=["nt", "kn", "ws", "ws_persistent"], default="nt")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    n = args.size
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    if args.kernel == "nt":
        ref = a.float() @ b.float().T
        tuned_fn, launcher = hopper.kiln_matmul, hopper.kiln_matmul_launcher
        configs, autotuned, cublas = hopper.GEMM_CONFIGS, hopper.gemm_kernel_tuned, b.T
    elif args.kernel == "kn":
        ref = a.float() @ b.float()
        tuned_fn, launcher = hopper_kn.kiln_matmul_kn, hopper_kn.kiln_matmul_kn_launcher
        configs, autotuned, cublas = hopper_kn.KN_CONFIGS, hopper_kn.matmul_kn_tuned, b
    else:
        ref = a.float() @ b.float().T
        persistent = args.kernel == "ws_persistent"
        tuned_fn = hopper_ws.kiln_ws_persistent_matmul if persistent else \
            hopper_ws.kiln_ws_matmul
        launcher = hopper_ws.kiln_ws_persistent_matmul_launcher if persistent else \
            hopper_ws.kiln_ws_matmul_launcher
        configs, autotuned, cublas = hopper_ws.WS_CONFIGS, hopper_ws.ws_gemm_tuned, b.T
    tuned = tuned_fn(a, b, tuned=True)
    err = ((tuned.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    sides = {"tuned": lambda: tuned_fn(a, b, tuned=True),
             "cublas": lambda: torch.matmul(a, cublas)}
    for i, cfg in enumerate(configs):
        kw = dict(cfg.kwargs, num_warps=cfg.num_warps)
        run, c = launcher(a, b, **kw)
        run()
        assert ((c.float() - ref).norm() / ref.norm()).item() < 1e-2
        sides[f"cfg{i} {kw['BM']}x{kw['BN']}x{kw['BK']}/{kw['STAGES']}st/{kw['num_warps']}w"] = run
    flops = 2 * n ** 3
    rounds = {k: [] for k in sides}
    for _ in range(args.rounds):
        for k, fn in sides.items():
            rounds[k].append(flops / do_bench(fn, return_mode="median") / 1e9)
    print(f"{args.kernel}, {n}^3 bf16; pick: {autotuned.best_config}")
    best_fixed = max((k for k in sides if k.startswith("cfg")),
                     key=lambda k: statistics.median(rounds[k]))
    for k in sides:
        print(f"{k:32s} {statistics.median(rounds[k]):7.1f} TFLOP/s")
    ratio = lambda x, y: statistics.median(p / q for p, q in zip(rounds[x], rounds[y]))  # noqa
    print(f"tuned / best fixed ({best_fixed}): {ratio('tuned', best_fixed):.3f}; "
          f"tuned / cuBLAS: {ratio('tuned', 'cublas'):.3f}")


if __name__ == "__main__":
    main()
