"""Timing shared by the bench scripts: the median of many launches, measured the same way for
every side of a comparison."""

from __future__ import annotations

import statistics


def median_ms(fn, warmup=25, rep=200):
    """Median time of fn() in ms: triton's do_bench if importable, else CUDA events.
    Returns (ms, timer name)."""
    try:
        from triton.testing import do_bench
    except Exception:  # triton absent or broken: time with CUDA events
        do_bench = None
    if do_bench is not None:
        return float(do_bench(fn, warmup=warmup, rep=rep, return_mode="median")), "do_bench"
    import torch
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(100):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), "cuda-events"


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def ncu_locked_ns(cmd, kernel, env=None):
    """Run cmd (a child that launches the kernels to time inside an NVTX range "timed") under
    Nsight Compute with the GPU's clocks locked at base (``--clock-control base``); returns
    gpu__time_duration of every launch whose name matches ``kernel`` (an ncu -k filter, e.g.
    "regex:gemm"), in ns, in launch order. Raises RuntimeError when ncu fails or times
    nothing."""
    import csv
    import io
    import subprocess
    full = ["ncu", "--clock-control", "base", "--metrics", "gpu__time_duration.sum", "--csv",
            "--page", "raw", "-k", kernel, "--nvtx", "--nvtx-include", "timed/", *cmd]
    out = subprocess.run(full, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"ncu exit {out.returncode}: {(out.stderr or out.stdout)[-600:]}")
    rows = list(csv.DictReader(io.StringIO(out.stdout[out.stdout.find('"ID"'):])))
    unit = rows[0].get("gpu__time_duration.sum", "ns").strip() if rows else "ns"
    scale = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6,
             "msecond": 1e6}.get(unit, 1.0)
    times = []
    for row in rows:
        try:
            times.append(float(row.get("gpu__time_duration.sum", "").replace(",", "")) * scale)
        except ValueError:
            continue  # the units row
    if not times:
        raise RuntimeError(f"no kernel timed:\n{out.stdout[-600:]}")
    return times


def gemm_sides(makers, a, b, label, tol=1e-2, scale=1.0):
    """{name: run} of the GEMM sides ``makers`` ({name: make(a, b, c) -> run}) whose result
    ``c = scale * a @ b.T`` (bf16, a fresh NaN-filled output each) is within ``tol`` relative
    error of fp32 torch; a side that fails says why (with ``label``) and is left out."""
    import torch
    ref = (a.float() @ b.float().T) * scale
    runs = {}
    for name, make in makers.items():
        c = torch.full(tuple(ref.shape), float("nan"), device=a.device, dtype=torch.bfloat16)
        try:
            run = make(a, b, c)
            run()
            torch.cuda.synchronize()
            err = ((c.float() - ref).norm() / ref.norm()).item()
            if not err < tol:
                raise AssertionError(f"relative error {err:.3g}")
            runs[name] = run
        except Exception as e:
            print(f"  {name} failed at {label}: {type(e).__name__}: {str(e)[:400]}")
    return runs


def interleaved_tflops(runs, flop, rounds):
    """{name: [TFLOP/s per round]}: every side timed once a round (do_bench's median), the
    rounds interleaved so that clock drift hits all sides alike."""
    from triton.testing import do_bench
    out = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            out[name].append(flop / do_bench(run, return_mode="median") / 1e9)
    return out



def best_side(rounds, pick):
    """The side ``pick`` accepts with the highest median in {side: [TFLOP/s per round]}, or
    None."""
    sides = [s for s in rounds if pick(s)]
    return max(sides, key=lambda s: statistics.median(rounds[s])) if sides else None


def best_ratio(rounds, mine, theirs):
    """(my best side, their best side, the median over rounds of mine / theirs) for the sides
    ``mine`` and ``theirs`` accept (best by median), or None when either has none."""
    a, b = best_side(rounds, mine), best_side(rounds, theirs)
    if a is None or b is None:
        return None
    return a, b, statistics.median(x / y for x, y in zip(rounds[a], rounds[b]))
