"""fp8 as a number (Triton's semantics): conversions between the fp8 formats and f16 / bf16 /
f32 / f64 in registers, fp8 constants, and arithmetic by promotion.

* ``x.to(float)`` of fp8 is exact; ``x.to(fp8)`` rounds to nearest even (``fp_downcast_rounding
  ="rtz"``: toward zero) and saturates: finite values past the largest finite code, and
  infinities, become that code with their sign; NaN stays NaN (Triton's "satfinite"
  conversion). The lowering is integer arithmetic on the codes
  (lib/Conversion/TileToLLVM/Fp8Conversions.cpp), the same on every target.
* A constant of an fp8 type is its f32 value converted (rounded as above).
* Arithmetic: an fp8 operand next to a wider float takes that float's type; two fp8 operands of
  one format compute in f32 and round the result back to the format, two of different formats
  compute in f16 (Triton's computation type); an fp8 with an integer tensor is an error, as in
  Triton. Comparisons, ``minimum`` / ``maximum`` and ``where`` compare or pick exactly.
* fp8e4b15 (Triton's bias-15 format, no infinities or NaNs) converts as Triton's own lowering
  does, on the f16 bits (the formats share their bias): up, the sign and the seven
  low bits shifted into place (exact); down, from f16 (f32 and bf16 first rounded to f16
  toward zero), the magnitude clamped to 1.75 (infinities and NaNs too) and rounded to
  nearest, ties away from zero. Math functions, reductions and scans of fp8 tensors are not supported (convert
  first), as in Gluon.
"""

from __future__ import annotations

from . import _core as core
from ._constexpr import _unwrap
from ._core import dtype, tensor

FP8 = ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15")
_CONVERTIBLE = ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16")  # and fp8e4b15: _e4b15_cast
ROUNDINGS = (None, "rtne", "rtz")


def is_fp8(dt) -> bool:
    return isinstance(dt, dtype) and dt.name in FP8


def involved(*values) -> bool:
    for v in values:
        v = _unwrap(v)
        dt = v.dtype if isinstance(v, tensor) else v
        if is_fp8(dt):
            return True
    return False


def _check_convertible(dt, src, dst):
    if dt.name not in _CONVERTIBLE:
        raise TypeError(f"conversion from {src} to {dst} is not supported: Kiln converts "
                        f"fp8e4nv, fp8e5, fp8e4b8 and fp8e5b16, not {dt.name}")


def check_rounding(rounding, src, dst):
    """Triton's ``fp_downcast_rounding``: only for a float conversion that narrows."""
    rounding = _unwrap(rounding)
    if rounding not in ROUNDINGS:
        raise ValueError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {rounding!r}")
    if rounding is not None and not (src.is_floating() and dst.is_floating()
                                     and dst.primitive_bitwidth < src.primitive_bitwidth):
        raise ValueError(f"fp_downcast_rounding applies to float conversions that narrow, "
                         f"not {src} to {dst}")
    if rounding == "rtz" and not is_fp8(dst):
        raise ValueError(f"fp_downcast_rounding='rtz' is supported for conversions to fp8, "
                         f"not to {dst}")
    return rounding


def _e4b15_up(sem, x: tensor) -> tensor:
    """fp8e4b15 -> f16, exactly: f16 bits = sign << 15 | (code & 0x7f) << 7."""
    b = sem.cast(sem.cast(x, core.uint8, bitcast=True), core.uint16)
    c = lambda v: sem.as_tensor(v, core.uint16)  # noqa: E731
    sign = sem.binary("lshift", sem.binary("rshift", b, c(7)), c(15))
    num = sem.binary("lshift", sem.binary("and", b, c(0x7F)), c(7))
    return sem.cast(sem.binary("or", sign, num), core.float16, bitcast=True)


def _e4b15_down(sem, h: tensor) -> tensor:
    """f16 -> fp8e4b15: |h| clamped to 1.75 (0x3F00; NaN and inf too), then the high byte of
    2 |h| + 0x80 with h's sign (round to nearest, ties away from zero)."""
    u = sem.cast(h, core.uint16, bitcast=True)
    c = lambda v: sem.as_tensor(v, core.uint16)  # noqa: E731
    mag = sem.minmax("min", sem.binary("and", u, c(0x7FFF)), c(0x3F00))
    r = sem.binary("add", sem.binary("mul", mag, c(2)), c(0x80))
    r = sem.binary("or", r, sem.binary("and", u, c(0x8000)))
    byte = sem.cast(sem.binary("rshift", r, c(8)), core.uint8)
    return sem.cast(byte, core.float8e4b15, bitcast=True)


def _e4b15_cast(sem, x: tensor, dst, rounding) -> tensor:
    src = x.dtype
    if rounding == "rtz":
        raise ValueError("fp_downcast_rounding='rtz' is not supported for fp8e4b15 (Triton "
                         "rounds it to nearest only)")
    if src.name == "fp8e4b15":
        h = _e4b15_up(sem, x)
        if dst == core.float16:
            return h
        f = sem.cast(h, core.float32)
        return f if dst == core.float32 else cast(sem, f, dst, rounding) if is_fp8(dst) \
            else sem.cast(f, dst)
    if is_fp8(src):
        x = cast(sem, x, core.float32)
    if x.dtype != core.float16:  # f32, bf16, f64, integers: to f16 toward zero first
        x = _f16_toward_zero(sem, x if x.dtype == core.float32 else sem.cast(x, core.float32))
    return _e4b15_down(sem, x)


def _f16_toward_zero(sem, x: tensor) -> tensor:
    """f32 -> f16 rounded toward zero (as Triton's f32 -> fp8e4b15 does first): the nearest
    f16, one code nearer zero where it is larger in magnitude than x."""
    h = sem.cast(x, core.float16)
    over = sem.compare("gt", sem.math1("abs", sem.cast(h, core.float32)), sem.math1("abs", x))
    bits = sem.cast(h, core.uint16, bitcast=True)
    bits = sem.where(over, sem.binary("sub", bits, sem.as_tensor(1, core.uint16)), bits)
    return sem.cast(bits, core.float16, bitcast=True)


def cast(sem, x: tensor, dst, rounding=None) -> tensor:
    """``x`` (a tensor with an fp8 side to the conversion) as ``dst``."""
    src = x.dtype
    if "fp8e4b15" in (src.name, getattr(dst, "name", None)) and src != dst:
        return _e4b15_cast(sem, x, dst, rounding)
    for dt in (src, dst):
        if is_fp8(dt):
            _check_convertible(dt, src, dst)
    if is_fp8(src) and is_fp8(dst):
        return cast(sem, cast(sem, x, core.float32), dst, rounding)
    if is_fp8(src):
        if not dst.is_floating():  # to an integer or bool: through f32, as Triton
            return sem.cast(cast(sem, x, core.float32), dst)
        return sem._conv("extf", x, sem._btype(x.type, dst))
    if not src.is_floating():  # an integer: to f32 first
        x = sem.cast(x, core.float32)
    attrs = {"roundingmode": "3 : i32"} if rounding == "rtz" else None  # toward_zero
    return sem._op("arith.truncf", [x], sem._btype(x.type, dst), attrs)


def constant(sem, value, dt, btype=None) -> tensor:
    """An fp8 constant: its f32 value converted."""
    if btype is None:
        return cast(sem, sem.scalar_constant(float(value), core.float32), dt)
    return cast(sem, sem.block_constant(float(value), btype.with_element_ty(core.float32)), dt)


def computation_type(a: dtype, b: dtype, op: str) -> dtype:
    if is_fp8(a) and is_fp8(b):
        return a if a == b else core.float16
    other = b if is_fp8(a) else a
    if other.is_floating():
        return other
    raise TypeError(f"{op}: an {a if is_fp8(a) else b} operand with {other} is not "
                    f"supported (Triton neither); convert one with .to()")


def binary(sem, op: str, a, b) -> tensor:
    a, b = sem.operands(a, b, op)
    dt = computation_type(a.dtype, b.dtype, op)
    if not is_fp8(dt):
        return sem.binary(op, sem.cast(a, dt), sem.cast(b, dt))
    r = sem.binary(op, cast(sem, a, core.float32), cast(sem, b, core.float32))
    return cast(sem, r, dt) if r.dtype.is_floating() else r


def exact(sem, a, b, what: str):
    """Two operands brought to a type both hold exactly (f32, or the wider float)."""
    a, b = sem.operands(a, b, what)
    dt = computation_type(a.dtype, b.dtype, what)
    if is_fp8(dt) or dt == core.float16 and is_fp8(a.dtype) and is_fp8(b.dtype):
        dt = core.float32
    return sem.cast(a, dt), sem.cast(b, dt)
