"""Triton's autotuner and heuristics wrapping a Kiln kernel, as a project does that decorates
its (Gluon, now Kiln) kernels with ``triton.autotune`` or its own subclass of Triton's
``Autotuner`` (flash-linear-attention's fla/ops/utils/cache.py). Triton is the stand-in of
data/triton_standin (Triton 3.6's autotuner: the ``.fn`` walks, ``fn.run(..., grid=...,
warmup=False, num_warps=, num_ctas=, num_stages=, [maxnreg=])``, the hooks, pruning and the
disk cache keyed on the kernel's ``cache_key``); test/gpu/test_triton_autotune_gpu.py runs
the real Triton on a GPU.

Kernels compile with the fake compiler of test_cache and launch on test_launch_fast_path's
stub driver, whose native launch entry records each launch (its block size tells which
config's num_warps launched). Each check runs in a fresh interpreter, since whether
``triton`` is imported is part of what is tested."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
STANDIN = os.path.join(HERE, "data", "triton_standin")

try:
    from kiln import _runtime
except ImportError:  # the runtime library is not built
    _runtime = None

pytestmark = pytest.mark.skipif(_runtime is None, reason="libkiln_runtime.so is not built")

# The stub driver and fake compiler (as test_launch_fast_path's `native` fixture), a kernel,
# and tensors that autotuning hooks can zero, clone and copy.
PRELUDE = r'''
import json, os, sys
import kiln, kiln.language as kl
from kiln import _runtime
from kiln.compiler import compiler as compiler_mod
from test_cache import FakeCompiler
import test_launch_fast_path as T

JIT = sys.modules["kiln.jit"]
fc = FakeCompiler()
compiler_mod.load_compiler = lambda: fc
rec, driver = T.Recorder(), T.StubDriver()
_runtime._lib.kiln_rt_launch = rec.fn
JIT._driver = lambda: driver
general = []
_real_run = JIT.JITFunction._run


def _counted(self, *a):
    general.append(self.__name__)
    return _real_run(self, *a)


JIT.JITFunction._run = _counted


class Tensor(T.Tensor):
    def __init__(self, ptr, log=None):
        super().__init__(ptr)
        self.log = log if log is not None else []

    def zero_(self):
        self.log.append(("zero", self.ptr))

    def clone(self):
        self.log.append(("clone", self.ptr))
        return Tensor(self.ptr + 0x100000, self.log)

    def copy_(self, other):
        self.log.append(("copy", self.ptr, other.ptr))


@kiln.jit
def scale(x, out, n, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    kl.store(out + offs, kl.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)


def threads():
    """Threads per block of the last launch: which config's num_warps ran."""
    return rec.calls[-1]["block"][0]


def by_threads(fastest):
    """A do_bench that runs the config once and calls the one launching `fastest` threads
    per block the fastest."""
    seen = []

    def do_bench(kernel_call, quantiles=None):
        kernel_call()
        seen.append(threads())
        t = 1.0 if threads() == fastest else 2.0
        return [t, t, t] if quantiles else t
    return do_bench, seen
'''


def _run(code, tmp_path, with_triton=True):
    path = [os.path.join(ROOT, "python"), HERE] + ([STANDIN] if with_triton else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path),
               KILN_CACHE_DIR=str(tmp_path / "kiln-cache"),
               TRITON_CACHE_DIR=str(tmp_path / "triton-cache"))
    script = tmp_path / "script.py"  # a file: kernels need their source
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_fn_chain_reaches_a_triton_jit_function_with_kilns_key(tmp_path):
    r = _run(tmp_path=tmp_path, code=PRELUDE + r'''
import inspect
from triton.runtime.jit import JITFunction
fn = scale
while not isinstance(fn, JITFunction):
    fn = fn.fn
base = scale
while not inspect.isfunction(base):
    base = base.fn
out = rec.calls
fn[(1,)](Tensor(0x10000), Tensor(0x20000), 100, BLOCK=128)  # launches the Kiln kernel
print(json.dumps({
    "key_is_kilns": fn.cache_key == scale.cache_fingerprint(), "name": fn.__name__,
    "fn_is_the_function": fn.fn is scale.fn, "base_is_the_function": base is scale.fn,
    "kiln_fn_is_a_function": inspect.isfunction(scale.fn), "launches": len(rec.calls),
    "arg_names": fn.arg_names}))
''')
    assert r == {"key_is_kilns": True, "name": "scale", "fn_is_the_function": True,
                 "base_is_the_function": True, "kiln_fn_is_a_function": True, "launches": 1,
                 "arg_names": ["x", "out", "n", "BLOCK"]}


def test_kiln_never_imports_triton_and_links_when_the_program_does(tmp_path):
    r = _run(tmp_path=tmp_path, with_triton=False, code=PRELUDE + r'''
scale[(1,)](Tensor(0x10000), Tensor(0x20000), 100, BLOCK=128)
without = {"imported": "triton" in sys.modules, "has_fn": hasattr(scale.fn, "fn")}
sys.path.append(os.path.join(os.path.dirname(T.__file__), "data", "triton_standin"))
import triton  # after the kernel was made: linked when Triton's runtime first reads .fn
has_before = "fn" in vars(scale.__wrapped__)  # (reading scale.fn would link)
view = scale.fn.fn
print(json.dumps({"without": without, "has_before": has_before,
                  "view": isinstance(view, triton.JITFunction), "name": view.__name__}))
''')
    assert r == {"without": {"imported": False, "has_fn": False}, "has_before": False,
                 "view": True, "name": "scale"}


def test_autotune_with_cache_results_benches_caches_and_launches_the_best(tmp_path):
    code = PRELUDE + r'''
import triton
do_bench, seen = by_threads(256)
tuned = triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                                 triton.Config({"BLOCK": 256}, num_warps=8)],
                        key=["n"], cache_results=True, do_bench=do_bench)(scale)
x, o = Tensor(0x10000), Tensor(0x20000)
kernel = tuned[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, o, 1000)
first = {"benched": list(seen), "threads": threads(), "grid": rec.calls[-1]["grid"],
         "best": tuned.best_config.kwargs, "compiles": fc.compiles,
         "num_warps": kernel.metadata["num_warps"]}
before, launches = len(general), len(rec.calls)
for _ in range(5):
    tuned[(4,)](x, o, 1000)
warm = {"general": len(general) - before, "launches": len(rec.calls) - launches,
        "threads": threads(), "compiles": fc.compiles}
files = sorted(os.path.relpath(os.path.join(d, f), os.environ["TRITON_CACHE_DIR"])
               for d, _, fs in os.walk(os.environ["TRITON_CACHE_DIR"]) for f in fs)
print(json.dumps({"first": first, "warm": warm,
                  "files": [f.split(os.sep)[-1] for f in files]}))
'''
    r = _run(code, tmp_path)
    assert r["first"] == {"benched": [128, 256], "threads": 256, "grid": [4, 1, 1],
                          "best": {"BLOCK": 256}, "compiles": 2, "num_warps": 8}
    # Warm launches through the autotuner: Kiln's fast path, the chosen config, no compile.
    assert r["warm"] == {"general": 0, "launches": 5, "threads": 256, "compiles": 2}
    assert r["files"] == ["scale.autotune.json"]
    # A new process: the timings come from the disk cache (nothing benchmarked), and the
    # best config launches.
    again = _run(code, tmp_path)
    assert again["first"]["benched"] == []
    assert again["first"]["threads"] == 256 and again["first"]["best"] == {"BLOCK": 256}
    assert again["first"]["compiles"] == 0  # (the kernels come from Kiln's disk cache)


def test_a_changed_kernel_misses_the_disk_cache(tmp_path):
    code = PRELUDE + r'''
import triton
do_bench, seen = by_threads(128)
tuned = triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                                 triton.Config({"BLOCK": 256}, num_warps=8)],
                        key=["n"], cache_results=True, do_bench=do_bench)(scale)
tuned[(4,)](Tensor(0x10000), Tensor(0x20000), 1000)
print(json.dumps({"benched": seen, "threads": threads()}))
'''
    assert _run(code, tmp_path) == {"benched": [128, 256], "threads": 128}
    assert _run(code, tmp_path)["benched"] == []
    # The kernel's source changes: Kiln's key changes, and so does the autotuner's cache key.
    changed = code.replace("* 2.0, mask", "* 3.0, mask")
    assert _run(changed, tmp_path) == {"benched": [128, 256], "threads": 128}


def test_a_subclass_like_flas_loads_a_config_and_hooks_prune_and_options_reach_kiln(
        tmp_path):
    r = _run(tmp_path=tmp_path, code=PRELUDE + r'''
import triton
from triton.runtime.autotuner import Autotuner


class CachedAutotuner(Autotuner):
    """As fla's: the kernel's name from fn.fn, a stored best config tried before tuning."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.fn.__name__ if hasattr(fn, "fn") else fn.__name__
        self.stored = {}

    def run(self, *args, **kwargs):
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        key = tuple([named[k] for k in self.keys if k in named] +
                    [str(v.dtype) for k, v in named.items()
                     if k in self.arg_names and hasattr(v, "dtype")])
        best = self.stored.get((self.kernel_name, key))
        if best is not None and key not in self.cache:
            self.cache[key] = triton.Config(best["kwargs"], num_warps=best["num_warps"],
                                            num_stages=best["num_stages"], num_ctas=1,
                                            maxnreg=best.get("maxnreg"), pre_hook=None,
                                            ir_override=None)
        return super().run(*args, **kwargs)


log = []
x, o = Tensor(0x10000, log), Tensor(0x20000, log)
pruned_with = []


def prune(configs, named_args, **kwargs):
    pruned_with.append(sorted(kwargs))
    return [c for c in configs if c.kwargs["BLOCK"] != 64]


do_bench, seen = by_threads(256)
configs = [triton.Config({"BLOCK": 64}, num_warps=2),
           triton.Config({"BLOCK": 128}, num_warps=4, num_stages=2),
           triton.Config({"BLOCK": 256}, num_warps=8, maxnreg=128)]
tuned = CachedAutotuner(scale, scale.arg_names, configs, ["n"], ["out"], ["x"],
                        prune_configs_by={"early_config_prune": prune},
                        do_bench=do_bench, cache_results=True)
tuned[(2,)](x, out=o, n=1000)
tuned_result = {"name": tuned.kernel_name, "benched": list(seen), "threads": threads(),
                "best": str(tuned.best_config), "pruned_with": list(pruned_with),
                "hooks": log.count(("zero", 0x20000)), "restored": log.count(
                    ("copy", 0x10000, 0x110000))}
# A stored config (fla's config files): launched without tuning.
tuned.stored[("scale", (77, "float32", "float32"))] = {"kwargs": {"BLOCK": 128},
                                                       "num_warps": 4, "num_stages": 3}
seen.clear()
tuned[(2,)](x, o, n=77)
stored = {"benched": seen, "threads": threads(), "best": tuned.best_config.kwargs}
# Autotuner.warmup compiles every pruned config (Kiln's warmup, options included), launching
# nothing.
launches, compiles = len(rec.calls), fc.compiles
kernels = tuned.warmup(x, o, 4096, grid=(1,))  # (n % 16 == 0: new specializations)
warmup = {"launches": len(rec.calls) - launches, "compiles": fc.compiles - compiles,
          "num_warps": [k.metadata["num_warps"] for k in kernels]}
print(json.dumps({"tuned": tuned_result, "stored": stored, "warmup": warmup}))
''')
    tuned = r["tuned"]
    assert tuned["name"] == "scale" and tuned["benched"] == [128, 256]
    assert tuned["threads"] == 256 and "maxnreg: 128" in tuned["best"]
    assert tuned["pruned_with"] == [["grid", "n", "out", "warmup"]]
    # reset_to_zero before each benchmark run and once after; restore_value after each run.
    assert tuned["hooks"] == 3 and tuned["restored"] == 2
    assert r["stored"] == {"benched": [], "threads": 128, "best": {"BLOCK": 128}}
    assert r["warmup"] == {"launches": 0, "compiles": 2, "num_warps": [4, 8]}


def test_heuristics_over_a_kiln_kernel_and_autotune_over_heuristics(tmp_path):
    r = _run(tmp_path=tmp_path, code=PRELUDE + r'''
import triton
seen_args = []


def block(args):
    seen_args.append(sorted(args))
    return 256 if args["n"] > 500 else 128


with_block = triton.heuristics({"BLOCK": block})(scale)
x, o = Tensor(0x10000), Tensor(0x20000)
k1 = with_block[(1,)](x, o, 1000)
k2 = with_block[(1,)](x, o, 100, num_warps=8)
do_bench, seen = by_threads(128)
tuned = triton.autotune(configs=[triton.Config({}, num_warps=4),
                                 triton.Config({}, num_warps=8)], key=["n"],
                        do_bench=do_bench, cache_results=True)(with_block)
k3 = tuned[(1,)](x, o, 1000)
print(json.dumps({"blocks": [k1.metadata["constexprs"]["BLOCK"], k2.metadata["constexprs"]["BLOCK"],
                             k3.metadata["constexprs"]["BLOCK"]],
                  "args": seen_args[0], "benched": seen, "threads": threads(),
                  "cache_files": sum(len(f) for _, _, f in
                                     os.walk(os.environ["TRITON_CACHE_DIR"]))}))
''')
    assert r["blocks"] == [256, 128, 256]
    assert r["args"] == ["grid", "n", "out", "warmup", "x"]
    assert r["benched"] == [128, 256] and r["threads"] == 128
    assert r["cache_files"] == 1  # the disk cache found the Kiln kernel under Heuristics
