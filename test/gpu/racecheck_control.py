#!/usr/bin/env python3
"""Negative control for the racecheck runs of test/gpu: shows that compute-sanitizer's
racecheck does see the hazards tile-insert-barriers removes, so its "0 hazards" on the test
suite means something. Two kernels that need barriers (a tile stored in one register layout
and read back in another; a cp.async copy read back by other threads after the wait) are
compiled with Kiln's lowering pipeline, or with the same pipeline minus tile-insert-barriers
(``--without-barriers``), and launched once each:

    compute-sanitizer --tool racecheck python3 test/gpu/racecheck_control.py
        -> RACECHECK SUMMARY: 0 hazards
    compute-sanitizer --tool racecheck python3 test/gpu/racecheck_control.py --without-barriers
        -> hazards reported

Not a pytest file (a sanitizer has to wrap the process); needs a CUDA GPU and torch.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import torch

import kiln
import kiln.language as kl
from kiln.compiler import compiler as compiler_mod
from kiln.language.nvidia.ampere import async_copy as cp


@kiln.jit
def store_then_load_transposed(x, y, L: kl.constexpr, LT: kl.constexpr, SH: kl.constexpr):
    r = kl.arange(0, 64, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [64, 64], SH)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    rt = kl.arange(0, 64, kl.SliceLayout(1, LT))
    ct = kl.arange(0, 64, kl.SliceLayout(0, LT))
    kl.store(y + rt[:, None] * 64 + ct[None, :], buf.load(LT))


@kiln.jit
def copy_then_load_transposed(x, y, L: kl.constexpr, LT: kl.constexpr, SH: kl.constexpr):
    r = kl.arange(0, 64, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [64, 64], SH)
    cp.async_copy_global_to_shared(buf, x + r[:, None] * 64 + c[None, :])
    cp.commit_group()
    cp.wait_group(0)
    rt = kl.arange(0, 64, kl.SliceLayout(1, LT))
    ct = kl.arange(0, 64, kl.SliceLayout(0, LT))
    kl.store(y + rt[:, None] * 64 + ct[None, :], buf.load(LT))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--without-barriers", action="store_true",
                        help="lower without tile-insert-barriers (expect racecheck hazards)")
    args = parser.parse_args()
    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-racecheck-")
    if args.without_barriers:
        def without_barriers(target, num_warps):
            return (f"builtin.module(tile-allocate-shared-memory{{target={target}}}, "
                    f"convert-scf-to-cf, convert-tile-to-llvm{{target={target} "
                    f"num-warps={num_warps}}}, reconcile-unrealized-casts, canonicalize, cse)")
        compiler_mod.lowering_pipeline = without_barriers
    L = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    LT = kl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
    SH = kl.SwizzledSharedLayout(4, 1, 8, [1, 0])
    for kernel in (store_then_load_transposed, copy_then_load_transposed):
        x = torch.randn((64, 64), device="cuda")
        y = torch.full_like(x, float("nan"))
        kernel[(1,)](x, y, L=L, LT=LT, SH=SH, num_warps=4)
        torch.cuda.synchronize()
        print(f"{kernel.__name__}: {'without' if args.without_barriers else 'with'} barriers, "
              f"output {'matches' if torch.equal(x, y) else 'DIFFERS from'} the input")


if __name__ == "__main__":
    main()
