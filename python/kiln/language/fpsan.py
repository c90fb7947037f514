"""Gluon's ``fpsan`` functions (after Triton 3.8): a float's bits mapped one to one onto a
same-width integer "payload" and back, the encoding Triton's floating-point sanitizer computes
in. ``embed(1.0) == 1``, ``embed(+0.0) == 0``, ``embed(-x) == -embed(x)`` for nonzero
magnitudes, and ``unembed(embed(x), x.dtype)`` is ``x`` bit for bit (NaNs included).

For a float of w bits whose 1.0 has bits ``one`` (s trailing zeros), with S = 2**(w-1), M = S-1,
A = 14940041 mod S, c = (one*A mod S) ^ ((one*A mod S) >> s) and B+ = c**-1 mod S, B- = -B+
mod S: ``embed(u) = (((y ^ (y >> s)) * (B- if u < 0 else B+)) & M) | (u & S)`` where
``y = (u*A) & M``; ``unembed`` inverts each step. These are the constants and steps of
Triton's lowering (its FPSan embedding, as of its main branch in September 2026).

Where Kiln differs from Gluon: Kiln has no sanitizer mode (Triton's
``TRITON_INSTRUMENTATION_MODE=fpsan``, which recomputes a kernel's float arithmetic on
payloads); the functions compute the same payloads in every compile."""

from __future__ import annotations

from . import _core as core
from ._constexpr import _unwrap
from ._core import builtin, dtype as dtype_cls

__all__ = ["embed", "unembed"]

_K = 14940041
# The bits of 1.0 of each float type Kiln has.
_ONE = {"fp64": 0x3FF0000000000000, "fp32": 0x3F800000, "fp16": 0x3C00, "bf16": 0x3F80,
        "fp8e4nv": 0x38, "fp8e5": 0x3C, "fp8e4b8": 0x40, "fp8e5b16": 0x40, "fp8e4b15": 0x40}


def _constants(dt):
    """(w, s, A, B+, B-) of a float dtype."""
    one = _ONE[dt.name]
    w = dt.primitive_bitwidth
    half = 1 << (w - 1)
    s = (one & -one).bit_length() - 1
    a = _K % half
    c = (one * a) % half
    c ^= c >> s
    b_plus = pow(c, -1, half)
    return w, s, a, b_plus, (b_plus * (half - 1)) % half


def _float_dtype(sem, what, dt):
    if not isinstance(dt, dtype_cls) or not dt.is_floating() or dt.name not in _ONE:
        raise TypeError(f"{what} takes a floating-point type (fp64, fp32, fp16, bf16 or fp8), "
                        f"got {dt}")
    return dt


def _uint(w):
    return {8: core.uint8, 16: core.uint16, 32: core.uint32, 64: core.uint64}[w]


def _ops(sem, w):
    u = _uint(w)

    def const(v):
        return sem.as_tensor(v, u)

    def op(name, a, b):
        return sem.binary(name, a, b if not isinstance(b, int) else const(b),
                          overflow_check=False)
    return const, op


@builtin
def embed(input, _semantic=None):
    """The FPSan payload of a float tensor or scalar: the signed integer of its width (fp32 ->
    int32, fp16 / bf16 -> int16, fp8 -> int8, fp64 -> int64), one to one on the bits."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(input))
    dt = _float_dtype(sem, "fpsan.embed", x.dtype)
    w, s, a, b_plus, b_minus = _constants(dt)
    half, mask = 1 << (w - 1), (1 << (w - 1)) - 1
    const, op = _ops(sem, w)
    u = sem.cast(x, _uint(w), bitcast=True)
    sign = op("and", u, half)
    y = op("and", op("mul", u, a), mask)
    z = op("xor", y, op("rshift", y, s))
    b = sem.where(sem.compare("ne", sign, const(0)), const(b_minus), const(b_plus))
    v = op("or", op("and", op("mul", z, b), mask), sign)
    return sem.cast(v, {8: core.int8, 16: core.int16, 32: core.int32, 64: core.int64}[w],
                    bitcast=True)


@builtin
def unembed(input, dtype, _semantic=None):
    """The float of type ``dtype`` whose FPSan payload is ``input`` (an integer tensor or
    scalar of ``dtype``'s width, signed or unsigned): the inverse of :func:`embed`."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(input))
    dt = _float_dtype(sem, "fpsan.unembed", _unwrap(dtype))
    w, s, a, b_plus, b_minus = _constants(dt)
    src = x.dtype
    if not src.is_int() or src.is_bool() or src.primitive_bitwidth != w:
        raise TypeError(f"fpsan.unembed: the payload of a {dt} is a {w}-bit integer, got {src}")
    half, mask = 1 << (w - 1), (1 << (w - 1)) - 1
    const, op = _ops(sem, w)
    v = sem.cast(x, _uint(w), bitcast=True) if src != _uint(w) else x
    sign = op("and", v, half)
    inv = sem.where(sem.compare("ne", sign, const(0)), const(pow(b_minus, -1, half)),
                    const(pow(b_plus, -1, half)))
    z = op("and", op("mul", v, inv), mask)
    t = s
    while t < w:
        z = op("xor", z, op("rshift", z, t))
        t *= 2
    bits = op("or", op("and", op("mul", z, pow(a, -1, half)), mask), sign)
    return sem.cast(bits, dt, bitcast=True)
