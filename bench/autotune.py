#!/usr/bin/env python3
"""kiln.autotune on a GPU machine: what it picks, what tuning costs, and reuse by a new process.

    python3 bench/autotune.py [--quick] [--only gemm|softmax] [--rounds 3] [--workers 16]
    python3 bench/autotune.py --compile-only   # without a GPU: every config compiles for sm_90a

Run on a GPU machine (Hopper) with the Kiln wheel, torch and Triton 3.6 installed. The kernels
are Gluon code (SOURCE), loaded twice from the same text: with ``import kiln as gluon`` /
``from kiln import language as gl``, and with ``triton.experimental.gluon``. gemm: C = A @ B^T,
bf16, 4096^3, TMA ring + async wgmma; a host descriptor fixes the block shape, so the kernel
takes descriptors for two tiles (128x256x64, 128x128x64) and the config's TILE picks one.
softmax: rows of 8192 x 4096 bf16. Every output is checked against torch before it is timed.

1. Tuning wall time (the first launch through the tuner, synchronized) from empty caches (a
   fresh KILN_CACHE_DIR, TRITON_CACHE_DIR and kernel module each; both compilers warmed up
   first, in process): Kiln with compile_workers=1 and with --workers, and ``triton.autotune``;
   each tuner times with its framework's do_bench, same warmup/rep.
2. The pick against every config launched fixed, timed with kiln.testing.do_bench in --rounds
   rounds: picked / best fixed and launched-through-the-tuner / best fixed, medians of rounds.
3. This script in a new process with the same KILN_CACHE_DIR: its launch time, and what its
   autotuner compiled and timed. 4. Redis sharing is not run here (the last line says where).
A Triton failure prints a line and the rest runs. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The kernels, Gluon code; HEADERS binds its names to Kiln or to Triton's Gluon. The GEMM is
# the textbook TMA + wgmma ring of examples/hopper.py written again here, not imported: that
# module's kernels are bound to Kiln's names, and Triton's autotuner must tune the same source.
SOURCE = r'''

@gluon.jit
def _tile_start(pid, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
    """(row, column) where program pid's C tile starts: GROUP_M row blocks walk each column."""
    rows = gl.cdiv(M, BM)
    per_group = GROUP_M * gl.cdiv(N, BN)
    first = (pid // per_group) * GROUP_M
    height = gl.minimum(rows - first, GROUP_M)
    return (first + (pid % per_group) % height) * BM, ((pid % per_group) // height) * BN


@gluon.jit
def gemm_kernel(a0, b0, c0, a1, b1, c1, M, N, K, TILE: gl.constexpr, STAGES: gl.constexpr,
                GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    """C = A @ B^T, one C tile a program, with the descriptors (a0, b0, c0) or (a1, b1, c1)."""
    a_desc, b_desc, c_desc = (a0, b0, c0) if TILE == 0 else (a1, b1, c1)
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    off_m, off_n = _tile_start(gl.program_id(0), M, N, BM, BN, GROUP_M)
    a_ring = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_ring = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BN, BK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
    nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    steps = gl.cdiv(K, BK)
    for s in gl.static_range(STAGES - 1):  # k-steps 0 .. STAGES-2 in flight
        live = steps > s
        mbarrier.expect(ready.index(s), nbytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, s * BK], ready.index(s),
                                        a_ring.index(s), pred=live)
        tma.async_copy_global_to_shared(b_desc, [off_n, s * BK], ready.index(s),
                                        b_ring.index(s), pred=live)
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BN, 16])
    acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
    for i in range(steps):
        slot = i % STAGES
        mbarrier.wait(ready.index(slot), (i // STAGES) & 1)
        acc = warpgroup_mma(a_ring.index(slot), b_ring.index(slot).permute((1, 0)), acc,
                            is_async=True)
        # Step i-1's wgmma is done with its slot, which now takes step i + STAGES - 1.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
        if num_warps > 4:
            gl.thread_barrier()  # every warpgroup past its wait before the refill
        nxt = i + STAGES - 1
        live = nxt < steps
        ns = nxt % STAGES
        mbarrier.expect(ready.index(ns), nbytes, pred=live)
        tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK], ready.index(ns),
                                        a_ring.index(ns), pred=live)
        tma.async_copy_global_to_shared(b_desc, [off_n, nxt * BK], ready.index(ns),
                                        b_ring.index(ns), pred=live)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def softmax_kernel(out, inp, M, N, stride, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                   num_warps: gl.constexpr):
    """Row softmax of BLOCK_M rows a program (N <= BLOCK_N), fp32 math."""
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [1, 32], [1, num_warps], [1, 0])
    rows = gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, gl.SliceLayout(1, layout))
    cols = gl.arange(0, BLOCK_N, gl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    x = gl.load(inp + offs, mask=mask, other=float("-inf")).to(gl.float32)
    e = gl.exp(x - gl.max(x, axis=1)[:, None])
    y = e / gl.sum(e, axis=1)[:, None]
    gl.store(out + offs, y.to(out.dtype.element_ty), mask=mask)


def gemm_descriptors(a, b, c, tile):
    """Host TMA descriptors of A [M, K], B [N, K], C [M, N] for a (BM, BN, BK) tile."""
    BM, BN, BK = tile

    def desc(t, block):
        layout = gl.NVMMASharedLayout.get_default_for(block, gl.bfloat16)
        return TensorDescriptor(t, list(t.shape), list(t.stride()), block, layout)
    return desc(a, [BM, BK]), desc(b, [BN, BK]), desc(c, [BM, BN])
'''

_HOPPER = ("mbarrier, tma, warpgroup_mma, warpgroup_mma_wait, fence_async_shared\n")
HEADERS = {
    "kiln": "import kiln as gluon\nfrom kiln import language as gl\n"
            "from kiln.language.nvidia.hopper import " + _HOPPER +
            "from kiln.nvidia.hopper import TensorDescriptor\n",
    "triton": "from triton.experimental import gluon\n"
              "from triton.experimental.gluon import language as gl\n"
              "from triton.experimental.gluon.language.nvidia.hopper import " + _HOPPER +
              "from triton.experimental.gluon.nvidia.hopper import TensorDescriptor\n",
}

GEMM_SIZE, SOFTMAX_SHAPE = 4096, (8192, 4096)
TILES = ((128, 256, 64), (128, 128, 64))  # (BM, BN, BK) of TILE 0 and TILE 1
# GEMM configs as (TILE, STAGES, GROUP_M, num_warps); softmax as (BLOCK_M, num_warps).
GEMM = [(0, 3, 8, 8), (0, 2, 8, 8), (0, 3, 1, 8), (1, 4, 8, 4), (1, 3, 8, 4), (1, 4, 8, 8),
        (1, 2, 1, 4), (1, 5, 16, 8)]
SOFTMAX = [(1, 4), (1, 8), (1, 16), (2, 8), (2, 16), (4, 16)]
CONFIGS = {"gemm": [(dict(TILE=t, STAGES=s, GROUP_M=g), w) for t, s, g, w in GEMM],
           "softmax": [(dict(BLOCK_M=m), w) for m, w in SOFTMAX]}
QUICK = {"gemm": [0, 1, 3, 5], "softmax": [0, 1, 4]}  # the --quick subsets


def configs_of(name, quick):
    return [CONFIGS[name][i] for i in QUICK[name]] if quick else list(CONFIGS[name])


def cdiv(a, b):
    return (a + b - 1) // b


def first_line(e):
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:300] if text else ''}"


class Timer:
    """A tuner's do_bench (its framework's own, with the given warmup/rep), counting calls."""

    def __init__(self, do_bench, warmup, rep):
        self.do_bench, self.warmup, self.rep, self.calls, self.seconds = do_bench, warmup, rep, 0, 0

    def __call__(self, fn, quantiles=None):
        self.calls, start = self.calls + 1, time.perf_counter()
        try:
            return self.do_bench(fn, warmup=self.warmup, rep=self.rep, quantiles=quantiles)
        finally:
            self.seconds += time.perf_counter() - start


def make_case(name, torch):
    """Inputs, the kernel's arguments (per loaded module), grid, output and its check."""
    if name == "gemm":
        n = GEMM_SIZE
        a, b = (torch.randn((n, n), device="cuda", dtype=torch.bfloat16) for _ in range(2))
        out = torch.empty((n, n), device="cuda", dtype=torch.bfloat16)
        return dict(
            kernel="gemm_kernel", key=["M", "N", "K"], out=out, const={},
            args=lambda mod: [*mod.gemm_descriptors(a, b, out, TILES[0]),
                              *mod.gemm_descriptors(a, b, out, TILES[1]), n, n, n],
            grid=lambda meta: (cdiv(n, TILES[meta["TILE"]][0]) * cdiv(n, TILES[meta["TILE"]][1]),),
            check=lambda: torch.testing.assert_close(out.float(), a.float() @ b.float().T,
                                                     rtol=1.6e-2, atol=1e-1),
            rate=lambda ms: f"{2 * n ** 3 / ms / 1e9:.1f} TFLOP/s")
    m, n = SOFTMAX_SHAPE
    x = torch.randn((m, n), device="cuda", dtype=torch.bfloat16)
    out = torch.empty_like(x)
    return dict(
        kernel="softmax_kernel", key=["M", "N"], out=out, const={"BLOCK_N": n},
        args=lambda mod: [out, x, m, n, n], grid=lambda meta: (cdiv(m, meta["BLOCK_M"]),),
        check=lambda: torch.testing.assert_close(out.float(), torch.softmax(x.float(), dim=1),
                                                 rtol=1.6e-2, atol=1e-5),
        rate=lambda ms: f"{2 * m * n * 2 / ms / 1e6:.1f} GB/s")


# --- fresh caches and kernel modules ------------------------------------------------------------


def fresh_root(base, label):
    """A new folder for one measurement; both compilers' caches point into it."""
    root = os.path.join(base, label)
    os.makedirs(root)
    use_caches(root)
    return root


def use_caches(root):
    os.environ["KILN_CACHE_DIR"] = os.path.join(root, "kiln-cache")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(root, "triton-cache")
    if "triton" in sys.modules:
        try:
            sys.modules["triton"].knobs.cache.dir = os.environ["TRITON_CACHE_DIR"]
        except Exception:  # noqa: BLE001  -- a Triton without knobs reads the variable
            pass


def load_kernels(which, root):
    """SOURCE with ``which``'s imports as a new module from <root>/kernels_<which>.py: new jit
    functions, so empty in-memory caches. The same root gives the same file and module name,
    so another process loads the same kernel (Kiln's fingerprint includes the file's path)."""
    path = os.path.join(root, f"kernels_{which}.py")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(HEADERS[which] + SOURCE)
    name = f"autotune_bench_{which}_{hashlib.sha256(path.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_tuner(which, mod, case, configs, timer, workers=None):
    """kiln.autotune (tunings kept on disk) or triton.autotune over the module's kernel."""
    if which == "kiln":
        import kiln
        return kiln.autotune([kiln.Config(dict(kw), num_warps=w) for kw, w in configs],
                             key=case["key"], do_bench=timer, cache_results=True,
                             compile_workers=workers)(getattr(mod, case["kernel"]))
    import triton
    return triton.autotune([triton.Config(dict(kw), num_warps=w) for kw, w in configs],
                           key=case["key"], do_bench=timer)(getattr(mod, case["kernel"]))


def host_us(torch, fn, calls=200):
    """Host time of one warm call in us (the GPU work queued, synchronized at the end)."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def launch(torch, fn, case, args, **options):
    """Wall seconds of one launch of fn (a kernel or a tuner), synchronized."""
    case["out"].fill_(float("nan"))  # a stale result cannot pass the check
    start = time.perf_counter()
    fn[case["grid"]](*args, **case["const"], **options)
    torch.cuda.synchronize()
    return time.perf_counter() - start


# --- one kernel: items 1 to 3 ------------------------------------------------------------------


def run_kernel(name, opts, base, torch, kiln):
    case, configs = make_case(name, torch), configs_of(name, opts.quick)
    print(f"\n== {name}: {len(configs)} configs ==")
    # Each side checked against torch, and warmed up (imports, libraries), before any timing.
    root = fresh_root(base, f"{name}-check")
    kw, w = configs[0]
    mod = load_kernels("kiln", root)
    launch(torch, getattr(mod, case["kernel"]), case, case["args"](mod), **kw, num_warps=w)
    case["check"]()
    sides = [("kiln serial", 1), (f"kiln parallel ({opts.workers} workers)", opts.workers)]
    try:
        import triton.testing
        mod = load_kernels("triton", root)
        launch(torch, getattr(mod, case["kernel"]), case, case["args"](mod), **kw, num_warps=w)
        case["check"]()
        sides.append(("triton.autotune", None))
    except Exception as e:  # noqa: BLE001
        print(f"triton: not compared on {name}: Triton's Gluon did not run this kernel here "
              f"({first_line(e)})")

    # 1. Tuning from empty caches.
    walls = {}
    for r in range(opts.tune_rounds):
        for side, workers in sides:
            which = "triton" if workers is None else "kiln"
            root = fresh_root(base, f"{name}-{len(walls)}-{r}-{which}")
            mod = load_kernels(which, root)
            timer = Timer((triton.testing if workers is None else kiln.testing).do_bench,
                          opts.warmup, opts.rep)
            try:
                tuned = make_tuner(which, mod, case, configs, timer, workers)
                wall = launch(torch, tuned, case, case["args"](mod))
                case["check"]()
            except Exception as e:  # noqa: BLE001
                if workers is not None:
                    raise
                print(f"  triton.autotune failed: {first_line(e)}")
                continue
            walls.setdefault(side, []).append(wall)
            how = (f"; compile mode {tuned.compile_mode}" + (f" ({tuned.compile_fallback})"
                   if tuned.compile_fallback else "") if workers else "; it compiles in its timer")
            print(f"  {side:32} {wall:7.2f} s, of which {timer.seconds:.2f} s in the timer "
                  f"({timer.calls} configs timed){how}\n{'':36}picked {tuned.best_config}")
            if side == sides[1][0]:
                kept = root, mod, tuned
    med = {side: statistics.median(v) for side, v in walls.items()}
    kiln_par = med[sides[1][0]]
    if "triton.autotune" in med:
        ratio = kiln_par / med["triton.autotune"]
        print(f"  tuning wall time, median of {opts.tune_rounds}: kiln parallel / triton = "
              f"{ratio:.3f} (goal <= 0.5: {'met' if ratio <= 0.5 else 'NOT met'}); kiln serial "
              f"/ triton = {med['kiln serial'] / med['triton.autotune']:.3f}")

    # 2. The pick against every config launched fixed (each checked first).
    root, mod, tuned = kept
    args, kernel = case["args"](mod), getattr(mod, case["kernel"])
    launch(torch, tuned, case, args)
    case["check"]()
    for kw, w in configs:
        launch(torch, kernel, case, args, **kw, num_warps=w)
        case["check"]()
    pick = tuned.configs.index(tuned.best_config)
    tuner_ms = [r["time_ms"] for r in tuned.report()]  # in config order

    def bench(fn):
        return kiln.testing.do_bench(fn, warmup=opts.warmup, rep=opts.rep, return_mode="median")
    calls = [lambda kw=kw, w=w: kernel[case["grid"]](*args, **case["const"], **kw, num_warps=w)
             for kw, w in configs]
    through_tuner = lambda: tuned[case["grid"]](*args, **case["const"])  # noqa: E731
    fixed, tuned_ms, picked, ratios = [[] for _ in configs], [], [], []
    for _ in range(opts.rounds):
        row = [bench(call) for call in calls]
        tuned_ms.append(bench(through_tuner))
        for times, ms in zip(fixed, row):
            times.append(ms)
        picked.append(row[pick] / min(row))
        ratios.append(tuned_ms[-1] / min(row))
    print(f"  every config launched fixed: kiln.testing.do_bench median ms, median of "
          f"{opts.rounds} rounds [min..max]; last column: what the tuner measured")
    for i, (kw, w) in enumerate(configs):
        label = ", ".join(f"{k}={v}" for k, v in kw.items()) + f", num_warps={w}"
        ms = statistics.median(fixed[i])
        print(f"  {i + 1}. {label:40} {ms:8.4f} [{min(fixed[i]):.4f}..{max(fixed[i]):.4f}] "
              f"{case['rate'](ms):>15} {tuner_ms[i] or math.nan:8.4f}"
              + ("  <- picked" if i == pick else ""))
    best = min(range(len(configs)), key=lambda i: statistics.median(fixed[i]))
    print(f"  kiln.autotune picked config {pick + 1}, the fastest launched fixed is config "
          f"{best + 1}; medians [min..max] over {opts.rounds} rounds of each round's ratio:")
    print(f"    picked config / best fixed = {statistics.median(picked):.3f} "
          f"[{min(picked):.3f}..{max(picked):.3f}]")
    print(f"    launched through the tuner ({statistics.median(tuned_ms):.4f} ms) / best fixed = "
          f"{statistics.median(ratios):.3f} [{min(ratios):.3f}..{max(ratios):.3f}]; host time "
          f"a launch: {host_us(torch, through_tuner):.1f} us through the tuner, "
          f"{host_us(torch, calls[pick]):.1f} us direct (do_bench's cache flush hides some)")

    # 3. A new process with the same KILN_CACHE_DIR.
    cmd = [sys.executable, os.path.abspath(__file__), "--_reuse", root, "--only", name,
           "--warmup", str(opts.warmup), "--rep", str(opts.rep)] + ["--quick"] * opts.quick
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode:
        print(f"  cache reuse: the new process failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return False
    got = json.loads(done.stdout.strip().splitlines()[-1])
    ok = (got["timed"] == 0 and got["report_rows"] == 0 and got["compile_mode"] is None
          and not got["winner_compiled"] and got["files"][0] == got["files"][1]
          and got["best"] == str(tuned.best_config))
    print(f"  cache reuse, a new process with KILN_CACHE_DIR={root}/kiln-cache: "
          f"tuned launch {got['wall']:.3f} s (tuning here took {kiln_par:.2f} s); its autotuner: "
          f"{got['timed']} configs timed, {got['report_rows']} report rows, bench_time "
          f"{got['bench_time']}, compile mode {got['compile_mode']} (None: no compile phase), "
          f"winner compiled there: {got['winner_compiled']} (False: read from the kernel "
          f"cache), kernel cache entries {got['files'][0]} -> {got['files'][1]}, picked "
          f"{got['best']}, result checked against torch")
    print(f"  {'OK: nothing compiled or timed, same pick' if ok else 'FAILED: see above'}")
    return ok


def reuse_child(opts):
    """Item 3's new process: one tuned launch from the caches under opts._reuse; JSON out."""
    import torch
    import kiln.testing
    use_caches(opts._reuse)
    cache = os.environ["KILN_CACHE_DIR"]

    def files():
        return sum(len(fs) for d, _, fs in os.walk(cache)  # compiled kernels only
                   if not {"autotune", "library-digests"} & set(d.split(os.sep)))
    case = make_case(opts.only, torch)
    mod = load_kernels("kiln", opts._reuse)
    args, before = case["args"](mod), files()
    timer = Timer(kiln.testing.do_bench, opts.warmup, opts.rep)
    tuned = make_tuner("kiln", mod, case, configs_of(opts.only, opts.quick), timer, 1)
    wall = launch(torch, tuned, case, args)
    case["check"]()
    # The winner as this process holds it: .timings is empty when it came from the disk cache.
    winner = getattr(mod, case["kernel"]).warmup(*args, **case["const"],
                                                 **tuned.best_config.all_kwargs())
    print(json.dumps({"wall": wall, "timed": timer.calls, "report_rows": len(tuned.report()),
                      "bench_time": tuned.bench_time, "compile_mode": tuned.compile_mode,
                      "winner_compiled": bool(winner.timings), "best": str(tuned.best_config),
                      "files": [before, files()]}))


def compile_only(opts, kiln):
    """Every config of the kernels compiled by Kiln for cuda:sm_90a; no GPU needed."""
    import kiln.language as kl

    def desc(block):
        layout = kl.NVMMASharedLayout.get_default_for(block, kl.bfloat16)
        return kl.tensor_descriptor_type(kl.bfloat16, block, layout)
    m, n = SOFTMAX_SHAPE
    sigs = {"gemm": ([desc(b) for bm, bn, bk in TILES for b in ([bm, bk], [bn, bk], [bm, bn])]
                     + [GEMM_SIZE] * 3, {}),
            "softmax": (["*bf16:16", "*bf16:16", m, n, n], {"BLOCK_N": n})}
    base = tempfile.mkdtemp(prefix="kiln-autotune-")
    mod = load_kernels("kiln", fresh_root(base, "compile"))
    for name in [opts.only] if opts.only else list(CONFIGS):
        sig, const = sigs[name]
        for kw, w in configs_of(name, opts.quick):
            start = time.perf_counter()
            k = getattr(mod, f"{name}_kernel").warmup(*sig, **const, **kw, num_warps=w,
                                                      grid=(1,), target="cuda:sm_90a")
            print(f"{name} {kw} num_warps={w}: compiled in {time.perf_counter() - start:.2f} s, "
                  f"{k.metadata['shared']} bytes of shared memory, "
                  f"{len(k.asm.get('cubin') or b'')} bytes of cubin")
    shutil.rmtree(base, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer configs, rounds and timing")
    p.add_argument("--only", choices=sorted(CONFIGS), help="one kernel (default: both)")
    p.add_argument("--rounds", type=int, help="timing rounds of item 2 (default 3, quick 2)")
    p.add_argument("--tune-rounds", type=int, default=1, help="tunings a side in item 1")
    p.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 1),
                   help="compile workers of the parallel Kiln tuning (default min(16, CPUs))")
    p.add_argument("--warmup", type=int, help="do_bench warmup in ms (default 25, quick 10)")
    p.add_argument("--rep", type=int, help="do_bench rep in ms (default 100, quick 40)")
    p.add_argument("--compile-only", action="store_true",
                   help="only compile every config with Kiln for cuda:sm_90a (no GPU needed)")
    p.add_argument("--_reuse", help=argparse.SUPPRESS)
    opts = p.parse_args()
    opts.rounds = opts.rounds or (2 if opts.quick else 3)
    opts.warmup = opts.warmup or (10 if opts.quick else 25)
    opts.rep = opts.rep or (40 if opts.quick else 100)
    if importlib.util.find_spec("kiln") is None:  # no wheel installed: this checkout's python/
        sys.path.insert(0, os.path.join(_ROOT, "python"))
    try:
        import kiln
        import kiln.testing
    except Exception as e:  # noqa: BLE001
        sys.exit(f"bench/autotune.py: cannot import kiln ({first_line(e)})")
    if opts.compile_only:
        return compile_only(opts, kiln)
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
    except Exception as e:  # noqa: BLE001
        sys.exit(f"bench/autotune.py runs on a GPU machine with torch and a CUDA GPU "
                 f"({first_line(e)}); --compile-only needs neither")
    if opts._reuse:
        return reuse_child(opts)
    names = [opts.only] if opts.only else list(CONFIGS)
    if "gemm" in names and torch.cuda.get_device_capability() != (9, 0):
        print("gemm: skipped, it needs a Hopper GPU (sm_90)")
        names.remove("gemm")
    try:
        import triton
        tv = triton.__version__
    except Exception as e:  # noqa: BLE001
        tv = f"not importable, no Triton comparison ({first_line(e)})"
    print(f"{torch.cuda.get_device_name()}, {os.cpu_count()} CPUs; torch {torch.__version__}; "
          f"triton {tv}; kiln from {os.path.dirname(kiln.__file__)}; tuners time with "
          f"warmup={opts.warmup} ms, rep={opts.rep} ms")
    base, ok = tempfile.mkdtemp(prefix="kiln-autotune-"), True
    try:
        for name in names:
            try:
                ok = run_kernel(name, opts, base, torch, kiln) and ok
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                print(f"{name}: FAILED ({first_line(e)})")
                ok = False
    finally:
        shutil.rmtree(base, ignore_errors=True)
    redis = shutil.which("redis-server")
    print(f"\nSharing tunings through Redis (kiln.autotune.RedisTuningCache) is not run here "
          f"(redis-server: {redis or 'not on this machine'}); test/Python/test_autotune_redis.py "
          f"runs it against a real redis-server: one process tunes, a new one tunes nothing.")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
