"""Builds the Gluon twin of a Kiln example: the example file's text with Kiln's imports
swapped for Gluon's, compiled and executed as a module here, so the kernel text the two
compilers get is the same and cannot drift. Used by bench/ampere_gemm.py,
bench/hopper_ws_gemm.py and bench/amd_gemm_vs_gluon.py."""

from __future__ import annotations

import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

# Kiln's import lines and decorator -> Gluon's (triton.experimental.gluon, Triton 3.6).
KILN_TO_GLUON = {
    # (kiln.Config / kiln.autotune of a tuned example become Triton's, which wrap Gluon kernels)
    "import kiln\n": "from triton.experimental import gluon\nimport triton as kiln\n",
    "import kiln.language as gl\n": "from triton.experimental.gluon import language as gl\n",
    "from kiln.language.nvidia.ampere import async_copy as cp\n":
        "from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp\n",
    "from kiln.language.nvidia.ampere import mma_v2\n":
        "from triton.experimental.gluon.language.nvidia.ampere import mma_v2\n",
    "from kiln.language.nvidia.hopper import (\n":
        "from triton.experimental.gluon.language.nvidia.hopper import (\n",
    "from kiln.nvidia.hopper import TensorDescriptor\n":
        "from triton.experimental.gluon.nvidia.hopper import TensorDescriptor\n",
    "import kiln.language as kl\n": "from triton.experimental.gluon import language as kl\n",
    "from kiln.language.amd import cdna3\n":
        "from triton.experimental.gluon.language.amd import cdna3\n",
    "from kiln.language.amd.cdna4 import async_copy as acp\n":
        "from triton.experimental.gluon.language.amd.cdna4 import async_copy as acp\n",
    "@kiln.jit\n": "@gluon.jit\n",
    "@kiln.constexpr_function\n": "@gluon.constexpr_function\n",
}


def gluon_module(example: str):
    """examples/<example>.py with Gluon's imports, as module ``gluon_twin_<example>`` (not
    ``gluon_<example>``: bench/gluon_hopper.py has that name and wraps this). Every Kiln
    import in the file must have a Gluon counterpart (else ValueError: the file would still
    run Kiln)."""
    path = os.path.join(HERE, "..", "examples", f"{example}.py")
    src = open(path).read()
    for old, new in KILN_TO_GLUON.items():
        src = src.replace(old, new)
    left = [line for line in src.splitlines()
            if line.startswith(("import kiln", "from kiln", "@kiln."))]
    if left:
        raise ValueError(f"{path}: no Gluon counterpart for {left}")
    name = f"gluon_twin_{example}"
    gen = os.path.join("/tmp", f"{name}_generated.py")
    with open(gen, "w") as f:  # Gluon's jit reads each function's source from its file
        f.write(src)
    mod = types.ModuleType(name)
    mod.__file__ = gen
    sys.modules[name] = mod
    exec(compile(src, gen, "exec"), mod.__dict__)
    return mod
