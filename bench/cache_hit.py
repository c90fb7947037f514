#!/usr/bin/env python3
"""What a compile costs from Kiln's caches, on any machine (no GPU needed):

    python3 bench/cache_hit.py [--target cuda:sm_90a] [--repeat 5]

* cold: a new process, an empty cache folder -- the full compile (frontend, passes, LLVM,
  the assembler), and the one hash of the compiler library the folder remembers;
* disk hit: a new process, the cache folder the cold run filled -- the entry is read back;
* in-process: the same compile again in the process that made it (the memory cache).

Each compile is ``kiln.compile`` of a softmax kernel; process start-up and ``import kiln`` are
outside the times (printed beside them). Medians of ``--repeat`` processes. Which library is
measured is printed: a checkout's build (build/lib) or an installed wheel's
(``pip install dist/kiln-*.whl``; the wheel's library is ~85 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import json, sys, time
t0 = time.perf_counter()
import kiln, kiln.language as kl
t_import = time.perf_counter() - t0

@kiln.jit
def softmax(x, out, n, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, BLOCK, layout)
    row = kl.program_id(0) * n
    v = kl.load(x + row + offs, mask=offs < n, other=-float("inf"))
    e = kl.exp(v - kl.max(v, 0))
    kl.store(out + row + offs, e / kl.sum(e, 0), mask=offs < n)

sig = {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"}
t0 = time.perf_counter()
kiln.compile(softmax, sig, {"BLOCK": 1024}, target=sys.argv[1])
first = time.perf_counter() - t0
t0 = time.perf_counter()
kiln.compile(softmax, sig, {"BLOCK": 1024}, target=sys.argv[1])
again = time.perf_counter() - t0
print(json.dumps({"import": t_import, "first": first, "again": again,
                  "library": kiln.compiler.compiler.load_compiler().library_path}))
'''


def child(target, cache):
    env = dict(os.environ, KILN_CACHE_DIR=cache)
    script = os.path.join(cache, "..", os.path.basename(cache) + "_child.py")
    with open(script, "w") as f:  # a file: kernels need their source
        f.write(CHILD)
    out = subprocess.run([sys.executable, script, target], env=env, capture_output=True,
                         text=True, timeout=600)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="cuda:sm_90a")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    cold, hits, again, imports = [], [], [], []
    library = None
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            c = child(args.target, cache)           # empty folder: a full compile
            cold.append(c["first"])
            again.append(c["again"])
            imports.append(c["import"])
            library = c["library"]
            h = child(args.target, cache)           # a hit in a new process
            hits.append(h["first"])
    ms = lambda xs: f"{1000 * statistics.median(xs):8.1f} ms"  # noqa: E731
    size = os.path.getsize(library) / 2**20 if library and os.path.exists(library) else 0
    print(f"library: {library} ({size:.0f} MiB); target {args.target}; "
          f"medians of {args.repeat} processes")
    print(f"  import kiln                      {ms(imports)}")
    print(f"  cold compile (empty cache)       {ms(cold)}")
    print(f"  disk hit, new process            {ms(hits)}")
    print(f"  in-process (memory cache)        {ms(again)}")


if __name__ == "__main__":
    main()
