"""``kl.reduce`` and ``associative_scan`` over a tuple of tensors (Gluon's
``reduce((values, indices), axis, combine)``, the argmax and Welford patterns): one
``tile.reduce`` / ``tile.scan`` of all the tensors, whose combine region calls the user's
combine function with the elements of both tuples in order."""

from __future__ import annotations

from ._constexpr import _unwrap
from ._core import tensor


def tuple_combine(sem, xs, combine_fn, what):
    """(the tensors, a combine of two lists of scalars calling the user's @kiln.jit function
    with ``a0, a1, ..., b0, b1, ...``). ``what`` names the operation in messages."""
    fn = _unwrap(combine_fn)
    if not getattr(fn, "__kiln_jit__", False):
        raise TypeError(f"{what} of a tuple: combine_fn must be a @kiln.jit function taking "
                        f"the elements of two tuples (a0, a1, ..., b0, b1, ...)")
    xs = [sem.as_tensor(_unwrap(x)) for x in xs]
    if not xs:
        raise ValueError(f"{what} of an empty tuple")
    dtypes = [x.dtype for x in xs]
    for x in xs:
        if not x.type.is_block:
            raise TypeError(f"{what} of a tuple needs tensors, got a scalar ({x.dtype})")
        if x.type.shape != xs[0].type.shape or x.type.layout != xs[0].type.layout:
            raise ValueError(f"{what} of a tuple needs tensors of one shape and layout, got "
                             f"{xs[0].type} and {x.type}")
    if sem.codegen is None:
        raise RuntimeError(f"{what} with a combine function needs the code generator")

    def combine(a, b):
        out = sem.codegen.call_combine(fn, tuple(a), tuple(b))
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(dtypes):
            raise TypeError(f"{what} of a tuple of {len(dtypes)}: the combine function "
                            f"returns {len(out)} value(s)")
        vals = []
        for v, dt in zip(out, dtypes):
            v = sem.as_tensor(_unwrap(v), None if isinstance(_unwrap(v), tensor) else dt)
            if v.dtype != dt:
                raise TypeError(f"{what} of a tuple: the combine function returns {v.dtype} "
                                f"where the tuple has {dt}")
            vals.append(v)
        return vals
    return xs, combine


def reduce_tuple(sem, xs, axis, combine_fn, keep_dims):
    xs, combine = tuple_combine(sem, xs, combine_fn, "reduce")
    return tuple(sem.reduce_tensors(xs, axis, combine, keep_dims, "reduce"))


def combine_block(sem, elts, combine, ret_op, what):
    """The combine region of a ``tile.reduce`` / ``tile.scan`` over tensors of the element
    types ``elts``: a block taking two tuples of scalars whose body is ``combine(a, b)`` (lists
    of scalars in, a list out), each result checked against its element type, ended by
    ``ret_op``. ``what`` names the operation in messages."""
    lhs = [sem.b.fresh() for _ in elts]
    rhs = [sem.b.fresh() for _ in elts]
    body = sem.b.new_block(list(zip(lhs, elts)) + list(zip(rhs, elts)))
    with sem.b.insertion(body):
        sem.combine_depth += 1
        try:
            outs = combine([tensor(n, e) for n, e in zip(lhs, elts)],
                           [tensor(n, e) for n, e in zip(rhs, elts)])
        finally:
            sem.combine_depth -= 1
        vals = []
        for out, elt in zip(outs, elts):
            out = sem.as_tensor(_unwrap(out), None if isinstance(_unwrap(out), tensor) else elt)
            if out.type != elt:
                raise TypeError(f"{what}: the combine function returns {out.type}, "
                                f"expected {elt}")
            vals.append(out)
        sem.b.create(ret_op, vals)
    return body
