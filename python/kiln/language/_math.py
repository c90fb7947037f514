"""Elementwise math (Gluon's ``_math``): ``math`` dialect ops on floating-point values."""

from __future__ import annotations

from ._core import _unwrap, builtin

__all__ = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos", "floor", "ceil",
           "fma", "erf", "sqrt_rn", "fdiv", "div_rn", "umulhi"]


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


@builtin
def erf(x, _semantic=None):
    """Elementwise error function (f32; f16 / bf16 computed in f32): the device library's
    function where the target's backend links one (as Triton), else a polynomial
    approximation (MLIR's, within a few ulp of the correctly rounded value)."""
    return _semantic.erf(_unwrap(x))


@builtin
def sqrt_rn(x, _semantic=None):
    """Elementwise square root rounded to nearest (IEEE). Kiln's ``sqrt`` already is, on both
    vendors; this is the same operation."""
    return _semantic.math1("sqrt", _unwrap(x))


@builtin
def fdiv(x, y, ieee_rounding=False, _semantic=None):
    """Elementwise floating-point division. With ``ieee_rounding=False`` an f32 quotient may
    be approximate, as ``x / y`` is (within 2 ulp, as Triton's; targets without a fast
    division round to nearest); True rounds to nearest, as :func:`div_rn`."""
    ieee = bool(_semantic.require_constexpr(ieee_rounding, "ieee_rounding"))
    return _semantic.float_divide(_unwrap(x), _unwrap(y), "fdiv", ieee=ieee)


@builtin
def div_rn(x, y, _semantic=None):
    """Elementwise floating-point division rounded to nearest (IEEE)."""
    return _semantic.float_divide(_unwrap(x), _unwrap(y), "div_rn")


@builtin
def umulhi(x, y, _semantic=None):
    """The high half of the 2N-bit product of two N-bit integers, both read as unsigned (N =
    32 or 64), elementwise."""
    return _semantic.umulhi(_unwrap(x), _unwrap(y))
