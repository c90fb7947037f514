"""Kiln's F2-linear form of the tensor-core register layouts against Gluon's own.

test/Python/data/gluon-linear-layouts.json was captured on the GPU machine from Triton 3.6's
C++ (``scripts/gluon-layouts.py --capture``): for each case, a layout written as a Python
expression over ``gl`` and a shape, the register, lane and warp bases Gluon gives it. Here the
same expression is evaluated with ``gl`` = ``kiln.language``, and Kiln's ``to_linear_layout``
must give the same lane and warp bases and the same register bases in the same order, less
Gluon's register bases that move nowhere (Kiln holds no repeated registers): a layout copied
from Gluon as a DistributedLinearLayout then converts to Kiln's for free.
The cases cover NVMMADistributedLayout versions [2, 0], [2, 1] and [3, 0] with every
warps_per_cta form Triton's test_lowerings.py uses (rank 3 included), their DotOperandLayouts
and SliceLayouts of both.
"""

from __future__ import annotations

import json
import os

import pytest

import kiln.language as kl

import compiled

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "gluon-linear-layouts.json")


def _cases():
    with open(DATA) as f:
        data = json.load(f)
    return [c for c in data["cases"] if "error" not in c]


@compiled.needs_compiler
def test_every_case_matches_gluon():
    from kiln.compiler.compiler import _require_compiler
    _require_compiler()  # the layout math is C++'s
    cases = _cases()
    assert len(cases) > 1000
    wrong = []
    for case in cases:
        layout = eval(case["layout"], {"gl": kl})  # noqa: S307 - our own data file
        ll = kl.to_linear_layout(layout, case["shape"])
        got = {"reg": [list(b) for b in ll.reg_bases], "lane": [list(b) for b in ll.lane_bases],
               "warp": [list(b) for b in ll.warp_bases]}
        # Gluon keeps register bases that move nowhere (a register repeating another where the
        # tensor is smaller than the layout's tile); Kiln drops them (it holds one copy).
        want = {"reg": [b for b in case["reg"] if any(b)], "lane": case["lane"],
                "warp": case["warp"]}
        if got != want:
            wrong.append(f"{case['layout']} on {case['shape']}:\n  kiln  {got}\n  gluon {want}")
    assert not wrong, f"{len(wrong)} of {len(cases)} differ; first:\n" + "\n".join(wrong[:5])


def test_the_capture_covers_the_script_cases():
    """The data file is the script's current case list (rerun the capture when it changes)."""
    import importlib.util
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    spec = importlib.util.spec_from_file_location(
        "gluon_layouts", os.path.join(root, "scripts", "gluon-layouts.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(DATA) as f:
        captured = [(c["layout"], c["shape"]) for c in json.load(f)["cases"]]
    assert captured == [(e, list(s)) for e, s in mod.cases()]
