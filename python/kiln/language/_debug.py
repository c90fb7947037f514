"""Debug mode (Triton's ``debug=True``): ``device_assert`` and the signed-overflow checks of
``+ - *`` that the frontend emits as ``tile.assert`` only in debug mode."""

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
