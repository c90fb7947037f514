"""What Triton's ``dtype`` answers, for Kiln's element, pointer and tensor types.

In Triton, ``pointer_type`` and ``block_type`` (Gluon's ``distributed_type`` derives from it)
subclass ``dtype``, so every one of them has the class constants (``FP_TYPES`` ...), ``kind()``
and the ``is_<name>()`` predicates, which compare the type's *name*: a pointer is named
``pointer<fp32>`` and a block ``<(16, 16), fp32>``, so for them every ``is_<name>()`` is False
except ``is_fp8()`` (``'fp8' in name``) when the element is fp8. Kiln's types do not derive
from one another (Kiln's code tells a dtype from a pointer with ``isinstance``); they share this
mixin instead, each giving ``_triton_name``, the name Triton would compare.

Where Kiln answers otherwise, on purpose: ``is_void()`` answers (Triton raises "Not
implemented"); ``distributed_type.is_ptr()`` answers for the element (Triton's block types say
False); ``kind()`` and ``get_int_*_value()`` of a non-scalar raise TypeError (Triton asserts).
"""

from __future__ import annotations

from enum import Enum


class SIGNEDNESS(Enum):
    SIGNED = 0
    UNSIGNED = 1


class KIND(Enum):
    """Triton's ordering of element kinds: bool < integer < floating."""
    BOOLEAN = 0
    INTEGRAL = 1
    FLOATING = 2


class flag(int):
    """A class-level yes/no that Kiln reads as an attribute (``if ty.is_block:``) and Triton
    code calls (``ty.is_block()``)."""

    def __new__(cls, value: bool):
        return super().__new__(cls, bool(value))

    def __call__(self) -> bool:
        return bool(self)

    def __repr__(self):
        return repr(bool(self))


def no_ir_hook(owner: str, name: str):
    """A method of Triton's that moves values between Python and its C++ IR builder: Kiln
    builds its IR as text, so the method has no meaning; it raises (at the kernel's line, when
    a kernel calls it) saying so."""
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"{owner}.{name} is Triton's internal hook between its Python values and its C++ "
            f"IR builder; Kiln builds its IR differently, so it has no {name}: use the "
            f"value itself (kernels pass tensors, descriptors and tuples directly)")
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"Triton's IR hook ``{name}``: raises NotImplementedError in Kiln (no "
                      f"C++ builder handles to flatten).")
    return method


class dtype_queries:
    """Triton ``dtype``'s class constants and name-based queries (see the module docstring)."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]
    SIGNEDNESS = SIGNEDNESS
    KIND = KIND

    is_block = flag(False)

    @property
    def _triton_name(self) -> str:
        return self.name

    @staticmethod
    def is_dtype(type_str) -> bool:
        return type_str in (dtype_queries.SINT_TYPES + dtype_queries.UINT_TYPES
                            + dtype_queries.FP_TYPES + dtype_queries.OTHER_TYPES)

    def is_fp8(self):
        return "fp8" in self._triton_name

    def is_floating(self):
        return self._triton_name in self.FP_TYPES

    def is_standard_floating(self):
        return self._triton_name in self.STANDARD_FP_TYPES

    def is_int_signed(self):
        return self._triton_name in self.SINT_TYPES

    def is_int_unsigned(self):
        return self._triton_name in self.UINT_TYPES

    def is_int(self):
        return self.is_int_signed() or self.is_int_unsigned()

    def is_bool(self):
        return self._triton_name == "int1"

    def is_void(self):
        return self._triton_name == "void"

    def is_const(self):
        return False

    def is_ptr(self):
        return False

    def kind(self):
        """``KIND.BOOLEAN``, ``INTEGRAL`` or ``FLOATING`` (Triton's ``dtype.kind()``)."""
        if self.is_bool():
            return KIND.BOOLEAN
        if self.is_int():
            return KIND.INTEGRAL
        if self.is_floating():
            return KIND.FLOATING
        raise TypeError(f"{self} has no element kind (kind() is for scalar element types; "
                        f"ask .scalar or .element_ty)")

    def get_int_max_value(self):
        if not self.is_int():
            raise TypeError(f"{self} is not an integer type")
        bits = self.primitive_bitwidth
        return 2**(bits - 1) - 1 if self.is_int_signed() else 2**bits - 1

    def get_int_min_value(self):
        if not self.is_int():
            raise TypeError(f"{self} is not an integer type")
        return -2**(self.primitive_bitwidth - 1) if self.is_int_signed() else 0

    def codegen_name(self) -> str:
        name = self._triton_name
        if name.startswith("fp"):
            return "float" + name[2:]
        if name.startswith("bf"):
            return "bfloat" + name[2:]
        return name

    @property
    def cache_key_part(self) -> str:
        return self._triton_name

    _flatten_ir_types = no_ir_hook("dtype", "_flatten_ir_types")
    _unflatten_ir = no_ir_hook("dtype", "_unflatten_ir")


_SCALAR_NAMES = ("fp8e4nv", "fp8e4b8", "fp8e4b15", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                 "fp64", "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64")


def _name_is(n):
    def pred(self):
        return self._triton_name == n
    pred.__name__ = pred.__qualname__ = "is_" + n
    return pred


for _n in _SCALAR_NAMES:
    setattr(dtype_queries, "is_" + _n, _name_is(_n))
del _n


class block_queries(dtype_queries):
    """What Triton's ``block_type`` adds to ``dtype``: a block of ``element_ty`` in ``shape``."""

    is_block = flag(True)

    @property
    def _triton_name(self) -> str:
        return f"<{tuple(self.get_block_shapes())}, {self.element_ty}>"

    def get_block_shapes(self):
        return tuple(int(d) for d in getattr(self, "_shape", None) or self.shape)

    def kind(self):
        raise TypeError(f"{self} is a block type; kind() is for its element type "
                        f"({self.element_ty}): ask .scalar.kind()")
