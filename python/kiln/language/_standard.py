"""Standard library on top of the core builtins (Gluon's ``_standard``)."""

from __future__ import annotations

from ._core import _unwrap, builtin, constexpr, constexpr_function, full, tensor

__all__ = ["zeros", "zeros_like", "full_like", "sum", "max", "min", "cdiv", "next_power_of_2",
           "xor_sum", "reduce_or", "all", "any", "add", "sub", "mul"]


@builtin
def zeros(shape, dtype, layout=None, _semantic=None):
    """Tensor of zeros."""
    return full(shape, 0, dtype, layout, _semantic=_semantic)


@builtin
def full_like(input, value, shape=None, dtype=None, layout=None, _semantic=None):
    """Tensor like ``input`` (shape, dtype, layout unless given) filled with ``value``."""
    t = _semantic.as_tensor(_unwrap(input))
    if not t.type.is_block and (shape is None or layout is None):
        raise TypeError("full_like of a scalar needs shape and layout")
    shape = t.type.shape if _unwrap(shape) is None else shape
    dtype = t.dtype if _unwrap(dtype) is None else dtype
    layout = t.type.layout if _unwrap(layout) is None else layout
    return full(shape, value, dtype, layout, _semantic=_semantic)


@builtin
def zeros_like(input, shape=None, dtype=None, layout=None, _semantic=None):
    """Zeros like ``input``."""
    return full_like(input, 0, shape, dtype, layout, _semantic=_semantic)


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None, _semantic=None):
    """Sum along ``axis`` (all axes when None). Integers narrower than 32 bits sum in 32 bits."""
    req = _semantic.require_constexpr
    return _semantic.reduce_builtin("sum", _unwrap(input), req(axis, "sum axis"),
                                    req(keep_dims, "keep_dims"), req(dtype, "sum dtype"))


def _minmax_reduce(kind):
    @builtin
    def fn(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
           keep_dims=False, _semantic=None):
        req = _semantic.require_constexpr
        axis, keep_dims = req(axis, f"{kind} axis"), req(keep_dims, "keep_dims")
        if req(return_indices, "return_indices"):
            req(return_indices_tie_break_left, "return_indices_tie_break_left")
            return reduce_with_indices(_semantic, _unwrap(input), axis, kind, keep_dims)
        return _semantic.reduce_builtin(kind, _unwrap(input), axis, keep_dims)
    fn.__name__ = fn.__qualname__ = kind
    fn.__doc__ = (f"{'Maximum' if kind == 'max' else 'Minimum'} along ``axis`` (all when "
                  f"None); with ``return_indices``, ``(values, indices)``: the index is the "
                  f"smallest of the tied ones, whatever ``return_indices_tie_break_left``.")
    return fn


def reduce_with_indices(sem, x, axis, kind, keep_dims):
    """``(max, argmax)`` or ``(min, argmin)`` of ``x`` along ``axis``, indices int32 (Triton's
    ``max``/``min`` with ``return_indices``). Two reductions rather than Triton's one over
    (value, index) pairs: the extreme, then the smallest index holding it, which breaks ties
    to the left in any reduction order and for any element width. Where the extreme is NaN
    (every element of the row NaN: max/min skip NaN), the index is 0."""
    from ._shape_ops import _position
    x = sem.as_tensor(x)
    if not x.type.is_block:
        raise TypeError(f"{kind} with return_indices needs a tensor, got a scalar")
    shape = list(x.type.shape)
    rank = len(shape)
    if axis is None:
        if rank != 1:
            raise ValueError(f"{kind} with return_indices reduces one axis; give axis= for "
                             f"this rank-{rank} tensor")
        axis = 0
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(f"{kind} axis {axis!r} is out of range for rank {rank}")
    axis %= rank
    sem._require_fixed(x, f"{kind} with return_indices")
    best = sem.reduce_builtin(kind, x, axis, False)
    wide = sem._expand_reduced(best, axis, x.type)
    hit = sem.compare("eq", x, wide)
    if x.dtype.is_floating():
        hit = sem.logical("or", hit, sem.compare("ne", wide, wide))
    pos = _position(sem, x.type.layout, shape, axis)
    index = sem.reduce(sem.where(hit, pos, shape[axis]), axis,
                       lambda a, b: sem.minmax("min", a, b), keep_dims)
    return (wide if keep_dims else best), index


max = _minmax_reduce("max")
min = _minmax_reduce("min")


@builtin
def cdiv(x, div, _semantic=None):
    """Ceiling division ``(x + div - 1) // div``; a constexpr when both operands are."""
    x, div = _unwrap(x), _unwrap(div)
    if not isinstance(x, tensor) and not isinstance(div, tensor):
        return constexpr((x + div - 1) // div)
    return _semantic.binary("floordiv", _semantic.binary(
        "sub", _semantic.binary("add", x, div), 1), div)


@constexpr_function
def next_power_of_2(n: int) -> int:
    """Smallest power of 2 >= n (1 for n <= 1)."""
    n = int(_unwrap(n))
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _bitwise_reduce(kind, name, doc):
    @builtin
    def fn(input, axis=None, keep_dims=False, _semantic=None):
        req = _semantic.require_constexpr
        x = _semantic.as_tensor(_unwrap(input))
        if not x.dtype.is_int():
            raise TypeError(f"{name} expects an integer tensor, got {x.dtype}")
        return _semantic.reduce(x, req(axis, f"{name} axis"),
                                lambda a, b: _semantic.binary(kind, a, b),
                                req(keep_dims, "keep_dims"))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


xor_sum = _bitwise_reduce("xor", "xor_sum", "Bitwise XOR of the elements along ``axis`` (all "
                          "axes when None).")
reduce_or = _bitwise_reduce("or", "reduce_or", "Bitwise OR of the elements along ``axis`` (all "
                            "axes when None).")


def _truth_reduce(kind, name, doc):
    @builtin
    def fn(input, axis=None, keep_dims=False, _semantic=None):
        sem = _semantic
        req = sem.require_constexpr
        x = sem.as_tensor(_unwrap(input))
        if not x.type.is_block:
            raise TypeError(f"{name} expects a tensor, got a scalar")
        if not x.dtype.is_bool():
            x = sem.compare("ne", x, 0)
        return sem.reduce(x, req(axis, f"{name} axis"),
                          lambda a, b: sem.binary(kind, a, b), req(keep_dims, "keep_dims"))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


all = _truth_reduce("and", "all", "Whether every element along ``axis`` (all axes when None) "
                    "is true (non-zero): a bool tensor, or a bool scalar (Gluon's, after "
                    "Triton 3.8).")
any = _truth_reduce("or", "any", "Whether some element along ``axis`` (all axes when None) is "
                    "true (non-zero): a bool tensor, or a bool scalar (Gluon's, after Triton "
                    "3.8).")


def _binary_fn(op, name, symbol):
    @builtin
    def fn(x, y, sanitize_overflow=True, _semantic=None):
        check = _semantic.require_constexpr(sanitize_overflow, "sanitize_overflow")
        return _semantic.binary(op, _unwrap(x), _unwrap(y), overflow_check=bool(check))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``x {symbol} y`` (Gluon's ``{name}``). With ``sanitize_overflow`` (the "
                  f"default) a signed integer result narrower than 64 bits is checked for "
                  f"overflow in debug mode (``debug=True``), as the operator is.")
    return fn


add = _binary_fn("add", "add", "+")
sub = _binary_fn("sub", "sub", "-")
mul = _binary_fn("mul", "mul", "*")
