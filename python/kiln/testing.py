"""``kiln.testing.do_bench`` and ``do_bench_cudagraph``: Triton's benchmarking helpers, with
Triton's arguments and return conventions, timed with torch's device events (torch exposes
both GPU vendors' devices as ``torch.cuda``; Kiln launches on torch's current stream).

Times are in milliseconds. With ``quantiles`` the result is the list of those quantiles
(one float when one quantile is asked for); otherwise ``return_mode`` picks "mean" (the
default), "median", "min", "max" or "all" (the list of every run's time).
"""

from __future__ import annotations

import math
import statistics

__all__ = ["do_bench", "do_bench_cudagraph"]

_RETURN_MODES = ("min", "max", "mean", "median", "all")
# Zeroing a buffer larger than any GPU's last-level cache before each timed run makes every
# run start from a cold cache, as Triton's benchmarks do.
_FLUSH_BYTES = 256 * 1024 * 1024


def _torch():
    try:
        import torch
    except ImportError as e:
        raise RuntimeError("kiln.testing.do_bench times kernels with torch's device events: "
                           f"install torch with GPU support ({e})") from None
    if not torch.cuda.is_available():
        raise RuntimeError("kiln.testing.do_bench needs a GPU, and torch sees none "
                           "(torch.cuda.is_available() is False)")
    return torch


def _quantiles(times, qs):
    ordered = sorted(times)
    last = len(ordered) - 1
    out = []
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles must be in [0, 1], got {q}")
        at = q * last
        lo, hi = math.floor(at), math.ceil(at)
        out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (at - lo))
    return out


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        out = _quantiles(times, quantiles)
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean,
            "median": statistics.median}[return_mode](times)


def _check_mode(return_mode):
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(_RETURN_MODES)}, "
                         f"got {return_mode!r}")


def _clear_grads(grad_to_none):
    for x in grad_to_none or ():
        x.grad = None


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Run ``fn`` for about ``warmup`` ms, then time about ``rep`` ms of runs one by one, the
    last-level cache flushed before each; ``grad_to_none`` tensors lose their ``.grad``
    before each run."""
    _check_mode(return_mode)
    torch = _torch()
    fn()
    torch.cuda.synchronize()
    flush = torch.empty(_FLUSH_BYTES // 4, dtype=torch.int, device="cuda")

    # How long one run takes, roughly, to choose how many runs fill warmup and rep.
    begin = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    begin.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(begin.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))

    for _ in range(n_warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        _clear_grads(grad_to_none)
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Capture about ``rep`` ms of ``fn`` runs in one device graph and time its replays (ten
    of them), which leaves the host's launch cost out; each result is the time of one run.
    No cache flush between runs, as in Triton."""
    _check_mode(return_mode)
    torch = _torch()
    import gc
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        for x in grad_to_none or ():
            x.detach_()
            x.requires_grad_(True)
            x.grad = None
        begin = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        estimate_ms = begin.elapsed_time(end) / 5
        n_repeat = 1000 if estimate_ms == 0 else max(1, int(rep / estimate_ms))
        graph = torch.cuda.CUDAGraph()
        collecting = gc.isenabled()
        gc.disable()  # a collection during capture may free tensors the graph uses
        try:
            with torch.cuda.graph(graph):
                for _ in range(n_repeat):
                    _clear_grads(grad_to_none)
                    fn()
        finally:
            if collecting:
                gc.enable()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            begin = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            begin.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(begin.elapsed_time(end) / n_repeat)
    return _summarize(times, quantiles, return_mode)
