#!/usr/bin/env python3
"""AOT-compile every kernel variant the GPU proof needs into a bundle (default build/gpu-bundle).

    python3 scripts/build-gpu-bundle.py [--out build/gpu-bundle] [--target cuda:sm_90a]

Run where Kiln's compiler is built, then carry the folder to the GPU machine (which has no
LLVM) and run the proof there: docs/gpu-testing.md has the recipe.

The specialization rule (the JIT's, and Triton's), which launch and bundle must agree on:
a pointer argument 16-byte aligned and an integer argument divisible by 16 are compiled with
divisibility 16 (``:16``); an integer argument equal to 1 is compiled as the constexpr 1 and
is no longer passed. A binary compiled for ``:16`` is wrong (and is refused by the launcher)
for an argument that is not, so the bundle holds one variant per combination the test cases
meet. test/gpu/run_gpu_proof.py describes its cases as data; ``needed_variants()`` turns them
into (key, signature, constexprs) with examples/kernels.py's ``specialize``/``bundle_key``
(= ``JITFunction.specialize``), and the proof recomputes the key from its real torch
arguments at launch. Keys read ``<kernel>.<family>.<code>``, one code letter per runtime
argument: A = aligned pointer, D = int divisible by 16, 1 = int specialized to 1,
_ = neither; e.g. ``vector_add.cuda.AAA_`` serves n = 1000 and ``vector_add.cuda.AAAD``
n = 4096.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(_ROOT, "python"), os.path.join(_ROOT, "examples")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import kiln  # noqa: E402
import kiln.aot  # noqa: E402
import kernels as K  # noqa: E402


def _load_proof():
    path = os.path.join(_ROOT, "test", "gpu", "run_gpu_proof.py")
    spec = importlib.util.spec_from_file_location("run_gpu_proof", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries_for(target):
    proof = _load_proof()
    entries = []
    for key, (name, signature, constexprs) in sorted(proof.needed_variants(target).items()):
        cfg = K.config(name, target)
        entries.append({"fn": cfg["fn"], "signature": signature, "constexprs": constexprs,
                        "num_warps": cfg["num_warps"], "target": target, "key": key})
    return entries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(_ROOT, "build", "gpu-bundle"))
    ap.add_argument("--target", default="cuda:sm_90a")
    args = ap.parse_args(argv)

    entries = entries_for(args.target)
    t0 = time.time()
    # A fresh folder: stale binaries of an older bundle must not travel with it.
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    kernels = kiln.aot.compile_bundle(args.out, entries)
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out))
    print(f"{'key':<26} {'kernel':<11} {'shared':>6}  specialized signature")
    for entry, kernel in zip(entries, kernels):
        sig = ", ".join(f"{n}: {t}" for n, t in entry["signature"].items())
        ones = [n for n in K.KERNELS[kernel.name]["signature"] if n not in entry["signature"]]
        if ones:
            sig += "; " + ", ".join(f"{n}=1" for n in ones)
        print(f"{entry['key']:<26} {kernel.name:<11} {kernel.metadata['shared']:>6}  {sig}")
    print(f"\nwrote {len(kernels)} kernels for {args.target} to {args.out} "
          f"({size / 1024:.0f} KiB) in {time.time() - t0:.1f}s")
    with open(os.path.join(args.out, "manifest.json")) as f:
        json.load(f)  # sanity: the manifest parses
    return 0


if __name__ == "__main__":
    sys.exit(main())
