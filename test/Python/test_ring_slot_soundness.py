"""Ring slots in loops, as tile-annotate-local-load-alias judges them, checked by brute force.

A load from a ring slot is marked ``tile.synced_via_wait`` when the analysis proves that no async
copy still in flight at the load writes that slot (the load then waits only for what it needs).
Slots are named by RingSlot: a constant, ``(iv + c) % N`` of the loop's induction variable, a
slot counter the loop carries (``(s + 1) % N`` from a constant) and ``(s + c) % N`` of one or
of a counter advanced as ``s + d`` without wrapping (a persistent GEMM's ``producer % S`` with
d = 1; a loop unrolled by hand advancing it by d = 2, 3 or N, as one add or a chain of ones).
Here random loops over a ring of 2-4 slots (after 0-2 copies into constant slots before the
loop) copy into, wait on and load from slots chosen by
such expressions (and, as controls, by ones it cannot name), then, after the loop, copy into,
wait on and load from slots named by the counter's value the loop returns (``r``, ``(r + c) %
N``) and constants; each marked load is checked by running the loop on concrete values: the
groups a wait leaves in flight (the newest ``num`` committed), iteration by iteration and
after every trip count from 0, must never include a copy into the slot the load reads.
The simulation shares no code with the pass. Marked loads must also be common enough that the
check is not vacuous.
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest

from remarks import KILN_OPT

SEED = int(os.environ.get("KILN_RING_SEED", "20261130"))
CASES = 300
TRIPS = 7

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")

HEADER = """\
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
"""


def random_slot(rng, n, lb, names, lines, s_name="%s", after=False):
    """(the index's SSA name, a function (iv, s) -> slot or None when the value is not a
    slot the ring has) for a random slot expression; ``after``: past the loop, where ``s`` is
    the counter's value the loop returned (``s_name``) and there is no induction variable."""
    kinds = ["const", "iv", "iv", "s", "s_plus", "s_plus", "s_minus", "s_mod_other"]
    if after:
        kinds = ["const", "s", "s", "s_plus", "s_plus", "s_plus", "s_minus", "s_mod_other"]
    kind = rng.choice(kinds)
    v = names()
    if kind == "const":
        k = rng.randrange(n)
        lines.append(f"      %x{v} = arith.constant {k} : i32")
        return f"%x{v}", lambda iv, s: k
    if kind == "iv":
        d = rng.randrange(-lb, n)
        lines.append(f"      %d{v} = arith.constant {d} : i32")
        lines.append(f"      %a{v} = arith.addi %i, %d{v} : i32")
        lines.append(f"      %x{v} = arith.remsi %a{v}, %cn : i32")
        return f"%x{v}", lambda iv, s: (iv + d) % n
    if kind == "s":
        # an unwrapped counter leaves the ring after n - c0 iterations
        return s_name, lambda iv, s: s if s < n else None
    if kind == "s_plus":
        d = rng.randrange(0, 2 * n)
        lines.append(f"      %d{v} = arith.constant {d} : i32")
        lines.append(f"      %a{v} = arith.addi {s_name}, %d{v} : i32")
        lines.append(f"      %x{v} = arith.remsi %a{v}, %cn : i32")
        return f"%x{v}", lambda iv, s: (s + d) % n
    if kind == "s_minus":
        # (s - 1) % n: negative when s = 0 (C remainder); not a slot the analysis may name
        lines.append(f"      %a{v} = arith.subi {s_name}, %c1 : i32")
        lines.append(f"      %x{v} = arith.remsi %a{v}, %cn : i32")
        return f"%x{v}", lambda iv, s: (s - 1) if s >= 1 else None
    # (s + 1) % m with m < n: a counter's value moved by another modulus
    m = max(1, n - 1)
    lines.append(f"      %m{v} = arith.constant {m} : i32")
    lines.append(f"      %a{v} = arith.addi {s_name}, %c1 : i32")
    lines.append(f"      %x{v} = arith.remsi %a{v}, %m{v} : i32")
    return f"%x{v}", lambda iv, s: (s + 1) % m


def make_case(rng, idx):
    n = rng.choice([2, 3, 4])
    lb = rng.randrange(3)
    wrap = rng.random() < 0.5
    stride = 1 if wrap else rng.choice([1, 1, 2, 3, n, 2 * n])
    chain = stride > 1 and rng.random() < 0.5  # s + 1 + 1 ... rather than s + d
    c0 = rng.randrange(n if wrap else 2 * n)
    counter = 0

    def names():
        nonlocal counter
        counter += 1
        return f"{idx}_{counter}"

    ring = f"!tile.memdesc<{n}x256xf32, #sh, mutable>"
    slot = f"!tile.memdesc<256xf32, #sh, mutable, {n}x256>"
    # copies into constant slots before the loop (a prologue), committed one group each
    prologue, first = [], []
    for _ in range(rng.randrange(3)):
        k, v = rng.randrange(n), names()
        prologue += [f"    %pk{v} = arith.constant {k} : i32",
                     f"    %pv{v} = tile.memdesc_index %ring[%pk{v}] : {ring} -> {slot}",
                     f"    %pt{v} = tile.async_copy_global_to_local %p, %pv{v} : !p -> {slot}",
                     f"    %pg{v} = tile.async_commit_group tokens %pt{v}"]
        first.append(k)
    loads = 0

    def block(count, after):
        nonlocal loads
        lines, ops = [], []
        acc = "%r#0" if after else "%acc"
        for _ in range(count):
            what = rng.choice(["copy", "copy", "wait", "load", "load"])
            if what == "wait":
                k = rng.randrange(3)
                lines.append(f"      %w{names()} = tile.async_wait {{num = {k} : i32}}")
                ops.append(("wait", k))
                continue
            index, fn = random_slot(rng, n, lb, names, lines,
                                    "%r#1" if after else "%s", after)
            v = names()
            lines.append(f"      %v{v} = tile.memdesc_index %ring[{index}] : {ring} -> {slot}")
            if what == "copy":
                lines.append(f"      %t{v} = tile.async_copy_global_to_local %p, %v{v} : "
                             f"!p -> {slot}")
                lines.append(f"      %g{v} = tile.async_commit_group tokens %t{v}")
                ops.append(("copy", fn))
            else:
                lines.append(f"      %u{v} = tile.local_load %v{v} : {slot} -> "
                             "tensor<256xf32, #l>")
                lines.append(f"      %acc{v} = arith.addf {acc}, %u{v} : tensor<256xf32, #l>")
                ops.append(("load", fn, loads))
                loads += 1
        return lines, ops

    body, ops = block(rng.randrange(3, 8), False)
    tail, tail_ops = block(rng.randrange(0, 6), True)
    text = [HEADER, f"!p = tensor<256x!tile.ptr<f32>, #l>",
            "module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {",
            f"  func.func @case{idx}(%p: !p, %n: i32) {{",
            f"    %cn = arith.constant {n} : i32",
            "    %c1 = arith.constant 1 : i32",
            "    %c0 = arith.constant 0 : i32",
            f"    %lb = arith.constant {lb} : i32",
            f"    %c0s = arith.constant {c0} : i32",
            "    %z = arith.constant dense<0.0> : tensor<256xf32, #l>",
            f"    %ring = tile.local_alloc : () -> {ring}",
            *prologue,
            "    %r:2 = scf.for %i = %lb to %n step %c1 iter_args(%acc = %z, %s = %c0s) -> "
            "(tensor<256xf32, #l>, i32) : i32 {",
            *body,
            *([f"      %sp0 = arith.addi %s, %c1 : i32"]
              + [f"      %sp{k} = arith.addi %sp{k - 1}, %c1 : i32" for k in range(1, stride)]
              + [f"      %sp = arith.addi %sp{stride - 1}, %c0 : i32"]
              if chain else
              [f"      %cd = arith.constant {stride} : i32",
               "      %sp = arith.addi %s, %cd : i32"]),
            *(["      %sn = arith.remsi %sp, %cn : i32"] if wrap else []),
            f"      scf.yield %acc, {'%sn' if wrap else '%sp'} : tensor<256xf32, #l>, i32",
            "    }",
            *tail,
            "    return",
            "  }",
            "}"]
    return "\n".join(text), dict(n=n, lb=lb, c0=c0, wrap=wrap, stride=stride, ops=ops,
                                  loads=loads,
                                  first=first, tail=tail_ops)


def simulate(case):
    """For each load (by order in the kernel): whether some run reads a slot a copy in flight
    writes (a copy to, or a load from, an index the ring does not have meets any slot). The
    loop's loads over TRIPS iterations; those after it after every trip count up to TRIPS."""
    unsafe = [False] * case["loads"]

    def run(ops, groups, iv, s):
        for op in ops:
            if op[0] == "copy":
                groups.append(op[1](iv, s))
            elif op[0] == "wait":
                if op[1] < len(groups):
                    groups[:] = groups[len(groups) - op[1]:] if op[1] else []
            else:
                slot = op[1](iv, s)
                # an index the ring does not have (or a copy to one) may meet any slot
                if groups and (slot is None or slot in groups or None in groups):
                    unsafe[op[2]] = True

    for trips in range(TRIPS + 1):
        groups = list(case["first"])  # slots of the committed groups in flight, oldest first
        s = case["c0"]
        for iv in range(case["lb"], case["lb"] + trips):
            run(case["ops"], groups, iv, s)
            s = (s + 1) % case["n"] if case["wrap"] else s + case["stride"]
        run(case["tail"], groups, None, s)
    return unsafe


def marked_loads(text):
    """In order, whether each tile.local_load of the (single) function is marked."""
    out = []
    for line in text.splitlines():
        if "tile.local_load" in line:
            out.append("tile.synced_via_wait" in line)
    return out


def test_marked_ring_slot_loads_never_read_a_copy_in_flight(tmp_path):
    rng = random.Random(SEED)
    cases = [make_case(rng, i) for i in range(CASES)]
    path = tmp_path / "rings.mlir"
    path.write_text("\n// -----\n".join(t for t, _ in cases))
    r = subprocess.run([KILN_OPT, str(path), "-split-input-file", "--tile-allocate-shared-memory",
                        "--tile-insert-barriers", "--tile-annotate-local-load-alias"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    funcs = re.split(r"(?=func\.func @case)", r.stdout)[1:]
    assert len(funcs) == CASES
    marked_total = safe_unmarked = marked_after = 0
    for (src, case), out in zip(cases, funcs):
        marks = marked_loads(out)
        assert len(marks) == case["loads"], out
        unsafe = simulate(case)
        in_loop = sum(op[0] == "load" for op in case["ops"])
        for k, (m, bad) in enumerate(zip(marks, unsafe)):
            assert not (m and bad), (f"load {k} is marked synced_via_wait but reads a slot a "
                                     f"copy in flight writes:\n{src}")
            marked_total += m
            marked_after += m and k >= in_loop
            safe_unmarked += (not m and not bad)
    # not vacuous: many loads are proved (the counter forms among them), after loops too
    assert marked_total >= CASES // 4, (marked_total, safe_unmarked)
    assert marked_after >= CASES // 10, marked_after
