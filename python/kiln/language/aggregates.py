"""User classes whose instances kernels build, pass to and return from ``@kiln.jit`` functions,
and carry through loops: Triton's ``aggregate`` (``triton.language.core._aggregate``)::

    @kl.aggregate
    class Counter:
        index: kl.tensor
        phase: kl.tensor
        num_buffers: kl.constexpr

        @kl.constexpr_function
        def __init__(self, index, phase, num_buffers):
            self.index = index
            self.phase = phase
            self.num_buffers = kl.constexpr(num_buffers)

        @kiln.jit
        def next(self):
            wrap = self.index == self.num_buffers - 1
            return Counter(kl.where(wrap, 0, self.index + 1),
                           kl.where(wrap, self.phase ^ 1, self.phase), self.num_buffers)

The annotated names are the fields, in order (an aggregate base class's first); ``__init__``
(a plain or ``constexpr_function`` Python function, or a ``@kiln.jit`` function) must set every
one. A class without ``__init__`` gets one taking the fields in order, positionally or by name,
a value assigned in the class body being the field's default (Gluon's, as of Triton 3.7). ``@kiln.jit`` methods take
the instance as ``self``; others (``MMA.initialize(...)``) are called through the class.
Instances are values, not objects: methods return new instances rather than changing ``self``.
Classes made with Triton's own decorator work the same way in Kiln kernels.
"""

from __future__ import annotations

import inspect
from typing import Dict, Optional, Tuple

__all__ = ["aggregate", "aggregate_fields", "aggregate_member", "rebuild_aggregate"]

_FIELDS = "__kiln_aggregate_fields__"
_TRITON_INNER: Dict[type, Optional[type]] = {}


def _annotations(cls) -> Tuple[str, ...]:
    try:
        ann = inspect.get_annotations(cls)
    except Exception:  # pragma: no cover - malformed annotations
        ann = cls.__dict__.get("__annotations__", {})
    return tuple(ann)


def _is_constexpr_annotation(ann) -> bool:
    from ._core import constexpr
    return ann is constexpr or (isinstance(ann, str) and ann.split(".")[-1] == "constexpr")


def _resolve_fields(cls):
    """(field names in order, their annotations, defaults): those of the aggregate base
    classes first (oldest first; a redeclared field keeps its place), then the class's own.
    A plain value assigned to an annotated name in the class body is its default."""
    names, anns, defaults = [], {}, {}
    for base in reversed(cls.__mro__[1:]):
        if base is object:
            continue
        if getattr(base, _FIELDS, None) is None:
            raise TypeError(f"aggregate class {cls.__qualname__} derives from "
                            f"{base.__qualname__}, which is not an aggregate")
        for n in getattr(base, _FIELDS):
            if n not in anns:
                names.append(n)
            anns[n] = getattr(base, "__kiln_aggregate_annotations__", {}).get(n)
        defaults.update(getattr(base, "__kiln_aggregate_defaults__", {}))
    try:
        own = inspect.get_annotations(cls)
    except Exception:  # pragma: no cover - malformed annotations
        own = cls.__dict__.get("__annotations__", {})
    for n, ann in own.items():
        if n not in anns:
            names.append(n)
        anns[n] = ann
        if n in cls.__dict__:
            value = cls.__dict__[n]
            if not callable(value) or isinstance(value, type):
                defaults[n] = value
    return tuple(names), anns, defaults


def _generated_init(cls, fields, anns, defaults):
    """The constructor an aggregate without ``__init__`` gets (Gluon's, as of Triton 3.7):
    the fields in order, positionally or by name, with the class's defaults."""
    from ._core import constexpr
    name = cls.__qualname__

    def __init__(self, *args, **kwargs):
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} positional arguments (its fields "
                            f"{', '.join(fields)}) but {len(args)} were given")
        for i, f in enumerate(fields):
            if i < len(args):
                if f in kwargs:
                    raise TypeError(f"{name}() got multiple values for field '{f}'")
                value = args[i]
            elif f in kwargs:
                value = kwargs.pop(f)
            elif f in defaults:
                value = defaults[f]
            else:
                raise TypeError(f"{name}() is missing field '{f}'")
            if _is_constexpr_annotation(anns.get(f)) and not isinstance(value, constexpr):
                value = constexpr(value)
            setattr(self, f, value)
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
    return __init__


def aggregate(cls):
    """Make ``cls`` an aggregate (see the module doc)."""
    if not isinstance(cls, type):
        raise TypeError(f"aggregate decorates a class, got {cls!r}")
    fields, anns, defaults = _resolve_fields(cls)
    # No fields is allowed (Gluon builds such a class too): a holder of methods
    # that other aggregates keep as a field.
    init = cls.__dict__.get("__init__")
    if init is None:
        init = _generated_init(cls, fields, anns, defaults)
    for n in defaults:  # the class attribute would shadow an unset field
        if n in cls.__dict__:
            delattr(cls, n)
    setattr(cls, _FIELDS, fields)
    cls.__kiln_aggregate_annotations__ = anns
    # Gluon's marker: project code tells aggregates from other values by it
    # (e.g. a decorator that forwards attribute lookups to aggregate fields).
    cls.__triton_aggregate__ = True
    cls.__kiln_aggregate_defaults__ = defaults

    def __setattr__(self, name, value):
        if name not in fields:
            raise AttributeError(f"{cls.__qualname__} has no field '{name}' (its fields: "
                                 f"{', '.join(fields)})")
        object.__setattr__(self, name, value)

    cls.__setattr__ = __setattr__
    if not getattr(init, "__kiln_jit__", False):
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            check_initialized(self)
        __init__.__wrapped__ = init
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = __init__
    return cls


def check_initialized(obj):
    fields = aggregate_fields(type(obj)) or ()
    missing = [f for f in fields if f not in obj.__dict__]
    if missing:
        raise TypeError(f"the constructor of {type(obj).__qualname__} did not set "
                             f"{', '.join(repr(f) for f in missing)}")


def _triton_inner(cls) -> Optional[type]:
    """The class Triton's ``_aggregate`` decorated, held in the closure of the methods it
    generated for ``cls``."""
    if cls in _TRITON_INNER:
        return _TRITON_INNER[cls]
    found = None
    fn = cls.__dict__.get("_flatten_ir")
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:
            continue
        if isinstance(inner, type) and inner is not cls:
            found = inner
            break
    _TRITON_INNER[cls] = found
    return found


def is_triton_made(cls) -> bool:
    """Whether ``cls`` is a class made by Triton's ``_aggregate`` (Kiln's own aggregates carry
    Gluon's ``__triton_aggregate__`` marker too, for project code that tests it)."""
    return (isinstance(cls, type) and cls.__dict__.get("__triton_aggregate__", False)
            and "__kiln_aggregate_annotations__" not in cls.__dict__)


def triton_aggregate_class(cls) -> Optional[type]:
    """For a class made by Triton's ``_aggregate``: the class it decorated (its field
    annotations and constructor), else None."""
    if is_triton_made(cls):
        return _triton_inner(cls)
    return None


def triton_generated_init(cls):
    """For a class made by Triton's ``_aggregate`` from a class without ``__init__``: the
    constructor Gluon generates for such a class as of Triton 3.7 (see :func:`aggregate`;
    Triton 3.6's decorator makes none, and its instance would be left without fields), as
    ``(fields, annotations, init)``; else None."""
    if not is_triton_made(cls):
        return None
    inner = _triton_inner(cls)
    if inner is None or any("__init__" in k.__dict__ for k in inner.__mro__[:-1]):
        return None
    try:
        fields, anns, defaults = _resolve_fields(inner)
    except TypeError:  # derived from a class that is not an aggregate: Triton's own rules
        return None
    return fields, anns, _generated_init(inner, fields, anns, defaults)


def aggregate_fields(cls) -> Optional[Tuple[str, ...]]:
    """The field names of an aggregate class, or None for any other type."""
    fields = getattr(cls, _FIELDS, None)
    if fields is not None:
        return fields
    if is_triton_made(cls):
        inner = _triton_inner(cls)
        return _annotations(inner) if inner is not None else None
    return None


def aggregate_member(cls, name):
    """A member of an aggregate class that ``getattr`` does not find: Triton's decorator
    copies only plain functions and Triton's own jit functions onto the class it makes, so
    ``@kiln.jit`` methods stay on the class it decorated."""
    if is_triton_made(cls):
        inner = _triton_inner(cls)
        if inner is not None and name in inner.__dict__:
            return inner.__dict__[name]
    raise AttributeError(f"type object {cls.__qualname__!r} has no attribute {name!r}")


def rebuild_aggregate(cls, fields, parts):
    """An instance of aggregate ``cls`` with the given field values (no constructor run)."""
    obj = object.__new__(cls)
    for name, value in zip(fields, parts):
        object.__setattr__(obj, name, value)
    return obj


def aggregate_token(cls, token) -> str:
    """What identifies an aggregate class in cache keys: its name, fields and the fingerprints
    (``token``) of its methods, which code generation may inline through any instance."""
    parts = [f"{cls.__module__}.{cls.__qualname__}", ",".join(aggregate_fields(cls) or ())]
    inner = _triton_inner(cls) if is_triton_made(cls) else None
    members = dict(vars(cls))
    if inner is not None:  # its methods stay on the class Triton's decorator was given
        members = {**vars(inner), **members, "__init__": inner.__dict__.get("__init__")}
    for name, member in sorted(members.items()):
        if name.startswith("__") and name != "__init__":
            continue
        if name == "__init__" and not getattr(member, "__kiln_jit__", False):
            member = getattr(member, "__wrapped__", member)  # aggregate()'s wrapper
        if callable(member) or isinstance(member, (staticmethod, classmethod, property)):
            parts.append(f"{name}={token(member)}")
    return "agg:" + ";".join(parts)


def aggregate_replace(instance, **changes):
    """A copy of the aggregate ``instance`` with the fields named in ``changes`` replaced
    (Gluon's ``aggregate_replace``, after Triton 3.6; ``dataclasses.replace`` for
    aggregates). The constructor does not run again: the other fields are the instance's."""
    changes.pop("_semantic", None)
    cls = type(instance)
    fields = aggregate_fields(cls)
    if fields is None:
        raise TypeError(f"aggregate_replace() expects an aggregate instance, got "
                        f"{cls.__qualname__}")
    unknown = [n for n in changes if n not in fields]
    if unknown:
        raise TypeError(f"{cls.__qualname__} has no field {unknown[0]!r} (its fields: "
                        f"{', '.join(fields)})")
    copy = object.__new__(cls)
    for name in fields:
        object.__setattr__(copy, name, changes[name] if name in changes
                           else getattr(instance, name))
    return copy


# Called in a kernel as a builtin (the code generator passes _semantic, which it drops), and
# anywhere else as a plain function.
aggregate_replace.__kiln_builtin__ = True
