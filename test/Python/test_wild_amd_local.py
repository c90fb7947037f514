"""scripts/wild-amd-local.py recompiles a captured AMD launch without torch, Triton or a GPU: a
small project module written against torch and triton.experimental.gluon names (swapped to
Kiln's, as the corpus's copies are), a launch pickled as test/wild/harness.py saves one
(tensors as WildTensor), and the script's line of register use; a launch that does not
compile is an error line and exit status 1."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

import compiled

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "wild"))
from harness import WildTensor  # noqa: E402

pytestmark = compiled.needs_compiler

MODULE = '''
import torch
import triton
import kiln as gluon
from kiln import language as gl


def launcher(x: torch.Tensor | None, n):
    return triton.cdiv(n, 256)


@triton.heuristics({"EVEN": lambda args: args["n"] % 256 == 0})
@gluon.jit
def scale(x, y, n, EVEN: gl.constexpr, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([4], [64], [1], [0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout)
    if EVEN:
        gl.store(y + offs, gl.load(x + offs) * 2.0)
    else:
        gl.store(y + offs, gl.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)
'''


def _launch(tmp_path, block):
    proj = tmp_path / "kiln" / "proj" / "proj"
    proj.mkdir(parents=True)
    (proj / "__init__.py").write_text("")
    (proj / "kern.py").write_text(MODULE)
    x = WildTensor(0x7F0000000000, "float32", (4096,), (1,), 4 * 4096)
    rec = {"case": "toy", "label": "f32", "project": "proj", "target": "gfx942",
           "module": "proj.kern", "name": "scale", "args": [x, x, 4096],
           "kwargs": {"EVEN": True, "BLOCK": block, "num_warps": 1}}
    launches = tmp_path / "launches"
    launches.mkdir()
    with open(launches / "toy.f32.pkl", "wb") as f:
        pickle.dump(rec, f)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "wild-amd-local.py"),
                           str(launches), "--dest", str(tmp_path), "--asm", str(tmp_path / "asm")],
                          capture_output=True, text=True, env=env, timeout=300)


def test_a_captured_launch_recompiles_without_torch(tmp_path):
    r = _launch(tmp_path, 256)
    assert r.returncode == 0, r.stdout + r.stderr
    line = [l for l in r.stdout.splitlines() if l.startswith("toy f32")]
    assert line and "vgpr" in line[0] and "spill 0" in line[0], r.stdout
    asm = (tmp_path / "asm" / "toy.f32.s").read_text()
    assert "global_store" in asm or "buffer_store" in asm


def test_a_launch_that_does_not_compile_is_an_error_line(tmp_path):
    r = _launch(tmp_path, 100)  # arange of a length that is not a power of two
    assert r.returncode == 1
    assert any(l.startswith("toy f32") and "error:" in l for l in r.stdout.splitlines()), r.stdout
