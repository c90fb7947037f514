"""``kl.reduce`` over a tuple of tensors (Gluon's ``reduce((values, indices), axis, combine)``,
the argmax pattern): the tensors' bits are packed into one integer per element (at most 64
bits together), reduced as one tensor, and the combine region unpacks both sides, calls the
user's combine function with the elements of both tuples in order, and packs its results."""

from __future__ import annotations

from . import _core as core
from ._constexpr import _unwrap
from ._core import tensor


def _unsigned(bits: int):
    return {1: core.uint8, 8: core.uint8, 16: core.uint16, 32: core.uint32,
            64: core.uint64}[bits]


def _to_bits(sem, x: tensor, wide):
    """``x``'s bits as the unsigned integer ``wide`` (zero-extended)."""
    dt = x.dtype
    if dt.is_bool():
        x = sem.cast(x, core.uint8)
    elif dt.primitive_bitwidth and not dt.is_int_unsigned():
        x = sem.cast(x, _unsigned(dt.primitive_bitwidth), bitcast=True)
    return sem.cast(x, wide) if x.dtype != wide else x


def _from_bits(sem, bits: tensor, dt):
    if dt.is_bool():
        return sem.compare("ne", sem.cast(bits, core.uint8), 0)
    narrow = _unsigned(dt.primitive_bitwidth)
    x = sem.cast(bits, narrow) if bits.dtype != narrow else bits
    return sem.cast(x, dt, bitcast=True) if x.dtype != dt else x


def _widths(dtypes):
    return [8 if dt.is_bool() else dt.primitive_bitwidth for dt in dtypes]


def pack(sem, xs, wide):
    """The tensors' bits side by side in one unsigned integer tensor, the first lowest."""
    out, shift = None, 0
    for x, bits in zip(xs, _widths([x.dtype for x in xs])):
        part = _to_bits(sem, x, wide)
        if shift:
            part = sem.binary("lshift", part, sem.as_tensor(shift, wide))
        out = part if out is None else sem.binary("or", out, part)
        shift += bits
    return out


def unpack(sem, packed, dtypes):
    out, shift = [], 0
    for dt, bits in zip(dtypes, _widths(dtypes)):
        part = packed if not shift else sem.binary("rshift", packed,
                                                   sem.as_tensor(shift, packed.dtype))
        if bits < packed.dtype.primitive_bitwidth:
            part = sem.binary("and", part, sem.as_tensor((1 << bits) - 1, packed.dtype))
        out.append(_from_bits(sem, part, dt))
        shift += bits
    return tuple(out)


def packed_tuple(sem, xs, combine_fn, what, verb):
    """The checks and packing shared by ``reduce`` and ``associative_scan`` of a tuple:
    (the tensors packed into one integer tensor, a combine of two packed elements that
    unpacks both, calls the user's @kiln.jit function and packs its results, the dtypes to
    unpack the result with). ``what`` names the operation in messages ("reduce"), ``verb``
    its action ("reduce")."""
    fn = _unwrap(combine_fn)
    if not getattr(fn, "__kiln_jit__", False):
        raise TypeError(f"{what} of a tuple: combine_fn must be a @kiln.jit function taking "
                        f"the elements of two tuples (a0, a1, ..., b0, b1, ...)")
    xs = [sem.as_tensor(_unwrap(x)) for x in xs]
    if not xs:
        raise ValueError(f"{what} of an empty tuple")
    first = xs[0].type
    for x in xs[1:]:
        if not x.type.is_block or x.type.shape != first.shape or \
                x.type.layout != first.layout:
            raise ValueError(f"{what} of a tuple needs tensors of one shape and layout, got "
                             f"{first} and {x.type}")
    dtypes = [x.dtype for x in xs]
    for dt in dtypes:
        if dt.is_ptr() or not dt.primitive_bitwidth:
            raise TypeError(f"{what} of a tuple: cannot {verb} {dt} elements")
    total = sum(_widths(dtypes))
    if total > 64:
        raise ValueError(f"{what} of a tuple of {', '.join(str(d) for d in dtypes)} needs "
                         f"{total} bits an element; Kiln {verb}s tuples of up to 64 bits "
                         f"(e.g. a 32-bit value with a 32-bit index)")
    wide = core.uint32 if total <= 32 else core.uint64
    if sem.codegen is None:
        raise RuntimeError(f"{what} with a combine function needs the code generator")

    def combine(a, b):
        out = sem.codegen.call_combine(fn, unpack(sem, a, dtypes), unpack(sem, b, dtypes))
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
        return pack(sem, vals, wide)
    return pack(sem, xs, wide), combine, dtypes


def reduce_tuple(sem, xs, axis, combine_fn, keep_dims):
    packed, combine, dtypes = packed_tuple(sem, xs, combine_fn, "reduce", "reduce")
    return unpack(sem, sem.reduce(packed, axis, combine, keep_dims), dtypes)
