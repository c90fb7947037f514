#!/usr/bin/env python3
"""Where a warm ``kernel[grid]`` call spends its host time: Kiln's launch path profiled.

    python3 bench/launch_overhead.py [--calls 2000]

Runs on the GPU machine (Kiln installed, torch). Times warm launches of a small vector add
(host time per call, GPU work queued, synchronized at the end) and prints the top functions of a
cProfile run of the same loop, so the Python and native parts of the launch can be told apart.
bench/cold_compile.py compares the total with Gluon and torch in the same run.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import torch

import kiln
import kiln.language as kl


@kiln.jit
def add(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    x = torch.randn(1024, device="cuda")
    y = torch.randn(1024, device="cuda")
    o = torch.empty_like(x)
    layout = kl.BlockedLayout([4], [32], [4], [0])

    def call():
        add[(1,)](x, y, o, 1024, BLOCK=1024, layout=layout, num_warps=4)

    for _ in range(100):
        call()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(args.calls):
            call()
        best = min(best, (time.perf_counter() - start) / args.calls)
        torch.cuda.synchronize()
    print(f"kiln warm launch: {best * 1e6:.2f} us per kernel[grid] call (host)")
    torch.testing.assert_close(o, x + y)

    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.calls):
        call()
    profile.disable()
    torch.cuda.synchronize()
    pstats.Stats(profile).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
