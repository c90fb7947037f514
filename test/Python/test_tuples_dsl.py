"""Tuples as kernel arguments, in kl.reduce and as kernel values (tuple_kernels.py); results are
checked on the GPU by test/gpu/test_tuples.py."""

import re

import pytest

import kiln

from compiled import needs_compiler
import tuple_kernels as K


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
        a, b, c = kl.reduce((x, x, x), 0, K._argmax_combine)
        kl.store(X, a)
    with pytest.raises(kiln.CompilationError, match=r"needs 96 bits an element"):
        kiln.compile(k, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)


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
        bad = (1,) - (1,)
    with pytest.raises(kiln.CompilationError, match=r"operator - is not defined for a tuple"):
        kiln.compile(k, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)
