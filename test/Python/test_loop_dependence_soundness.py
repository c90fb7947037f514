"""Soundness of the pipeliner's dependence analysis (kiln/Analysis/LoopDependence.h) by brute
force: random loops that load and store through one pointer argument, with addresses affine
in the induction variable, kernel arguments and the element index, are given to
`kiln-opt --test-print-loop-hazards`, which says for d = 1..4 whether the load of iteration
i + d may read an element a store of iteration i writes ("none", "overlap", "unknown").
Each loop is then evaluated on concrete argument values and iterations: a "none" that some
evaluation contradicts (the two element sets meet) is a false claim, and so is an "overlap"
no evaluation shows (the analysis claims it for all values). Run with the analysis made
unsound (the overlap test skipped) it reports false claims."""

import random

import numpy as np
import pytest

from remarks import KILN_OPT, remarks_by_line

import os

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")

SIZES = [8, 16, 32]


def _affine(rng, names):
    """A random affine form: {name: coefficient} over the given atoms plus a constant."""
    form = {"1": rng.randint(-40, 40)}
    for n in names:
        if rng.random() < 0.6:
            form[n] = rng.choice([-3, -2, -1, 1, 2, 3, 8, 16, 32])
    return form


def _emit_affine(lines, form, values, tag):
    """i32 SSA lines computing `form`; `values` maps atom names to SSA names."""
    acc = f"%{tag}_c"
    lines.append(f"    {acc} = arith.constant {form['1']} : i32")
    for k, (name, coeff) in enumerate(sorted((n, c) for n, c in form.items() if n != "1")):
        lines.append(f"    %{tag}_k{k} = arith.constant {coeff} : i32")
        lines.append(f"    %{tag}_m{k} = arith.muli {values[name]}, %{tag}_k{k} : i32")
        lines.append(f"    %{tag}_a{k} = arith.addi {acc}, %{tag}_m{k} : i32")
        acc = f"%{tag}_a{k}"
    return acc


def _case(rng, idx):
    size = rng.choice(SIZES)
    step = rng.choice([1, 1, 2, 3, 8])
    # The load and the store share the argument atoms; often the same coefficients, so
    # the argument parts cancel and the distance is a constant.
    load = _affine(rng, ["i", "a", "b"])
    store = dict(load) if rng.random() < 0.6 else _affine(rng, ["i", "a", "b"])
    store["1"] = load["1"] + rng.randint(-3 * size, 3 * size) if rng.random() < 0.7 \
        else rng.randint(-40, 40)
    if rng.random() < 0.5:
        store["i"] = load.get("i", 0) or store.get("i", 1)
    cl = rng.choice([1, 1, 2, -1, 0])
    cs = rng.choice([1, 1, 2, -1, 3])
    return dict(size=size, step=step, load=load, store=store, cl=cl, cs=cs, idx=idx)


def _function(case, lines):
    i = case["idx"]
    s = case["size"]
    t = f"tensor<{s}xi32, #l>"
    p = f"tensor<{s}x!tile.ptr<f32>, #l>"
    f = f"tensor<{s}xf32, #l>"
    lines.append(f"  func.func @f{i}(%x: !tile.ptr<f32>, %a: i32, %b: i32, %n: i32) {{")
    lines.append("    %z = arith.constant 0 : i32")
    lines.append(f"    %st = arith.constant {case['step']} : i32")
    lines.append(f"    %e = tile.arange 0, {s} : {t}")
    lines.append(f"    %cl = arith.constant dense<{case['cl']}> : {t}")
    lines.append(f"    %cs = arith.constant dense<{case['cs']}> : {t}")
    lines.append(f"    %el = arith.muli %e, %cl : {t}")
    lines.append(f"    %es = arith.muli %e, %cs : {t}")
    lines.append(f"    %base = tile.splat %x : {p}")
    lines.append("    scf.for %i = %z to %n step %st : i32 {")
    vals = {"i": "%i", "a": "%a", "b": "%b"}
    lo = _emit_affine(lines, case["load"], vals, "l")
    so = _emit_affine(lines, case["store"], vals, "s")
    lines.append(f"    %lsp = tile.splat {lo} : {t}")
    lines.append(f"    %loff = arith.addi %lsp, %el : {t}")
    lines.append(f"    %lp = tile.addptr %base, %loff : {p}, {t}")
    lines.append(f"    %v = tile.load %lp : {p}")
    load_line = len(lines)
    lines.append(f"    %ssp = tile.splat {so} : {t}")
    lines.append(f"    %soff = arith.addi %ssp, %es : {t}")
    lines.append(f"    %sp = tile.addptr %base, %soff : {p}, {t}")
    lines.append(f"    tile.store %sp, %v : {p}")
    lines.append(f"    }} {{tile.num_stages = 3 : i32}}")
    lines.append("    return")
    lines.append("  }")
    return load_line


def _eval(form, env):
    return sum(c * (1 if n == "1" else env[n]) for n, c in form.items())


def _meets(case, d, env):
    """Whether, at these argument values and iteration iv, the load of iteration iv + d*step
    reads an element the store of iteration iv writes."""
    e = np.arange(case["size"])
    env_l = dict(env, i=env["i"] + d * case["step"])
    loads = _eval(case["load"], env_l) + case["cl"] * e
    stores = _eval(case["store"], env) + case["cs"] * e
    return bool(np.intersect1d(loads, stores).size)


def test_loop_hazard_claims_are_never_contradicted():
    rng = random.Random(20261128)
    cases = [_case(rng, k) for k in range(300)]
    lines = ['#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], '
             'warpsPerCTA = [1], order = [0]}>',
             'module attributes {tile.target = "cuda:sm_80", tile.num_warps = 1 : i32, '
             'tile.threads_per_warp = 32 : i32} {']
    at = {}
    for c in cases:
        at[_function(c, lines)] = c
    lines.append("}")
    got = remarks_by_line("\n".join(lines) + "\n", "test-print-loop-hazards")
    assert set(got) == set(at), sorted(set(at) ^ set(got))[:5]
    false_none, false_overlap, counts = [], [], {"none": 0, "overlap": 0, "unknown": 0}
    for line, c in at.items():
        verdicts = dict(v.split("=") for v in got[line].split(":", 1)[1].split())
        for d in range(1, 5):
            verdict = verdicts[str(d)]
            counts[verdict] += 1
            envs = [dict(a=rng.randint(-50, 50), b=rng.randint(-50, 50),
                         i=rng.randint(-60, 60)) for _ in range(40)]
            seen = [_meets(c, d, env) for env in envs]
            if verdict == "none" and any(seen):
                false_none.append((c, d))
            if verdict == "overlap" and not all(seen):
                false_overlap.append((c, d))
    # The campaign must exercise every verdict.
    assert not false_none, (len(false_none), false_none[:3])
    assert not false_overlap, (len(false_overlap), false_overlap[:3])
    # The campaign must exercise every verdict (here: none 429, overlap 171, unknown 600).
    assert all(n > 20 for n in counts.values()), counts
