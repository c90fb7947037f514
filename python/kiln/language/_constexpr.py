"""``constexpr`` (compile-time values), ``constexpr_function`` and ``_unwrap``: the bottom of
kiln.language, imported by every other module of it (``_layouts``, ``_core``, ``_semantic``,
…) and re-exported by ``kiln.language``. It imports nothing from Kiln.
"""

from __future__ import annotations

import builtins as _py
import operator as _op

__all__ = ["constexpr", "constexpr_function"]


class constexpr:
    """A compile-time value. Used as an annotation (``BLOCK: kl.constexpr``) to make a kernel
    argument compile-time, and as a wrapper (``X = kl.constexpr(4)``) for globals a kernel may
    read."""

    __kiln_constexpr__ = True

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return _py.bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return _py.int(self.value)

    def __float__(self):
        return _py.float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    # A tuple (or other sequence) held at compile time indexes and unpacks as
    # itself (Gluon's constexpr does), e.g. in a constexpr_function.
    def __getitem__(self, index):
        return self.value[_unwrap(index)]

    def __iter__(self):
        return iter(self.value)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.value, name)


def _cx_binop(op):
    def fwd(self, other):
        return constexpr(op(self.value, _unwrap(other)))

    def rev(self, other):
        return constexpr(op(_unwrap(other), self.value))
    return fwd, rev


for _name, _fn in [("add", _op.add), ("sub", _op.sub), ("mul", _op.mul),
                   ("truediv", _op.truediv), ("floordiv", _op.floordiv), ("mod", _op.mod),
                   ("pow", _op.pow), ("lshift", _op.lshift), ("rshift", _op.rshift),
                   ("and", _op.and_), ("or", _op.or_), ("xor", _op.xor)]:
    _f, _r = _cx_binop(_fn)
    setattr(constexpr, f"__{_name}__", _f)
    setattr(constexpr, f"__r{_name}__", _r)
for _name, _fn in [("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le),
                   ("gt", _op.gt), ("ge", _op.ge)]:
    setattr(constexpr, f"__{_name}__", _cx_binop(_fn)[0])
constexpr.__neg__ = lambda self: constexpr(-self.value)
constexpr.__pos__ = lambda self: constexpr(+self.value)
constexpr.__invert__ = lambda self: constexpr(~self.value)
constexpr.__hash__ = lambda self: hash(self.value)


def _unwrap(v):
    """The value of a ``constexpr``; anything else unchanged (the one helper for this in Kiln)."""
    return v.value if isinstance(v, constexpr) else v


def constexpr_function(fn):
    """Mark a plain Python function as callable from kernels at compile time (all its arguments
    must be compile-time values)."""
    fn.__kiln_constexpr_function__ = True
    return fn
