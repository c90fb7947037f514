"""Gluon's ``inline_asm_elementwise``: the target's inline assembly over the elements of
tensors (``tile.inline_asm_elementwise``)."""

from __future__ import annotations

from ._core import _unwrap, builtin, distributed_type, dtype as dtype_cls, tensor
from ._layouts import is_inferred, to_linear_layout

__all__ = ["inline_asm_elementwise"]


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    """Run ``asm`` (the target's assembly language) over the elements of ``args`` (broadcast
    to one shape and layout), ``pack`` elements per statement; ``constraints`` lists the
    outputs first, then the inputs (LLVM's syntax). Elements narrower than 32 bits are packed
    into 32-bit registers. ``dtype`` is the result's dtype, or a tuple of dtypes for several
    results (then a tuple is returned). ``is_pure`` lets an unused statement be dropped
    (Gluon's ``inline_asm_elementwise``)."""
    sem = _semantic
    req = sem.require_constexpr
    asm, constraints = req(asm, "asm"), req(constraints, "constraints")
    is_pure, pack = req(is_pure, "is_pure"), req(pack, "pack")
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise TypeError("inline_asm_elementwise: asm and constraints must be strings")
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1 or pack & (pack - 1):
        raise ValueError(f"inline_asm_elementwise: pack must be a power of 2, got {pack!r}")
    dtypes = _unwrap(dtype)
    single = not isinstance(dtypes, (list, tuple))
    dtypes = [dtypes] if single else [_unwrap(d) for d in dtypes]
    if not dtypes or not all(isinstance(d, dtype_cls) and d.primitive_bitwidth for d in dtypes):
        raise TypeError(f"inline_asm_elementwise: dtype must be a dtype or a non-empty tuple "
                        f"of dtypes, got {dtype!r}")
    values = [sem.as_tensor(_unwrap(a)) for a in _unwrap(args)]
    if not any(v.type.is_block for v in values):
        raise TypeError("inline_asm_elementwise needs at least one tensor argument")
    values = sem.broadcast_all(values, "inline_asm_elementwise")
    shape, layout = values[0].type.shape, values[0].type.layout
    if is_inferred(layout):
        raise ValueError("inline_asm_elementwise needs its arguments in a distributed layout "
                         "(convert them first)")
    regs = 1 << len(to_linear_layout(layout, shape).reg_bases)
    if regs % pack:
        raise ValueError(f"inline_asm_elementwise: each thread holds {regs} elements of "
                         f"{layout!r}, which pack {pack} does not divide")
    rts = [distributed_type(d, shape, layout) for d in dtypes]
    attrs = {"asm_string": sem.b.str_attr(asm), "constraints": sem.b.str_attr(constraints),
             "pure": "true" if is_pure else "false", "pack": sem.b.int_attr(pack)}
    names = sem.b.create("tile.inline_asm_elementwise", values, rts, attrs)
    outs = [tensor(n, t) for n, t in zip(names, rts)]
    return outs[0] if single else tuple(outs)
