"""Two TMA loads into one buffer under predicates that are never both true (a kernel that
fills a slot from one of two sources: ``pred=k < n`` and ``pred=k >= n``) are no race: the
async-safety check accepts them when it can see the exclusion (a comparison and its opposite on
the same values, a negation, a conjunct of either). Judged by brute force: random pairs of
predicates over two integers, each pair the check accepts must never be true at once for any
values in a range that covers every comparison's outcome; pairs that can be true at once must
be refused. In a loop, the same pair across two iterations is still a race."""

from __future__ import annotations

import importlib.util
import itertools
import random

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma

import compiled

pytestmark = compiled.needs_compiler

NV = kl.NVMMASharedLayout.get_default_for([64, 64], kl.float16)
DESC = kl.tensor_descriptor_type(kl.float16, [64, 64], NV)

# (source text, python function of (a, b)) atoms over two i32 arguments a and b
ATOMS = [
    ("a < b", lambda a, b: a < b), ("a >= b", lambda a, b: a >= b),
    ("b > a", lambda a, b: b > a), ("b <= a", lambda a, b: b <= a),
    ("a <= b", lambda a, b: a <= b), ("a > b", lambda a, b: a > b),
    ("a == b", lambda a, b: a == b), ("a != b", lambda a, b: a != b),
    ("a < 0", lambda a, b: a < 0), ("a >= 0", lambda a, b: a >= 0),
]

KERNEL = '''
import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma, fence_async_shared

@kiln.jit
def two_sources(d1, d2, out, a, b):
    smem = kl.allocate_shared_memory(kl.float16, [64, 64], d1.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    fence_async_shared()
    mbarrier.expect(bar, 64 * 64 * 2)
    tma.async_copy_global_to_shared(d1, [0, 0], bar, smem, pred={p1})
    tma.async_copy_global_to_shared(d2, [0, 0], bar, smem, pred={p2})
    mbarrier.wait(bar, 0)
    L: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    r = kl.arange(0, 64, layout=kl.SliceLayout(1, L))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, L))
    kl.store(out + r[:, None] * 64 + c[None, :], smem.load(L))
'''


def random_predicate(rng):
    """(text, function): an atom, a conjunction of two, or a negation of an atom."""
    kind = rng.choice(["atom", "atom", "and", "not"])
    t1, f1 = rng.choice(ATOMS)
    if kind == "atom":
        return t1, f1
    if kind == "not":
        return f"(({t1}) ^ True)", lambda a, b: not f1(a, b)
    t2, f2 = rng.choice(ATOMS)
    return f"(({t1}) & ({t2}))", lambda a, b: f1(a, b) and f2(a, b)


def accepted(tmp_path, i, p1, p2):
    path = tmp_path / f"pair{i}.py"
    path.write_text(KERNEL.format(p1=p1, p2=p2))
    spec = importlib.util.spec_from_file_location(f"pair{i}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        kiln.compile(mod.two_sources, {"d1": DESC, "d2": DESC, "out": "*fp16:16", "a": "i32",
                                       "b": "i32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
        return True
    except kiln.CompilationError as e:
        assert "may still be writing" in str(e), str(e)
        return False


def test_accepted_pairs_are_never_both_true(tmp_path):
    rng = random.Random(20261130)
    values = range(-3, 4)
    accepted_n = refused_exclusive = 0
    for i in range(40):
        (t1, f1), (t2, f2) = random_predicate(rng), random_predicate(rng)
        both = any(f1(a, b) and f2(a, b) for a, b in itertools.product(values, values))
        ok = accepted(tmp_path, i, t1, t2)
        assert not (ok and both), f"accepted {t1} and {t2}, both true for some values"
        accepted_n += ok
        refused_exclusive += (not ok and not both)
    # not vacuous: the check does accept exclusive pairs it can see
    assert accepted_n >= 5, (accepted_n, refused_exclusive)


@kiln.jit
def two_sources_in_a_loop(d1, d2, out, n, steps):
    """Each step loads the slot from d1 while k < n, else from d2, never waiting: step k's
    load races with step k - 1's (their predicates are the same comparison at two values)."""
    smem = kl.allocate_shared_memory(kl.float16, [64, 64], d1.layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    for k in range(steps):
        mbarrier.expect(bar, 64 * 64 * 2)
        tma.async_copy_global_to_shared(d1, [0, k * 64], bar, smem, pred=k < n)  # E:first
        tma.async_copy_global_to_shared(d2, [0, k * 64], bar, smem, pred=k >= n)
    mbarrier.wait(bar, 0)
    L: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    r = kl.arange(0, 64, layout=kl.SliceLayout(1, L))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, L))
    kl.store(out + r[:, None] * 64 + c[None, :], smem.load(L))


def test_the_same_pair_across_iterations_is_a_race():
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(two_sources_in_a_loop, {"d1": DESC, "d2": DESC, "out": "*fp16:16",
                                             "n": "i32", "steps": "i32"}, {},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert "may still be writing" in str(e.value) and "# E:first" in str(e.value), str(e.value)
