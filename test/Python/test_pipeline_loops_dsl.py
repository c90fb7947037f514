"""Loop shapes and memory dependences of automatic pipelining, compiled without a GPU
(test/gpu/test_pipeline_loops.py runs the same kernels against numpy):

* any number of ``kl.range(..., num_stages=N)`` loops in one kernel, in a row or nested (an
  outer loop with its own loads around a pipelined inner loop), and loads whose value is used
  only under a run-time ``if``: every loop becomes a ring;
* a load is issued ahead only when no store of the loop may write what it reads in the
  iterations it moves across: ``x[i+1] = x[i] + 1`` is left alone with a remark at the load
  naming the store; a store far enough ahead, in place, or through another pointer argument
  is not in the way; a distance Kiln cannot prove gets a remark saying what would let it;
* the trip count does not overflow 32 bits; a volatile load is ``ld.volatile`` and never
  issued ahead; each element a layout repeats across threads is stored by one thread."""

import os
import re

import pytest

import sys

import kiln
import kiln.language as kl

import compiled
import located

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from pipeline_loop_kernels import (L, chain, nested, runtime_distance, small_store,  # noqa: E402
                                   two_args, two_loops, under_if, volatile_sum, wide_range)
import pipeline_loop_kernels  # noqa: E402

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(pipeline_loop_kernels.__file__)
P = "*fp32:16"


def _line(tag):
    return next(i for i, l in enumerate(open(HERE).read().splitlines(), 1) if f"# {tag}" in l)


def _compile(fn, sig, cx, target="cuda:sm_80"):
    return kiln.compile(fn, sig, cx, target=target, num_warps=4)


def _ptx_counts(k):
    ptx = k.asm["ptx"]
    return (ptx.count("cp.async.commit_group"),
            re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx))


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_two_loops_each_become_a_ring(stages):
    k = _compile(two_loops, {"x": P, "y": P, "out": P, "n": "i32"}, {"NS": stages})
    commits, waits = _ptx_counts(k)
    # Each ring: stages-1 prologue groups and one in the loop; each loop waits with
    # stages-2 groups left, and everything is retired after each loop.
    assert commits == 2 * stages
    assert waits == [str(stages - 2), "0"] * 2


def test_nested_loops_and_outer_loads_are_pipelined():
    k = _compile(nested, {"x": P, "y": P, "out": P, "n": "i32", "m": "i32"}, {"NS": 3})
    commits, waits = _ptx_counts(k)
    # Outer ring (2 prologue + 1) and inner ring (2 prologue + 1).
    assert commits == 6
    assert "0" in waits


def test_a_load_used_only_under_an_if_is_pipelined():
    k = _compile(under_if, {"x": P, "out": P, "n": "i32", "flag": "i32"}, {"NS": 3})
    assert _ptx_counts(k) == (3, ["1", "0"])


def test_a_store_feeding_the_next_load_keeps_the_load_in_place():
    load, store = _line("P:chain-load"), _line("P:chain-store")
    with pytest.warns(kiln.CompilationRemark) as record:
        k = _compile(chain, {"x": P, "n": "i32"}, {"D": 1, "NS": 3})
    msgs = [(r.filename, r.lineno, str(r.message)) for r in record]
    assert any(f == HERE and n == load and f"the store at {HERE}:{store} writes an element "
               "this load reads 1 iteration later" in m for f, n, m in msgs), msgs
    assert "cp.async" not in k.asm["ptx"]


@pytest.mark.parametrize("distance,stages,pipelined", [(2, 2, True), (2, 3, False),
                                                       (8, 3, True), (8, 9, False)])
def test_a_store_far_enough_ahead_is_not_in_the_way(distance, stages, pipelined):
    # The load of iteration i + d moves ahead of the stores of iterations i .. i+d-1 for
    # d < stages: x[i + distance] is in the way when distance < stages.
    if pipelined:
        k = _compile(chain, {"x": P, "n": "i32"}, {"D": distance, "NS": stages})
    else:
        with pytest.warns(kiln.CompilationRemark, match=f"reads {distance} iterations later"):
            k = _compile(chain, {"x": P, "n": "i32"}, {"D": distance, "NS": stages})
    assert ("cp.async" in k.asm["ptx"]) == pipelined


def test_in_place_and_other_argument_stores_are_not_in_the_way():
    k = _compile(chain, {"x": P, "n": "i32"}, {"D": 0, "NS": 3})
    assert _ptx_counts(k)[0] == 3
    k = _compile(two_args, {"x": P, "y": P, "n": "i32"}, {"NS": 3})
    assert _ptx_counts(k)[0] == 3


def test_an_unprovable_distance_says_what_would_let_it_pipeline():
    line = _line("P:runtime-load")
    with pytest.warns(kiln.CompilationRemark) as record:
        k = _compile(runtime_distance, {"x": P, "n": "i32", "s": "i32"}, {"NS": 3})
    msgs = [(r.lineno, str(r.message)) for r in record]
    assert any(n == line and "cannot prove that it never writes an element this load reads "
               "up to 2 iterations later" in m and "separate pointer arguments" in m
               for n, m in msgs), msgs
    assert "cp.async" not in k.asm["ptx"]


def test_the_trip_count_is_computed_in_64_bits():
    # -2^30 .. 3*2^29 by 64: the span (2.5 * 2^30) overflows i32; the pipelined loop must
    # still run 41,943,040 iterations. The trip count is formed from a 64-bit division.
    k = _compile(wide_range, {"x": P, "out": P},
                 {"LO": -2**30, "HI": 3 * 2**29, "STEP": 64, "NS": 3})
    llir = k.asm["llir"]
    assert "cp.async.cg" in k.asm["ptx"]
    # Folded from the constant bounds: the loop exits after 41,943,040 iterations (an i32
    # trip count had folded to 0); the copies of iterations past 41,943,037 are predicated
    # off (3 stages).
    assert re.search(r"icmp eq i32 %[\w.]+, 41943040", llir), llir
    assert re.search(r"icmp \w* ?ugt i32 %\w+, 41943037", llir), llir


def test_a_step_of_one_from_a_negative_bound_is_left_alone_with_a_remark():
    with pytest.warns(kiln.CompilationRemark, match="trip count may not fit in 32 bits"):
        @kiln.jit
        def neg(x, out, lo, n):
            o = kl.arange(0, 512, L)
            acc = kl.zeros([512], kl.float32, L)
            for i in kl.range(lo, n, num_stages=3):
                acc += kl.load(x + o)
            kl.store(out + o, acc)
        k = _compile(neg, {"x": P, "out": P, "lo": "i32", "n": "i32"}, {})
    assert "cp.async" not in k.asm["ptx"]


def test_a_volatile_load_is_volatile_and_stays_in_place():
    line = _line("P:volatile")
    with pytest.warns(kiln.CompilationRemark) as record:
        k = _compile(volatile_sum, {"x": P, "out": P, "n": "i32"}, {"NS": 3})
    assert any(r.lineno == line and "load not pipelined: it is volatile" in str(r.message)
               for r in record), [str(r.message) for r in record]
    ptx = k.asm["ptx"]
    assert "cp.async" not in ptx
    assert re.search(r"ld\.volatile\.global\.v4", ptx), ptx


def test_a_masked_volatile_load_branches_around_the_access():
    @kiln.jit
    def masked(x, out, n):
        o = kl.arange(0, 512, L)
        kl.store(out + o, kl.load(x + o, mask=o < n, other=0.0, volatile=True))

    ptx = _compile(masked, {"x": P, "out": P, "n": "i32"}, {}).asm["ptx"]
    assert ptx.count("ld.volatile.global") >= 1
    assert "ld.global" not in ptx.replace("ld.volatile.global", "")


@kiln.jit
def _volatile_int(x, out):
    o = kl.arange(0, 512, L)
    kl.store(out + o, kl.load(x + o, volatile=1))  # E:volatile


def test_volatile_must_be_a_constexpr_bool():
    with pytest.raises(kiln.CompilationError) as e:
        _compile(_volatile_int, {"x": P, "out": P}, {})
    located.assert_located(e.value, os.path.abspath(__file__), "E:volatile", "kl.load",
                           r"load: volatile must be a constexpr bool, got 1",
                           kiln.CompilationError)


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_an_element_held_by_several_threads_is_stored_once(target):
    # 16 floats in a 128-thread layout: 4 threads hold distinct elements (4 each), the
    # other 124 repeat them. One store, by the owners only (as Gluon).
    ptx = _compile(small_store, {"x": P}, {}, target=target).asm["ptx"]
    stores = re.findall(r"^\s*(@%p\d+ )?st\.global[^\n]*", ptx, re.M)
    assert len(stores) == 1, stores
    guard = re.search(r"setp\.\w+\.u32\s+%p\d+, %r\d+, 3;", ptx) or \
        re.search(r"setp\.\w+\.u32\s+%p\d+, %r\d+, 4;", ptx)
    assert guard and "%tid.x" in ptx, ptx
