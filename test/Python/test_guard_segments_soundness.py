"""tile-check-async-safety on rings refilled and waited for under guards `iv + d < T`, checked by
brute force.

Such a guard, once false, stays false as the loop goes on, so the check walks a loop's
iterations as consecutive segments (all guards true, then those of the largest d false, ...;
a segment between two thresholds has at most their difference of iterations), each with the
guards' values fixed. Random loops here copy into, commit, wait on and read ring slots
`(iv + a) % N` under random guards (either side of the if), after a prologue of copies into
constant slots; each is run on concrete values for every trip count T from 0 to 9 by a model
that shares nothing with the check: committed groups in flight, the newest `num` left by a
wait, copies not yet committed never waited for. Every kernel the segments make the check
accept (refused with loops walked whole, `--tile-async-no-guard-segments`) must have no run in
which a read or a copy meets a slot a copy in flight writes, every kernel they newly refuse
must have one, and the segments must accept some race-free kernels.

The check reports the races it is certain of. The model found one it missed, now reported (the
last test): a copy issued before the loop kept the slot its first trip sees (one entry per event
across the back edge) instead of one version per trip.
"""

from __future__ import annotations

import os
import random
import subprocess

import pytest

from remarks import (KILN_OPT, RING_HEADER as HEADER, namer, ring_types,
                     verdicts_with_and_without)

SEED = int(os.environ.get("KILN_GUARD_SEED", "20261201"))
CASES = 400
MAX_T = 9

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")


def make_case(rng, idx):
    n = rng.choice([2, 3, 4])
    ring, slot = ring_types(n)
    name = namer(idx)

    lines, model = [], []  # model: ("copy", a) | ("commit",) | ("wait", k) | ("read", a) | if

    def slot_of(a, indent):
        v = name()
        lines.append(f"{indent}%a{v} = arith.constant {a} : i32")
        lines.append(f"{indent}%s{v} = arith.addi %i, %a{v} : i32")
        lines.append(f"{indent}%x{v} = arith.remsi %s{v}, %cn : i32")
        lines.append(f"{indent}%m{v} = tile.memdesc_index %ring[%x{v}] : {ring} -> {slot}")
        return f"%m{v}"

    def simple(indent, allow_read=True):
        what = rng.choice(["copy", "copy", "wait", "read"] if allow_read
                          else ["copy", "copy", "wait"])
        if what == "copy":
            a = rng.randrange(n + 2)
            m = slot_of(a, indent)
            v = name()
            lines.append(f"{indent}%t{v} = tile.async_copy_global_to_local %p, {m} : !p -> {slot}")
            lines.append(f"{indent}%g{v} = tile.async_commit_group tokens %t{v}")
            return [("copy", a), ("commit",)]
        if what == "wait":
            k = rng.randrange(n)
            lines.append(f"{indent}%w{name()} = tile.async_wait {{num = {k} : i32}}")
            return [("wait", k)]
        a = rng.randrange(n + 2)
        m = slot_of(a, indent)
        lines.append(f"{indent}%u{name()} = tile.local_load {m} : {slot} -> tensor<256xf32, #l>")
        return [("read", a)]

    for _ in range(rng.randrange(3, 7)):
        if rng.random() < 0.5:
            model += simple("      ")
            continue
        d = rng.randrange(0, n + 1)
        pred = rng.choice(["slt", "sle", "sgt", "sge"])
        swap = rng.random() < 0.3
        v = name()
        lines.append(f"      %d{v} = arith.constant {d} : i32")
        lines.append(f"      %e{v} = arith.addi %i, %d{v} : i32")
        lhs, rhs = ("%T", f"%e{v}") if swap else (f"%e{v}", "%T")
        lines.append(f"      %c{v} = arith.cmpi {pred}, {lhs}, {rhs} : i32")
        lines.append(f"      scf.if %c{v} {{")
        then = simple("        ", allow_read=False)
        has_else = rng.random() < 0.5
        other = []
        if has_else:
            lines.append("      } else {")
            other = simple("        ", allow_read=False)
        lines.append("      }")
        model.append(("if", d, pred, swap, then, other))
    prologue = []
    for k in range(rng.randrange(n)):
        v = name()
        prologue += [f"    %pk{v} = arith.constant {k} : i32",
                     f"    %pm{v} = tile.memdesc_index %ring[%pk{v}] : {ring} -> {slot}",
                     f"    %pt{v} = tile.async_copy_global_to_local %p, %pm{v} : !p -> {slot}",
                     f"    %pg{v} = tile.async_commit_group tokens %pt{v}"]
    text = "\n".join([
        HEADER,
        "module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {",
        f"  func.func @case{idx}(%p: !p, %T: i32) {{",
        f"    %cn = arith.constant {n} : i32",
        "    %c0 = arith.constant 0 : i32",
        "    %c1 = arith.constant 1 : i32",
        f"    %ring = tile.local_alloc : () -> {ring}",
        *prologue,
        "    scf.for %i = %c0 to %T step %c1 : i32 {",
        *lines,
        "    }",
        "    %wend = tile.async_wait {num = 0 : i32}",
        "    return",
        "  }",
        "}"])
    return text, dict(n=n, model=model, prologue=len(prologue) // 4)


def races(case, origins=("pre", "loop")):
    """Whether some trip count T in [0, MAX_T] runs a read or a copy into a slot that a copy
    in flight writes, counting only copies issued where `origins` says (before the loop,
    inside it)."""
    n = case["n"]

    def holds(d, pred, swap, i, T):
        x, y = (T, i + d) if swap else (i + d, T)
        return {"slt": x < y, "sle": x <= y, "sgt": x > y, "sge": x >= y}[pred]

    for T in range(MAX_T + 1):
        # committed groups in flight, oldest first, of (slot, origin)
        groups = [[(k, "pre")] for k in range(case["prologue"])]
        pending = []  # copies not committed yet

        def meets(s):
            return any(s == x and o in origins for g in groups + [pending] for x, o in g)

        for i in range(T):
            def run(ops):
                nonlocal groups, pending
                for op in ops:
                    if op[0] == "if":
                        _, d, pred, swap, then, other = op
                        if run(then if holds(d, pred, swap, i, T) else other):
                            return True
                    elif op[0] == "copy":
                        s = (i + op[1]) % n
                        if meets(s):
                            return True
                        pending.append((s, "loop"))
                    elif op[0] == "commit":
                        groups.append(pending)
                        pending = []
                    elif op[0] == "wait":
                        groups = groups[len(groups) - op[1]:] if op[1] else []
                    elif meets((i + op[1]) % n):
                        return True
                return False
            if run(case["model"]):
                return True
    return False


def test_what_guard_segments_accept_never_races(tmp_path):
    rng = random.Random(SEED)
    cases = [make_case(rng, i) for i in range(CASES)]
    with_segments, whole_loops = verdicts_with_and_without([t for t, _ in cases], tmp_path,
                                                           "--tile-async-no-guard-segments")
    newly = [k for k in range(CASES) if k in whole_loops and k not in with_segments]
    for k in newly:
        assert not races(cases[k][1]), \
            f"accepted a kernel with a race (case {k}):\n{cases[k][0]}"
    for k in with_segments - whole_loops:  # refused only with segments: a real race
        assert races(cases[k][1]), f"refused a race-free kernel (case {k}):\n{cases[k][0]}"
    racefree = [k for k in newly if not races(cases[k][1])]
    assert racefree, len(newly)  # not vacuous


PROLOGUE_SLOT = """\
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<256x!tile.ptr<f32>, #l>
!ring = !tile.memdesc<3x256xf32, #sh, mutable>
!slot = !tile.memdesc<256xf32, #sh, mutable, 3x256>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @prologue_slot(%p: !p, %T: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %ring[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    %g1 = tile.async_commit_group tokens %t1
    scf.for %i = %c0 to %T step %c1 : i32 {
      %w = tile.async_wait {num = 1 : i32}
      %x = arith.remsi %i, %c3 : i32
      %s = tile.memdesc_index %ring[%x] : !ring -> !slot
      %u = tile.local_load %s : !slot -> tensor<256xf32, #l>
    }
    %wend = tile.async_wait {num = 0 : i32}
    return
  }
}
"""


def test_a_prologue_copy_read_on_a_later_trip_is_reported(tmp_path):
    """A copy from before the loop into slot 1, never waited for, read when the loop's
    `i % 3` reaches 1: each trip sees the copy's slot moved by one more back edge (one
    version per trip; versions past a constant trip count are dropped)."""
    path = tmp_path / "prologue.mlir"
    path.write_text(PROLOGUE_SLOT)
    r = subprocess.run([KILN_OPT, str(path), "-o", "/dev/null", "--tile-check-async-safety"],
                       capture_output=True, text=True, timeout=60)
    oracle = subprocess.run([KILN_OPT, str(path), "-o", "/dev/null",
                             "--test-async-race-oracle"], capture_output=True, text=True,
                            timeout=60)
    assert "race witnessed" in oracle.stderr  # the independent oracle sees it
    assert "may still be writing" in r.stderr
