#!/usr/bin/env python3
"""Cold compile and warm launch overhead: Kiln's ``kernel[grid]`` next to Gluon's, same run.

    python3 bench/cold_compile.py [--repeat 3]

Run on the GPU machine with Kiln installed (scripts/device-test.sh installs the wheel) and
Triton with Gluon. The four example kernels (vector add, 2-D copy, softmax, transpose) are
written once for Kiln and once for Gluon, line for line the same.

Cold compile: each framework runs in a fresh process with an empty cache directory. The
process first compiles and launches an unrelated kernel (paying one-time start-up: driver,
launcher, library loading), then times the first ``kernel[grid]`` call of each example
(compile + load + launch, synchronized) minus its second, warm call. Kiln also reports where
its time went (frontend, tile passes, LLVM, ptxas). Warm launch overhead: host time per
``kernel[grid]`` call of a small vector add, 2000 calls back to back, both frameworks in one
process. Prints a table and writes JSON with --json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, os, sys, time
import torch
FRAMEWORK = sys.argv[1]

if FRAMEWORK == "kiln":
    import kiln as fw
    import kiln.language as gl
    jit = fw.jit
    cdiv = fw.cdiv
else:
    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    jit = gluon.jit
    cdiv = triton.cdiv


@jit
def fill(out, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    gl.store(out + offs, offs.to(gl.float32), mask=offs < n)


@jit
def vector_add(x, y, out, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    gl.store(out + offs, gl.load(x + offs, mask=mask) + gl.load(y + offs, mask=mask), mask=mask)


@jit
def copy_2d(src, dst, M, N, stride_s, stride_d, BM: gl.constexpr, BN: gl.constexpr,
            layout: gl.constexpr):
    rows = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.program_id(1) * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    v = gl.load(src + rows[:, None] * stride_s + cols[None, :], mask=mask)
    gl.store(dst + rows[:, None] * stride_d + cols[None, :], v, mask=mask)


@jit
def softmax(out, inp, M, N, stride_in, stride_out, BM: gl.constexpr, BN: gl.constexpr,
            layout: gl.constexpr):
    rows = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = gl.load(inp + rows[:, None] * stride_in + cols[None, :], mask=mask, other=float("-inf"))
    e = gl.exp(x - gl.max(x, axis=1)[:, None])
    e = gl.where(mask, e, 0.0)
    gl.store(out + rows[:, None] * stride_out + cols[None, :], e / gl.sum(e, axis=1)[:, None],
             mask=mask)


@jit
def transpose(src, dst, M, N, stride_s, stride_d, B: gl.constexpr, load_layout: gl.constexpr,
              store_layout: gl.constexpr):
    rows = gl.program_id(0) * B + gl.arange(0, B, layout=gl.SliceLayout(1, load_layout))
    cols = gl.program_id(1) * B + gl.arange(0, B, layout=gl.SliceLayout(0, load_layout))
    t = gl.load(src + rows[:, None] * stride_s + cols[None, :],
                mask=(rows[:, None] < M) & (cols[None, :] < N))
    t = gl.convert_layout(t, store_layout)
    r = gl.program_id(0) * B + gl.arange(0, B, layout=gl.SliceLayout(1, store_layout))
    c = gl.program_id(1) * B + gl.arange(0, B, layout=gl.SliceLayout(0, store_layout))
    gl.store(dst + c[None, :] * stride_d + r[:, None], t, mask=(r[:, None] < M) & (c[None, :] < N))


L1 = gl.BlockedLayout([4], [32], [4], [0])
L2 = gl.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
L2T = gl.BlockedLayout([4, 1], [16, 2], [1, 4], [0, 1])
LS = gl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
dev = "cuda"
x = torch.randn(1 << 20, device=dev)
y = torch.randn(1 << 20, device=dev)
o = torch.empty_like(x)
a = torch.randn(1024, 1024, device=dev)
b = torch.empty_like(a)
s = torch.randn(256, 1000, device=dev)
so = torch.empty_like(s)

CALLS = {
    "vector_add": lambda: vector_add[(cdiv(x.numel(), 1024),)](
        x, y, o, x.numel(), BLOCK=1024, layout=L1, num_warps=4),
    "copy_2d": lambda: copy_2d[(cdiv(1024, 32), cdiv(1024, 64))](
        a, b, 1024, 1024, a.stride(0), b.stride(0), BM=32, BN=64, layout=L2, num_warps=4),
    "softmax": lambda: softmax[(cdiv(256, 4),)](
        so, s, 256, 1000, s.stride(0), so.stride(0), BM=4, BN=1024, layout=LS, num_warps=4),
    "transpose": lambda: transpose[(cdiv(1024, 64), cdiv(1024, 64))](
        a, b, 1024, 1024, a.stride(0), b.stride(0), B=64, load_layout=L2, store_layout=L2T,
        num_warps=4),
}


def timed(fn):
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - start


out = {"framework": FRAMEWORK}
start = time.perf_counter()
fill[(4,)](o, 4096, BLOCK=1024, layout=L1, num_warps=4)
torch.cuda.synchronize()
out["startup_s"] = time.perf_counter() - start
out["cold_s"], out["stages_s"] = {}, {}
for name, call in CALLS.items():
    first = timed(call)
    warm = min(timed(call) for _ in range(3))
    out["cold_s"][name] = first - warm
    if FRAMEWORK == "kiln":
        fn = globals()[name]
        kernels = [e[0] for e in fn._kernels.values()]
        out["stages_s"][name] = kernels[-1].timings if kernels else {}
torch.testing.assert_close(b.t(), a)  # the last call was the transpose: it ran
print(json.dumps(out))
'''

LAUNCH = r'''
import json, sys, time, torch
import kiln, kiln.language as kl
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@kiln.jit
def k_add(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


@gluon.jit
def g_add(x, y, out, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    m = offs < n
    gl.store(out + offs, gl.load(x + offs, mask=m) + gl.load(y + offs, mask=m), mask=m)


x = torch.randn(1024, device="cuda")
y = torch.randn(1024, device="cuda")
o = torch.empty_like(x)
KL = kl.BlockedLayout([4], [32], [4], [0])
GL = gl.BlockedLayout([4], [32], [4], [0])
calls = {
    "kiln": lambda: k_add[(1,)](x, y, o, 1024, BLOCK=1024, layout=KL, num_warps=4),
    "gluon": lambda: g_add[(1,)](x, y, o, 1024, BLOCK=1024, layout=GL, num_warps=4),
    "torch": lambda: torch.add(x, y, out=o),
}
N = int(sys.argv[1])
res = {}
for rnd in range(3):
    for name, call in calls.items():
        for _ in range(50):
            call()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(N):
            call()
        host = time.perf_counter() - start
        torch.cuda.synchronize()
        res.setdefault(name, []).append(host / N * 1e6)
print(json.dumps({k: min(v) for k, v in res.items()}))
'''


def run_child(code, args, env):
    # A file, not `python -c`: both frameworks read the kernels' source.
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    try:
        r = subprocess.run([sys.executable, f.name] + args, capture_output=True, text=True,
                           env=env, timeout=600)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        raise RuntimeError(f"{args}: exit {r.returncode}\n{r.stdout}\n{r.stderr[-4000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per framework")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()

    results = {"kiln": [], "gluon": []}
    for _ in range(args.repeat):
        for fw in results:
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, KILN_CACHE_DIR=cache, TRITON_CACHE_DIR=cache)
                results[fw].append(run_child(CHILD, [fw], env))

    names = list(results["kiln"][0]["cold_s"])
    med = {fw: {n: statistics.median(r["cold_s"][n] for r in runs) for n in names}
           for fw, runs in results.items()}
    startup = {fw: statistics.median(r["startup_s"] for r in runs)
               for fw, runs in results.items()}
    print(f"cold compile (first kernel[grid] call minus a warm one; median of {args.repeat} "
          f"fresh processes, empty caches)")
    print(f"{'kernel':12} {'kiln ms':>9} {'gluon ms':>9} {'kiln/gluon':>10}")
    for n in names:
        print(f"{n:12} {med['kiln'][n] * 1e3:9.1f} {med['gluon'][n] * 1e3:9.1f} "
              f"{med['kiln'][n] / med['gluon'][n]:10.2f}")
    tk, tg = sum(med["kiln"].values()), sum(med["gluon"].values())
    print(f"{'total':12} {tk * 1e3:9.1f} {tg * 1e3:9.1f} {tk / tg:10.2f}")
    print(f"process start-up (first compile + launch of an unrelated kernel): kiln "
          f"{startup['kiln'] * 1e3:.0f} ms, gluon {startup['gluon'] * 1e3:.0f} ms")

    print("\nkiln stage split, ms (last run):")
    stages = results["kiln"][-1]["stages_s"]
    keys = ["frontend", "parse_verify", "tile_passes", "llvm_translate", "llvm_optimize",
            "llvm_codegen", "binary"]
    print(f"{'kernel':12} " + " ".join(f"{k:>14}" for k in keys))
    for n in names:
        print(f"{n:12} " + " ".join(f"{stages[n].get(k, 0) * 1e3:14.1f}" for k in keys))

    launch = run_child(LAUNCH, ["2000"], dict(os.environ))
    print("\nwarm launch overhead, host us per kernel[grid] call (vector add, 1024 elements, "
          "2000 calls, best of 3):")
    for k, v in launch.items():
        print(f"  {k:6} {v:7.2f}")
    print(f"  kiln/gluon {launch['kiln'] / launch['gluon']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cold": results, "launch_us": launch}, f, indent=1)


if __name__ == "__main__":
    main()
