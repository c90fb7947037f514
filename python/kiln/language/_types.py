"""Gluon's type names that Kiln's kernels meet as plain Python: ``tuple`` (a kernel's tuples
are Python tuples, so ``kl.tuple`` is that class and ``kl.tuple([a, b])`` builds one),
``tuple_type`` (the element types of a tuple) and ``void`` (the dtype of no value)."""

from __future__ import annotations

import builtins

from ._core import base_type, dtype

__all__ = ["tuple", "tuple_type", "void"]

tuple = builtins.tuple  # noqa: A001 - Gluon's name


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
