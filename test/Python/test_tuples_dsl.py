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
def test_reduce_over_a_tuple_is_one_reduction_of_both():
    k = kiln.compile(K.row_argmax, signature={"X": "*fp32", "Vals": "*fp32", "Idx": "*i32"},
                     constexprs={"C": 64}, target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    reduces = re.findall(r"tile\.reduce\b(?!_)[^\n]*", tile)
    assert len(reduces) == 1
    # Both tensors are operands of the one reduction; nothing is packed into an integer.
    assert re.search(r"tensor<16x64xf32[^>]*>, tensor<16x64xi32", reduces[0]), reduces[0]
    assert "i64" not in tile


WIDE = [
    (K.welford_rows, {"X": "*fp32", "Mean": "*fp32", "M2": "*fp32"},
     {"R": 16, "C": 64, "WARPS_C": 2}),
    (K.welford_rows, {"X": "*fp32", "Mean": "*fp32", "M2": "*fp32"},
     {"R": 16, "C": 64, "WARPS_C": 1}),
    (K.argmax64, {"X": "*fp64", "Vals": "*fp64", "Idx": "*i64"}, {"N": 512}),
    (K.scan3, {"X": "*fp32", "S": "*fp32", "Lo": "*fp32", "Hi": "*fp32"},
     {"N": 512, "REVERSE": False}),
    (K.scan3, {"X": "*fp32", "S": "*fp32", "Lo": "*fp32", "Hi": "*fp32"},
     {"N": 512, "REVERSE": True}),
]


@needs_compiler
@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("i", range(len(WIDE)))
def test_tuples_wider_than_64_bits_reduce_and_scan(target, i):
    """Welford's (mean, m2, count) of three fp32, an fp64 value with an int64 index (128 bits)
    and a scan of three tensors: one reduce / scan of all of them, through the whole
    pipeline to the binary (ptxas on NVIDIA when present)."""
    fn, sig, cx = WIDE[i]
    cx = dict(cx, W=64 if target.startswith("hip") else 32)
    k = kiln.compile(fn, signature=sig, constexprs=cx, target=target, cache=False)
    op = "tile.scan" if fn is K.scan3 else "tile.reduce"
    assert len(re.findall(re.escape(op) + r"\b(?!_)", k.asm["tile"])) == 1
    assert k.asm.get("cubin") or k.asm.get("hsaco") or k.asm.get("ptx")


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
