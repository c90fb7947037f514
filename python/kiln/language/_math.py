"""Elementwise math (Gluon's ``_math``): ``math`` dialect ops on floating-point values."""

from __future__ import annotations

from ._core import _unwrap, builtin

__all__ = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos", "floor", "ceil",
           "fma"]


def _unary(name: str, doc: str):
    @builtin
    def fn(x, _semantic=None):
        return _semantic.math1(name, _unwrap(x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


exp = _unary("exp", "Elementwise e**x.")
exp2 = _unary("exp2", "Elementwise 2**x.")
log = _unary("log", "Elementwise natural logarithm.")
log2 = _unary("log2", "Elementwise base-2 logarithm.")
sqrt = _unary("sqrt", "Elementwise square root.")
rsqrt = _unary("rsqrt", "Elementwise 1/sqrt(x).")
abs = _unary("abs", "Elementwise absolute value (integers too).")
sin = _unary("sin", "Elementwise sine.")
cos = _unary("cos", "Elementwise cosine.")
floor = _unary("floor", "Elementwise floor.")
ceil = _unary("ceil", "Elementwise ceiling.")


@builtin
def fma(x, y, z, _semantic=None):
    """Fused multiply-add ``x * y + z``."""
    return _semantic.fma(x, y, z)
