#!/usr/bin/env python3
"""Recompile the wild corpus's AMD launches with Kiln on any machine -- no torch, no Triton, no
GPU -- and print their register use, as scripts/wild-suite.py does for the Kiln side.

    # once, on the GPU machine (where aiter's launchers run on torch):
    WILD_LAUNCH_DIR=build/wild-launches python3 scripts/wild-suite.py --sides kiln ...
    # then anywhere, as often as a change to Kiln needs:
    python3 scripts/wild-amd-local.py build/wild-launches [--cases aiter_gemm_a8w8] [--asm DIR]

Each pickle (test/wild/harness.py save_launch) names the kernel's module and function and holds
its arguments with tensors as harness.WildTensor (address, dtype, shape, strides, bytes). The
modules are imported from the restored Kiln copies (build/wild/kiln/<project>, made by
scripts/wild-corpus.py restore); where torch or Triton is not installed, stand-ins that answer
every name let them import (Triton's ``jit``, ``heuristics``, ``cdiv``, ``next_power_of_2`` and
``language`` mapped onto Kiln's). Exit status 1 when a launch fails to compile.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import importlib
import os
import pickle
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class _Anything:
    """A stand-in value: any attribute, call, index or iteration gives another (or nothing)."""

    def __init__(self, name="x"):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        return _Anything(f"{self._name}()")

    def __getitem__(self, key):
        return _Anything(f"{self._name}[]")

    def __iter__(self):
        return iter(())

    def __repr__(self):
        return self._name

    def __or__(self, other):  # type annotations: torch.Tensor | None
        return self

    __ror__ = __or__

    def __mro_entries__(self, bases):  # a class deriving from a stand-in
        return (object,)

    def __str__(self):
        return self._name


class _Module(types.ModuleType):
    """A stand-in module: unknown names are _Anything; submodules are stand-ins too."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(f"{self.__name__}.{name}")


def _builtin(fn):
    """Triton's ``tl.core.builtin``: marks a project's helper as a builtin, which Kiln calls
    as Triton would."""
    fn.__triton_builtin__ = True
    return fn


class _PickledDtype:
    """A Triton dtype in a captured launch (a constexpr such as COMPUTE_TYPE=tl.bfloat16):
    unpickled with its attributes, then replaced by Kiln's dtype of the same name
    (_kiln_dtypes)."""

    def __setstate__(self, state):
        self.__dict__.update(state)


def _kiln_dtypes(value):
    """``value`` with every _PickledDtype in it (also in tuples, lists, dicts) Kiln's dtype."""
    if isinstance(value, _PickledDtype):
        import kiln.language as kl
        return kl.dtype(value.name)
    if isinstance(value, (tuple, list)):
        return type(value)(_kiln_dtypes(v) for v in value)
    if isinstance(value, dict):
        return {k: _kiln_dtypes(v) for k, v in value.items()}
    return value


class _StandIns:
    """Import hook: ``torch...`` and ``triton...`` as stand-in modules."""

    def __init__(self, roots):
        self.roots = roots

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in self.roots:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        if module.__name__ == "triton":
            _fill_triton(module)
        elif module.__name__ == "triton.language":
            import kiln.language as kl
            module.__dict__.update({k: getattr(kl, k) for k in dir(kl) if not k.startswith("_")})
            module.math = importlib.import_module("triton.language.math")  # tl.math.exp2
            module.core = importlib.import_module("triton.language.core")  # tl.core.builtin
        elif module.__name__ == "triton.language.core":
            import kiln.language as kl
            module._aggregate = kl.aggregate
            module.constexpr = kl.constexpr
            module.builtin = _builtin
            module.dtype = _PickledDtype
        elif module.__name__ == "triton.language.math":
            import kiln.language as kl
            module.__dict__.update({k: getattr(kl, k) for k in dir(kl) if not k.startswith("_")})
        elif module.__name__.startswith("triton.language.extra") and \
                module.__name__.endswith(".libdevice"):
            from kiln.language.extra import libdevice
            module.__dict__.update({k: getattr(libdevice, k) for k in dir(libdevice)
                                    if not k.startswith("_")})


def _fill_triton(triton):
    import kiln
    import kiln.language as kl

    class Heuristics:
        def __init__(self, fn, values):
            self.fn, self.values = fn, values
            self.arg_names = fn.arg_names

    triton.jit = kiln.jit
    triton.heuristics = lambda values: (lambda fn: Heuristics(fn, values))
    triton.autotune = lambda *a, **k: (lambda fn: fn)
    triton.Config = kiln.Config
    triton.cdiv = kl.constexpr_function(lambda a, b: -(-a // b))  # as Triton 3.6
    triton.next_power_of_2 = kl.constexpr_function(lambda n: 1 << (int(n) - 1).bit_length())
    triton.__version__ = "3.6.0"
    target = types.SimpleNamespace(backend="hip", arch="gfx950", warp_size=64)
    triton.runtime = types.SimpleNamespace(driver=types.SimpleNamespace(
        active=types.SimpleNamespace(get_current_target=lambda: target)))


def install_stand_ins():
    roots = set()
    for name in ("torch", "triton"):
        try:
            importlib.import_module(name)
        except ImportError:
            roots.add(name)
    if roots:
        sys.meta_path.insert(0, _StandIns(roots))
    return roots


class _Unpickler(pickle.Unpickler):
    """Pickles written before WildTensor named its module: the suite ran the harness as
    __main__."""

    def find_class(self, module, name):
        if module == "__main__" and name == "WildTensor":
            import harness
            return harness.WildTensor
        if module == "triton.language.core" and name == "dtype" and \
                isinstance(sys.modules.get("triton"), _Module):
            return _PickledDtype
        return super().find_class(module, name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("launches", help="a folder of pickles written with WILD_LAUNCH_DIR")
    ap.add_argument("--cases", help="comma-separated case names (default: all)")
    ap.add_argument("--asm", help="write each launch's AMDGCN to this folder")
    ap.add_argument("--dest", default=os.path.join(ROOT, "build", "wild"),
                    help="where wild-corpus.py restored the corpus")
    args = ap.parse_args(argv)
    sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "wild")]
    import harness  # noqa: F401  (WildTensor, for unpickling; amd_stats)
    stood_in = install_stand_ins()
    if stood_in:
        print(f"(stand-ins for {', '.join(sorted(stood_in))})")
    paths = sorted(glob.glob(os.path.join(args.launches, "*.pkl")))
    if not paths:
        sys.exit(f"wild-amd-local: no launches (*.pkl) in {args.launches}")
    only = set(args.cases.split(",")) if args.cases else None
    failed = 0
    for path in paths:
        with open(path, "rb") as f:
            rec = _Unpickler(f).load()
        if only and rec["case"] not in only:
            continue
        root = os.path.join(args.dest, "kiln", rec["project"])
        if root not in sys.path:
            sys.path.insert(0, root)
        label = f"{rec['case']} {rec['label']}"
        try:
            mod = importlib.import_module(rec["module"])
            fn = getattr(mod, rec["name"])
            while not hasattr(fn, "warmup") or type(fn).__name__ in ("Heuristics", "Autotuner"):
                fn = fn.fn
            compiled = fn.warmup(*_kiln_dtypes(rec["args"]), target=f"hip:{rec['target']}",
                                 **_kiln_dtypes(rec["kwargs"]))
        except Exception as e:  # noqa: BLE001 -- reported, the others still compile
            failed += 1
            print(f"{label:44} error: {harness.first_line(e)}")
            continue
        asm = compiled.asm["amdgcn"]
        st = harness.amd_stats(asm)
        # as the suite: the dynamic shared memory too (not in .group_segment_fixed_size)
        st["lds_bytes"] = max(st["lds_bytes"] or 0, harness._shared(compiled) or 0)
        print(f"{label:44} vgpr {st['vgprs']}, agpr {st['agprs']}, spill {st['vgpr_spills']}, "
              f"lds {st['lds_bytes']}, mfma {st['mfma']}, waitcnt {st['s_waitcnt']}")
        if args.asm:
            os.makedirs(args.asm, exist_ok=True)
            with open(os.path.join(args.asm, f"{rec['case']}.{rec['label']}.s"), "w") as f:
                f.write(asm)
            if os.environ.get("WILD_TILE_IR"):  # the tile IR and the optimized LLVM IR too
                with open(os.path.join(args.asm, f"{rec['case']}.{rec['label']}.tile.mlir"), "w") as f:
                    f.write(compiled.asm["tile"])
                with open(os.path.join(args.asm, f"{rec['case']}.{rec['label']}.ll"), "w") as f:
                    f.write(compiled.asm["llir"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
