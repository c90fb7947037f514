"""Debug mode (Triton's ``debug=True``): ``device_assert`` and the signed-overflow checks of
``+ - *`` that the frontend emits as ``tile.assert`` only in debug mode; and ``device_print``
(``tile.print``), which prints in every mode, as in Triton."""

from __future__ import annotations

from . import _core as core


def assert_no_overflow(sem, op, arith, a, b, dt):
    """Debug mode's overflow check (Triton's sanitize_overflow): the operation redone in 64
    bits must be within ``dt``'s range."""
    wide_a, wide_b = sem.cast(a, core.int64), sem.cast(b, core.int64)
    wide = sem._op(f"arith.{arith}", [wide_a, wide_b], sem._btype(a.type, core.int64))
    bits = dt.primitive_bitwidth
    ok = sem.logical("and", sem.compare("le", wide, (1 << (bits - 1)) - 1),
                     sem.compare("ge", wide, -(1 << (bits - 1))))
    device_assert(sem, ok, f"int{bits} overflow detected for operation {op}")


def device_assert(sem, cond, msg="", mask=None):
    """Debug mode's assertion: ``cond`` true wherever ``mask`` is (everywhere without one);
    nothing is emitted outside debug mode, as in Triton."""
    if not sem.debug:
        return None
    cond = sem.as_tensor(cond)
    if cond.dtype.is_ptr() or cond.dtype.is_floating():
        raise TypeError(f"device_assert expects a bool or integer condition, got {cond.dtype}")
    cond = sem.cast(cond, core.int1)
    if mask is not None:
        cond = sem.logical("or", cond, sem.unary("not", sem.as_tensor(mask)))
    sem.b.create("tile.assert", [cond], [], {"message": sem.b.str_attr(msg)})
    return None


def device_print(sem, prefix, args, hex=False):
    """``tile.print``: every element of each tensor (of one shape) or scalar, with the program
    id and the element's coordinates, from the thread holding it."""
    if not isinstance(prefix, str):
        raise TypeError(f"device_print: prefix must be a string, got {prefix!r}")
    if prefix and not prefix.startswith(" "):
        prefix = " " + prefix
    if prefix and not prefix.endswith(" "):
        prefix += " "
    values = [sem.as_tensor(a) for a in args]
    shape = None
    for v in values:
        if v.dtype.is_bool():
            continue
        if not (v.dtype.is_int() or v.dtype.is_floating() or v.dtype.is_ptr()):
            raise TypeError(f"device_print prints integers, floats and pointers, got {v.dtype}")
    for v in values:
        if v.type.is_block:
            if shape is not None and tuple(v.type.shape) != shape:
                raise ValueError(f"device_print: tensors must have one shape, got {shape} and "
                                 f"{tuple(v.type.shape)}")
            shape = tuple(v.type.shape)
    signed = [1 if (v.dtype.is_int() and not v.dtype.is_ptr() and v.dtype.is_int_signed())
              else 0 for v in values]
    attrs = {"prefix": sem.b.str_attr(prefix), "hex": "true" if hex else "false",
             "isSigned": sem.b.array_attr(signed)}
    sem.b.create("tile.print", values, [], attrs)
    return None
