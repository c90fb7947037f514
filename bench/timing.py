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
