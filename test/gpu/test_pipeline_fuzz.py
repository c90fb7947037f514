"""The pipelining fuzz campaign with its GPU oracle (issue 40): random kernels of
``kl.range(..., num_stages=S)`` loops (test/fuzz/pipeline_fuzz.py says which shapes) launched
on grid (1,) and compared bit for bit with the same program run sequentially over numpy
(values are small integers in fp32 and the programs only add: every result is exact).

Under pytest: KILN_FUZZ_N kernels (200) from seed KILN_FUZZ_SEED (0). Fails listing every
mismatch (seed, buffers, a minimized kernel), every internal compiler error and every loop
with num_stages >= 2 left unpipelined without a remark. Skips cleanly without torch, a
driver or an NVIDIA device.

As a script (from the repository root; compile-only without --gpu):

    python3 test/gpu/test_pipeline_fuzz.py --gpu --n 2000 --seed 0
    python3 test/gpu/test_pipeline_fuzz.py --n 500 --target cuda:sm_90a --target cuda:sm_80
    python3 test/gpu/test_pipeline_fuzz.py --seed 117 --n 1 --show     # one kernel, verbose

prints the summary table (kernels, pipelined loops, mismatches, internal errors, loops
unpipelined without remark), the refusal remarks and each failure class with its seeds, the
exact message and a minimized kernel.
"""

from __future__ import annotations

import collections
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fuzz"))
import pipeline_fuzz as pf  # noqa: E402

if __name__ != "__main__":
    import pytest

    torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


def _minimized(seed, target, mismatch):
    """The seed's kernel made smaller while it still fails the same way."""
    kernel = pf.generate(seed)
    if mismatch:
        def fails(k):
            try:
                return bool(pf.run_on_gpu(k))
            except Exception:  # noqa: BLE001 - a variant that does not compile
                return False
    else:
        klass = pf.compile_kernel(kernel, target).klass()

        def fails(k):
            return pf.compile_kernel(k, target).klass() == klass
    try:
        return pf.minimize(kernel, fails).source
    except Exception as e:  # noqa: BLE001 - keep the report even if minimizing breaks
        return f"# (not minimized: {e})\n" + kernel.source


def _failures(outcomes, mismatches, target, minimize=True):
    """A report of what the campaign found wrong, or "" when nothing was."""
    lines = []
    for klass, items in pf.group(outcomes).items():
        if not any(o.bug for o in items):
            continue  # a DSL limit the generator ran into: listed by the script, not a bug
        seeds = sorted({o.seed for o in items})
        first = min(items, key=lambda o: len(pf.generate(o.seed).source))
        lines.append(f"== {klass}: {len(items)} compile(s), seeds {seeds}")
        lines.append((first.message or "\n".join(first.remarks)).rstrip())
        if minimize and first.status != "ok":
            lines.append(_minimized(first.seed, first.target, False))
    # The three smallest mismatching kernels are minimized (each takes a few dozen launches).
    by_size = sorted(mismatches, key=lambda m: len(pf.generate(m.seed).source))
    for n, m in enumerate(by_size):
        lines.append(f"== GPU result differs from numpy, seed {m.seed}: " + "; ".join(m.diffs))
        if minimize and n < 3 and not m.diffs[0].startswith("launch failed"):
            lines.append(_minimized(m.seed, target, True))
    return "\n".join(lines)


def test_pipeline_fuzz_on_gpu(target):
    if not target.startswith("cuda:"):
        pytest.skip(f"the generated kernels use 32-lane layouts and the classifier reads PTX "
                    f"(NVIDIA); this device is {target}")
    n = int(os.environ.get("KILN_FUZZ_N", "200"))
    seed = int(os.environ.get("KILN_FUZZ_SEED", "0"))
    outcomes, mismatches = pf.campaign(range(seed, seed + n), [], target)
    counts = pf.summarize(outcomes, mismatches)
    print(pf.table(counts))
    assert counts["compiled"], "no kernel compiled: nothing was compared"
    report = _failures(outcomes, mismatches, target)
    assert not report, f"seeds {seed}..{seed + n - 1} on {target}:\n{report}"


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="kernels (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--target", action="append",
                    help="compile for this target (repeatable; default cuda:sm_90a and "
                         "cuda:sm_80 without --gpu, none but the GPU's with it)")
    ap.add_argument("--gpu", action="store_true", help="launch on this machine's GPU")
    ap.add_argument("--show", action="store_true", help="print each kernel and its outcome")
    ap.add_argument("--no-minimize", action="store_true", help="report kernels as generated")
    opts = ap.parse_args(argv)
    launch = None
    if opts.gpu:
        from kiln.runtime import get_driver
        launch = get_driver().current_target()
        launch = getattr(launch, "name", launch)
    targets = opts.target or ([] if launch else ["cuda:sm_90a", "cuda:sm_80"])
    start = time.time()

    def progress(n, seed, outcomes, mismatches):
        if opts.show:
            print(pf.generate(seed).source)
            for o in (o for o in outcomes if o.seed == seed):
                print(f"  {o.target}: {o.klass()}  loops {o.loops}\n    " +
                      "\n    ".join(o.message.splitlines() or o.remarks))
            print(f"  GPU: {'differs' if mismatches and mismatches[-1].seed == seed else 'same'}"
                  if launch else "")
        elif (n + 1) % 100 == 0:
            print(f"  {n + 1} kernels, {time.time() - start:.0f} s", file=sys.stderr, flush=True)

    outcomes, mismatches = pf.campaign(range(opts.seed, opts.seed + opts.n), targets, launch,
                                       progress)
    every = targets + ([launch] if launch not in (None, *targets) else [])
    print(f"seeds {opts.seed}..{opts.seed + opts.n - 1} for {', '.join(every)}"
          f"{' (launched on ' + launch + ')' if launch else ''}: {time.time() - start:.0f} s")
    print(pf.table(pf.summarize(outcomes, mismatches)))
    print("loops refused with a remark, by reason:")
    reasons = [s for o in outcomes for s in o.loops.values() if s.startswith("remark")]
    for reason, count in collections.Counter(reasons).most_common():
        print(f"  {count:6d}  {reason[8:]}")
    print("other compile errors (DSL limits or generator bugs):")
    for klass, items in pf.group(outcomes).items():
        if not any(o.bug for o in items):
            print(f"  {len(items):6d}  {klass}: seeds {sorted({o.seed for o in items})[:20]}")
    report = _failures(outcomes, mismatches, launch or targets[0], not opts.no_minimize)
    print(report or "no failures")
    return 1 if report else 0


if __name__ == "__main__":
    try:
        import kiln  # noqa: F401
    except ImportError:  # run from a checkout: its python/ folder
        sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    sys.exit(main())
