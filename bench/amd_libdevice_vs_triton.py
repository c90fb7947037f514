"""Kiln's and Triton's AMDGCN for each fp32 function of Gluon's libdevice on AMD targets.

An independent check of Kiln's AMD libdevice (kiln.language.amd._libdevice, the backend's
DeviceLibs.cpp): both compilers call the ROCm device libraries' ocml functions, link them and
define their control constants; when both link the same ocml.bc the math of each function
should compile to the same vector instructions. For every unary fp32 name it compiles one
kernel ``out = f(x)`` with Triton 3.6's Gluon (its bundled ocml.bc) and, by import swap,
with Kiln (KILN_ROCM_DEVICE_LIBS set to Triton's bundled copy unless given), for gfx942
(--chip), and prints the vector ALU instruction counts of both and how many differ (the
multiset difference of mnemonics; loads, stores and waits are left out).

Needs Triton with its AMD backend (no GPU: both only compile). Usage:
  python3 bench/amd_libdevice_vs_triton.py [--chip gfx942] [--names erf,tanh]
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if importlib.util.find_spec("kiln") is None:  # an installed wheel first, else the checkout
    sys.path.insert(0, os.path.join(ROOT, "python"))

KERNEL = '''
@gluon.jit
def k_{name}(X, Out, N: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1], [64], [4], [0])
    o = gl.arange(0, N, L)
    gl.store(Out + o, libdevice.{name}(gl.load(X + o)))
'''

HEADERS = {
    "triton": "from triton.experimental import gluon\n"
              "from triton.experimental.gluon import language as gl\n"
              "from triton.language.extra import libdevice\n",
    "kiln": "import kiln as gluon\nimport kiln.language as gl\n"
            "from kiln.language.extra import libdevice\n",
}

_MEMORY = re.compile(r"^(v_readfirstlane|v_mov_b32|buffer_|global_|flat_|ds_|s_)")


def valu(asm: str) -> collections.Counter:
    """Mnemonics of the vector ALU instructions of the kernel's body."""
    out = collections.Counter()
    for line in asm.splitlines():
        line = line.strip()
        if not line or line.startswith((";", ".", "_")) or line.endswith(":"):
            continue
        op = line.split()[0]
        if op.startswith("v_") and not _MEMORY.match(op):
            out[op] += 1
    return out


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def triton_asm(fn, chip, dump=None):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    src = GluonASTSource(fn=fn, signature={"X": "*fp32", "Out": "*fp32", "N": "constexpr"},
                         constexprs={"N": 256})
    k = triton.compile(src, target=GPUTarget("hip", chip, 64), options={"num_warps": 4})
    _dump(dump, fn.__name__ + ".triton", k.asm)
    return k.asm["amdgcn"]


def _dump(folder, stem, asm):
    if folder:
        os.makedirs(folder, exist_ok=True)
        for key, ext in (("amdgcn", "s"), ("llir", "ll")):
            with open(os.path.join(folder, f"{stem}.{ext}"), "w") as f:
                f.write(asm[key])


def kiln_asm(fn, chip, dump=None):
    import kiln
    k = kiln.compile(fn, {"X": "*fp32", "Out": "*fp32"}, {"N": 256}, target=f"hip:{chip}",
                     num_warps=4, cache=False)
    _dump(dump, fn.__name__ + ".kiln", k.asm)
    return k.asm["amdgcn"]


def main(argv=None):
    from kiln.language.amd import _libdevice as amd
    unary = sorted(n for n, sigs in amd.TABLE.items() if ("fp32",) in sigs
                   and sigs[("fp32",)][1] == "fp32")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chip", default="gfx942")
    ap.add_argument("--names", default=",".join(unary))
    ap.add_argument("--dump", help="write each side's assembly and LLVM IR into this folder")
    args = ap.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    if "KILN_ROCM_DEVICE_LIBS" not in os.environ:
        import triton
        lib = os.path.join(os.path.dirname(triton.__file__), "backends", "amd", "lib")
        if os.path.isfile(os.path.join(lib, "ocml.bc")):
            os.environ["KILN_ROCM_DEVICE_LIBS"] = lib
    print(f"ocml for Kiln: {os.environ.get('KILN_ROCM_DEVICE_LIBS') or amd.device_libs_dir()}")
    tmp = tempfile.mkdtemp(prefix="kiln-libdevice-")
    mods = {}
    for side, head in HEADERS.items():
        path = os.path.join(tmp, f"ld_{side}.py")
        with open(path, "w") as f:
            f.write(head + "".join(KERNEL.format(name=n) for n in names))
        mods[side] = load(path, f"ld_{side}")
    print(f"| function ({args.chip}) | VALU Triton | VALU Kiln | differing |")
    print("|---|---|---|---|")
    same = 0
    for n in names:
        try:
            t = valu(triton_asm(getattr(mods["triton"], f"k_{n}"), args.chip, args.dump))
        except Exception as e:  # noqa: BLE001 - reported per row
            print(f"| {n} | Triton fails: {type(e).__name__}: {str(e)[:80]} | | |")
            continue
        k = valu(kiln_asm(getattr(mods["kiln"], f"k_{n}"), args.chip, args.dump))
        diff = sum(((t - k) + (k - t)).values())
        same += diff == 0
        print(f"| {n} | {sum(t.values())} | {sum(k.values())} | {diff} |")
    print(f"{same} of {len(names)} functions: the same vector instructions")


if __name__ == "__main__":
    main()
