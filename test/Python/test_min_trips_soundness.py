"""The trips branch conditions before a loop make it run at least (impliedMinTrips, which
tile-check-async-safety's walk uses), checked by brute force, and what the facts change in
the check.

A hand-pipelined ring issues its prologue's copies under guards `c < T` (`if i * 64 < K:`) and
waits for them in a loop over `range(cdiv(T, s))`: the guard that issued a copy makes the loop
run at least as many trips as the copy needs (`64 < K` makes `cdiv(K, 64)` at least 2).
`--test-print-min-trips` prints, at each loop, the trips claimed for every combination of
values of the scf.if conditions before it; random loops (bounds `(T + s - 1) / s` in three
spellings, `T` itself or a constant; a constant lower bound and step) under random guards
(`c < T`, `c <= T`, either way round, on T or on the bound itself, `lb < ub`) are evaluated for
every T from -3 to 40: wherever the conditions have the values of a claim, the loop must run
at least the claimed trips. The claims must not be vacuous (some of 2 trips and more).

Then the check on random prologues of copies into constant slots under such guards, read
after the loop: the facts only ever remove errors (`--tile-async-no-min-trips` walks as
before them), they accept some kernels refused without them, and of those a model that shares
nothing with the check finds some race-free. (The check reports the races it is certain of:
a kernel it accepts may still race on a path it cannot decide, e.g. a wait in the loop that
keeps more groups than the prologue issued; the facts only remove paths no execution takes.)
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest

from remarks import (KILN_OPT, RING_HEADER as HEADER, namer, ring_types,
                     verdicts_with_and_without)

SEED = int(os.environ.get("KILN_MIN_TRIPS_SEED", "20261202"))
CASES = 300
T_RANGE = range(-2, 13)

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")


def ceil_div(x, s):
    """(x + s - 1) / s with arith.divsi's truncation toward zero."""
    q = abs(x + s - 1) // s
    return q if x + s - 1 >= 0 else -q


def make_case(rng, idx):
    n = rng.choice([2, 3, 4])
    s = rng.choice([1, 2, 4, 64])
    lb = rng.choice([0, 0, 1])
    step = rng.choice([1, 1, 2])
    ring, slot = ring_types(n)
    name = namer(idx)

    def const_slot(k, indent, out):
        v = name()
        out.append(f"{indent}%k{v} = arith.constant {k} : i32")
        out.append(f"{indent}%m{v} = tile.memdesc_index %ring[%k{v}] : {ring} -> {slot}")
        return f"%m{v}"

    def copy_into(m, indent, out):
        v = name()
        out.append(f"{indent}%t{v} = tile.async_copy_global_to_local %p, {m} : !p -> {slot}")
        out.append(f"{indent}%g{v} = tile.async_commit_group tokens %t{v}")

    # The prologue: copies into slots 0, 1, ..., each under a guard `c < T` (a random form
    # of it) or none.
    prologue, pre_model = [], []
    for k in range(rng.randrange(1, n + 1)):
        guard = None
        if rng.random() < 0.8:
            c = rng.choice([k * s, k * s - 1, k * s + 1, rng.randrange(-1, 3 * s + 2)])
            pred = rng.choice(["slt", "sle", "sgt", "sge"])
            swap = pred in ("sgt", "sge")  # T > c, T >= c: the same facts written the other way
            if rng.random() < 0.2:
                swap = not swap  # a guard that says nothing (T < c)
            guard = (c, pred, swap)
            v = name()
            prologue.append(f"    %c{v} = arith.constant {c} : i32")
            lhs, rhs = ("%T", f"%c{v}") if swap else (f"%c{v}", "%T")
            prologue.append(f"    %b{v} = arith.cmpi {pred}, {lhs}, {rhs} : i32")
            prologue.append(f"    scf.if %b{v} {{")
            copy_into(const_slot(k, "      ", prologue), "      ", prologue)
            prologue.append("    }")
        else:
            copy_into(const_slot(k, "    ", prologue), "    ", prologue)
        pre_model.append((k, guard))

    # The upper bound: ceildiv(T, s) in one of its spellings.
    form = rng.choice(["cdiv", "folded", "ceildivsi"])
    bound = [f"    %cs = arith.constant {s} : i32"]
    if form == "cdiv":
        bound += ["    %ub0 = arith.addi %T, %cs : i32", "    %ub1 = arith.subi %ub0, %c1 : i32",
                  "    %ub = arith.divsi %ub1, %cs : i32"]
    elif form == "folded":
        bound += [f"    %cs1 = arith.constant {s - 1} : i32",
                  "    %ub1 = arith.addi %T, %cs1 : i32", "    %ub = arith.divsi %ub1, %cs : i32"]
    else:
        bound += ["    %ub = arith.ceildivsi %T, %cs : i32"]

    body, model = [], []
    for _ in range(rng.randrange(1, 4)):
        what = rng.choice(["wait", "wait", "read", "read", "copy"])
        if what == "wait":
            k = rng.randrange(n)
            body.append(f"      %w{name()} = tile.async_wait {{num = {k} : i32}}")
            model.append(("wait", k))
            continue
        a = rng.randrange(n)
        v = name()
        body.append(f"      %a{v} = arith.constant {a} : i32")
        body.append(f"      %s{v} = arith.addi %i, %a{v} : i32")
        body.append(f"      %x{v} = arith.remsi %s{v}, %cn : i32")
        body.append(f"      %m{v} = tile.memdesc_index %ring[%x{v}] : {ring} -> {slot}")
        if what == "read":
            body.append(f"      %u{v} = tile.local_load %m{v} : {slot} -> tensor<256xf32, #l>")
            model.append(("read", a))
        else:
            copy_into(f"%m{v}", "      ", body)
            model.append(("copy", a))
    after = rng.randrange(n)
    epilogue = []
    m = const_slot(after, "    ", epilogue)
    epilogue.append(f"    %ue = tile.local_load {m} : {slot} -> tensor<256xf32, #l>")

    text = "\n".join([
        HEADER,
        "module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {",
        f"  func.func @case{idx}(%p: !p, %T: i32) {{",
        f"    %cn = arith.constant {n} : i32",
        f"    %clb = arith.constant {lb} : i32",
        f"    %cstep = arith.constant {step} : i32",
        "    %c1 = arith.constant 1 : i32",
        f"    %ring = tile.local_alloc : () -> {ring}",
        *prologue,
        *bound,
        "    scf.for %i = %clb to %ub step %cstep : i32 {",
        *body,
        "    }",
        *epilogue,
        "    %wend = tile.async_wait {num = 0 : i32}",
        "    return",
        "  }",
        "}"])
    return text, dict(n=n, s=s, lb=lb, step=step, pre=pre_model, body=model, after=after)


def races(case):
    """Whether some T in T_RANGE runs a read or a copy into a slot a copy in flight writes."""
    n = case["n"]
    for T in T_RANGE:
        groups = []  # committed groups in flight, oldest first (each a list of slots)

        def meets(x):
            return any(x in g for g in groups)

        for k, guard in case["pre"]:
            if guard is not None:
                c, pred, swap = guard
                x, y = (T, c) if swap else (c, T)
                if not {"slt": x < y, "sle": x <= y, "sgt": x > y, "sge": x >= y}[pred]:
                    continue
            if meets(k):
                return True
            groups.append([k])
        ub = ceil_div(T, case["s"])
        for i in range(case["lb"], ub, case["step"]):
            for op in case["body"]:
                if op[0] == "wait":
                    groups = groups[len(groups) - op[1]:] if op[1] else []
                elif op[0] == "read":
                    if meets((i + op[1]) % n):
                        return True
                else:
                    x = (i + op[1]) % n
                    if meets(x):
                        return True
                    groups.append([x])
        if meets(case["after"]):
            return True
    return False


def bound_text(form, s):
    """ub from %T: ceildiv(T, s) spelled three ways, T itself, or a constant."""
    if form == "cdiv":
        return [f"    %cs = arith.constant {s} : i32", "    %ub0 = arith.addi %T, %cs : i32",
                "    %ub1 = arith.subi %ub0, %c1 : i32", "    %ub = arith.divsi %ub1, %cs : i32"]
    if form == "folded":
        return [f"    %cs = arith.constant {s} : i32", f"    %cs1 = arith.constant {s - 1} : i32",
                "    %ub1 = arith.addi %cs1, %T : i32", "    %ub = arith.divsi %ub1, %cs : i32"]
    if form == "ceildivsi":
        return [f"    %cs = arith.constant {s} : i32", "    %ub = arith.ceildivsi %T, %cs : i32"]
    if form == "plain":
        return ["    %ub = arith.addi %T, %c0 : i32"]
    return [f"    %ub = arith.constant {s} : i32"]


def ub_value(form, s, T):
    if form in ("cdiv", "folded", "ceildivsi"):
        return ceil_div(T, s)
    return T if form == "plain" else s


def make_loop(rng, idx):
    form = rng.choice(["cdiv", "folded", "ceildivsi", "plain", "const"])
    s = rng.choice([1, 2, 3, 4, 64])
    lb = rng.choice([0, 0, 1, -1, 2])
    step = rng.choice([1, 1, 2, 3])
    conds, lines = [], []
    for j in range(rng.randrange(1, 5)):
        kind = rng.choice(["T", "T", "T", "ub", "lb<ub"])
        pred = rng.choice(["slt", "sle", "sgt", "sge"])
        c = rng.choice([rng.randrange(-3, 3 * s + 3), s * rng.randrange(0, 4),
                        s * rng.randrange(0, 4) - 1])
        swap = rng.random() < 0.5
        v = f"{idx}_{j}"
        if kind == "lb<ub":
            lhs, rhs = ("%ub", "%clb") if swap else ("%clb", "%ub")
        else:
            lines.append(f"    %k{v} = arith.constant {c} : i32")
            other = "%T" if kind == "T" else "%ub"
            lhs, rhs = (other, f"%k{v}") if swap else (f"%k{v}", other)
        lines.append(f"    %b{v} = arith.cmpi {pred}, {lhs}, {rhs} : i32")
        lines.append(f"    scf.if %b{v} {{")
        lines.append("    }")
        conds.append((kind, pred, c, swap))
    text = "\n".join([
        f"  func.func @loop{idx}(%T: i32) {{",
        "    %c0 = arith.constant 0 : i32", "    %c1 = arith.constant 1 : i32",
        f"    %clb = arith.constant {lb} : i32", f"    %cstep = arith.constant {step} : i32",
        *bound_text(form, s), *lines,
        "    scf.for %i = %clb to %ub step %cstep : i32 {", "    }",
        "    return", "  }"])
    return text, dict(form=form, s=s, lb=lb, step=step, conds=conds)


def cond_value(cond, T, ub, lb):
    kind, pred, c, swap = cond
    if kind == "lb<ub":
        x, y = (ub, lb) if swap else (lb, ub)
    else:
        other = T if kind == "T" else ub
        x, y = (other, c) if swap else (c, other)
    return {"slt": x < y, "sle": x <= y, "sgt": x > y, "sge": x >= y}[pred]


def test_min_trip_claims_hold_on_every_value():
    rng = random.Random(SEED)
    loops = [make_loop(rng, i) for i in range(CASES)]
    text = "module {\n" + "\n".join(t for t, _ in loops) + "\n}\n"
    r = subprocess.run([KILN_OPT, "-", "-o", "/dev/null", "--test-print-min-trips"],
                       input=text, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    claims = [(int(m.group(1)), m.group(2), int(m.group(3))) for m in re.finditer(
        r"<stdin>:(\d+):\d+: remark: min trips (\d*) -> (\d+)", r.stderr)]
    starts = [text.count("\n", 0, m.start()) + 1 for m in re.finditer(r"func\.func @loop", text)]
    assert len(claims) == sum(2 ** len(c["conds"]) for _, c in loops), len(claims)
    checked = strong = 0
    for line, digits, m in claims:
        k = max(i for i, s0 in enumerate(starts) if s0 <= line)
        case = loops[k][1]
        for T in range(-3, 41):
            ub = ub_value(case["form"], case["s"], T)
            values = "".join("1" if cond_value(c, T, ub, case["lb"]) else "0"
                             for c in case["conds"])
            if values != digits:
                continue
            trips = len(range(case["lb"], ub, case["step"]))
            assert trips >= m, (f"loop {k} at T = {T}: {trips} trips where the conditions "
                                f"{digits} claim {m}:\n{loops[k][0]}")
            checked += 1
        strong += m >= 2
    assert checked > 1000 and strong > 20, (checked, strong)


def test_min_trips_only_remove_check_errors(tmp_path):
    rng = random.Random(SEED)
    cases = [make_case(rng, i) for i in range(CASES)]
    with_facts, without = verdicts_with_and_without([t for t, _ in cases], tmp_path,
                                                    "--tile-async-no-min-trips")
    assert with_facts <= without, sorted(with_facts - without)  # the facts only remove errors
    newly = sorted(without - with_facts)
    # not vacuous: the facts accept kernels refused without them, race-free ones among them
    assert newly and any(not races(cases[k][1]) for k in newly), len(newly)
