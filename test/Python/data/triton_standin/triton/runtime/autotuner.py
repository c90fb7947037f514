"""Triton 3.6's autotuner as it treats the kernel it wraps (written for these tests from
reading triton/runtime/autotuner.py): ``Autotuner`` reaches the function through ``.fn``
(until a plain function in ``__init__``; until a ``JITFunction`` for the disk cache, whose
``cache_key`` and ``__name__`` it reads), benchmarks each config by calling
``fn.run(*args, grid=..., warmup=False, **kwargs, **config.all_kwargs())`` between the hooks,
keeps the fastest per tuning key (the ``key`` arguments' values and every tensor argument's
dtype), optionally on disk, and launches with it. ``Heuristics`` computes meta-parameters
before ``fn.run``. No compiler, no driver: the default benchmark times on the host."""

import builtins
import hashlib
import inspect
import json
import time

from .cache import get_cache_manager, triton_key
from .jit import JITFunction, KernelInterface


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        options = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                   ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
                   ("ir_override", self.ir_override))
        return {**self.kwargs, **{k: v for k, v in options if v is not None}}

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}",
                  f"ir_override: {self.ir_override}"]
        return ", ".join(parts)

    def _identity(self):
        return (*self.all_kwargs().items(), self.pre_hook)

    def __hash__(self):
        return hash(self._identity())

    def __eq__(self, other):
        return self._identity() == other._identity()


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.configs = configs or [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = key
        self.cache = {}
        self.arg_names = arg_names
        self.cache_results = cache_results
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_defined_pre_hook = bool(pre_hook)
        self.user_defined_post_hook = bool(post_hook)
        self.pre_hook = pre_hook or (lambda kwargs, reset_only=False: 0)
        self.post_hook = post_hook or (lambda kwargs, exception: 0)
        if not pre_hook and (self.reset_to_zero or self.restore_value):
            def _pre_hook(kwargs, reset_only=False):
                for name in self.reset_to_zero:
                    kwargs[name].zero_()
                if not reset_only:
                    self.restore_copies = {n: kwargs[n].clone() for n in self.restore_value}
            self.pre_hook = _pre_hook
        if not post_hook and self.restore_value:
            def _post_hook(kwargs, exception):
                for name in self.restore_value:
                    kwargs[name].copy_(self.restore_copies[name])
                self.restore_copies = {}
            self.post_hook = _post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self._do_bench = do_bench

    @property
    def do_bench(self):
        if self._do_bench is None:
            from ..testing import do_bench
            return do_bench
        return self._do_bench

    def _bench(self, *args, config, **meta):
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}.")
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                self.post_hook(full_nargs, exception=e)
                raise
            self.post_hook(full_nargs, exception=None)

        return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))

    def check_disk_cache(self, tuning_key, configs, bench_fn):
        if not tuning_key or any(c.pre_hook for c in configs):
            bench_fn()
            return False
        fn = self.fn
        while not isinstance(fn, JITFunction):
            fn = fn.fn
        parts = [triton_key(), fn.cache_key, str(tuning_key)] + [str(c) for c in configs]
        cache = get_cache_manager(hashlib.sha256("-".join(parts).encode()).hexdigest())
        file_name = f"{fn.__name__[:150]}.autotune.json"
        path = cache.get_file(file_name)
        if path:
            with open(path) as f:
                timings = {Config(**c): t for c, t in json.load(f)["configs_timings"]}
            self.cache[tuning_key] = builtins.min(timings, key=timings.get)
            self.configs_timings = timings
            return True
        bench_fn()
        cache.put(json.dumps({
            "key": [str(k) for k in tuning_key],
            "configs_timings": [(c.__dict__, t) for c, t in self.configs_timings.items()
                                if not c.pre_hook]}), file_name, binary=False)
        return False

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            named = {**self.nargs, **kwargs}
            named = {k: v for k, v in named.items() if k in self.arg_names}
            key = [named[k] for k in self.keys if k in named]
            key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
            key = tuple(key)
            if key not in self.cache:
                pruned = self.prune_configs(kwargs)

                def benchmark():
                    start = time.time()
                    timings = {c: self._bench(*args, config=c, **kwargs) for c in pruned}
                    self.bench_time = time.time() - start
                    self.cache[key] = builtins.min(timings, key=timings.get)
                    self.pre_hook({**self.nargs, **kwargs, **self.cache[key].all_kwargs()},
                                  reset_only=True)
                    self.configs_timings = timings

                if self.cache_results:
                    self.check_disk_cache(key, pruned, benchmark)
                else:
                    benchmark()
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def prune_configs(self, kwargs):
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned:
                raise RuntimeError("No valid autotuner configs after pruning.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned) * top_k))
            if len(pruned) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs())
                       for c in pruned}
                pruned = sorted(est, key=est.get)[:top_k]
        return pruned

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        out = [self.fn.warmup(*args, **kwargs, **c.all_kwargs())
               for c in self.prune_configs(kwargs)]
        self.nargs = None
        return out


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
