#!/usr/bin/env python3
"""Hopper bf16 GEMM and TMA copy, Kiln against its peers, measured in one run.

* GEMM: C = A @ B^T with A [M, K] and B [N, K] random normal bf16 (M = N = K = 2048, 4096,
  8192 by default), bf16 out, fp32 accumulation. Columns, in TFLOP/s (2 * M * N * K / median
  time): ``torch.matmul(a, b.T)`` (cuBLAS), a Triton ``tl.dot`` kernel (below: 128x256x64
  tiles, 3 stages, 8 warps, grouped tile order, no autotuning), the Gluon kernel of
  bench/gluon_hopper.py (examples/hopper.py's text in Gluon: TMA + mbarrier ring + async
  wgmma, same tiles), Kiln's
  ``examples.hopper.kiln_matmul(a, b, BM=128, BN=256, BK=64, STAGES=3, num_warps=8)``, and
  the persistent forms of the Gluon and Kiln kernels (``gluon-persistent``: gluon_hopper's
  ``persistent_gemm_kernel``; ``kiln-persistent``: ``examples.hopper.kiln_persistent_matmul``;
  same tiles, min(SM count, tiles) programs each walking tiles with a stride of the grid,
  a tile's TMA store overlapping the next tile's main loop). Ratios: kiln/cuBLAS,
  kiln/gluon, kiln-persistent/cuBLAS and kiln-persistent/gluon-persistent.
* TMA copy: y = x for 8192x8192 bf16 and 16384x8192 fp32, in GB/s ((bytes read + written) /
  median time): Kiln's ``examples.hopper.kiln_tma_copy(x, block=(64, 128)) -> y``, Gluon's
  ``gluon_tma_copy`` (same block) and torch's ``y.copy_(x)``; ratios kiln/torch, kiln/gluon.

Runs on the GPU machine (Hopper) with torch and triton 3.6 (Gluon) installed:

    python3 bench/hopper_gemm.py [--sizes 2048,4096,8192] [--quick] [--only gemm|copy]
        [--copy-shapes 8192x8192:bf16,16384x8192:fp32] [--rounds 3] [--json PATH]

``--quick``: 2048 only, one copy shape, one round, shorter timing. Every implementation's
result is checked before it is timed, on fresh random inputs of its own (so a stale buffer
cannot pass for a result): the GEMM against the fp32 product a.float() @ b.float().T (no
TF32) with relative Frobenius error < 1e-2 and |c - ref| <= 1e-2 * |ref| + 1e-2 * sqrt(K)
everywhere; the copy exactly. A failed check prints FAIL instead of a number (and is not
timed); an exception prints ERR (its message below the table); an implementation that cannot
be imported prints ``-`` and the reason. Kiln's kernels are imported lazily from
examples/hopper (Kiln wheel installed, or a development checkout's python/ on the path); a
missing module leaves the Kiln columns empty and the other columns are still measured.

Rounds (``--rounds N``, default 3): after every side of a row (one size, or one copy shape)
has been checked, each is timed N times, the rounds interleaved (round 1: every side, round
2: every side, ...), so that a drift of the GPU's clocks or of the machine touches every side
alike. One timing is the median of ``triton.testing.do_bench(fn, return_mode="median")``
(bench/timing.py; it flushes L2 before every call), after half a second of GPU warm-up. The
table shows, per side, the rate of the median over rounds of those medians; a ratio is the
median over rounds of that round's ratio, followed by [min..max] over rounds. The JSON keeps
every round's ms and rate per side (``rounds``) and every round's ratio (``ratios``).

What is timed: the Triton and Gluon kernels are launched on arguments built once (for Gluon
the three TMA descriptors, whose construction costs ~100 us of host time a call on the H100
machine: through ``gluon_matmul`` a 2048^3 GEMM measured 160 TFLOP/s against 585 launched
alone); cuBLAS and torch's copy are whole calls. Kiln is timed through
``examples.hopper.kiln_matmul_launcher(a, b, **tile) -> (run, c)`` /
``kiln_persistent_matmul_launcher`` / ``kiln_tma_copy_launcher(x, block=, out=y) -> (run,
y)`` when the module has them, else through the whole ``kiln_matmul`` /
``kiln_persistent_matmul`` / ``kiln_tma_copy`` call; each table says which. Each side's host
time a call is kept in the JSON (host_us, the median of 30 calls); do_bench's L2 flush before
every timed call hides up to its own GPU time (flush_us, ~50-90 us) of host time, so a side
whose host time exceeds it has host time in its median, and is named under the table
(host_bound). JSON of all numbers goes to --json, else $OUT/hopper_gemm.json when $OUT is
set. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BENCH = os.path.dirname(os.path.abspath(__file__))
for _p in (_BENCH, _ROOT):  # bench/ (timing, gluon_hopper) and the root (examples.hopper)
    if _p not in sys.path:
        sys.path.insert(0, _p)

from timing import gbps, median_ms  # noqa: E402  (bench/timing.py)

DEFAULT_SIZES = (2048, 4096, 8192)
DEFAULT_COPY_SHAPES = ((8192, 8192, "bf16"), (16384, 8192, "fp32"))
TILE = dict(BM=128, BN=256, BK=64, STAGES=3, num_warps=8)
COPY_BLOCK = (64, 128)
GEMM_SIDES = ("cublas", "triton", "gluon", "kiln", "gluon-persistent", "kiln-persistent")
COPY_SIDES = ("kiln", "gluon", "torch")
# (numerator, denominator, key): the ratios of each table, per round and their median.
GEMM_RATIOS = (("kiln", "cublas", "kiln_vs_cublas"), ("kiln", "gluon", "kiln_vs_gluon"),
               ("kiln-persistent", "cublas", "kiln_persistent_vs_cublas"),
               ("kiln-persistent", "gluon-persistent", "kiln_persistent_vs_gluon_persistent"))
COPY_RATIOS = (("kiln", "torch", "kiln_vs_torch"), ("kiln", "gluon", "kiln_vs_gluon"))
FLUSH_US = [0.0]  # do_bench's L2 flush, measured in main()


# --- optional implementations (each import failure is recorded, not fatal) ---------------------


def _error(e):
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return text[0][:300] if text else type(e).__name__


try:
    import triton
    import triton.language as tl
    TRITON_ERROR = None
except Exception as e:  # triton absent
    triton = tl = None
    TRITON_ERROR = _error(e)

try:
    import gluon_hopper  # bench/gluon_hopper.py
    GLUON_ERROR = None
except Exception as e:  # triton absent or without Gluon's Hopper modules
    gluon_hopper = None
    GLUON_ERROR = _error(e)


def load_kiln():
    """{name: function or None} for examples.hopper's kiln_matmul, kiln_tma_copy, the
    optional kiln_persistent_matmul and the optional launch-only forms kiln_matmul_launcher /
    kiln_persistent_matmul_launcher / kiln_tma_copy_launcher (same arguments, returning
    (run, out) like gluon_hopper's), imported on first use, and the reason when kiln_matmul or
    kiln_tma_copy is missing."""
    names = ("kiln_matmul", "kiln_tma_copy", "kiln_matmul_launcher", "kiln_tma_copy_launcher",
             "kiln_persistent_matmul", "kiln_persistent_matmul_launcher")
    try:
        try:  # the installed wheel first; a development checkout otherwise
            import kiln  # noqa: F401
        except ImportError:
            sys.path.insert(0, os.path.join(_ROOT, "python"))
        import examples.hopper as hopper
    except Exception as e:
        return dict.fromkeys(names), _error(e)
    fns = {n: getattr(hopper, n, None) for n in names}
    missing = [n for n in names[:2] if fns[n] is None]
    return fns, (f"examples.hopper has no {', '.join(missing)}" if missing else None)


# --- the Triton tl.dot kernel -------------------------------------------------------------------

if triton is not None:
    @triton.jit
    def triton_matmul_kernel(a, b, c, M, N, K, stride_am, stride_bn, stride_cm,
                             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                             GROUP_M: tl.constexpr):
        """c[M, N] = a[M, K] @ b[N, K]^T, bf16 out, fp32 accumulation; unit stride along K
        and along c's rows. Rows of a and b past M, N wrap (their results are not stored);
        the K tail is masked to zero."""
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BM)
        num_pid_n = tl.cdiv(N, BN)
        tiles_per_group = GROUP_M * num_pid_n
        first_m = (pid // tiles_per_group) * GROUP_M
        group_rows = tl.minimum(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (pid % tiles_per_group) % group_rows
        pid_n = (pid % tiles_per_group) // group_rows
        rows = pid_m * BM + tl.arange(0, BM)
        cols = pid_n * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        a_ptrs = a + (rows % M)[:, None] * stride_am + ks[None, :]
        b_ptrs = b + (cols % N)[:, None] * stride_bn + ks[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            k_left = K - k * BK
            a_tile = tl.load(a_ptrs, mask=ks[None, :] < k_left, other=0.0)
            b_tile = tl.load(b_ptrs, mask=ks[None, :] < k_left, other=0.0)
            acc = tl.dot(a_tile, tl.trans(b_tile), acc)
            a_ptrs += BK
            b_ptrs += BK
        c_ptrs = c + rows[:, None] * stride_cm + cols[None, :]
        tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def triton_matmul_launcher(a, b, BM=128, BN=256, BK=64, num_stages=3, num_warps=8, GROUP_M=8):
    """(run, c): run() launches triton_matmul_kernel for c = a @ b.T (c made once)."""
    import torch
    assert a.is_contiguous() and b.is_contiguous() and a.shape[1] == b.shape[1]
    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)

    def run():
        triton_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                                   BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M,
                                   num_stages=num_stages, num_warps=num_warps)
        return c
    return run, c


# --- GEMM ---------------------------------------------------------------------------------------


def _kiln_side(kiln, name, tile):
    """(prepare, how run is timed, reason) for examples.hopper's ``name``: through
    ``name + "_launcher"`` when the module has it, else through the whole call."""
    if kiln[name + "_launcher"] is not None:
        return (lambda a, b: kiln[name + "_launcher"](a, b, **tile)[0]), "launch", None
    if kiln[name] is not None:
        return (lambda a, b: (lambda: kiln[name](a, b, **tile))), "call", None
    return None, None, f"examples.hopper has no {name}"


def gemm_impls(kiln):
    """{side: (prepare(a, b) -> run, or None; reason when None; how run is timed)}. run()
    computes C = a @ b.T and returns C. The Triton and Gluon launchers build their arguments
    (Gluon: the TMA descriptors) once, so their timings are of the kernel, not of the host
    set-up; Kiln's are too when examples.hopper has the *_launcher forms."""
    import torch
    t = TILE

    def cublas(a, b):
        c = torch.empty((a.shape[0], b.shape[0]), device=a.device, dtype=torch.bfloat16)
        return lambda: torch.matmul(a, b.T, out=c)

    def triton_side(a, b):
        return triton_matmul_launcher(a, b, BM=t["BM"], BN=t["BN"], BK=t["BK"],
                                      num_stages=t["STAGES"], num_warps=t["num_warps"])[0]

    def gluon_side(a, b):
        return gluon_hopper.gluon_matmul_launcher(a, b, **t)[0]

    def gluon_persistent_side(a, b):
        return gluon_hopper.gluon_persistent_matmul_launcher(a, b, **t)[0]

    kiln_side, kiln_mode, _ = _kiln_side(kiln, "kiln_matmul", t)
    kp_side, kp_mode, kp_reason = _kiln_side(kiln, "kiln_persistent_matmul", t)
    gp_side, gp_reason = gluon_persistent_side, None
    if gluon_hopper is None:
        gp_side, gp_reason = None, GLUON_ERROR
    elif not hasattr(gluon_hopper, "gluon_persistent_matmul_launcher"):
        gp_side, gp_reason = None, "gluon_hopper has no gluon_persistent_matmul_launcher"
    return {
        "cublas": (cublas, None, "call"),
        "triton": (triton_side if triton is not None else None, TRITON_ERROR, "launch"),
        "gluon": (gluon_side if gluon_hopper is not None else None, GLUON_ERROR, "launch"),
        "kiln": (kiln_side, None, kiln_mode),
        "gluon-persistent": (gp_side, gp_reason, "launch"),
        "kiln-persistent": (kp_side, kp_reason, kp_mode),
    }


def host_us(run, n=30):
    """Host time of one run() in us: the median over n calls of the time each call takes to
    return (no synchronization between calls; the GPU queue absorbs the work)."""
    import statistics
    import time
    import torch
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def flush_us():
    """GPU time in us of the L2 flush that do_bench runs before every timed call (0 without
    triton). A call whose host time exceeds it is issued after the GPU has gone idle, so its
    median includes host time."""
    import statistics
    import torch
    if triton is None:
        return 0.0
    driver = triton.runtime.driver.active
    cache = driver.get_empty_cache_for_benchmark()
    times = []
    for _ in range(20):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        driver.clear_cache(cache)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    del cache
    return statistics.median(times)


def gemm_inputs(M, N, K):
    import torch
    a = torch.randn((M, K), device="cuda", dtype=torch.bfloat16)
    b = torch.randn((N, K), device="cuda", dtype=torch.bfloat16)
    return a, b


def check_gemm(c, a, b):
    """(ok, rel_fro, worst) of c against the fp32 product: worst is the largest
    |c - ref| / (1e-2 * |ref| + 1e-2 * sqrt(K)) (<= 1 passes)."""
    import torch
    K = a.shape[1]
    if tuple(c.shape) != (a.shape[0], b.shape[0]):
        return False, float("nan"), float("nan")
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        ref = a.float() @ b.float().T
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    diff = c.float() - ref
    rel_fro = (torch.linalg.vector_norm(diff) / torch.linalg.vector_norm(ref)).item()
    worst = (diff.abs() / (1e-2 * ref.abs() + 1e-2 * math.sqrt(K))).max().item()
    finite = bool(torch.isfinite(c).all().item())
    del ref, diff
    return finite and rel_fro < 1e-2 and worst <= 1.0, rel_fro, worst


def time_rounds(row, runs, rounds, rep, rate_key, rate):
    """Time every run of runs ({side: run}, each checked) ``rounds`` times, interleaved (round
    1: every side, round 2: every side, ...), into row["sides"][side]: "rounds" (each round's
    ms and rate), "ms" (their median), rate_key (rate of that median), host time."""
    import statistics
    import torch
    sides = row["sides"]
    for _ in range(rounds):
        for side, run in runs.items():
            entry = sides[side]
            if "error" in entry:
                continue
            try:
                ms, entry["timer"] = median_ms(run, rep=rep)
            except Exception as e:  # a launch that fails only when timed
                entry["error"] = _error(e)
                continue
            entry.setdefault("rounds", []).append({"ms": ms, rate_key: rate(ms)})
    for side, run in runs.items():
        entry = sides[side]
        if "error" in entry or not entry.get("rounds"):
            continue
        entry["ms"] = statistics.median(r["ms"] for r in entry["rounds"])
        entry[rate_key] = rate(entry["ms"])
        try:
            entry["host_us"] = host_us(run)
            entry["host_bound"] = entry["host_us"] > FLUSH_US[0]
        except Exception as e:
            entry["error"] = _error(e)
    torch.cuda.synchronize()


def add_ratios(row, pairs, rate_key):
    """row[key] = the median over rounds of numerator/denominator (each round's rates), and
    row["ratios"][key] = {"median", "min", "max", "rounds"}; None where a side has no rate."""
    import statistics
    row.setdefault("ratios", {})
    for num, den, key in pairs:
        a, b = row["sides"][num], row["sides"][den]
        per = []
        if a.get(rate_key) and b.get(rate_key):
            per = [x[rate_key] / y[rate_key] for x, y in zip(a["rounds"], b["rounds"])]
        if per:
            row[key] = statistics.median(per)
            row["ratios"][key] = {"median": row[key], "min": min(per), "max": max(per),
                                  "rounds": per}
        else:
            row[key] = None
            row["ratios"][key] = None


def bench_gemm(size, impls, rep, rounds=1):
    """Every side checked on fresh inputs of its own, then timed ``rounds`` times,
    interleaved; a side's inputs stay allocated until the row is done."""
    import torch
    M = N = K = size
    flops = 2.0 * M * N * K
    row = {"M": M, "N": N, "K": K, "flops": flops, "rounds": rounds, "sides": {}}
    runs = {}
    for side in GEMM_SIDES:
        prepare, reason, mode = impls[side]
        entry = {}
        if prepare is None:
            entry["unavailable"] = reason or "not available"
        else:
            entry["timed"] = mode
            try:
                a, b = gemm_inputs(M, N, K)  # fresh inputs for every implementation
                run = prepare(a, b)
                c = run()
                torch.cuda.synchronize()
                ok, rel_fro, worst = check_gemm(c, a, b)
                entry.update(correct=ok, rel_fro=rel_fro, worst_err_over_tol=worst)
                del c
                if ok:
                    runs[side] = run
                del run, a, b
            except Exception as e:  # does not compile, launch or run
                entry["error"] = _error(e)
            torch.cuda.empty_cache()
        row["sides"][side] = entry
    time_rounds(row, runs, rounds, rep, "tflops", lambda ms: flops / (ms * 1e-3) / 1e12)
    del runs
    torch.cuda.empty_cache()
    add_ratios(row, GEMM_RATIOS, "tflops")
    return row


# --- TMA copy -----------------------------------------------------------------------------------


def copy_impls(kiln):
    """{side: (prepare(x, y) -> run, or None; reason when None; how run is timed)}; run()
    copies x and returns the copy (y, or a new tensor)."""
    block = COPY_BLOCK

    def gluon_side(x, y):
        return gluon_hopper.gluon_tma_copy_launcher(x, block=block, out=y)[0]

    if kiln["kiln_tma_copy_launcher"] is not None:
        kiln_side = lambda x, y: kiln["kiln_tma_copy_launcher"](x, block=block, out=y)[0]  # noqa: E731
        kiln_mode = "launch"
    elif kiln["kiln_tma_copy"] is not None:
        kiln_side = lambda x, y: (lambda: kiln["kiln_tma_copy"](x, block=block))  # noqa: E731
        kiln_mode = "call"
    else:
        kiln_side, kiln_mode = None, None
    return {
        "kiln": (kiln_side, None, kiln_mode),
        "gluon": (gluon_side if gluon_hopper is not None else None, GLUON_ERROR, "launch"),
        "torch": ((lambda x, y: (lambda: y.copy_(x))), None, "call"),
    }


def bench_copy(shape, impls, rep, rounds=1):
    import torch
    R, C, dt = shape
    tdt = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dt]
    elem = torch.empty((), dtype=tdt).element_size()
    nbytes = 2 * R * C * elem
    row = {"shape": [R, C], "dtype": dt, "bytes": nbytes, "block": list(COPY_BLOCK),
           "rounds": rounds, "sides": {}}
    runs = {}
    for side in COPY_SIDES:
        prepare, reason, mode = impls[side]
        entry = {}
        if prepare is None:
            entry["unavailable"] = reason or "not available"
        else:
            entry["timed"] = mode
            try:
                x = torch.randn((R, C), device="cuda").to(tdt)  # fresh input per side
                y = torch.full_like(x, float("nan"))
                run = prepare(x, y)
                out = run()
                torch.cuda.synchronize()
                entry["correct"] = bool(out is not None and out.shape == x.shape
                                        and torch.equal(out, x))
                del out
                if entry["correct"]:
                    runs[side] = run
                del run, x, y
            except Exception as e:
                entry["error"] = _error(e)
            torch.cuda.empty_cache()
        row["sides"][side] = entry
    time_rounds(row, runs, rounds, rep, "gbps", lambda ms: gbps(nbytes, ms))
    del runs
    torch.cuda.empty_cache()
    add_ratios(row, COPY_RATIOS, "gbps")
    return row


# --- report -------------------------------------------------------------------------------------


def _cell(entry, key, fmt):
    if "unavailable" in entry:
        return "-"
    if "error" in entry:
        return "ERR"
    if entry.get("correct") is False:
        return "FAIL"
    value = entry.get(key)
    return format(value, fmt) if value is not None else "-"


def _ratio(info):
    """The median ratio over rounds, then [min..max] over rounds when there are several."""
    if not info:
        return "-"
    if len(info["rounds"]) < 2:
        return f"{info['median']:.3f}"
    return f"{info['median']:.3f} [{info['min']:.3f}..{info['max']:.3f}]"


def _problems(rows, label):
    seen = set()
    for r in rows:
        for side, entry in r["sides"].items():
            if "error" in entry:
                print(f"    {label(r)} {side}: {entry['error']}")
            elif entry.get("correct") is False:
                extra = ""
                if "rel_fro" in entry:
                    extra = (f" (rel. Frobenius error {entry['rel_fro']:.3g}, worst error / "
                             f"tolerance {entry['worst_err_over_tol']:.3g})")
                print(f"    {label(r)} {side}: WRONG RESULT, not timed{extra}")
            elif "unavailable" in entry and side not in seen:
                seen.add(side)
                print(f"    {side} unavailable: {entry['unavailable']}")
            elif entry.get("host_bound"):
                print(f"    {label(r)} {side}: host time {entry['host_us']:.0f} us a call exceeds "
                      f"the {FLUSH_US[0]:.0f} us L2 flush before it: its median "
                      f"({entry['ms'] * 1e3:.0f} us) may include host time ({MODES[entry['timed']]})")


def _print_modes(rows, sides):
    modes = {}
    for r in rows:
        for side in sides:
            modes.setdefault(side, r["sides"][side].get("timed"))
    text = ", ".join(f"{side} {MODES[m]}" for side, m in modes.items() if m)
    if text:
        print(f"    timed: {text}")


MODES = {"launch": "kernel launch on prebuilt arguments",
         "call": "whole call (host set-up included)"}


SHORT = {"cublas": "cuBLAS", "gluon-persistent": "gluon-p", "kiln-persistent": "kiln-p"}


def _print_table(rows, name, sides, rate_key, fmt, ratios):
    """One line a row of each side's rate (median over rounds), then one line a row of the
    ratios (median over rounds [min..max])."""
    width = 16 if name == "shape" else 6
    heads = ["cuBLAS" if s == "cublas" else s for s in sides]
    cols = [max(8, len(h)) for h in heads]
    print(f"{name:>{width}} " + " ".join(f"{h:>{w}}" for h, w in zip(heads, cols)))
    for r in rows:
        s = r["sides"]
        print(f"{r['label']:>{width}} "
              + " ".join(f"{_cell(s[k], rate_key, fmt):>{w}}" for k, w in zip(sides, cols)))
    rounds = max((r.get("rounds", 1) for r in rows), default=1)
    labels = [f"{SHORT.get(a, a)}/{SHORT.get(b, b)}" for a, b, _ in ratios]
    cells = [[_ratio(r["ratios"].get(key)) for _, _, key in ratios] for r in rows]
    cols = [max([len(lab)] + [len(c[i]) for c in cells]) for i, lab in enumerate(labels)]
    what = f"median of {rounds} rounds [min..max]" if rounds > 1 else "1 round"
    legend = "; -p = -persistent" if any(s in SHORT for s in sides if s != "cublas") else ""
    print(f"  ratios ({what}{legend}):")
    print(f"{name:>{width}} " + "  ".join(f"{lab:>{w}}" for lab, w in zip(labels, cols)))
    for r, c in zip(rows, cells):
        print(f"{r['label']:>{width}} " + "  ".join(f"{v:>{w}}" for v, w in zip(c, cols)))


def _rounds_text(rounds):
    return f"median over {rounds} interleaved rounds" if rounds > 1 else "1 round"


def print_gemm(rows):
    rounds = max((r.get("rounds", 1) for r in rows), default=1)
    print(f"\nbf16 GEMM C = A @ B^T (A [M,K], B [N,K], fp32 accumulate), TFLOP/s of the median "
          f"time ({_rounds_text(rounds)})")
    for r in rows:
        r["label"] = str(r["M"])
    _print_table(rows, "M=N=K", GEMM_SIDES, "tflops", ".1f", GEMM_RATIOS)
    _print_modes(rows, GEMM_SIDES)
    _problems(rows, lambda r: f"{r['M']}^3")


def print_copy(rows):
    rounds = max((r.get("rounds", 1) for r in rows), default=1)
    print(f"\nTMA copy y = x, block {COPY_BLOCK[0]}x{COPY_BLOCK[1]}, GB/s = (bytes read + written)"
          f" / median time ({_rounds_text(rounds)})")
    for r in rows:
        r["label"] = f"{r['shape'][0]}x{r['shape'][1]} {r['dtype']}"
    _print_table(rows, "shape", COPY_SIDES, "gbps", ".0f", COPY_RATIOS)
    _print_modes(rows, COPY_SIDES)
    _problems(rows, lambda r: r["label"])


# --- main ---------------------------------------------------------------------------------------


def warm_up_gpu(seconds=0.5):
    """Busy the GPU for a moment so that the first measurement does not see idle clocks."""
    import time
    import torch
    x = torch.randn((4096, 4096), device="cuda", dtype=torch.bfloat16)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(10):
            torch.matmul(x, x)
        torch.cuda.synchronize()
    del x


def _copy_shape(text):
    dims, _, dt = text.partition(":")
    r, _, c = dims.lower().partition("x")
    return int(r), int(c), (dt or "bf16")


def main(argv=None, json_name="hopper_gemm.json"):
    ap = argparse.ArgumentParser(description="Hopper bf16 GEMM (cuBLAS, Triton, Gluon, Kiln, "
                                             "persistent Gluon and Kiln) and TMA copy (Kiln, "
                                             "Gluon, torch)")
    ap.add_argument("--sizes", default=None,
                    help="comma-separated M=N=K list (default 2048,4096,8192)")
    ap.add_argument("--copy-shapes", default=None,
                    help="comma-separated RxC:dtype list (default 8192x8192:bf16,"
                         "16384x8192:fp32; dtype bf16, fp16 or fp32)")
    ap.add_argument("--quick", action="store_true",
                    help="2048 only, one copy shape, one round, shorter timing")
    ap.add_argument("--rounds", type=int, default=None,
                    help="times each side is timed, rounds interleaved across the sides of a "
                         "row (default 3, 1 with --quick); the table shows the median")
    ap.add_argument("--only", choices=["gemm", "copy"], default=None)
    ap.add_argument("--rep", type=int, default=None, help="do_bench rep (ms; default 200, "
                                                          "50 with --quick)")
    ap.add_argument("--stages", type=int, default=None,
                    help="ring depth of the Triton, Gluon and Kiln kernels (default 3)")
    ap.add_argument("--json", default=None,
                    help=f"write results here (default: $OUT/{json_name} if OUT is set)")
    args = ap.parse_args(argv)

    sizes = ([int(s) for s in args.sizes.split(",") if s] if args.sizes
             else [2048] if args.quick else list(DEFAULT_SIZES))
    copy_shapes = ([_copy_shape(s) for s in args.copy_shapes.split(",") if s] if args.copy_shapes
                   else list(DEFAULT_COPY_SHAPES[:1] if args.quick else DEFAULT_COPY_SHAPES))
    rep = args.rep or (50 if args.quick else 200)
    rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
    if rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.stages is not None:
        if args.stages < 2:
            ap.error("--stages must be at least 2")
        TILE["STAGES"] = args.stages

    import torch
    torch.cuda.init()  # make torch's context current before Kiln's driver looks
    kiln, kiln_error = load_kiln()
    print(f"device: {torch.cuda.get_device_name()} (sm_{''.join(map(str, torch.cuda.get_device_capability()))}); "
          f"torch {torch.__version__}, triton {getattr(triton, '__version__', '-')}")
    if kiln_error:
        print(f"kiln: {kiln_error}")
    if GLUON_ERROR:
        print(f"gluon unavailable: {GLUON_ERROR}")
    if TRITON_ERROR:
        print(f"triton unavailable: {TRITON_ERROR}")
    warm_up_gpu()
    FLUSH_US[0] = flush_us()

    gemm, copy = [], []
    if args.only in (None, "gemm"):
        impls = gemm_impls(kiln)
        if kiln["kiln_matmul"] is None:
            impls["kiln"] = (None, kiln_error, None)
        if not any(kiln.values()):  # examples.hopper not importable: say why
            impls["kiln-persistent"] = (None, kiln_error, None)
        for size in sizes:
            gemm.append(bench_gemm(size, impls, rep, rounds))
        print_gemm(gemm)
    if args.only in (None, "copy"):
        impls = copy_impls(kiln)
        if kiln["kiln_tma_copy"] is None:
            impls["kiln"] = (None, kiln_error, None)
        for shape in copy_shapes:
            copy.append(bench_copy(shape, impls, rep, rounds))
        print_copy(copy)

    timer = next((e.get("timer") for r in gemm + copy for e in r["sides"].values()
                  if e.get("timer")), "-")
    print(f"\ntimer: {timer}, {rounds} round{'s' if rounds > 1 else ''} of every side "
          f"(interleaved); tiles {TILE}; checked before timing on fresh random inputs")
    path = args.json or (os.path.join(os.environ["OUT"], json_name)
                         if os.environ.get("OUT") else None)
    if path:
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "flush_us": FLUSH_US[0],
                       "torch": torch.__version__,
                       "triton": getattr(triton, "__version__", None),
                       "kiln_error": kiln_error, "gluon_error": GLUON_ERROR,
                       "triton_error": TRITON_ERROR, "tile": TILE, "rounds": rounds,
                       "copy_block": list(COPY_BLOCK), "gemm": gemm, "copy": copy},
                      f, indent=2)
        print(f"wrote {path}")
    wrong = any(e.get("correct") is False for r in gemm + copy for e in r["sides"].values())
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
