"""Gluon's type names for a kernel's tuples and for no value: ``tuple`` (a Python tuple with
Gluon's ``type`` and ``values``: every tuple a kernel writes, receives as an argument or gets
from a builtin is one), ``tuple_type`` (the element types of a tuple) and ``void`` (the dtype
of no value)."""

from __future__ import annotations

import builtins

from ._core import base_type, dtype

__all__ = ["tuple", "tuple_type", "void"]

class tuple(builtins.tuple):  # noqa: A001 - Gluon's name
    """A kernel's tuple (Gluon's ``tuple``): a Python tuple (indexing, slicing, ``len``, ``+``,
    ``*``, iteration and unpacking as usual), with ``type`` (a :class:`tuple_type` of its
    elements' types) and ``values`` (its elements, as a list). ``kl.tuple([a, b])`` builds
    one; ``type=`` gives field names (``tuple_type([...], fields)``), readable as
    attributes."""

    def __new__(cls, args=(), type=None):  # noqa: A002 - Gluon's keyword
        self = super().__new__(cls, args)
        if type is not None and not isinstance(type, tuple_type):
            type = tuple_type(type)
        if type is not None and len(type) != len(self):
            raise ValueError(f"tuple: {len(self)} values but a type of {len(type)}")
        self._type = type
        return self

    @property
    def type(self):
        if self._type is not None:
            return self._type
        return tuple_type([_type_of(v) for v in self])

    @property
    def values(self):
        return list(self)

    def __getattr__(self, name):
        fields = self.__dict__.get("_type")
        fields = fields.fields if fields is not None else ()
        if name in fields:
            return self[fields.index(name)]
        raise AttributeError(f"'tuple' object has no attribute {name!r}")

    def __getitem__(self, index):
        index = getattr(index, "value", index) if not isinstance(index, (int, slice)) else index
        got = super().__getitem__(index)
        return tuple(got) if isinstance(index, slice) else got

    def __add__(self, other):
        return tuple(builtins.tuple(self) + builtins.tuple(other))

    def __radd__(self, other):
        return tuple(builtins.tuple(other) + builtins.tuple(self))

    def __mul__(self, n):
        return tuple(builtins.tuple(self) * getattr(n, "value", n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (tuple, (builtins.tuple(self), self._type))


class _constexpr_type(base_type):
    """The type of a compile-time element of a tuple (an int, float, bool, None or dtype)."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(("constexpr", repr(self.value)))

    def __repr__(self):
        return f"constexpr_type[{self.value}]"


def _type_of(v):
    ty = getattr(v, "type", None)
    if isinstance(ty, base_type):
        return ty
    return _constexpr_type(getattr(v, "value", v))


class tuple_type(base_type):
    """The types of a tuple's elements, with optional field names (Gluon's ``tuple_type``)."""

    def __init__(self, types, fields=None):
        self.types = list(types)
        self.fields = list(fields) if fields is not None else [""] * len(self.types)
        if len(self.fields) != len(self.types):
            raise ValueError(f"tuple_type: {len(self.types)} types but {len(self.fields)} "
                             f"field names")

    def __getitem__(self, index):
        return self.types[index]

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __eq__(self, other):
        return isinstance(other, tuple_type) and (self.types, self.fields) == \
            (other.types, other.fields)

    def __hash__(self):
        return hash(builtins.tuple(str(t) for t in self.types))

    def __repr__(self):
        inner = ", ".join(f"{f}: {t}" if f else str(t) for f, t in zip(self.fields, self.types))
        return f"tuple_type[{inner}]"


class _void_dtype(dtype):
    """The dtype of no value (``kl.void``): it names nothing a tensor can hold."""

    def __init__(self):
        self.name = "void"
        self._kind, self.primitive_bitwidth, self._ir = "void", 0, "none"


void = _void_dtype()
