"""``kiln.autotune``, ``kiln.heuristics`` and ``kiln.Config``: Triton's autotuner, for Kiln
kernels.

A kernel ported from Triton keeps its decorators (``@kiln.autotune(...)`` over
``@kiln.heuristics(...)`` over ``@kiln.jit``) and Triton's semantics: the configs are tuned
once per value of ``key`` (plus the dtypes of the tensor arguments), ``prune_configs_by``,
``reset_to_zero``/``restore_value`` and the hooks run where Triton runs them, and the winner
is launched with ``kernel[grid](...)`` or ``.run(...)``.

What Kiln adds, because its compiler runs on the host without a GPU:

* every config is compiled before anything is timed; a config whose compile fails because
  of the config (too much shared memory, too many registers, a layout that does not tile the
  block, a ``static_assert`` on a block size) is dropped with its reason in ``.pruned``;
* the compiles run in worker processes (``compile_workers=``), which fill the kernel disk
  cache so the compile in this process is a cache hit;
* a progress line on a terminal while tuning, and :meth:`Autotuner.report`;
* with ``cache_results=True`` (or a :class:`TuningCache` backend) the winner is stored per
  kernel fingerprint, key, compiler and device, so another process does not tune again;
  :class:`RedisTuningCache` shares it across a fleet of machines.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import inspect
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Dict, List, Optional

from .compiler.errors import CompilationError, CompileTimeOutOfResources, InvalidOption
from .errors import OutOfResources

__all__ = ["Config", "autotune", "heuristics", "Autotuner", "Heuristics", "TuningCache",
           "DiskTuningCache", "RedisTuningCache", "TuningCacheWarning"]

_OPTION_NAMES = ("num_warps", "num_ctas", "num_stages", "maxnreg")
_MISSING = object()  # an argument not given, or without a dtype


class Config:
    """One point of the tuning space (Triton's ``triton.Config``): ``kwargs`` are the
    constexpr values, the rest launch options. ``pre_hook(nargs)`` runs before each launch
    of this config."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, ir_override=None):
        if ir_override is not None:
            raise ValueError("Config(ir_override=...) has no meaning in Kiln")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = None

    def all_kwargs(self) -> dict:
        """The constexprs and the options that are set, as the kernel's ``run`` takes them."""
        options = {k: getattr(self, k) for k in _OPTION_NAMES if getattr(self, k) is not None}
        return {**self.kwargs, **options}

    def _identity(self):
        return tuple(sorted((k, repr(v)) for k, v in self.all_kwargs().items())), self.pre_hook

    def __hash__(self):
        return hash(self._identity())

    def __eq__(self, other):
        return isinstance(other, Config) and self._identity() == other._identity()

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"{k}: {getattr(self, k)}" for k in _OPTION_NAMES]
        return ", ".join(parts)

    def __repr__(self):
        return f"Config({self})"


# -- the tuning cache ------------------------------------------------------------------------


class TuningCacheWarning(UserWarning):
    """A stored tuning result was unreadable or named no current config; it was ignored and
    the kernel tuned again."""


class TuningCache:
    """Where tuning results live: bytes by key. Subclass for a shared store (a fleet's)."""

    def get(self, key: str) -> Optional[bytes]:
        raise NotImplementedError

    def put(self, key: str, data: bytes) -> None:
        raise NotImplementedError


class DiskTuningCache(TuningCache):
    """The default: one JSON file per key under ``<kernel cache>/autotune``."""

    def __init__(self, root=None):
        if root is None:
            from .compiler.cache import default_cache_dir
            root = default_cache_dir() / "autotune"
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[bytes]:
        try:
            return self._path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # readers see the old file or the new one, never half
        except OSError as e:
            warnings.warn(TuningCacheWarning(f"cannot write the tuning cache at {path}: {e}"))


class RedisTuningCache(TuningCache):
    """Tuning results on a Redis server, shared by a fleet of machines: the first machine to
    tune a kernel stores the winner, the others launch it without timing.

    ``url`` (``redis://host:port/db``, ``rediss://`` for TLS) or ``host``/``port``/``db``/
    ``password`` name the server; ``client`` takes a ready ``redis.Redis`` instead. Entries
    live under ``prefix`` + the same key the disk cache uses, expiring after ``ttl`` seconds
    when given. What is read is checked as the disk cache's entries are (a corrupt entry,
    or one naming no current config, is ignored with a :class:`TuningCacheWarning`).

    A server that cannot be reached within ``timeout`` seconds gives one warning; this
    object then keeps nothing for the rest of the process, so tuning goes on without it
    rather than waiting on the network at every kernel."""

    def __init__(self, url=None, *, host="localhost", port=6379, db=0, password=None,
                 prefix="kiln:autotune:", ttl=None, timeout=1.0, client=None):
        self.prefix = prefix
        self.ttl = ttl
        self._down = False
        if client is not None:
            self.client, self.where = client, repr(client)
            return
        try:
            import redis
        except ImportError:
            raise ImportError("kiln.autotune.RedisTuningCache needs the redis Python client "
                              "(Debian: python3-redis; pip: redis)") from None
        # No retries: a missing server costs one timeout, not several with backoff.
        options = {"socket_timeout": timeout, "socket_connect_timeout": timeout,
                   "retry_on_timeout": False}
        try:
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            options["retry"] = Retry(NoBackoff(), 0)
        except ImportError:  # a client older than retries: it does not retry
            pass
        if url is not None:
            self.client = redis.Redis.from_url(url, **options)
            scheme, _, rest = url.partition("://")
            netloc, slash, path = rest.partition("/")
            self.where = f"{scheme}://{netloc.rpartition('@')[2]}{slash}{path}"  # no password
        else:
            self.client = redis.Redis(host=host, port=port, db=db, password=password,
                                      **options)
            self.where = f"redis://{host}:{port}/{db}"

    def _unreachable(self, e):
        if not self._down:
            self._down = True
            warnings.warn(TuningCacheWarning(
                f"the Redis tuning cache at {self.where} cannot be used ({type(e).__name__}: "
                f"{e}); tuning without it in this process"), stacklevel=5)

    def get(self, key: str) -> Optional[bytes]:
        if self._down:
            return None
        try:
            data = self.client.get(self.prefix + key)
        except Exception as e:  # noqa: BLE001  -- redis errors, refused or timed-out sockets
            self._unreachable(e)
            return None
        return data.encode() if isinstance(data, str) else data  # a decoding client's str

    def put(self, key: str, data: bytes) -> None:
        if self._down:
            return
        try:
            self.client.set(self.prefix + key, data, ex=self.ttl)
        except Exception as e:  # noqa: BLE001
            self._unreachable(e)


_FORMAT = "kiln-autotune-1"


# -- compiling configs (in worker processes) -------------------------------------------------

# The work a forked compile worker inherits: (kernel, args, per-config kwargs, target).
_JOBS = None


def _fit_error(e) -> bool:
    """A compile failure that the config causes, so the config is dropped rather than the
    tuning failing: out of resources, an option out of range, a kernel error at the user's
    code (a layout that does not tile the block, a static_assert on the block size)."""
    return isinstance(e, (OutOfResources, CompileTimeOutOfResources, InvalidOption,
                          CompilationError))


def _reason(e) -> str:
    return f"{type(e).__name__}: {str(e).strip()}"


def _run_config_hook(hook, arg_names, args, meta):
    """A Config's pre_hook on the arguments before its compile, as before its launch: a hook
    that sets the TMA descriptors' blocks per config (Triton's tutorials) decides what the
    kernel is specialized for."""
    if hook is not None:
        hook({**dict(zip(arg_names, args)), **meta})


def _compile_job(i):
    fn, args, per_config, target, hooks, arg_names = _JOBS
    warnings.simplefilter("ignore")  # the compile in the parent says it again, from the cache
    try:
        _run_config_hook(hooks[i], arg_names, args, per_config[i])
        fn.warmup(*args, **per_config[i], **({"target": target} if target else {}))
        return i, None
    except Exception as e:  # noqa: BLE001  -- reported to the parent, which decides
        return i, (_fit_error(e), _reason(e))


def _pool_context():
    """The process start method for compile workers: fork, so that workers inherit the kernel
    and its arguments (tensors are not picklable); None where there is no fork."""
    import multiprocessing
    try:
        return multiprocessing.get_context("fork")
    except ValueError:
        return None


class _Progress:
    """One line on a terminal, rewritten in place; nothing when stderr is not a terminal."""

    def __init__(self, name, total):
        stream = sys.stderr
        self.on = bool(getattr(stream, "isatty", lambda: False)())
        self.name, self.total = name, total
        self.compiled = self.timed = 0
        self.best = None

    def show(self):
        if not self.on:
            return
        best = "" if self.best is None else f", best {self.best[0]:.4g} ms ({self.best[1]})"
        sys.stderr.write(f"\r\x1b[Kkiln.autotune {self.name}: compiled {self.compiled}/"
                         f"{self.total}, timed {self.timed}/{self.total}{best}")
        sys.stderr.flush()

    def done(self):
        if self.on:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _first_time(timing) -> float:
    if isinstance(timing, (list, tuple)):
        return float(timing[0]) if timing else math.inf
    return float(timing)


def _jit_of(fn):
    """The @kiln.jit function under any heuristics and autotuners."""
    while not getattr(fn, "__kiln_jit__", False):
        fn = fn.fn
    return fn


class Autotuner:
    """What ``@kiln.autotune`` makes (Triton's ``Autotuner``). ``cache`` maps a tuning key to
    its best config, ``best_config`` is the config of the last launch, ``configs_timings`` the
    timings of the last tuning, ``pruned`` why configs of the last tuning were dropped."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 do_bench=None, cache_results=False, compile_workers=None):
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):  # the Python function, as Triton's
            self.base_fn = self.base_fn.fn
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({}, num_warps=4, num_stages=3,
                                                             num_ctas=1)]
        self.keys = list(key)
        self.cache: Dict[tuple, Config] = {}
        self.configs_timings: Dict[Config, object] = {}
        self.pruned: Dict[Config, str] = {}
        self.best_config = None
        self.bench_time = 0.0
        self.nargs = None
        self.compile_workers = compile_workers
        self.compile_mode = None  # "parallel" or "serial", for the last tuning
        self.compile_fallback = None  # why the last tuning compiled serially
        self._reports: Dict[tuple, List[dict]] = {}
        self._last_key = None
        # Key argument name -> its position among the parameters; run's memo of
        # _fast_key -> (config, key, its kwargs).
        self._key_positions = [(k, self.arg_names.index(k)) for k in self.keys
                               if k in self.arg_names]
        self._fast = {}

        if cache_results is True or (not cache_results
                                     and os.environ.get("KILN_CACHE_AUTOTUNING") == "1"):
            # KILN_AUTOTUNE_CACHE=redis://host:port/db points every cached tuning of the
            # process at a shared server (a fleet), without editing the kernels.
            url = os.environ.get("KILN_AUTOTUNE_CACHE", "")
            self.tuning_cache = RedisTuningCache(url) if url.startswith(
                ("redis://", "rediss://", "unix://")) else DiskTuningCache()
        elif isinstance(cache_results, TuningCache):
            self.tuning_cache = cache_results
        else:
            self.tuning_cache = None

        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.restore_copies = {}
        self.pre_hook = lambda kwargs, reset_only=False: 0
        self.post_hook = lambda kwargs, exception: 0
        if pre_hook:
            self.pre_hook = pre_hook
        elif self.reset_to_zero or self.restore_value:
            def _pre_hook(kwargs, reset_only=False):
                for name in self.reset_to_zero:
                    if kwargs[name] is not None:
                        kwargs[name].zero_()
                if not reset_only:
                    self.restore_copies = {name: kwargs[name].clone()
                                           for name in self.restore_value
                                           if kwargs[name] is not None}
            self.pre_hook = _pre_hook
        if post_hook:
            self.post_hook = post_hook
        elif self.restore_value:
            def _post_hook(kwargs, exception):
                for name, value in self.restore_copies.items():
                    kwargs[name].copy_(value)
                self.restore_copies = {}
            self.post_hook = _post_hook

        self.perf_model = None
        self.configs_top_k = 1.0
        self.early_config_prune = None
        if prune_configs_by:
            self.perf_model = prune_configs_by.get("perf_model")
            self.configs_top_k = prune_configs_by.get("top_k", 1.0)
            self.early_config_prune = prune_configs_by.get("early_config_prune")

        self._do_bench = do_bench
        self.num_warmups, self.num_reps = warmup, rep

    @property
    def do_bench(self):
        if self._do_bench is not None:
            return self._do_bench
        from . import testing
        warmup = 25 if self.num_warmups is None else self.num_warmups
        rep = 100 if self.num_reps is None else self.num_reps
        return lambda kernel_call, quantiles: testing.do_bench(
            kernel_call, warmup=warmup, rep=rep, quantiles=quantiles)

    # -- Triton's interface ------------------------------------------------------------------

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def prune_configs(self, kwargs, nargs=None):
        nargs = self.nargs if nargs is None else nargs
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, nargs, **kwargs)
            if not pruned:
                raise ValueError("early_config_prune returned no configs")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(self.configs) * top_k)
            elif not isinstance(top_k, int):
                raise TypeError("prune_configs_by['top_k'] must be an int or a float <= 1.0")
            if len(pruned) > top_k:
                estimates = {c: self.perf_model(**nargs, **kwargs, **c.all_kwargs())
                             for c in pruned}
                pruned = sorted(estimates, key=estimates.get)[:top_k]
        return list(pruned)

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        kernels = [self.fn.warmup(*args, **kwargs, **c.all_kwargs())
                   for c in self.prune_configs(kwargs)]
        self.nargs = None
        return kernels

    def _fast_key(self, args, kwargs):
        """What the tuning key is computed from (the key arguments' values, the dtypes of
        every argument in order, keyword names), without building the key's dicts; None
        when it cannot be hashed. A memo of it maps to the config the key chose."""
        n = len(self.arg_names)
        try:
            vals = [args[i] if i < len(args) else kwargs.get(name, _MISSING)
                    for name, i in self._key_positions]
            key = (tuple(vals),
                   tuple([getattr(a, "dtype", _MISSING) for a in args[:n]]),
                   tuple([(k, getattr(v, "dtype", _MISSING)) for k, v in kwargs.items()]))
            hash(key)
        except Exception:  # noqa: BLE001 -- an unhashable value: the general path
            return None
        return key

    def run(self, *args, grid=None, warmup=False, **kwargs):
        if warmup:
            return self.warmup(*args, **kwargs)
        # A key seen before, whose config has no pre_hook: launch it with no dicts built
        # (while self.cache still holds that config for the key: clearing it re-tunes).
        fast = self._fast_key(args, kwargs) if len(self.configs) > 1 else None
        if fast is not None:
            hit = self._fast.get(fast)
            if hit is not None and self.cache.get(hit[1]) is hit[0]:
                self.best_config, self._last_key, config_kwargs = hit
                return self.fn.run(*args, grid=grid, **kwargs, **config_kwargs)
        ret = self._run(args, kwargs, grid)
        if fast is not None and self.best_config.pre_hook is None:
            if len(self._fast) >= 1024:
                self._fast.clear()
            self._fast[fast] = (self.best_config, self._last_key,
                                self.best_config.all_kwargs())
        return ret

    def _run(self, args, kwargs, grid):
        self.nargs = dict(zip(self.arg_names, args))
        tuned = False
        if len(self.configs) > 1:
            named = {k: v for k, v in {**self.nargs, **kwargs}.items() if k in self.arg_names}
            key = [named[k] for k in self.keys if k in named]
            key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
            key = tuple(key)
            self._last_key = key
            if key not in self.cache:
                tuned = self._tune(key, args, kwargs, grid)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        full_nargs = {**self.nargs, **kwargs, **config.all_kwargs()}
        if tuned:  # the benchmarks left their marks on the outputs
            self.pre_hook(full_nargs, reset_only=True)
        if config.pre_hook is not None:
            config.pre_hook(full_nargs)
        ret = self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    # -- tuning ------------------------------------------------------------------------------

    def _tune(self, key, args, kwargs, grid) -> bool:
        """Fill ``self.cache[key]``; True when it benchmarked (False: the tuning cache had it)."""
        start = time.perf_counter()
        configs = self.prune_configs(kwargs)
        for c in configs:
            conflicts = kwargs.keys() & c.kwargs.keys()
            if conflicts:
                raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}."
                                 " Make sure that you don't re-define auto-tuned symbols.")
        store_key = self._store_key(key, configs) if self.tuning_cache is not None else None
        if store_key is not None:
            hit = self._load(store_key, key, configs)
            if hit is not None:
                self.cache[key] = hit
                return False
        progress = _Progress(getattr(self.base_fn, "__name__", "kernel"), len(configs))
        timings = {}
        try:
            # Each config is timed as soon as it has compiled, while compile workers (when
            # there are) go on with the later ones.
            fit, kernels, self.pruned = [], {}, {}
            for c in self._compile_configs(configs, args, kwargs, progress, fit, kernels):
                timings[c] = self._bench(*args, config=c, grid=grid, **kwargs)
                t = _first_time(timings[c])
                if math.isfinite(t) and (progress.best is None or t < progress.best[0]):
                    progress.best = (t, str(c))
                progress.timed += 1
                progress.show()
        finally:
            progress.done()
        self.bench_time = time.perf_counter() - start
        best = builtins.min(timings, key=timings.get)
        self.cache[key] = best
        self.configs_timings = timings
        self._reports[key] = self._make_report(configs, timings, kernels)
        if store_key is not None:
            self._store(store_key, key, best, timings)
        return True

    def _bench(self, *args, config, grid, **meta):
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, grid=grid, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except OutOfResources as e:  # at launch: the device has less than the target
            self.pruned[config] = _reason(e)
            return [math.inf, math.inf, math.inf]

    def _compile_configs(self, configs, args, kwargs, progress, fit, kernels):
        """Compile each config, in order, yielding each that compiled as soon as it has (its
        worker done, then loaded here from the kernel cache); fills ``fit`` and ``kernels``
        and records in ``self.pruned`` why the others were dropped. Raises the first
        config's error when none compiles."""
        per_config = [dict(kwargs, **c.all_kwargs()) for c in configs]
        hooks = [c.pre_hook for c in configs]
        first_error = None
        with self._compile_in_workers(args, kwargs, per_config, hooks) as worker_result:
            for i, c in enumerate(configs):
                result = worker_result(i)
                if result is not None and result[0] and first_error is not None:
                    self.pruned[c] = result[1]  # failed in a worker; another error is raised
                    kernel = None
                else:
                    try:
                        _run_config_hook(hooks[i], self.arg_names, args, per_config[i])
                        kernel = self.fn.warmup(*args, **per_config[i])
                    except Exception as e:
                        if not _fit_error(e):
                            raise
                        self.pruned[c] = _reason(e)
                        first_error = first_error or e
                        kernel = None
                progress.compiled += 1
                progress.show()
                if kernel is not None:
                    kernels[c] = kernel
                    fit.append(c)
                    yield c
        if not fit:
            raise first_error

    @contextlib.contextmanager
    def _compile_in_workers(self, args, kwargs, per_config, hooks=None):
        """Compile the configs in forked worker processes (they fill the kernel cache);
        yields ``result(i)``, which waits for config i's worker and returns None when it
        compiled, else (is a fit error, reason). Every result is None when compiling here
        (one config, one worker, no fork, the workers failed: self.compile_fallback says
        why)."""
        global _JOBS
        workers = self.compile_workers if self.compile_workers is not None else os.cpu_count()
        workers = min(int(workers or 1), len(per_config))
        self.compile_mode, self.compile_fallback = "serial", None
        serial = lambda i: None  # noqa: E731
        if workers < 2:
            yield serial
            return
        context = _pool_context()
        if context is None or context.get_start_method() != "fork":
            import pickle
            try:
                pickle.dumps((self.fn, args, per_config, hooks))
            except Exception as e:  # noqa: BLE001
                self.compile_fallback = f"the kernel or its arguments cannot be pickled: {e}"
                yield serial
                return
        target = kwargs.get("target")
        if target is None:
            try:
                from .jit import _driver, _target_name
                target = _target_name(_driver().current_target())
            except Exception as e:  # noqa: BLE001  -- the compile in this process says why
                self.compile_fallback = f"no target: {e}"
                yield serial
                return
        from concurrent.futures import ProcessPoolExecutor
        _JOBS = (self.fn, args, per_config, target,
                 hooks or [None] * len(per_config), self.arg_names)
        pool = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # fork of a threaded process
                pool = ProcessPoolExecutor(workers, mp_context=context)
                futures = [pool.submit(_compile_job, i) for i in range(len(per_config))]
        except Exception as e:  # noqa: BLE001  -- no pool: compile here instead
            self.compile_fallback = f"compile workers failed: {_reason(e)}"
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
            _JOBS = None
            yield serial
            return
        self.compile_mode = "parallel"
        broken = []

        def result(i):
            if broken:
                return None
            try:
                return futures[i].result()[1]
            except Exception as e:  # noqa: BLE001  -- a broken pool: the rest compile here
                self.compile_mode = "serial"
                self.compile_fallback = f"compile workers failed: {_reason(e)}"
                broken.append(e)
                return None

        try:
            yield result
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            _JOBS = None

    # -- reports -----------------------------------------------------------------------------

    def _make_report(self, configs, timings, kernels):
        rows = []
        for c in configs:
            meta = getattr(kernels.get(c), "metadata", None) or {}
            timing = timings.get(c)
            rows.append({
                "config": c, "time_ms": None if timing is None else _first_time(timing),
                "n_regs": meta.get("n_regs"), "n_spills": meta.get("n_spills"),
                "shared": meta.get("shared"), "pruned": self.pruned.get(c)})
        best = builtins.min(timings, key=timings.get) if timings else None
        for row in rows:
            row["best"] = row["config"] == best
        return rows

    def report(self, key=None) -> List[dict]:
        """Per config of the last tuning (or of tuning key ``key``): ``config``, ``time_ms``
        (None when not timed), ``n_regs``/``n_spills`` (when the driver reported them),
        ``shared`` bytes, ``pruned`` (why it was dropped, else None) and ``best``. Empty when
        the result came from the tuning cache."""
        return list(self._reports.get(self._last_key if key is None else key, []))

    # -- the tuning cache --------------------------------------------------------------------

    def _store_key(self, key, configs) -> Optional[str]:
        if any(c.pre_hook for c in configs):  # a hook's effect cannot be keyed
            return None
        from .compiler.compiler import compiler_fingerprint, load_compiler
        from .jit import _driver, _target_name
        compiler = load_compiler()
        try:
            driver = _driver()
            target = _target_name(driver.current_target())
            try:
                device = str(driver.info.get("name"))
            except Exception:  # noqa: BLE001  -- a driver without device details
                device = ""
        except Exception:  # noqa: BLE001  -- no device: nothing to tune for
            return None
        parts = [_FORMAT, _jit_of(self.fn).cache_fingerprint(), str(key),
                 compiler_fingerprint(compiler) if compiler is not None else "",
                 target, device] + [str(c) for c in configs]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _load(self, store_key, key, configs) -> Optional[Config]:
        try:
            data = self.tuning_cache.get(store_key)
        except Exception as e:  # noqa: BLE001  -- a cache that cannot read: tune
            warnings.warn(TuningCacheWarning(f"cannot read the tuning cache: {e}"))
            return None
        if data is None:
            return None
        try:
            entry = json.loads(data.decode())
            if entry.get("format") != _FORMAT or entry.get("key") != str(key):
                raise ValueError("it is for another kernel or key")
            best = entry["best"]
            wanted = tuple(sorted((k, repr(v)) for k, v in best.items()))
            for c in configs:
                if c._identity()[0] == wanted:
                    return c
            raise ValueError(f"its config {best} is not one of the current configs")
        except Exception as e:  # noqa: BLE001  -- never trusted: tune again
            warnings.warn(TuningCacheWarning(
                f"ignoring the stored tuning of {self.base_fn.__name__} ({store_key[:16]}): "
                f"{e}"), stacklevel=4)
            return None

    def _store(self, store_key, key, best, timings):
        entry = {"format": _FORMAT, "kernel": self.base_fn.__name__, "key": str(key),
                 "best": best.all_kwargs(),
                 "timings": [[str(c), _first_time(t)] for c, t in timings.items()]}
        try:
            self.tuning_cache.put(store_key, json.dumps(entry).encode())
        except Exception as e:  # noqa: BLE001  -- a cache that cannot store loses nothing
            warnings.warn(TuningCacheWarning(f"cannot store the tuning: {e}"))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, do_bench=None,
             cache_results=False, compile_workers=None):
    """Decorator (Triton's ``triton.autotune``) over ``@kiln.jit`` or ``@kiln.heuristics``.

    ``key`` names arguments whose values select a tuning; ``prune_configs_by`` takes
    ``early_config_prune(configs, nargs, **kwargs)``, ``perf_model(**args)`` and ``top_k``;
    ``reset_to_zero``/``restore_value`` name tensors zeroed before / restored after each
    benchmark run; ``do_bench(kernel_call, quantiles)`` replaces the timer. Kiln's additions:
    ``compile_workers`` (processes compiling configs; default the CPU count, 1 = in this
    process) and ``cache_results`` accepting a :class:`TuningCache`."""
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         do_bench=do_bench, cache_results=cache_results,
                         compile_workers=compile_workers)
    return decorator


# ``kiln.autotune`` is this decorator (the package binds the name over the module, as Triton's
# ``triton.autotune``), so the names users spell as ``kiln.autotune.X`` hang on it too.
for _cls in (Autotuner, TuningCache, DiskTuningCache, RedisTuningCache, TuningCacheWarning):
    setattr(autotune, _cls.__name__, _cls)
del _cls


class Heuristics:
    """What ``@kiln.heuristics`` makes: each value of ``values`` computed from the arguments
    before the launch (Triton's ``Heuristics``)."""

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.values = values

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def _add(self, args, kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._add(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._add(args, kwargs))


def heuristics(values):
    """Decorator (Triton's ``triton.heuristics``): ``values`` maps a meta-parameter name to a
    function of the arguments (a dict) that computes it."""
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
