"""Tuples as kernel arguments, in kl.reduce and as kernel values (tuple_kernels.py); results are
checked on the GPU by test/gpu/test_tuples.py."""

import re

import pytest

import kiln

import os

from compiled import needs_compiler
import located
import tuple_kernels as K

HERE = os.path.abspath(__file__)


@needs_compiler
def test_tuple_argument_is_one_argument_per_element():
    k = kiln.compile(K.copy_pair, signature={"ptrs": "(*fp32:16, (*fp32:16, fp32))", "n": "i32"},
                     constexprs={"N": 512}, target="cuda:sm_90a", cache=False)
    head = k.asm["tile"].split("func.func public @copy_pair(")[1].split("{\n")[0]
    assert re.findall(r"%arg\d+: ([^ ,)]+)", head) == ["!tile.ptr<f32>", "!tile.ptr<f32>", "f32",
                                                       "i32"]
    assert [p["name"] for p in k.metadata["params"]] == ["ptrs.0", "ptrs.1.0", "ptrs.1.1", "n"]


@needs_compiler
def test_tuple_signature_errors_name_the_element():
    with pytest.raises(ValueError, match=r"argument 'ptrs\[1\]\[0\]'"):
        kiln.compile(K.copy_pair, signature={"ptrs": "(*fp32, (*fp33, fp32))", "n": "i32"},
                     constexprs={"N": 512}, target="cuda:sm_90a", cache=False)


@needs_compiler
def test_reduce_over_a_tuple_packs_into_one_reduction():
    k = kiln.compile(K.row_argmax, signature={"X": "*fp32", "Vals": "*fp32", "Idx": "*i32"},
                     constexprs={"C": 64}, target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    assert len(re.findall(r"tile\.reduce\b(?!_)", tile)) == 1
    assert "-> i64" in tile or "xi64" in tile


@needs_compiler
def test_reduce_over_a_wide_tuple_is_an_error():
    import kiln.language as kl

    @kiln.jit
    def k(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        x = kl.load(X + kl.arange(0, 128, layout))
        a, b, c = kl.reduce((x, x, x), 0, K._argmax_combine)  # E:wide
        kl.store(X, a)
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(k, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)
    located.assert_located(e.value, HERE, "E:wide", "kl.reduce",
                           r"reduce of a tuple of fp32, fp32, fp32 needs 96 bits an element; "
                           r"Kiln reduces tuples of up to 64 bits \(e\.g\. a 32-bit value with "
                           r"a 32-bit index\)", kiln.CompilationError)


@needs_compiler
def test_tuple_grown_and_carried():
    kiln.compile(K.grown_tuple, signature={"X": "*fp32", "Out": "*fp32", "n": "i32"},
                 constexprs={"N": 128}, target="cuda:sm_90a", cache=False)


@needs_compiler
def test_tuple_operators():
    import kiln.language as kl

    @kiln.jit
    def k(X):
        t = (1, 2) * 2
        kl.static_assert(len(t) == 4)
        bad = (1,) - (1,)  # E:tuple-op
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(k, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)
    located.assert_located(e.value, HERE, "E:tuple-op", "(1,) - (1,)",
                           r"operator - is not defined for a tuple and tuple \(tuples take \+ "
                           r"with a tuple and \* with an int\)", kiln.CompilationError)
