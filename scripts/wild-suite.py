#!/usr/bin/env python3
"""Run the wild corpus (Gluon kernels of projects other than Triton, pinned by
scripts/wild-corpus.py) on the GPU machine: each case once with Triton on the original file and
once with Kiln on its import-swapped copy, both checked against the case's torch reference, and
print one table.

    python3 scripts/wild-corpus.py restore            # here: build/wild/src + build/wild/kiln
    # on the GPU machine, with build/wild carried and the Kiln wheel installed:
    python3 scripts/wild-suite.py [--out DIR] [--cases NAME,...] [--budget SECONDS]

that is, with dist/ built here by scripts/wheel.sh and the checkout, dist/ and build/wild copied
to the GPU machine, there from the repository root (about 2.5 minutes of GPU time):

    python3 -m pip install -q --no-index --no-deps --force-reinstall dist/kiln-*.whl
    python3 scripts/wild-suite.py --timeout 120 --budget 200 --jobs 10   # into build/wild/results

A case is test/wild/cases/<name>.py (test/wild/harness.py says what it defines). NVIDIA cases
launch the kernel the way its project does and are timed: kernel µs is the median of
CUDA-event-timed launches after warm-up, host µs the wall time of N back-to-back launches
without synchronizing, divided by N. AMD cases (no AMD GPU here) compile only, for the case's
gfx942/gfx950 target, and compare VGPRs, spills, LDS bytes, MFMA and s_waitcnt counts.

Every case and side runs in its own subprocess with a timeout, so one failure never stops the
others; a failure keeps its first error line and the kernel file:line it names. The table and
every detail (tracebacks included) go to DIR/wild-suite.txt and DIR/wild-suite.json, the
subprocess logs to DIR/wild-logs.tar.gz.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import importlib.util
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(ROOT, "test", "wild", "cases")
HARNESS = os.path.join(ROOT, "test", "wild", "harness.py")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def discover(only=None):
    sys.path.insert(0, CASES)
    sys.path.insert(0, os.path.dirname(CASES))
    cases = []
    for fname in sorted(os.listdir(CASES)):
        if not fname.endswith(".py") or fname.startswith("_"):
            continue
        name = fname[:-3]
        if only and name not in only:
            continue
        mod = _load(os.path.join(CASES, fname), f"wild_case_{name}")
        cases.append({"name": name, "project": mod.PROJECT, "target": mod.TARGET,
                      "kind": mod.KIND, "doc": (mod.__doc__ or "").strip().split("\n")[0]})
    return cases


def _env():
    env = dict(os.environ)
    # Kiln comes from the installed wheel, never from the checkout's python/ folder.
    path = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.realpath(p) != os.path.realpath(os.path.join(ROOT, "python"))]
    env["PYTHONPATH"] = os.pathsep.join(path)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_one(case, side, dest, work, timeout):
    tree = "src" if side == "triton" else "kiln"
    root = os.path.join(dest, tree, case["project"])
    out = os.path.join(work, f"{case['name']}.{side}.json")
    log = os.path.join(work, f"{case['name']}.{side}.log")
    if os.path.exists(out):
        os.remove(out)
    cmd = [sys.executable, HARNESS, case["name"], side, "--root", root, "--out", out]
    t0 = time.time()
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                env=_env(), cwd=ROOT).returncode
        except subprocess.TimeoutExpired:
            rc = None
    wall = round(time.time() - t0, 1)
    if os.path.exists(out):
        with open(out) as f:
            res = json.load(f)
    else:
        tail = open(log).read().strip().splitlines()[-1:] if os.path.exists(log) else []
        why = (f"timed out after {timeout}s" if rc is None
               else f"the harness exited {rc} without a result: {tail[0] if tail else ''}")
        res = {"case": case["name"], "side": side, "ok": False, "error": why, "stage": "harness"}
    res["wall_s"] = wall
    return res


def _fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def _status(r):
    if r is None:
        return "skipped"
    if r.get("ok"):
        return "ok"
    where = f" [{r['where']}]" if r.get("where") else ""
    return f"{r.get('error', 'error')}{where}"


def table(cases, results):
    lines = []
    hdr = (f"{'case':30} {'target':7} {'Triton':8} {'max err T/K':17} {'kernel us T/K':19} "
           f"{'K/T':6} {'host us T/K':15} Kiln")
    lines += [hdr, "-" * len(hdr)]
    for c in cases:
        t, k = results.get((c["name"], "triton")), results.get((c["name"], "kiln"))
        tst = "ok" if t and t.get("ok") else ("skipped" if t is None else "error")
        kst = _status(k)
        if c["kind"] == "run":
            err = f"{_fmt(t and t.get('max_error'), '.2g')}/{_fmt(k and k.get('max_error'), '.2g')}"
            tk, kk = t and t.get("kernel_us"), k and k.get("kernel_us")
            ratio = _fmt(kk / tk, ".2f") if tk and kk and k.get("ok") and t.get("ok") else "-"
            th, kh = t and t.get("host_us"), k and k.get("host_us")
            lines.append(f"{c['name']:30} {c['target']:7} {tst:8} {err:17} "
                         f"{_fmt(tk) + '/' + _fmt(kk):19} {ratio:6} "
                         f"{_fmt(th) + '/' + _fmt(kh):15} {kst}")
        else:
            lines.append(f"{c['name']:30} {c['target']:7} {tst:8} {'(compile only)':17} "
                         f"{'-':19} {'-':6} {'-':15} {kst}")
            tk = (t or {}).get("kernels") or {}
            kk = (k or {}).get("kernels") or {}
            for label in sorted(set(tk) | set(kk)):
                a, b = tk.get(label, {}), kk.get(label, {})
                cols = []
                for key, short in (("vgprs", "vgpr"), ("agprs", "agpr"), ("vgpr_spills", "spill"),
                                   ("lds_bytes", "lds"), ("mfma", "mfma"),
                                   ("s_waitcnt", "waitcnt"), ("vmcnt0", "vmcnt0"),
                                   ("compile_s", "s")):
                    cols.append(f"{short} {_fmt(a.get(key), 'g')}/{_fmt(b.get(key), 'g')}")
                lines.append(f"    {label:26} T/K: " + ", ".join(cols))
    return lines


def causes(cases, results):
    """Kiln's first errors on the cases Triton passes, grouped (digits and names blurred)."""
    groups = collections.defaultdict(list)
    for c in cases:
        t, k = results.get((c["name"], "triton")), results.get((c["name"], "kiln"))
        if t and t.get("ok") and k and not k.get("ok"):
            key = re.sub(r"\S+\.py:\d+(:\d+)?: (error: )?", "", k.get("error", "?"))
            key = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", key)
            key = re.sub(r"\d+", "N", key)
            groups[key].append(c["name"])
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def _ptxas_release(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    m = re.search(r"release ([0-9.]+)", out)
    return m.group(1) if m else "?"


def ptxas_line():
    """Which ptxas each side assembles with: the kernel time of one PTX differs by several
    percent between ptxas releases, so a comparison names them."""
    kiln = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or next(
        (p for p in (os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "ptxas"),
                     "/usr/local/cuda/bin/ptxas") if os.access(p, os.X_OK)), None)
    triton = os.environ.get("TRITON_PTXAS_PATH")
    spec = importlib.util.find_spec("triton")
    if not triton and spec and spec.origin:
        bundled = os.path.join(os.path.dirname(spec.origin), "backends", "nvidia", "bin", "ptxas")
        triton = bundled if os.access(bundled, os.X_OK) else None
    sides = [f"{name} {path} (release {_ptxas_release(path)})" if path else f"{name} none"
             for name, path in (("Kiln", kiln), ("Triton", triton))]
    return "ptxas: " + "; ".join(sides)


def _median_of_rounds(runs):
    """One result for a side's rounds: the first that ran, with the median kernel and host
    times of the rounds that ran correctly (each round's times kept in ``rounds``)."""
    done = [r for r in runs if r is not None]
    if not done:
        return None
    ok = [r for r in done if r.get("ok") and r.get("kernel_us") is not None]
    if len(done) == 1 or not ok:
        return done[0]
    out = dict(ok[0])
    for field in ("kernel_us", "host_us"):
        values = [r[field] for r in ok if r.get(field) is not None]
        if values:
            out[field] = statistics.median(values)
            out[f"{field}_rounds"] = values
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", default=os.path.join(ROOT, "build", "wild"),
                    help="where wild-corpus.py restored the corpus")
    ap.add_argument("--out", default=os.environ.get("OUT", os.path.join(ROOT, "build", "wild",
                                                                        "results")))
    ap.add_argument("--cases", help="comma-separated case names (default: all)")
    ap.add_argument("--sides", default="triton,kiln")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per case and side")
    ap.add_argument("--budget", type=int, default=0,
                    help="start no case after this many seconds (0: no limit)")
    ap.add_argument("--jobs", type=int, default=6, help="compile-only cases run in parallel")
    ap.add_argument("--rounds", type=int, default=1,
                    help="timed cases: run each side this many times, the sides' order "
                         "alternating, and report the median of the rounds' kernel and host "
                         "times (one process's timings drift with the GPU's clock and the "
                         "host's load)")
    args = ap.parse_args(argv)
    dest = os.path.abspath(args.dest)
    if not os.path.isdir(os.path.join(dest, "src")):
        print(f"{dest}/src is missing: run `python3 scripts/wild-corpus.py restore --dest {dest}` "
              f"where the mirrors are, and carry {os.path.relpath(dest, ROOT)} to this machine")
        return 2
    corpus = _load(os.path.join(HERE, "wild-corpus.py"), "wild_corpus")
    corpus.write_kiln_copies(dest)  # always the current swap
    only = set(args.cases.split(",")) if args.cases else None
    cases = discover(only)
    sides = [s for s in args.sides.split(",") if s]
    work = os.path.join(dest, "results")
    os.makedirs(work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    results = {}

    def over_budget():
        return args.budget and time.time() - start > args.budget

    def job(c, side):
        if over_budget():
            return None
        r = run_one(c, side, dest, work, args.timeout)
        print(f"[{time.time() - start:6.1f}s] {c['name']:30} {side:6} {_status(r)[:150]}",
              flush=True)
        return r

    compile_cases = [c for c in cases if c["kind"] == "compile"]
    run_cases = [c for c in cases if c["kind"] == "run"]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futs = {pool.submit(job, c, s): (c["name"], s) for c in compile_cases for s in sides}
        for fut, key in futs.items():
            results[key] = fut.result()
    for c in run_cases:  # one at a time: they are timed
        rounds = {s: [] for s in sides}
        for k in range(max(1, args.rounds)):
            for s in (sides if k % 2 == 0 else sides[::-1]):
                rounds[s].append(job(c, s))
        for s in sides:
            results[(c["name"], s)] = _median_of_rounds(rounds[s])

    lines = table(cases, results)
    if args.rounds > 1 and run_cases:
        lines += ["", f"kernel and host us of the timed cases: the median of {args.rounds} "
                      f"rounds, each side in its own process, the sides' order alternating"]
    if any(c.get("target", "").startswith("sm_") for c in cases):
        lines += ["", ptxas_line()]
    grouped = causes(cases, results)
    n_t = sum(1 for c in cases if (results.get((c["name"], "triton")) or {}).get("ok"))
    n_k = sum(1 for c in cases if (results.get((c["name"], "kiln")) or {}).get("ok"))
    lines += ["", f"{len(cases)} cases: Triton ok {n_t}, Kiln ok {n_k} "
                  f"({time.time() - start:.0f}s)", "",
              "Kiln's first errors on cases Triton passes, by cause:"]
    for key, names in grouped:
        lines.append(f"{len(names):4}  {key}  ({', '.join(names)})")
    bad = [(c["name"], results.get((c["name"], "triton"))) for c in cases]
    bad = [(n, r) for n, r in bad if r is not None and not r.get("ok")]
    if bad:
        lines += ["", "Triton's own failures:"]
        lines += [f"      {n}: {_status(r)}" for n, r in bad]
    text = "\n".join(lines)
    print("\n" + text)
    with open(os.path.join(args.out, "wild-suite.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "wild-suite.json"), "w") as f:
        json.dump({"cases": cases,
                   "results": {f"{n}.{s}": r for (n, s), r in results.items()},
                   "causes": [{"error": k, "cases": v} for k, v in grouped]},
                  f, indent=1, default=str)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in sorted(os.listdir(work)):
            tar.add(os.path.join(work, name), arcname=f"wild-logs/{name}")
    with open(os.path.join(args.out, "wild-logs.tar.gz"), "wb") as f:
        f.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
