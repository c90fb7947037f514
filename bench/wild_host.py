#!/usr/bin/env python3
"""Where a wild-corpus kernel's host time goes, per call: the project's own launch function
(test/wild/cases) called warm N times with Triton and with Kiln, and a cProfile of the Kiln
calls (top functions by own time), so the launch path's cost can be told from the project's.

    python3 bench/wild_host.py [--cases lmdeploy_fp8_gemm_single,...] [--calls 500]

Runs on the GPU machine with Kiln installed, torch and Triton, from the repository root, after
``python3 scripts/wild-corpus.py restore`` (build/wild carried there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WILD = os.path.join(ROOT, "test", "wild")

_CHILD = r'''
import cProfile, io, json, os, pstats, sys, time
sys.path.insert(0, {wild!r})
import harness
case = harness.load_case({case!r})
sys.path.insert(0, {root!r})
import importlib, torch
mod = importlib.import_module(case.MODULE)
launch, check = case.setup(mod)
for _ in range(20):
    launch()
torch.cuda.synchronize()
n = {calls}
t0 = time.perf_counter()
for _ in range(n):
    launch()
host = (time.perf_counter() - t0) / n * 1e6
torch.cuda.synchronize()
out = {{"host_us": host}}
if {profile}:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        launch()
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(22)
    out["profile"] = s.getvalue()
print("RESULT " + json.dumps(out))
'''


def run_side(case, side, calls, profile):
    sys.path.insert(0, os.path.join(WILD, "cases"))
    sys.path.insert(0, WILD)
    import harness
    c = harness.load_case(case)
    root = os.path.join(ROOT, "build", "wild", "src" if side == "triton" else "kiln", c.PROJECT)
    code = _CHILD.format(wild=WILD, case=case, root=root, calls=calls, profile=profile)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="lmdeploy_fp8_gemm_single,lmdeploy_fp8_gemm_ws")
    ap.add_argument("--calls", type=int, default=500)
    args = ap.parse_args()
    for case in args.cases.split(","):
        t = run_side(case, "triton", args.calls, False)
        k = run_side(case, "kiln", args.calls, True)
        th, kh = t.get("host_us"), k.get("host_us")
        ratio = f"{kh / th:.2f}" if th and kh else "-"
        print(f"{case}: host us per call triton {th and round(th, 1)} kiln "
              f"{kh and round(kh, 1)} (kiln/triton {ratio})")
        for side, r in (("triton", t), ("kiln", k)):
            if "error" in r:
                print(f"  {side} error: {r['error']}")
        if "profile" in k:
            print(k["profile"])


if __name__ == "__main__":
    main()
