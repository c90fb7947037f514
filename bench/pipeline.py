"""Automatic pipelining, measured: examples/pipelined.py's plain-load kernels (the pipeliner
builds their rings; auto_tma: the one-buffer TMA form, made a TMA ring) against their
hand-pipelined twins, cuBLAS / torch and a Triton 3.6
``tl.dot`` matmul with the same tiles and num_stages, in one run on a GPU machine. Every result
is checked against torch first. TFLOP/s (GB/s for the reduction): the sides of a comparison
are timed in interleaved rounds, and each ratio is the median of same-round ratios (clocks
are not locked: drift between rounds hits every side alike).

    python3 bench/pipeline.py [--sizes 4096,8192] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from examples import ampere, hopper, hopper_kn, pipelined  # noqa: E402


def triton_matmul(BM, BN, BK, stages, warps, b_transposed):
    """A plain Triton tl.dot matmul (pointer loads, Triton's own pipeliner), C = A @ B or
    A @ B^T, for shapes that are multiples of the tiles."""
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sbk, sbn, scm, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, STAGES: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k0 in tl.range(0, K, BK, num_stages=STAGES):
            x = tl.load(a + rm[:, None] * sam + (k0 + rk[None, :]))
            y = tl.load(b + (k0 + rk[:, None]) * sbk + rn[None, :] * sbn)
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * scm + rn[None, :], acc.to(c.dtype.element_ty))

    def run(x, y, out):
        M, K = x.shape
        if b_transposed:
            N = y.shape[0]
            sbk, sbn = y.stride(1), y.stride(0)
        else:
            N = y.shape[1]
            sbk, sbn = y.stride(0), y.stride(1)
        kernel[(M // BM, N // BN)](x, y, out, M, N, K, x.stride(0), sbk, sbn, out.stride(0),
                                   BM=BM, BN=BN, BK=BK, STAGES=stages, num_warps=warps,
                                   num_stages=stages)
        return out
    return run


def measure(sides, make, flops, rounds, ref):
    """Check every side against ref, then time them in interleaved rounds (each round times
    every side once, in a rotated order), so that clock drift hits all sides alike; returns
    {name: [throughput per round]} or {name: "WRONG..."/"ERR ..."}."""
    from triton.testing import do_bench
    result, fns = {}, {}
    for name, fn in sides.items():
        args = make()
        try:
            out = fn(*args)
            torch.cuda.synchronize()
            err = ((out.float() - ref).norm() / ref.norm()).item()
            if not err < 2e-2:
                result[name] = f"WRONG({err:.1e})"
                continue
            fns[name] = (fn, args)
            result[name] = []
        except Exception as e:  # report and go on
            result[name] = f"ERR {type(e).__name__}: {str(e)[:80]}"
    names = list(fns)
    for r in range(rounds):
        # Each round starts with a different side (the one after cuBLAS runs on a GPU that
        # has just drawn the most power), so no side always follows the same one.
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn, args = fns[name]
            ms = do_bench(lambda: fn(*args), return_mode="median")
            result[name].append(flops / ms / 1e9)
    return result


def show(title, result, base, others):
    """Median throughput of each side, and for each other side the median over rounds of the
    same-round ratio base/other (with its range)."""
    cells = [f"{k} {statistics.median(v):.1f}" if isinstance(v, list) else f"{k} {v}"
             for k, v in result.items()]
    print(f"{title}: " + ", ".join(cells))
    if isinstance(result.get(base), list):
        ratios = []
        for o in others:
            if isinstance(result.get(o), list):
                per_round = [x / y for x, y in zip(result[base], result[o])]
                ratios.append(f"{base}/{o} {statistics.median(per_round):.3f} "
                              f"[{min(per_round):.3f}-{max(per_round):.3f}]")
        print("    " + ", ".join(ratios))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    import triton
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}")
    hopper_gpu = torch.cuda.get_device_capability()[0] >= 9
    for n in [int(s) for s in args.sizes.split(",")]:
        flops = 2 * n ** 3
        a = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        b = torch.randn(n, n, device="cuda").to(torch.bfloat16)
        ref_kn = a.float() @ b.float()
        ref_nk = a.float() @ b.float().T
        out = lambda: torch.empty(n, n, device="cuda", dtype=torch.bfloat16)  # noqa: E731
        # mma_v2 + cp.async: plain loads (auto) vs ampere.py's hand ring.
        for stages in (3, 4):
            cfg = dict(BM=128, BN=128, BK=32, STAGES=stages, WARPS_M=2, WARPS_N=2)
            sides = {
                "auto": lambda x, y, c: pipelined.mma_v2_matmul(x, y, out=c, **cfg),
                "hand": lambda x, y, c: ampere.kiln_mma_v2_matmul(x, y, out=c, **cfg),
                "triton": triton_matmul(128, 128, 32, stages, 4, False),
                "cublas": lambda x, y, c: torch.matmul(x, y, out=c),
            }
            r = measure(sides, lambda: (a, b, out()), flops, args.rounds, ref_kn)
            show(f"{n}^3 mma_v2 s{stages}", r, "auto", ["hand", "triton", "cublas"])
        if not hopper_gpu:
            continue
        # wgmma: plain loads (auto, cp.async ring) vs hopper.py's hand TMA ring.
        for stages in (3, 4):
            sides = {
                "auto": lambda x, y, c: pipelined.wgmma_matmul(
                    x, y, BM=128, BN=128, BK=64, STAGES=stages, num_warps=4, out=c),
                "auto_tma": lambda x, y, c: pipelined.tma_matmul(
                    x, y, BM=128, BN=128, BK=64, STAGES=stages, num_warps=4, out=c),
                "hand_tma": lambda x, y, c: hopper.kiln_matmul(
                    x, y, BM=128, BN=128, BK=64, STAGES=stages, num_warps=4, out=c),
                "triton": triton_matmul(128, 128, 64, stages, 4, True),
                "cublas": lambda x, y, c: torch.matmul(x, y.T, out=c),
            }
            r = measure(sides, lambda: (a, b, out()), flops, args.rounds, ref_nk)
            show(f"{n}^3 wgmma 128x128x64 s{stages}", r, "auto", ["hand_tma", "triton", "cublas"])
            show("    (TMA form)", r, "auto_tma", ["hand_tma", "triton", "cublas"])
        # The textbook layout, B [K, N] row-major: the TMA form (auto) vs hopper_kn.py's hand
        # ring, Triton reading B [K, N] through pointers, cuBLAS.
        for stages in (3, 4):
            sides = {
                "auto_tma": lambda x, y, c: pipelined.tma_matmul(
                    x, y, BM=128, BN=128, BK=64, STAGES=stages, num_warps=4, out=c, b_kn=True),
                "hand_tma": lambda x, y, c: hopper_kn.kiln_matmul_kn(
                    x, y, BM=128, BN=128, BK=64, STAGES=stages, num_warps=4, out=c),
                "triton": triton_matmul(128, 128, 64, stages, 4, False),
                "cublas": lambda x, y, c: torch.matmul(x, y, out=c),
            }
            r = measure(sides, lambda: (a, b, out()), flops, args.rounds, ref_kn)
            show(f"{n}^3 wgmma B[K,N] 128x128x64 s{stages}", r, "auto_tma",
                 ["hand_tma", "triton", "cublas"])
        # kiln.autotune's pick among examples/pipelined.py's WGMMA_CONFIGS (tuned once per
        # size before timing) against each config launched fixed, and cuBLAS.
        pipelined.wgmma_matmul(a, b, tuned=True)
        sides = {"tuned": lambda x, y, c: pipelined.wgmma_matmul(x, y, out=c, tuned=True)}
        for i, cfg in enumerate(pipelined.WGMMA_CONFIGS):
            sides[f"cfg{i}"] = (lambda kw, w: lambda x, y, c: pipelined.wgmma_matmul(
                x, y, out=c, num_warps=w, **kw))(cfg.kwargs, cfg.num_warps)
        sides["cublas"] = lambda x, y, c: torch.matmul(x, y.T, out=c)
        r = measure(sides, lambda: (a, b, out()), flops, args.rounds, ref_nk)
        show(f"{n}^3 wgmma kiln.autotune", r, "tuned",
             [f"cfg{i}" for i in range(len(pipelined.WGMMA_CONFIGS))] + ["cublas"])
    # Streaming: a row reduction over a num_stages=3 loop vs torch.sum.
    for rows, cols in ((8192, 8192), (4096, 16384)):
        x = torch.randn(rows, cols, device="cuda")
        ref = x.sum(1)
        gbytes = rows * cols * 4
        sides = {
            "auto_s3": lambda x: pipelined.row_sum(x, STAGES=3),
            "kiln_s1": lambda x: pipelined.row_sum(x, STAGES=1),
            "torch": lambda x: x.sum(1),
        }
        r = measure(sides, lambda: (x,), gbytes * 1e3, args.rounds, ref)
        show(f"row_sum {rows}x{cols} (GB/s)", r, "auto_s3", ["kiln_s1", "torch"])


if __name__ == "__main__":
    main()
