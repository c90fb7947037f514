"""tl.tensor's methods on Kiln tensors and Triton's dtype predicates (Gluon's tensor is
Triton's): each method compiles to the function of the same name; results are checked on the
GPU by test/gpu/test_tensor_methods.py."""

import re

import pytest

import kiln
import kiln.language as kl

import os

from compiled import needs_compiler
import located
import tensor_method_kernels as K


@needs_compiler
def test_unary_methods_compile():
    k = kiln.compile(K.unary_methods, signature={"X": "*fp32", "Out": "*fp32"},
                     constexprs={"R": 16, "C": 32}, target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    for op in ("math.exp", "math.sqrt", "math.floor", "math.ceil", "tile.scan", "math.erf",
               "tile.reduce"):
        assert op in tile, op
    assert len(re.findall(r"tile\.scan\b(?!_)", tile)) == 2  # cumsum, cumprod(reverse)
    assert 'reverse = true' in tile


@needs_compiler
def test_transpose_and_atomics_compile():
    k = kiln.compile(K.transpose_methods, signature={"X": "*fp32", "OutT": "*fp32",
                                                     "OutP": "*fp32"},
                     constexprs={"N": 32}, target="cuda:sm_90a", cache=False)
    assert k.asm["tile"].count("tile.trans") + k.asm["tile"].count("permute") >= 1
    k = kiln.compile(K.atomic_methods, signature={"Acc": "*fp32", "X": "*fp32"},
                     constexprs={"N": 128}, target="cuda:sm_90a", cache=False)
    assert re.search(r"\b(?:atom|red)\.[\w.]*global", k.asm["ptx"]), k.asm["ptx"]


def test_dtype_predicates_as_triton():
    assert kl.float8e4nv.is_fp8() and kl.float8e5b16.is_fp8e5b16()
    assert kl.pointer_type(kl.float8e4nv).is_fp8()      # Triton: 'fp8' in 'pointer<fp8e4nv>'
    assert not kl.pointer_type(kl.float16).is_fp16()
    assert kl.bfloat16.is_bf16() and kl.bfloat16.is_standard_floating()
    assert not kl.float8e5.is_standard_floating()
    assert kl.int8.get_int_max_value() == 127 and kl.int8.get_int_min_value() == -128
    assert kl.uint16.get_int_max_value() == 65535 and kl.uint16.get_int_min_value() == 0
    assert kl.float16.codegen_name() == "float16" and kl.bfloat16.codegen_name() == "bfloat16"
    with pytest.raises(TypeError):
        kl.float32.get_int_max_value()


@needs_compiler
def test_trans_without_dims_needs_2d():
    @kiln.jit
    def k(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        x = kl.load(X + kl.arange(0, 128, layout))
        kl.store(X + kl.arange(0, 128, layout), x.trans())  # E:trans
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(k, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)
    located.assert_located(e.value, os.path.abspath(__file__), "E:trans", "x.trans",
                           r"trans\(\) without dims transposes a 2-D tensor; this one has rank 1: "
                           r"give the permutation", kiln.CompilationError)
