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
