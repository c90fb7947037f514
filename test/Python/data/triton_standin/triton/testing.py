"""triton.testing.do_bench's interface, timed on the host (no GPU here)."""

import statistics
import time


def do_bench(fn, warmup=25, rep=100, quantiles=None, return_mode="mean"):
    fn()
    times = []
    for _ in range(5):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    if quantiles is not None:
        ordered = sorted(times)
        return [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in quantiles]
    return statistics.fmean(times)
