"""Runs one wild-corpus case on one side (Triton or Kiln) in this process and writes a JSON
result. scripts/wild-suite.py starts it once per case and side, in a subprocess:

    python3 test/wild/harness.py CASE SIDE --root build/wild/<src|kiln>/<project> --out r.json

A case is test/wild/cases/CASE.py. It names ``PROJECT``, ``MODULE`` (the kernel module, imported
from ``--root``: the restored original for Triton, the import-swapped copy for Kiln),
``TARGET`` and ``KIND``:

* ``KIND = "run"`` (an NVIDIA target, on the GPU machine): ``setup(mod)`` returns
  ``(launch, check)``: ``launch()`` calls the kernel the way its project does; ``check()``
  compares what the last launch wrote with a torch reference and returns
  ``(ok, max_error, note)``. The harness checks it once, then times it: kernel time is the
  median of CUDA-event-timed launches after warm-up; host time is the wall time of N
  back-to-back launches without synchronizing, divided by N.
* ``KIND = "compile"`` (an AMD target; there is no AMD GPU): ``launches(mod)`` returns a list of
  ``(label, kernel, args, kwargs)`` -- a launch as the project makes it, captured instead of
  run (see :func:`capture`) -- and the harness compiles each for ``TARGET`` (``"gfx942"``,
  ``"gfx950"``) without a device, with Triton or Kiln, and reports VGPRs, spills, LDS bytes,
  MFMA count and wait counts from the AMDGCN (kept in $WILD_ASM_DIR when that is set; with
  $WILD_LAUNCH_DIR the Kiln side's captured launches are pickled there, for
  scripts/wild-amd-local.py to recompile without torch or a GPU).

A failure is reported by its first line and the DSL location it names (the kernel file:line,
from the message, else the innermost traceback frame under ``--root``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import re
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


# ----------------------------------------------------------------------------- errors


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [l for l in text.splitlines() if l.strip()]
    # Triton's CompilationError starts with "at 12:4:" and the source; its message is last.
    if lines and re.match(r"^at \d+:\d+:", lines[0]):
        msg = next((l.strip() for l in reversed(lines) if l.strip().strip("^")), "")
        cause = exc.__cause__
        if cause is not None:
            msg = f"{lines[0]} {type(cause).__name__}: {first_line(cause).split(': ', 1)[-1]}"
    else:
        msg = lines[0] if lines else ""
    return f"{type(exc).__name__}: {msg}"[:400]


def original_line(root: str, rel: str, line: int):
    """The line of the restored original that line ``line`` of the Kiln copy
    ``<root>/<rel>`` came from (the swap inserts lines; everything else is unchanged)."""
    import difflib
    src = os.path.join(root.replace(os.sep + "kiln" + os.sep, os.sep + "src" + os.sep), rel)
    if src == os.path.join(root, rel) or not os.path.exists(src):
        return None
    with open(src) as f:
        a = f.read().splitlines()
    with open(os.path.join(root, rel)) as f:
        b = f.read().splitlines()
    for i, j, n in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        if j < line <= j + n:
            return i + (line - j)
    return None


def dsl_location(exc: BaseException, root: str):
    """The kernel file:line an error names (for a Kiln copy, with the original's line)."""
    where = _dsl_location(exc, root)
    if where and ":" in where:
        rel, line = where.rsplit(":", 1)
        orig = original_line(root, rel, int(line)) if line.isdigit() else None
        if orig is not None and orig != int(line):
            return f"{rel}:{orig} (kiln copy line {line})"
    return where


def _dsl_location(exc: BaseException, root: str):
    """The kernel file:line an error names: from its message (Kiln names the user's line), or
    the innermost traceback frame under ``root``."""
    root = os.path.realpath(root)
    seen = []
    e = exc
    while e is not None and e not in seen:
        seen.append(e)
        e = e.__cause__ or e.__context__
    for e in seen:
        text = str(e)
        for m in re.finditer(r'File "([^"]+\.py)", line (\d+)|([\w./+-]+\.py):(\d+)', text):
            path, line = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            real = os.path.realpath(path)
            if real.startswith(root):
                return f"{os.path.relpath(real, root)}:{line}"
            if not os.path.isabs(path) and "site-packages" not in path:
                return f"{path}:{line}"
    for e in seen:
        frames = traceback.extract_tb(e.__traceback__)
        for fr in reversed(frames):
            if os.path.realpath(fr.filename).startswith(root):
                return f"{os.path.relpath(os.path.realpath(fr.filename), root)}:{fr.lineno}"
    return None


# ----------------------------------------------------------------------------- timing


def time_kernel(launch, reps: int = 30, warmup: int = 5, host_rounds: int = 7,
                host_calls: int = 20):
    """(median kernel µs, host µs per launch).

    Kernel time: each launch is CUDA-event timed behind a ~1 ms device sleep, so that its host
    work (argument binding, descriptors, the launch call) is done before the start event fires
    and the interval holds the device work alone. Host time: the wall time of ``host_calls``
    back-to-back launches without synchronizing, divided by their number, in
    ``host_rounds`` rounds (the device drained between them); the median round (one round
    of 30 calls varied by tens of microseconds a call between runs of the same code)."""
    import torch
    for _ in range(warmup):
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(2_000_000)
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(host_rounds):
        t0 = time.perf_counter()
        for _ in range(host_calls):
            launch()
        rounds.append((time.perf_counter() - t0) / host_calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(times), statistics.median(rounds)


def gluon_of(mod):
    """(language module, TensorDescriptor class) of the side ``mod`` was imported for: Gluon's
    for the original, Kiln's for the swapped copy."""
    gl = mod.gl
    if gl.__name__.startswith("kiln"):
        from kiln.nvidia.hopper import TensorDescriptor
    else:
        from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    return gl, TensorDescriptor


def rel_error(out, ref):
    """max |out - ref| / max |ref| (0 for an all-zero reference that is matched)."""
    out, ref = out.float(), ref.float()
    diff = (out - ref).abs().max().item()
    scale = ref.abs().max().item()
    return diff / scale if scale else diff


# ----------------------------------------------------------------------------- AMD compile


class Captured(Exception):
    """Raised by a captured launch to stop the project's launcher right there."""


class capture:
    """Stands in for a kernel object in its module while the project's launcher runs:
    ``kernel[grid](*args, **kwargs)`` records the launch and raises :class:`Captured`.

        with capture(mod, "_gemm_kernel") as cap:
            mod.gemm(x, w, ...)
        kernel, args, kwargs = cap.launch
    """

    def __init__(self, module, name):
        self.module, self.name, self.launch = module, name, None

    def __enter__(self):
        self.kernel = getattr(self.module, self.name)
        outer = self

        class _Stand:
            def __getitem__(self, grid):
                def record(*args, **kwargs):
                    outer.launch = (outer.kernel, args, kwargs)
                    raise Captured()
                return record
        setattr(self.module, self.name, _Stand())
        return self

    def __exit__(self, kind, value, tb):
        setattr(self.module, self.name, self.kernel)
        return kind is Captured


# Launch options the Kiln side drops (none: Kiln takes Triton's AMD options, waves_per_eu
# as the occupancy hint and the tl.dot ones without effect, as Triton does for Gluon kernels).
_TRITON_ONLY_OPTIONS = ()


def _unwrap(kernel, args, kwargs):
    """The JIT function under @triton.heuristics / autotune wrappers, with the heuristics'
    values added to ``kwargs`` (what Heuristics.run does before launching)."""
    kwargs = dict(kwargs)
    while not hasattr(kernel, "warmup") or type(kernel).__name__ in ("Heuristics", "Autotuner"):
        values = getattr(kernel, "values", None)
        if values:
            names = list(kernel.arg_names)
            bound = dict(zip(names, args))
            bound.update(kwargs)
            for k, fn in values.items():
                kwargs[k] = fn(bound)
        kernel = kernel.fn
    return kernel, kwargs


class WildTensor:
    """What Kiln's specialization reads of a torch tensor argument (address, dtype, shape,
    strides, bytes), picklable: a captured AMD launch saved with these recompiles on a machine
    without torch or a GPU (scripts/wild-amd-local.py)."""

    class _Device:
        type = "cuda"

    device = _Device()

    def __init__(self, ptr, dtype, shape, strides, nbytes):
        self.ptr, self.dtype, self.shape = ptr, dtype, tuple(shape)
        self.strides, self.nbytes = tuple(strides), nbytes

    def data_ptr(self):
        return self.ptr

    def stride(self, dim=None):
        return self.strides if dim is None else self.strides[dim]

    def dim(self):
        return len(self.shape)


# The suite runs this file as __main__: pickle WildTensors under the module name that
# scripts/wild-amd-local.py imports.
WildTensor.__module__ = "harness"


def _wild_tensor_class():
    """The WildTensor that pickle finds as harness.WildTensor: the imported module's where a
    case imported this file as `harness` beside the suite running it as __main__ (two class
    objects), else this one, with this module registered under that name."""
    module = sys.modules.setdefault("harness", sys.modules[__name__])
    return getattr(module, "WildTensor", WildTensor)


def stand_in(value):
    """``value`` with every torch tensor in it (also in tuples and lists) a WildTensor."""
    if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):
        return _wild_tensor_class()(value.data_ptr(), str(value.dtype).replace("torch.", ""),
                          value.shape, value.stride(), value.nbytes)
    if isinstance(value, (tuple, list)):
        return type(value)(stand_in(v) for v in value)
    if isinstance(value, dict):  # keyword arguments: a tensor passed by name
        return {k: stand_in(v) for k, v in value.items()}
    return value


def save_launch(path, case, label, fn, args, kwargs):
    """Pickles a captured AMD launch (the JIT function's module and name, the arguments with
    tensors as WildTensors, the keyword arguments) for scripts/wild-amd-local.py."""
    import pickle
    record = {"case": case.NAME, "label": label, "project": case.PROJECT,
              "target": case.TARGET, "module": fn.fn.__module__ if hasattr(fn, "fn") else
              getattr(fn, "__module__", None), "name": fn.__name__,
              "args": stand_in(list(args)), "kwargs": stand_in(dict(kwargs))}
    with open(path, "wb") as f:
        pickle.dump(record, f)


def amd_stats(asm: str) -> dict:
    """Register, spill, LDS and instruction counts of an AMDGCN listing."""
    def meta(key):
        m = re.findall(rf"\.{key}:\s+(\d+)", asm)
        return int(m[0]) if m else None
    lines = [l.strip() for l in asm.splitlines()]
    return {
        "vgprs": meta("vgpr_count"),
        "agprs": meta("agpr_count"),
        "sgprs": meta("sgpr_count"),
        "vgpr_spills": meta("vgpr_spill_count"),
        "sgpr_spills": meta("sgpr_spill_count"),
        "lds_bytes": meta("group_segment_fixed_size"),
        "scratch_bytes": meta("private_segment_fixed_size"),
        "mfma": sum(1 for l in lines if l.startswith("v_mfma")),
        "s_waitcnt": sum(1 for l in lines if l.startswith("s_waitcnt")),
        "vmcnt0": sum(1 for l in lines if l.startswith("s_waitcnt") and "vmcnt(0)" in l),
        "lgkmcnt0": sum(1 for l in lines if l.startswith("s_waitcnt") and "lgkmcnt(0)" in l),
        "barriers": sum(1 for l in lines if l.startswith("s_barrier")),
    }


def compile_amd(side: str, kernel, args, kwargs, arch: str):
    """Compile one captured launch for ``hip:<arch>`` without a device; -> (AMDGCN text,
    shared-memory bytes from the kernel's metadata, LLVM IR text or None)."""
    fn, kwargs = _unwrap(kernel, args, kwargs)
    if side == "triton":
        import triton
        from triton.backends.compiler import GPUTarget
        real = triton.runtime.driver.active

        class _HipTarget:
            def __getattr__(self, name):
                return getattr(real, name)

            def get_current_target(self):
                return GPUTarget("hip", arch, 64)
        triton.runtime.driver.set_active(_HipTarget())
        try:
            fn.device_caches.clear()
            compiled = fn.warmup(*args, grid=(1,), **kwargs)
        finally:
            triton.runtime.driver.set_active(real)
            fn.device_caches.clear()
        return compiled.asm["amdgcn"], _shared(compiled), _llir(compiled)
    kwargs = {k: v for k, v in kwargs.items()
              if k not in _TRITON_ONLY_OPTIONS or k in fn.arg_names}
    compiled = fn.warmup(*args, target=f"hip:{arch}", **kwargs)
    return compiled.asm["amdgcn"], _shared(compiled), _llir(compiled)


def _llir(compiled):
    """The LLVM IR the AMDGCN came from, where the compiler keeps it."""
    try:
        text = compiled.asm.get("llir")
    except AttributeError:
        return None
    return text if isinstance(text, str) else None


def _shared(compiled):
    """LDS bytes the launch allocates (both compilers size it in the metadata: the AMDGCN's
    .group_segment_fixed_size does not count the dynamic shared memory)."""
    try:
        return int(compiled.metadata.shared)
    except (AttributeError, TypeError, ValueError):
        return None


# ----------------------------------------------------------------------------- main


def load_case(name: str):
    for folder in (os.path.join(HERE, "cases"), HERE):  # cases import their shared helpers
        if folder not in sys.path:
            sys.path.insert(0, folder)
    path = os.path.join(HERE, "cases", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"wild_case_{name}", path)
    case = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(case)
    return case


def run(case, side: str, root: str) -> dict:
    res = {"case": case.NAME, "side": side, "target": case.TARGET, "kind": case.KIND}
    stage = "import"
    try:
        sys.path.insert(0, root)
        mod = importlib.import_module(case.MODULE)
        if case.KIND == "compile":
            stage = "compile"
            res["kernels"] = {}
            for label, kernel, args, kwargs in case.launches(mod):
                t0 = time.perf_counter()
                asm, shared, llir = compile_amd(side, kernel, args, kwargs, case.TARGET)
                stats = amd_stats(asm)
                stats["lds_bytes"] = max(stats["lds_bytes"] or 0, shared or 0)
                stats["compile_s"] = round(time.perf_counter() - t0, 2)
                res["kernels"][label] = stats
                saved = os.environ.get("WILD_LAUNCH_DIR")
                if saved and side == "kiln":  # to recompile without torch or a GPU
                    os.makedirs(saved, exist_ok=True)
                    fn, kw = _unwrap(kernel, args, kwargs)
                    save_launch(os.path.join(saved, f"{case.NAME}.{label}.pkl"), case, label,
                                fn, args, kw)
                keep = os.environ.get("WILD_ASM_DIR")
                if keep:  # the AMDGCN of each side, to compare them line by line
                    os.makedirs(keep, exist_ok=True)
                    with open(os.path.join(keep, f"{case.NAME}.{label}.{side}.s"), "w") as f:
                        f.write(asm)
                    if llir:
                        with open(os.path.join(keep, f"{case.NAME}.{label}.{side}.ll"), "w") as f:
                            f.write(llir)
            res["ok"] = True
            return res
        import torch
        stage = "setup"
        launch, check = case.setup(mod)
        stage = "first launch (compile)"
        t0 = time.perf_counter()
        launch()
        torch.cuda.synchronize()
        res["first_call_s"] = round(time.perf_counter() - t0, 2)
        stage = "check"
        ok, err, note = check()
        res.update(ok=bool(ok), max_error=err, note=note)
        if not ok:
            res["error"] = f"wrong result: max error {err:.3g} ({note})"
        stage = "timing"
        res["kernel_us"], res["host_us"] = time_kernel(launch)
    except BaseException as e:  # noqa: BLE001 -- everything is a result here
        res["ok"] = False
        res["stage"] = stage
        res["error"] = first_line(e)
        res["where"] = dsl_location(e, root)
        res["traceback"] = traceback.format_exc()[-4000:]
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("side", choices=("triton", "kiln"))
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    case = load_case(args.case)
    res = run(case, args.side, os.path.abspath(args.root))
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
