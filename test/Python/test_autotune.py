"""kiln.autotune, kiln.heuristics and kiln.Config with Triton's semantics, on the stub driver.

Kernels compile with test_cache's fake compiler (or, where a config must not fit, with the
real compiler for cuda:sm_90a) and launch on test_launch_fast_path's stub driver, whose
launch entry records each launch; the timer is a fake ``do_bench`` that runs the config once
and calls the one launching a chosen number of threads per block the fastest (PRELUDE of
test_triton_autotune). Each check runs in a fresh interpreter: the tuning cache must work
across processes, and compile workers are forked from it. test/gpu/test_autotune_gpu.py
tunes with the real timer on a GPU."""

import json

import pytest

from test_triton_autotune import PRELUDE as _TRITON_PRELUDE, _run as _run_script

try:
    from kiln import _runtime
except ImportError:  # the runtime library is not built
    _runtime = None

pytestmark = pytest.mark.skipif(_runtime is None, reason="libkiln_runtime.so is not built")

PRELUDE = "import kiln.compiler.compiler as _cm\n_REAL_LOAD = _cm.load_compiler\n" + \
    _TRITON_PRELUDE + r'''
import warnings
from kiln import Config

C4 = Config({"BLOCK": 128}, num_warps=4)
C8 = Config({"BLOCK": 256}, num_warps=8)


def tuned(configs=(C4, C8), fastest=256, **kw):
    do_bench, seen = by_threads(fastest)
    kw.setdefault("compile_workers", 1)
    return kiln.autotune(list(configs), key=["n"], do_bench=do_bench, **kw)(scale), seen


def out(**d):
    print(json.dumps(d))
'''


def _run(code, tmp_path):
    return _run_script(PRELUDE + code, tmp_path, with_triton=False)


def test_key_change_retunes_and_the_same_key_uses_the_cache(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
k, seen = tuned()
x, y = Tensor(0x10000), Tensor(0x20000)
k[(1,)](x, y, 100)
first = list(seen)
k[(1,)](x, y, 100)                       # same key: no benchmark
again = len(seen)
k.run(x, y, 5000, grid=(4,))             # a new key: tuned again
out(first=first, again=again, total=len(seen), best=k.best_config.kwargs,
    threads=threads(), keys=[list(key) for key in k.cache], fn=k.fn is scale,
    configs=len(k.configs), mode=k.compile_mode,
    warm=[c.metadata["num_warps"] for c in k.warmup(x, y, 100)])
''')
    assert r["first"] == [128, 256] and r["again"] == 2 and r["total"] == 4
    assert r["best"] == {"BLOCK": 256} and r["threads"] == 256
    # The key: the values of `key`, then the tensor arguments' dtypes (as Triton's).
    assert r["keys"] == [[100, "float32", "float32"], [5000, "float32", "float32"]]
    assert r["fn"] and r["configs"] == 2 and r["mode"] == "serial" and r["warm"] == [4, 8]


def test_prune_configs_by(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
C2 = Config({"BLOCK": 64}, num_warps=2)
calls = []


def early(configs, nargs, **kw):
    calls.append((len(configs), sorted(nargs)))
    return [c for c in configs if c.num_warps != 8]


k, seen = tuned([C2, C4, C8], fastest=64, prune_configs_by={"early_config_prune": early})
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
pm, seen2 = tuned([C2, C4, C8], fastest=128, prune_configs_by={
    "perf_model": lambda **a: {64: 3.0, 128: 1.0, 256: 2.0}[a["BLOCK"]], "top_k": 2})
pm[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
out(early=calls, seen=seen, best=k.best_config.num_warps, seen2=seen2,
    best2=pm.best_config.num_warps)
''')
    assert r["early"] == [[3, ["n", "out", "x"]]] and r["seen"] == [64, 128]
    assert r["best"] == 2
    # The model keeps the two it predicts fastest (BLOCK 128 and 256); both are timed.
    assert sorted(r["seen2"]) == [128, 256] and r["best2"] == 4


def test_reset_to_zero_and_restore_value_run_around_each_benchmark(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
log = []
k, seen = tuned(reset_to_zero=["out"], restore_value=["x"])
x, y = Tensor(0x10000, log), Tensor(0x20000, log)
real = k.do_bench


def bench(call, quantiles=None):
    log.append("bench")
    return real(call, quantiles)


k._do_bench = bench
k[(1,)](x, y, 100)
out(log=log)
''')
    zero, clone, copy = ["zero", 0x20000], ["clone", 0x10000], ["copy", 0x10000, 0x110000]
    once = [zero, clone, copy]
    # Each benchmark run: zero the output, save x, run, restore x; after tuning the winner's
    # launch starts from a zeroed output again.
    assert r["log"] == ["bench"] + once + ["bench"] + once + [zero]


def test_user_pre_and_post_hooks_and_config_pre_hook(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
log = []
hooked = Config({"BLOCK": 256}, num_warps=8,
                pre_hook=lambda nargs: log.append(("config", nargs["BLOCK"])))
k, seen = tuned([C4, hooked],
                pre_hook=lambda nargs, reset_only=False: log.append(("pre", nargs["BLOCK"],
                                                                     reset_only)),
                post_hook=lambda nargs, exception: log.append(("post", nargs["BLOCK"],
                                                               exception)))
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
out(log=log, best=k.best_config.num_warps)
''')
    assert r["best"] == 8
    # The config's hook runs before its compile too (the compile sees what the launch will:
    # a hook may set the TMA descriptors' blocks), then before each of its launches.
    assert r["log"] == [["pre", 128, False], ["post", 128, None], ["config", 256],
                        ["config", 256], ["pre", 256, False], ["post", 256, None],
                        ["pre", 256, True], ["config", 256]]


def test_warm_launches_reuse_the_pick_until_the_cache_is_cleared(tmp_path):
    # Autotuner.run remembers which config a key chose (no dicts built on a warm launch);
    # the memo follows the key (a new dtype re-tunes), a config's pre_hook still runs on
    # every launch, and clearing k.cache re-tunes as Triton's does.
    r = _run(tmp_path=tmp_path, code=r'''
log = []
hooked = Config({"BLOCK": 256}, num_warps=8, pre_hook=lambda nargs: log.append("hook"))
k, seen = tuned()
x, y = Tensor(0x10000), Tensor(0x20000)
for _ in range(3):
    k[(1,)](x, y, 100)
warm = [len(seen), threads(), k.best_config.kwargs]
k[(1,)](T.Tensor(0x10000, "float16"), T.Tensor(0x20000, "float16"), 100)
after_dtype = len(seen)
k.cache.clear()
k[(1,)](x, y, 100)
after_clear = len(seen)
h, hseen = tuned([C4, hooked])
for _ in range(3):
    h[(1,)](x, y, 100)
out(warm=warm, after_dtype=after_dtype, after_clear=after_clear, hooks=log.count("hook"),
    keys=[list(key) for key in k.cache])
''')
    assert r["warm"] == [2, 256, {"BLOCK": 256}]
    assert r["after_dtype"] == 4 and r["after_clear"] == 6
    assert r["keys"] == [[100, "float32", "float32"]]
    # Once before its compile, once in its benchmark, once after tuning and on each of the
    # two warm launches.
    assert r["hooks"] == 5


def test_heuristics_under_autotune(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
seen_meta = []


def block(meta):
    seen_meta.append(meta["n"])
    return 128 if meta["n"] < 1000 else 256


do_bench, seen = by_threads(256)
k = kiln.autotune([Config({}, num_warps=4), Config({}, num_warps=8)], key=["n"],
                  do_bench=do_bench, compile_workers=1)(kiln.heuristics({"BLOCK": block})(scale))
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
consts = sorted({json.dumps(e[3]) for e in scale._kernels.values()})
out(seen=seen, best=k.best_config.num_warps, meta=sorted(set(seen_meta)), consts=consts,
    base=k.base_fn is scale.fn, arg_names=k.arg_names)
''')
    assert r["seen"] == [128, 256] and r["best"] == 8 and r["meta"] == [100]
    assert r["consts"] == [json.dumps({"BLOCK": 128})]
    assert r["base"] and r["arg_names"] == ["x", "out", "n", "BLOCK"]


SHARED_KERNEL = r'''
compiler_mod.load_compiler = _REAL_LOAD  # real limits: cuda:sm_90a has 232448 bytes


@kiln.jit
def staged(x, n, BLOCK: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [kl.num_warps(), 1], [1, 0])
    S: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    r = kl.arange(0, BLOCK, kl.SliceLayout(1, L))
    c = kl.arange(0, BLOCK, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [BLOCK, BLOCK], S)
    buf.store(kl.load(x + r[:, None] * BLOCK + c[None, :]))
    kl.store(x + r[:, None] * BLOCK + c[None, :], buf.load(L) + 1.0)


warnings.simplefilter("ignore")  # no ptxas here: the driver would compile the assembly
'''


def test_configs_that_do_not_fit_are_pruned_with_the_reason(tmp_path):
    r = _run(tmp_path=tmp_path, code=SHARED_KERNEL + r'''
do_bench, seen = by_threads(128)
big, small, mid = (Config({"BLOCK": 256}, num_warps=4), Config({"BLOCK": 32}, num_warps=4),
                   Config({"BLOCK": 64}, num_warps=8))
k = kiln.autotune([big, small, mid], key=["n"], do_bench=do_bench,
                  compile_workers=1)(staged)
k[(1,)](Tensor(0x10000), 100)
report = k.report()
out(seen=seen, pruned={str(c): m for c, m in k.pruned.items()},
    report=[[r["config"].kwargs["BLOCK"], r["time_ms"], r["shared"], r["n_regs"],
             r["n_spills"], r["pruned"] is not None, r["best"]] for r in report])
''')
    assert r["seen"] == [128, 256]  # the 256 x 256 buffer was never launched
    (name, why), = r["pruned"].items()
    assert name.startswith("BLOCK: 256")
    assert why.startswith("CompileTimeOutOfResources") and "shared memory" in why
    assert "262144" in why and "232448" in why
    rows = r["report"]
    assert [row[0] for row in rows] == [256, 32, 64]
    assert rows[0][1:] == [None, None, None, None, True, False]
    assert rows[1][1] == 1.0 and rows[1][2] == 32 * 32 * 4 and rows[1][3:] == [32, 0, False,
                                                                               True]
    assert rows[2][1] == 2.0 and rows[2][2] == 64 * 64 * 4 and not rows[2][6]


def test_every_config_failing_raises_the_first_error(tmp_path):
    r = _run(tmp_path=tmp_path, code=SHARED_KERNEL + r'''
do_bench, seen = by_threads(128)
k = kiln.autotune([Config({"BLOCK": 256}), Config({"BLOCK": 512})], key=["n"],
                  do_bench=do_bench, compile_workers=2)(staged)
try:
    k[(1,)](Tensor(0x10000), 100)
except kiln.OutOfResources as e:
    out(required=e.required, seen=seen, mode=k.compile_mode)
''')
    assert r == {"required": 256 * 256 * 4, "seen": [], "mode": "parallel"}


def test_parallel_compile_fills_the_kernel_cache_and_falls_back_to_serial(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
AT = sys.modules["kiln.autotune"]
configs = [Config({"BLOCK": 64 << i}, num_warps=w) for i, w in enumerate([2, 4, 8])]
configs += [Config({"BLOCK": 96}), Config({"BLOCK": 192})]  # arange needs a power of 2
k, seen = tuned(configs, fastest=128, compile_workers=2)
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
parallel = {"mode": k.compile_mode, "compiles_here": fc.compiles, "seen": seen,
            "best": k.best_config.kwargs,
            "pruned": sorted(f"{c.kwargs['BLOCK']} {m.split(':')[0]} {'power of 2' in m}"
                             for c, m in k.pruned.items())}

import multiprocessing
AT._pool_context = lambda: multiprocessing.get_context("spawn")  # must pickle: cannot
k2, seen2 = tuned([Config({"BLOCK": 512}, num_warps=2), Config({"BLOCK": 1024}, num_warps=4)],
                  fastest=128, compile_workers=2)
k2[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
out(parallel=parallel, mode=k2.compile_mode, why=k2.compile_fallback, compiles=fc.compiles,
    best=k2.best_config.kwargs)
''')
    # Three configs compiled by the workers; this process only read them from the disk cache.
    # The two whose layout cannot tile the block are dropped with the compiler's reason
    # (the first as this process compiled it, the second as the worker reported it).
    assert r["parallel"] == {"mode": "parallel", "compiles_here": 0, "seen": [64, 128, 256],
                             "best": {"BLOCK": 128},
                             "pruned": ["192 CompilationError True", "96 CompilationError True"]}
    assert r["mode"] == "serial" and "pickle" in r["why"]
    assert r["compiles"] == 2 and r["best"] == {"BLOCK": 1024}


CACHED = r'''
k, seen = tuned(fastest=int(sys.argv[1]) if len(sys.argv) > 1 else 256, cache_results=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
out(seen=seen, best=k.best_config.kwargs, compiles=fc.compiles, threads=threads(),
    warnings=[str(w.message) for w in caught], report=len(k.report()))
'''


def test_the_tuning_cache_is_used_by_a_new_process(tmp_path):
    first = _run(CACHED, tmp_path)
    assert first["seen"] == [128, 256] and first["compiles"] == 2 and first["report"] == 2
    files = list((tmp_path / "kiln-cache" / "autotune").rglob("*.json"))
    assert len(files) == 1
    stored = json.loads(files[0].read_text())
    assert stored["best"] == {"BLOCK": 256, "num_warps": 8, "num_ctas": 1, "num_stages": 3}
    second = _run(CACHED, tmp_path)  # no benchmark, no compile (the kernel cache has it)
    assert second == {"seen": [], "best": {"BLOCK": 256}, "compiles": 0, "threads": 256,
                      "warnings": [], "report": 0}


def test_corrupt_or_foreign_tuning_cache_entries_are_ignored_with_a_warning(tmp_path):
    _run(CACHED, tmp_path)
    path, = (tmp_path / "kiln-cache" / "autotune").rglob("*.json")
    path.write_bytes(b"\x00not json")
    r = _run(CACHED, tmp_path)
    assert r["seen"] == [128, 256] and r["best"] == {"BLOCK": 256}
    assert len(r["warnings"]) == 1 and "ignoring the stored tuning of scale" in r["warnings"][0]
    # A well-formed entry naming a config that is not one of the kernel's: not trusted.
    entry = json.loads(path.read_text())
    entry["best"] = {"BLOCK": 4096, "num_warps": 1}
    path.write_text(json.dumps(entry))
    r = _run(CACHED, tmp_path)
    assert r["seen"] == [128, 256] and "not one of the current configs" in r["warnings"][0]
    assert json.loads(path.read_text())["best"]["BLOCK"] == 256  # rewritten by the tuning


def test_conflicting_meta_parameters(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
k, seen = tuned()
try:
    k[(1,)](Tensor(0x10000), Tensor(0x20000), 100, BLOCK=64)
except ValueError as e:
    out(message=str(e))
''')
    assert r["message"].startswith("Conflicting meta-parameters: BLOCK.")


def test_do_bench_without_a_gpu_says_why():
    import kiln.testing
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is here: test/gpu/test_autotune_gpu.py times on it")
    except ImportError:
        pass
    for bench in (kiln.testing.do_bench, kiln.testing.do_bench_cudagraph):
        with pytest.raises(RuntimeError, match="torch"):
            bench(lambda: None)
    with pytest.raises(ValueError, match="return_mode"):
        kiln.testing.do_bench(lambda: None, return_mode="p50")


def test_quantiles_and_return_modes_follow_triton():
    from kiln.testing import _summarize
    times = [4.0, 1.0, 3.0, 2.0]
    assert _summarize(times, [0.5], "mean") == 2.5
    assert _summarize(times, (0.5, 0.0, 1.0), "mean") == [2.5, 1.0, 4.0]
    assert [_summarize(times, None, m) for m in ("mean", "median", "min", "max")] == \
        [2.5, 2.5, 1.0, 4.0]
    assert _summarize(times, None, "all") is times


def test_a_progress_line_on_a_terminal_only(tmp_path):
    r = _run(tmp_path=tmp_path, code=r'''
import io


class Terminal(io.StringIO):
    def isatty(self):
        return True


real, sys.stderr = sys.stderr, Terminal()
k, seen = tuned()
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
shown, sys.stderr = sys.stderr.getvalue(), io.StringIO()
k.run(Tensor(0x10000), Tensor(0x20000), 7, grid=(1,))
out(shown=shown.split("\r"), quiet=sys.stderr.getvalue())
''')
    lines = [line.replace("\x1b[K", "") for line in r["shown"] if line]
    assert lines[0] == "kiln.autotune scale: compiled 1/2, timed 0/2"
    assert "compiled 2/2, timed 1/2, best 2 ms (BLOCK: 128, num_warps: 4" in lines[2]
    assert "timed 2/2, best 1 ms (BLOCK: 256, num_warps: 8" in lines[3]
    assert r["shown"][-1] == "\x1b[K" and r["quiet"] == ""
