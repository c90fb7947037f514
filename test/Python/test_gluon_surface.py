"""Gluon 3.6's class surface on Kiln's classes (issue 41 item 3), generated from
docs/data/gluon-surface.json: every method, property and class attribute of Gluon's tensor,
shared_memory_descriptor, pointer_type, dtype, block_type, distributed_type and
shared_memory_descriptor_type (listed with inspect.getattr_static on the GPU machine, from
Triton 3.6.0) exists on Kiln's class of the same role, with the same kind (property, method or
attribute). Then the behaviour of the names Kiln added: Triton's answers for the dtype
queries, argmax/argmin/flip/sort/item compiled for sm_90a (their numerics against torch are
test/gpu/test_surface_methods.py), and the names with no Kiln meaning raising at the user's
line."""

from __future__ import annotations

import inspect
import json
import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language import _core

from compiled import needs_compiler
import located
import surface_method_kernels as K

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SURFACE = json.load(open(os.path.join(_ROOT, "docs", "data", "gluon-surface.json")))

# Gluon's class -> Kiln's class of the same role.
KILN_CLASS = {
    "tensor": kl.tensor,
    "shared_memory_descriptor": kl.shared_memory_descriptor,
    "pointer_type": kl.pointer_type,
    "dtype": kl.dtype,
    # Triton's block_type is what Gluon's distributed_type derives from; Kiln's block_type is
    # the block a tensor descriptor copies (Gluon's tensor_descriptor.block_type). Both must
    # answer as Triton's block_type.
    "block_type": _core.block_type,
    "distributed_type": kl.distributed_type,
    "shared_memory_descriptor_type": kl.shared_memory_descriptor_type,
}

# Names Kiln does not have, each with its reason. Empty: every name exists. The names below
# exist but have no Kiln meaning, so they raise a clear error (tested further down):
#   _flatten_ir, _flatten_ir_types, _unflatten_ir: Triton's hooks between its Python values
#     and its C++ IR builder's handles (Kiln writes its IR as text);
#   tensor.advance: moves a block pointer, and Kiln has no block pointers.
EXCLUDED: dict = {}


def _kind(cls, name):
    """The kind the surface file records: 'property', 'method' (anything callable, static and
    class methods included) or 'attribute'."""
    value = inspect.getattr_static(cls, name)
    if isinstance(value, property):
        return "property"
    if isinstance(value, (staticmethod, classmethod)) or callable(value):
        return "method"
    return "attribute"


def test_surface_file_is_triton_3_6():
    assert SURFACE["triton"].startswith("3.6")
    assert set(SURFACE) - {"triton"} == set(KILN_CLASS)


@pytest.mark.parametrize("gluon_class", sorted(KILN_CLASS))
def test_every_gluon_name_exists_on_kiln(gluon_class):
    cls = KILN_CLASS[gluon_class]
    missing = [n for n in SURFACE[gluon_class]
               if n not in EXCLUDED.get(gluon_class, {}) and not hasattr(cls, n)]
    assert not missing, f"{cls.__qualname__} lacks Gluon's {missing}"
    wrong = [(n, k, _kind(cls, n)) for n, k in SURFACE[gluon_class].items()
             if hasattr(cls, n) and _kind(cls, n) != k]
    assert not wrong, f"{cls.__qualname__}: (name, Gluon's kind, Kiln's kind) {wrong}"


def test_exclusions_are_still_needed():
    for gluon_class, names in EXCLUDED.items():
        for n in names:
            assert not hasattr(KILN_CLASS[gluon_class], n), f"{gluon_class}.{n} exists now"


# -- dtype queries: Triton 3.6's answers, written out ------------------------------------------

_SCALARS = ["int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
            "fp64"]


def test_dtype_class_constants_as_triton():
    for cls in (kl.dtype, kl.pointer_type, kl.distributed_type, _core.block_type):
        assert cls.SINT_TYPES == ["int8", "int16", "int32", "int64"]
        assert cls.UINT_TYPES == ["int1", "uint8", "uint16", "uint32", "uint64"]
        assert cls.FP_TYPES == ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16",
                                "bf16", "fp32", "fp64"]
        assert cls.STANDARD_FP_TYPES == ["fp16", "bf16", "fp32", "fp64"]
        assert cls.OTHER_TYPES == ["void"]
        assert [m.name for m in cls.KIND] == ["BOOLEAN", "INTEGRAL", "FLOATING"]
        assert [m.name for m in cls.SIGNEDNESS] == ["SIGNED", "UNSIGNED"]
        assert cls.is_dtype("fp8e4nv") and cls.is_dtype("void") and not cls.is_dtype("fp4")


# Triton 3.6's answers for each scalar dtype: (kind, is_floating, is_standard_floating,
# is_int_signed, is_int_unsigned, is_bool, codegen_name). int1 is unsigned in Triton.
_TRITON = {
    "int1": ("BOOLEAN", False, False, False, True, True, "int1"),
    "int8": ("INTEGRAL", False, False, True, False, False, "int8"),
    "uint32": ("INTEGRAL", False, False, False, True, False, "uint32"),
    "int64": ("INTEGRAL", False, False, True, False, False, "int64"),
    "fp8e4nv": ("FLOATING", True, False, False, False, False, "float8e4nv"),
    "fp8e5b16": ("FLOATING", True, False, False, False, False, "float8e5b16"),
    "fp16": ("FLOATING", True, True, False, False, False, "float16"),
    "bf16": ("FLOATING", True, True, False, False, False, "bfloat16"),
    "fp64": ("FLOATING", True, True, False, False, False, "float64"),
}


@pytest.mark.parametrize("name", sorted(_TRITON))
def test_scalar_dtype_queries_as_triton(name):
    t = _core.dtype(name)
    kind, fl, std, signed, unsigned, boolean, cg = _TRITON[name]
    assert t.kind() is kl.dtype.KIND[kind]
    assert (t.is_floating(), t.is_standard_floating(), t.is_int_signed(),
            t.is_int_unsigned(), t.is_bool()) == (fl, std, signed, unsigned, boolean)
    assert t.is_int() == (signed or unsigned)
    assert t.codegen_name() == cg and t.cache_key_part == name
    assert t.is_fp8() == name.startswith("fp8")
    assert [s for s in _SCALARS if getattr(t, "is_" + s)()] == [name]
    assert not t.is_block() and not t.is_ptr() and not t.is_const() and not t.is_void()
    assert t.with_element_ty(kl.int8) is kl.int8


def test_int_limits_as_triton():
    assert (kl.int1.get_int_max_value(), kl.int1.get_int_min_value()) == (1, 0)
    assert (kl.int64.get_int_max_value(), kl.int64.get_int_min_value()) == (2**63 - 1, -2**63)
    assert (kl.uint8.get_int_max_value(), kl.uint8.get_int_min_value()) == (255, 0)
    for t in (kl.float32, kl.pointer_type(kl.int32)):
        with pytest.raises(TypeError, match="not an integer type"):
            t.get_int_max_value()


def test_pointer_type_queries_as_triton():
    # Triton names a pointer 'pointer<fp8e5>' and compares names: only is_fp8() can hold.
    p = kl.pointer_type(kl.float8e5)
    assert p.is_ptr() and p.is_fp8() and not p.is_block() and not p.is_const()
    assert not any(getattr(p, "is_" + s)() for s in _SCALARS)
    q = kl.pointer_type(kl.int32)
    assert not (q.is_int() or q.is_int_signed() or q.is_floating() or q.is_bool() or q.is_fp8())
    assert q.codegen_name() == "pointer<int32>" and q.cache_key_part == "pointer<int32>"
    assert q.with_element_ty(kl.float16) == kl.pointer_type(kl.float16)
    with pytest.raises(TypeError, match="no element kind"):
        q.kind()


def _distributed():
    return kl.distributed_type(kl.float16, [16, 32], kl.BlockedLayout([1, 4], [4, 8], [4, 1],
                                                                        [1, 0]))


@pytest.mark.parametrize("make", [_distributed, lambda: _core.block_type(kl.float16, [16, 32])])
def test_block_type_queries_as_triton(make):
    # Triton's block_type subclasses dtype and its name is '<(16, 32), fp16>': every
    # is_<name>() is False, is_block() True, codegen_name() the name itself.
    b = make()
    assert b.is_block() and b.is_block
    assert not any(getattr(b, "is_" + s)() for s in _SCALARS)
    assert not (b.is_floating() or b.is_int() or b.is_fp8() or b.is_standard_floating())
    assert b.get_block_shapes() == (16, 32)
    assert b.nbytes == 16 * 32 * 2
    assert b.codegen_name() == "<(16, 32), fp16>" == b.cache_key_part
    assert b.with_element_ty(kl.float32).scalar == kl.float32
    assert b.to_ir().startswith("tensor<16x32xf16")
    with pytest.raises(TypeError, match="block type"):
        b.kind()
    with pytest.raises(TypeError, match="not an integer type"):
        b.get_int_min_value()
    fp8 = b.with_element_ty(kl.float8e4nv)
    assert fp8.is_fp8() and not fp8.is_fp8e4nv()  # Triton: 'fp8' in '<(16, 32), fp8e4nv>'


def test_block_type_ir_and_mangle():
    b = _core.block_type(kl.bfloat16, [64, 128])
    assert b.to_ir() == "tensor<64x128xbf16>" and b.mangle() == "bf16S64_128S"
    assert _distributed().to_ir() == (f"tensor<16x32xf16, "
                                      f"{_distributed().layout.to_ir()}>")


def test_ir_hooks_raise_outside_a_kernel():
    for obj, name in ((kl.float32, "_flatten_ir_types"), (kl.float32, "_unflatten_ir"),
                      (_distributed(), "_unflatten_ir"),
                      (kl.shared_memory_descriptor_type(
                          kl.float16, [16], kl.SwizzledSharedLayout(1, 1, 1, [0])),
                       "_flatten_ir_types")):
        with pytest.raises(NotImplementedError, match=f"{name} is Triton's internal hook"):
            getattr(obj, name)(None, [])
    t = kl.tensor("%x", _distributed())
    with pytest.raises(TypeError, match=r"x\.T transposes a 2-D tensor inside"):
        t.T


# -- the new tensor methods, compiled ----------------------------------------------------------

def _compile(fn, sig, **constexprs):
    return kiln.compile(fn, signature=sig, constexprs=constexprs or None, target="cuda:sm_90a",
                        cache=False)


@needs_compiler
def test_argmax_argmin_compile():
    k = _compile(K.arg_reductions, {"X": "*fp32", "Out": "*i32"}, R=16, C=32)
    tile = k.asm["tile"]
    # Per call: the extreme, then the smallest index holding it (int32 minimum).
    assert len(re.findall(r"tile\.reduce\b", tile)) == 10
    assert tile.count("arith.maxnumf") >= 3 and tile.count("arith.minnumf") >= 2
    assert tile.count("arith.minsi") >= 5
    assert "st.global" in k.asm["ptx"]


@needs_compiler
def test_flip_and_sort_compile():
    for descending in (False, True):
        k = _compile(K.flip_sort, {"X": "*fp32", "Out": "*fp32"}, R=16, C=32,
                     DESCENDING=descending)
        assert "shfl.sync.bfly" in k.asm["ptx"]


@needs_compiler
def test_flip_within_a_warp_stays_in_registers():
    @kiln.jit
    def k(X, Out):
        layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
        rows = kl.arange(0, 16, kl.SliceLayout(1, layout))
        cols = kl.arange(0, 32, kl.SliceLayout(0, layout))
        offs = rows[:, None] * 32 + cols[None, :]
        kl.store(Out + offs, kl.load(X + offs).flip(1))
    ptx = _compile(k, {"X": "*fp32", "Out": "*fp32"}).asm["ptx"]
    assert "shfl.sync.bfly" in ptx and "st.shared" not in ptx and "bar.sync" not in ptx


@needs_compiler
def test_item_is_the_element():
    ptx = _compile(K.item_of_one, {"X": "*fp32", "Out": "*fp32"}).asm["ptx"]
    assert ptx.count("ld.global") == 1 and "add.f32" in ptx and "shfl" not in ptx


def _error(fn, sig=None):
    with pytest.raises(kiln.CompilationError) as e:
        _compile(fn, sig or {"X": "*fp32"})
    return e.value


@needs_compiler
def test_no_meaning_names_raise_at_the_users_line():
    here = os.path.abspath(__file__)

    @kiln.jit
    def advance(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        p = X + kl.arange(0, 128, layout)
        p.advance((1,))  # E:advance
    located.assert_located(_error(advance), here, "E:advance", "p.advance",
                           r"advance\(\) moves a block pointer .*Kiln has no block pointers.*",
                           kiln.CompilationError)

    @kiln.jit
    def flatten(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        x = kl.load(X + kl.arange(0, 128, layout))
        x._flatten_ir([])  # E:flatten
    located.assert_located(_error(flatten), here, "E:flatten", "x._flatten_ir",
                           r"NotImplementedError: tensor\._flatten_ir is Triton's internal "
                           r"hook.*", kiln.CompilationError)

    @kiln.jit
    def types(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        x = kl.load(X + kl.arange(0, 128, layout))
        x.type._unflatten_ir([], 0)  # E:types
    located.assert_located(_error(types), here, "E:types", "x.type._unflatten_ir",
                           r"NotImplementedError: dtype\._unflatten_ir is Triton's internal "
                           r"hook.*", kiln.CompilationError)


@needs_compiler
def test_method_misuse_is_reported():
    @kiln.jit
    def sort_rows(X):
        layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
        x = kl.full([16, 32], 1.0, kl.float32, layout)
        kl.store(X, kl.sum(x.sort(0), None))
    assert "only the last dimension" in _error(sort_rows).message

    @kiln.jit
    def item_of_many(X):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        kl.store(X, kl.load(X + kl.arange(0, 128, layout)).item())
    assert "item() needs a tensor of one element" in _error(item_of_many).message

    @kiln.jit
    def argmax_all(X):
        layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
        x = kl.full([16, 32], 1.0, kl.float32, layout)
        kl.store(X, kl.max(x, None, return_indices=True)[1])
    assert "give axis=" in _error(argmax_all).message


@needs_compiler
def test_type_predicates_in_a_kernel():
    @kiln.jit
    def k(X, Out):
        layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        x = kl.load(X + kl.arange(0, 128, layout))
        kl.static_assert(x.type.is_block() and not x.dtype.is_block())
        kl.static_assert(x.dtype.kind() == kl.dtype.KIND.FLOATING)
        kl.static_assert(X.dtype.is_ptr() and x.dtype.is_fp32())
        kl.store(Out + kl.arange(0, 128, layout), x)
    _compile(k, {"X": "*fp32", "Out": "*fp32"})
