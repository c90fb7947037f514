"""Gluon's ``language.extra.libdevice`` names that Kiln lowers itself (no vendor bitcode is
linked): the fast single-precision forms and the elementwise functions the ``math`` ops
already cover. Every other libdevice name is missing here (an ``AttributeError`` at the
user's line) rather than a function that computes something else.

* ``fast_expf(x)``, ``fast_logf``, ``fast_log2f``, ``fast_exp2f``, ``fast_sinf``,
  ``fast_cosf``: the target's fast f32 forms (the same as ``kl.exp`` & co., which already
  use the approximate hardware instructions for f32);
* ``fast_dividef(x, y)``: ``x / y`` (an IEEE division: at least as accurate as the fast one);
* ``exp``, ``exp2``, ``log``, ``log2``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``floor``,
  ``ceil``, ``fabs``, ``abs``, ``fma``, ``div_rn``.
"""

from __future__ import annotations

from .. import _math
from .._core import _unwrap, builtin

__all__ = ["fast_expf", "fast_exp2f", "fast_logf", "fast_log2f", "fast_sinf", "fast_cosf",
           "fast_dividef", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos",
           "floor", "ceil", "fabs", "abs", "fma", "div_rn"]

fast_expf = _math.exp
fast_exp2f = _math.exp2
fast_logf = _math.log
fast_log2f = _math.log2
fast_sinf = _math.sin
fast_cosf = _math.cos
exp, exp2, log, log2 = _math.exp, _math.exp2, _math.log, _math.log2
sqrt, rsqrt, sin, cos = _math.sqrt, _math.rsqrt, _math.sin, _math.cos
floor, ceil, abs, fma = _math.floor, _math.ceil, _math.abs, _math.fma
fabs = _math.abs


@builtin
def fast_dividef(x, y, _semantic=None):
    """``x / y`` for floating-point operands."""
    return _semantic.binary("truediv", _unwrap(x), _unwrap(y))


@builtin
def div_rn(x, y, _semantic=None):
    """``x / y`` rounded to nearest (IEEE division)."""
    return _semantic.binary("truediv", _unwrap(x), _unwrap(y))
