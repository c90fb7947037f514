"""tile-check-async-safety where a branch condition makes a later loop run.

A prologue copy issued only ``if n > 0`` and waited for inside ``for i in range(0, n)`` is
waited for on every path: the loop runs whenever the copy was issued. The check walks the
paths through a block's ifs apart; on the path that issued the copy it now knows the loop
cannot be skipped, where before it joined the skip edge and reported a later copy into the
same buffer as a race (tokenspeed's gfx950 MLA prefill was refused so).

Judged by brute force: for each guard form and loop start, a model that shares nothing with
the check runs the kernel's schedule for every n in a range covering each outcome and says
whether some n leaves the prologue copy in flight at the later copy. The check must refuse
every kernel the model finds a race in, and accept those whose guard is one of the forms the
rule reads (a signed comparison of the loop's own bounds, or of its upper bound with a
constant at or above its constant lower bound)."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp
from kiln.language.nvidia.ampere import async_copy as cp

import compiled

pytestmark = compiled.needs_compiler

# guard form -> (its value for n and m, whether the rule reads it as "n >= c" / "n > c")
GUARDS = {
    "n > 0": lambda n, m: n > 0,
    "n >= 1": lambda n, m: n >= 1,
    "0 < n": lambda n, m: 0 < n,
    "n > 1": lambda n, m: n > 1,
    "n >= 2": lambda n, m: n >= 2,
    "n >= 0": lambda n, m: n >= 0,
    "n > -1": lambda n, m: n > -1,
    "n != 0": lambda n, m: n != 0,
    "m > 0": lambda n, m: m > 0,
    "not n <= 0": lambda n, m: not n <= 0,
    "lb < n": None,  # the loop's own lower bound, a runtime value
}
READ = {"n > 0", "n >= 1", "0 < n", "n > 1", "n >= 2", "n >= 0", "n > -1", "not n <= 0",
        "lb < n"}


@kiln.jit
def guarded(x, n, m, lb_arg, G: kl.constexpr, LB: kl.constexpr, RUNTIME_LB: kl.constexpr):
    blk: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    buf = kl.allocate_shared_memory(kl.float32, [2, 32, 16], sh)
    r = kl.arange(0, 32, kl.SliceLayout(1, blk))
    c = kl.arange(0, 16, kl.SliceLayout(0, blk))
    offs = r[:, None] * 16 + c[None, :]
    acc = kl.zeros([32, 16], kl.float32, blk)
    lb = LB
    if RUNTIME_LB:
        lb = lb_arg
    if G == "n > 0":
        go = n > 0
    elif G == "n >= 1":
        go = n >= 1
    elif G == "0 < n":
        go = 0 < n
    elif G == "n > 1":
        go = n > 1
    elif G == "n >= 2":
        go = n >= 2
    elif G == "n >= 0":
        go = n >= 0
    elif G == "n > -1":
        go = n > -1
    elif G == "n != 0":
        go = n != 0
    elif G == "m > 0":
        go = m > 0
    elif G == "lb < n":
        go = lb < n
    else:
        go = n <= 0
    if G == "not n <= 0":
        if go:
            acc += 1.0
        else:
            cp.async_copy_global_to_shared(buf.index(0), x + offs)
            cp.commit_group()
    else:
        if go:
            cp.async_copy_global_to_shared(buf.index(0), x + offs)
            cp.commit_group()
    for i in range(lb, n):
        cp.wait_group(0)
        acc += buf.index(i % 2).load(blk)
    cp.async_copy_global_to_shared(buf.index(0), x + offs + 512)
    cp.commit_group()
    cp.wait_group(0)
    acc += buf.index(0).load(blk)
    kl.store(x + offs, acc)


def races(guard, lb):
    """Some (n, m) issues the prologue copy and runs no trip of range(lb, n)."""
    for n in range(-3, 6):
        for m in range(-2, 3):
            for start in ([lb] if lb is not None else range(-2, 4)):
                go = start < n if guard is None else guard(n, m)
                if go and not range(start, n):
                    return True
    return False


def accepted(g, lb):
    try:
        kiln.compile(guarded, {"x": "*fp32:16", "n": "i32", "m": "i32", "lb_arg": "i32"},
                     dict(G=g, LB=0 if lb is None else lb, RUNTIME_LB=lb is None),
                     target="cuda:sm_80", num_warps=4, cache=False)
        return True
    except kiln.CompilationError as e:
        assert "may still be writing" in str(e), str(e)
        return False


# Each guard over constant loop starts 0 and 1; the runtime start (None) with its own guard.
CASES = [(g, lb) for g in sorted(GUARDS) if g != "lb < n" for lb in (0, 1)] + [("lb < n", None)]


@pytest.mark.parametrize("g,lb", CASES)
def test_guard_makes_the_loop_run(g, lb):
    race = races(GUARDS[g], lb)
    ok = accepted(g, lb)
    assert not (ok and race), f"accepted a race: {g}, range({lb}, n)"
    if not race and g in READ:
        assert ok, f"refused a kernel without a race: {g}, range({lb}, n)"


def test_the_brute_force_finds_races():
    """The model is not vacuous: n >= 0 skips range(0, n) at n = 0, and the check agrees."""
    assert races(GUARDS["n >= 0"], 0) and races(GUARDS["n > 0"], 1)
    assert not races(GUARDS["n > 0"], 0) and not races(None, None)
    assert not accepted("n >= 0", 0) and not accepted("n > 0", 1)


@kiln.jit
def mla_prefill_form(src, out, n, rem):
    """tokenspeed's gfx950 MLA prefill, reduced: the first tile's copy under ``if n > 0``,
    a double-buffered main loop with its prefetch under ``if i + 1 < n``, then the masked
    remainder tiles through slot 0."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [16, 4], [4, 1], [1, 0])
    S: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, order=[1, 0])
    smem = kl.allocate_shared_memory(kl.float32, [2, 64, 16], S)
    rm = kl.arange(0, 64, kl.SliceLayout(1, L))
    rn = kl.arange(0, 16, kl.SliceLayout(0, L))
    offs = rm[:, None] * 16 + rn[None, :]
    acc = kl.zeros([64, 16], kl.float32, L)
    if n > 0:
        acp.buffer_load_to_shared(smem.index(0), src, offs)
        acp.commit_group()
    for i in range(0, n):
        acp.wait_group(0)
        if i + 1 < n:
            acp.buffer_load_to_shared(smem.index((i + 1) % 2), src + (i + 1) * 1024, offs)
            acp.commit_group()
        acc += smem.index(i % 2).load(L)
    for j in range(n, rem):
        acp.buffer_load_to_shared(smem.index(0), src + j * 1024, offs, mask=offs < 1000,
                                  other=0.0)
        acp.commit_group()
        acp.wait_group(0)
        acc += smem.index(0).load(L)
    kl.store(out + offs, acc)


def test_guarded_first_tile_of_a_prefill_compiles():
    k = kiln.compile(mla_prefill_form, {"src": "*fp32:16", "out": "*fp32:16", "n": "i32",
                                        "rem": "i32"}, {}, target="hip:gfx950", num_warps=4,
                     cache=False)
    assert " lds" in k.asm["amdgcn"]
