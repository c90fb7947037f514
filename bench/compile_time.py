#!/usr/bin/env python3
"""Compile time of a masked elementwise kernel against its elements per thread.

    /usr/bin/python3 bench/compile_time.py [--targets cuda:sm_90a,hip:gfx942]

Compiles ``y[i] = 2 * x[i] for i < n`` (n not divisible by 16, so every element is masked on
its own: the worst case for the code generators) for BLOCK = 2^13 … 2^19 with the fewest warps
that keep it within Kiln's 512 registers per thread, each in a fresh process with the cache
off, and prints seconds per compile (tile IR → cubin / hsaco). Kiln's own stages are linear in
the elements per thread; what grows faster is ptxas and LLVM's AMDGPU register allocator,
which is why tensors are limited to 512 elements per thread.
"""

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import sys, time
import kiln, kiln.language as kl

@kiln.jit
def scale(x, y, n, BLOCK: kl.constexpr, L: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    kl.store(y + offs, kl.load(x + offs, mask=m) * 2.0, mask=m)

e, warps, target = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lanes = 32 if target.startswith("cuda:") else 64
t = time.perf_counter()
kiln.compile(scale, {"x": "*fp32:16", "y": "*fp32:16", "n": "i32"},
             constexprs={"BLOCK": 2 ** e, "L": kl.BlockedLayout([4], [lanes], [warps], [0])},
             target=target, num_warps=warps, cache=False)
print(f"{time.perf_counter() - t:.2f}")
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default="cuda:sm_90a,hip:gfx942")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    # The kernel must live in a file: the DSL reads its source.
    child = tempfile.NamedTemporaryFile("w", suffix="_compile_time_child.py", delete=False)
    child.write(CHILD)
    child.close()
    print(f"{'target':<12} {'BLOCK':>7} {'warps':>5} {'elems/thread':>12} {'seconds':>8}")
    for target in args.targets.split(","):
        lanes = 32 if target.startswith("cuda:") else 64
        for e in range(13, 20):
            warps = 4
            while 2 ** e // (warps * lanes) > 512 and warps * lanes < 1024:
                warps *= 2
            per_thread = 2 ** e // (warps * lanes)
            if per_thread > 512:
                continue
            try:
                out = subprocess.run([sys.executable, child.name, str(e), str(warps), target],
                                     capture_output=True, text=True, env=env,
                                     timeout=args.timeout)
                secs = out.stdout.strip() if out.returncode == 0 else "error"
            except subprocess.TimeoutExpired:
                secs = f">{args.timeout:.0f}"
            print(f"{target:<12} {2 ** e:>7} {warps:>5} {per_thread:>12} {secs:>8}", flush=True)
    os.unlink(child.name)


if __name__ == "__main__":
    main()
