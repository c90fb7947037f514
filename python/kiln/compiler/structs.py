"""Values made of several runtime values, through control flow.

An ``if`` merges, and a loop carries, each variable the body reassigns. A variable may hold a
tuple or list, an aggregate (a class built with ``kl.aggregate`` or Triton's ``aggregate``), a
``warpgroup_mma_accumulator`` -- anything that exposes its parts -- as well as a plain tensor.
Such a value is merged part by part: parts that are the same object (or equal compile-time
values) on both sides stay as they are; parts that differ become results of the ``scf.if`` /
iteration arguments of the loop, and the value is rebuilt around them afterwards.

:func:`merge` gives the merged "type" of two values: ``None`` (nothing runtime differs), a
tensor type (one IR value), or a :class:`Struct` (several). :func:`leaf_types`,
:func:`to_leaves` and :func:`from_leaves` flatten and rebuild along it.
"""

from __future__ import annotations

from typing import Callable, List

from ..language._core import (_unwrap, constexpr, shared_memory_descriptor,
                              shared_memory_descriptor_type, tensor)
from ._values import _same
from ..language._types import tuple as kl_tuple

__all__ = ["Struct", "Mismatch", "parts_of", "merge", "leaf_types", "to_leaves",
           "from_leaves"]


class Mismatch(Exception):
    """Two values whose structure differs (the message says where)."""


def parts_of(v):
    """(kind, parts, rebuild) of a value made of parts, or None for a leaf.

    ``kind`` identifies the structure (two values merge part by part only when their kinds are
    equal); ``rebuild(parts)`` makes a value of the same kind from new parts."""
    v = _unwrap(v)
    if isinstance(v, (tuple, list)) and not isinstance(v, constexpr):
        cls = type(v)
        if cls is tuple or cls is kl_tuple:  # a kernel's tuples are all kl.tuple
            return (tuple, len(v)), list(v), kl_tuple
        if cls is list:
            return (cls, len(v)), list(v), cls
        if hasattr(cls, "_fields"):  # a namedtuple
            return (cls, len(v)), list(v), lambda parts, c=cls: c(*parts)
        return (cls, len(v)), list(v), cls
    flatten = getattr(type(v), "_kiln_parts", None)
    if flatten is not None:
        kind, parts, rebuild = flatten(v)
        return kind, list(parts), rebuild
    from ..language.aggregates import aggregate_fields, rebuild_aggregate
    fields = aggregate_fields(type(v))
    if fields is not None:
        return ((type(v), fields), [getattr(v, f) for f in fields],
                lambda parts, c=type(v), f=fields: rebuild_aggregate(c, f, parts))
    return None


def _describe(kind) -> str:
    cls = kind[0]
    if cls in (tuple, list):
        return f"a {cls.__name__} of {kind[1]}"
    return f"a {getattr(cls, '__qualname__', cls)}"


class Struct:
    """The merged type of a value made of parts: per part ``("keep", value)`` (the same on both
    sides) or ``("run", type)`` (one or more IR values)."""

    __slots__ = ("kind", "parts", "rebuild")

    def __init__(self, kind, parts, rebuild: Callable):
        self.kind, self.parts, self.rebuild = kind, parts, rebuild

    def __eq__(self, other):
        if not isinstance(other, Struct) or self.kind != other.kind:
            return False
        for (k1, v1), (k2, v2) in zip(self.parts, other.parts):
            if k1 != k2 or (k1 == "run" and v1 != v2) or (k1 == "keep" and not _same(v1, v2)):
                return False
        return True

    def __hash__(self):
        return hash(self.kind)

    def __str__(self):
        return _describe(self.kind)


def merge(leaf_merge, a, b):
    """The merged type of ``a`` and ``b`` (see the module doc). ``leaf_merge(a, b)`` merges two
    values that are not made of parts (None, a type, or raises)."""
    if a is b:
        return None
    pa, pb = parts_of(a), parts_of(b)
    if pa is None and pb is None:
        return leaf_merge(a, b)
    if pa is None:
        pa = _adopted(b, a)
    elif pb is None:
        pb = _adopted(a, b)
    if pa is None or pb is None or pa[0] != pb[0]:
        raise Mismatch(f"{_what(a, pa)} and {_what(b, pb)}")
    kind, parts_a, rebuild = pa
    parts = []
    any_run = False
    for i, (x, y) in enumerate(zip(parts_a, pb[1])):
        try:
            ty = merge(leaf_merge, x, y)
        except Mismatch as e:
            raise Mismatch(f"{_part_name(kind, i)}: {e}") from None
        if ty is None:
            parts.append(("keep", x))
        else:
            parts.append(("run", ty))
            any_run = True
    return Struct(kind, parts, rebuild) if any_run else None


def _adopted(model, leaf):
    """``leaf`` (a plain value) seen as a value of ``model``'s kind, where that kind adopts it
    (a tensor where a ``warpgroup_mma_accumulator`` of its type is carried: Gluon asks for
    ``warpgroup_mma_init`` there; Kiln applies it)."""
    adopt = getattr(type(_unwrap(model)), "_kiln_adopt", None)
    if adopt is None:
        return None
    value = adopt(_unwrap(model), _unwrap(leaf))
    return parts_of(value) if value is not None else None


def _adopted_kind(kind, leaf):
    cls = kind[0]
    adopt = getattr(cls, "_kiln_adopt_kind", None) if isinstance(cls, type) else None
    value = adopt(kind, _unwrap(leaf)) if adopt is not None else None
    return parts_of(value) if value is not None else None


def _part_name(kind, i) -> str:
    cls = kind[0]
    if cls in (tuple, list) or not isinstance(kind[1], tuple):
        return f"element {i}"
    return f"field '{kind[1][i]}'"


def _what(v, parts) -> str:
    if parts is not None:
        return _describe(parts[0])
    v = _unwrap(v)
    if isinstance(v, tensor):
        return str(v.type)
    return f"constexpr[{v!r}]"


def leaf_types(ty) -> List:
    """The IR types of a merged type, in order."""
    if not isinstance(ty, Struct):
        return [ty]
    out = []
    for k, v in ty.parts:
        if k == "run":
            out.extend(leaf_types(v))
    return out


def to_leaves(materialize, value, ty) -> List[tensor]:
    """``value``'s IR values along ``ty`` (``materialize(v, leaf_type)`` makes one leaf)."""
    if not isinstance(ty, Struct):
        return [materialize(value, ty)]
    p = parts_of(value)
    if p is None:
        p = _adopted_kind(ty.kind, value)
    if p is None or p[0] != ty.kind:
        raise Mismatch(f"{_what(value, p)} where {_describe(ty.kind)} was expected")
    out = []
    for x, (k, v) in zip(p[1], ty.parts):
        if k == "run":
            out.extend(to_leaves(materialize, x, v))
    return out


def from_leaves(ty, handles):
    """A value of merged type ``ty`` from an iterator of IR value names."""
    if isinstance(ty, shared_memory_descriptor_type):
        return shared_memory_descriptor(next(handles), ty)
    if not isinstance(ty, Struct):
        return tensor(next(handles), ty)
    parts = [from_leaves(v, handles) if k == "run" else v for k, v in ty.parts]
    return ty.rebuild(parts)
