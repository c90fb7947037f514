"""Gluon's ``join``, ``split`` and ``permute`` on register tensors.

* ``join(a, b)``: a new last dimension of size 2 (``a`` at 0, ``b`` at 1), in the layout
  Gluon infers (the pair in each thread's registers, see ``_join_layout``), so no data moves:
  both are viewed as its slice, expanded, broadcast and selected by position.
* ``split(x)``: the halves of a last dimension of size 2, each a sum over that dimension of
  the element's bits where the position matches (exact: the other term is 0), in
  ``SliceLayout(rank - 1, x's layout)`` as in Gluon; in registers when the pair is, across
  lanes where Gluon refuses the split. A tensor whose layout is still to be inferred
  (AutoLayout) is split by ``tile.split`` (the pair in registers), which layout inference
  runs through in both directions; ``join`` of such tensors is ``tile.join``, the same the
  other way.
* ``fp4_to_fp(src, elem_type, axis)``: each byte's two e2m1 values (low nibble first) decoded
  by arithmetic and joined along ``axis``, which doubles, in the layout Gluon infers.
* ``permute(x, dims)``: through shared memory (a store, a permuted view, a load) into ``x``'s
  layout with its bases permuted, which is the layout Gluon gives the result.
"""

from __future__ import annotations

from . import _core as core
from ._core import _unwrap, builtin, distributed_type, tensor
from ._layouts import (BlockedLayout, DistributedLinearLayout, SliceLayout, SwizzledSharedLayout,
                       is_inferred, to_linear_layout)

__all__ = ["join", "split", "permute", "fp4_to_fp"]

_UINT = {8: core.uint8, 16: core.uint16, 32: core.uint32, 64: core.uint64}


def _tensor(sem, x, what):
    x = sem.as_tensor(_unwrap(x))
    if not x.type.is_block:
        raise TypeError(f"{what} needs a tensor, got a scalar")
    if is_inferred(x.type.layout) or x.type.layout.cga_bases:
        raise ValueError(f"{what} needs a tensor in a distributed layout of one CTA, got "
                         f"{x.type.layout!r}")
    return x


def _position(sem, layout, shape, axis):
    """Index along ``axis`` of every element, as an int32 tensor of ``shape`` in ``layout``."""
    others = [d for d in range(len(shape)) if d != axis]
    lay = layout
    for d in reversed(others):
        lay = SliceLayout(d, lay)
    pos = sem.arange(0, shape[axis], lay)
    for d in others:
        pos = sem.expand_dims(pos, d)
    return sem.broadcast_to(pos, list(shape))


def _join_layout(layout, shape):
    """The layout Gluon gives ``join``'s result for inputs of ``shape`` in ``layout``: a blocked
    layout with the pair in each thread's registers (fastest) for a blocked input; the parent of
    a slice along the new dimension that holds the pair in registers (what ``split`` made); any
    other layout's linear form with the pair as its first register basis."""
    rank = len(shape)
    if isinstance(layout, BlockedLayout):
        return BlockedLayout(list(layout.size_per_thread) + [2],
                             list(layout.threads_per_warp) + [1],
                             list(layout.warps_per_cta) + [1],
                             [rank] + list(layout.order))
    if isinstance(layout, SliceLayout) and layout.dim == rank and _pair_in_registers(
            layout.parent, list(shape) + [2]):
        return layout.parent
    ll = to_linear_layout(layout, shape)
    return DistributedLinearLayout([[0] * rank + [1]] + [list(b) + [0] for b in ll.reg_bases],
                                   [list(b) + [0] for b in ll.lane_bases],
                                   [list(b) + [0] for b in ll.warp_bases], [],
                                   list(shape) + [2])


def _pair_in_registers(layout, shape) -> bool:
    """Whether a thread holds both elements of ``layout``'s last dimension (of size 2) in its
    registers, as Gluon's ``split`` requires."""
    try:
        ll = to_linear_layout(layout, shape)
    except (TypeError, ValueError):
        return False
    unit = [0] * (len(shape) - 1) + [1]
    return any(list(b) == unit for b in ll.reg_bases)


def _fp4_layout(layout, shape, axis):
    """The layout Gluon gives ``fp4_to_fp``'s result for bytes of ``shape`` in ``layout``
    (``axis`` doubles): a blocked input whose ``order[axis]`` is 0 keeps its class with twice
    the elements per thread along ``axis``, a dot operand decoded along K twice its
    ``k_width``; otherwise the linear form with the new element as the first register basis
    and every other basis twice as far along ``axis``."""
    rank = len(shape)
    if isinstance(layout, BlockedLayout) and layout.order[axis] == 0:
        spt = list(layout.size_per_thread)
        spt[axis] *= 2
        return BlockedLayout(spt, list(layout.threads_per_warp), list(layout.warps_per_cta),
                             list(layout.order))
    dot = all(hasattr(layout, f) for f in ("operand_index", "parent", "k_width"))
    if dot and rank == 2 and axis == (1 if layout.operand_index == 0 else 0) and \
            layout.k_width:
        return type(layout)(layout.operand_index, layout.parent, layout.k_width * 2)
    ll = to_linear_layout(layout, shape)
    unit = [1 if d == axis else 0 for d in range(rank)]

    def wider(b):
        return [c * 2 if d == axis else c for d, c in enumerate(b)]
    out = list(shape)
    out[axis] *= 2
    return DistributedLinearLayout([unit] + [wider(b) for b in ll.reg_bases],
                                   [wider(b) for b in ll.lane_bases],
                                   [wider(b) for b in ll.warp_bases], [], out)


@builtin
def join(a, b, _semantic=None):
    """A tensor with a new last dimension of size 2: ``a`` at index 0, ``b`` at 1 (Gluon's
    ``join``; both of one shape, dtype and layout)."""
    sem = _semantic
    ta, tb = sem.as_tensor(_unwrap(a)), sem.as_tensor(_unwrap(b))
    if ta.type.is_block and is_inferred(ta.type.layout) and ta.type == tb.type \
            and not ta.type.layout.cga_bases:
        # Layouts still to be inferred: tile.join, which tile-resolve-layouts infers through
        # (the pair in each thread's registers, as Gluon's join).
        rt = distributed_type(ta.dtype, list(ta.type.shape) + [2], ta.type.layout)
        return tensor(sem.b.create("tile.join", [ta, tb], [rt])[0], rt)
    a, b = _tensor(sem, a, "join"), _tensor(sem, b, "join")
    if a.type != b.type:
        raise ValueError(f"join: a and b must have one type (shape, dtype, layout), got "
                         f"{a.type} and {b.type}")
    shape = list(a.type.shape)
    rank = len(shape)
    pair = _join_layout(a.type.layout, shape)
    out = shape + [2]
    halves = [sem.broadcast_to(sem.expand_dims(sem.convert_layout(v, SliceLayout(rank, pair)),
                                               rank), out) for v in (a, b)]
    first = sem.compare("eq", _position(sem, pair, out, rank), 0)
    return sem.where(first, halves[0], halves[1])


@builtin
def split(a, _semantic=None):
    """The two halves of ``a``'s last dimension, which must have size 2 (Gluon's ``split``):
    ``(a[..., 0], a[..., 1])``, in the slice of ``a``'s layout along it."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(a))
    if x.type.is_block and is_inferred(x.type.layout) and not x.type.layout.cga_bases:
        # A layout still to be inferred: tile.split, which tile-resolve-layouts infers through
        # (the pair in each thread's registers, as Gluon's split).
        shape = list(x.type.shape)
        if len(shape) < 2 or shape[-1] != 2:
            raise ValueError(f"split needs a last dimension of size 2 (and another "
                             f"dimension), got shape {tuple(shape)}")
        rt = distributed_type(x.dtype, shape[:-1], x.type.layout)
        handles = sem.b.create("tile.split", [x], [rt, rt])
        return tensor(handles[0], rt), tensor(handles[1], rt)
    x = _tensor(sem, a, "split")
    shape = list(x.type.shape)
    if shape[-1] != 2:
        raise ValueError(f"split needs a last dimension of size 2, got shape {tuple(shape)}")
    axis = len(shape) - 1
    dt = x.dtype
    bits = _UINT.get(dt.primitive_bitwidth)
    if bits is None:
        raise TypeError(f"split: {dt} is not supported")
    raw = x if dt == bits else sem.cast(x, bits, bitcast=True)
    if dt.is_bool():
        raw = sem.cast(x, core.uint8)
    pos = _position(sem, x.type.layout, shape, axis)
    zero = sem.full(shape, 0, bits, x.type.layout)
    out = []
    for i in (0, 1):
        picked = sem.where(sem.compare("eq", pos, i), raw, zero)
        half = sem.reduce(picked, axis, lambda u, v: sem.binary("add", u, v))
        if dt.is_bool():
            half = sem.cast(half, core.int1)
        elif dt != bits:
            half = sem.cast(half, dt, bitcast=True)
        out.append(half)
    return tuple(out)


@builtin
def permute(input, *dims, _semantic=None):
    """``input`` with its dimensions permuted: dimension i of the result is ``dims[i]`` of the
    input (Gluon's ``permute``); the result's layout is the input's with its bases permuted,
    so every thread keeps its registers (``tile.trans`` moves no data)."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(input))
    if not (x.type.is_block and isinstance(x.type.layout, BlockedLayout)
            and x.type.layout.cga_bases):
        x = _tensor(sem, input, "permute")
    dims = _unwrap(dims[0]) if len(dims) == 1 and isinstance(_unwrap(dims[0]), (list, tuple)) \
        else dims
    order = [sem.require_constexpr(d, "permute dims") for d in dims]
    shape = list(x.type.shape)
    rank = len(shape)
    if sorted(order) != list(range(rank)):
        raise ValueError(f"permute: dims {order} must be a permutation of 0..{rank - 1}")
    if order == list(range(rank)):
        return x
    if x.type.layout.cga_bases:
        # Split among a cluster's CTAs (a blocked layout): the blocked layout with its
        # dimensions permuted, cga bases too, as Gluon gives it; each CTA permutes its part.
        lay = x.type.layout
        layout = BlockedLayout([lay.size_per_thread[o] for o in order],
                               [lay.threads_per_warp[o] for o in order],
                               [lay.warps_per_cta[o] for o in order],
                               [order.index(d) for d in lay.order],
                               cga_layout=[[b[o] for o in order] for b in lay.cga_layout])
        out_type = distributed_type(x.dtype, [shape[o] for o in order], layout)
        handle = sem.b.create("tile.trans", [x], [out_type],
                              {"order": sem.b.array_attr(order, "i32")})[0]
        return tensor(handle, out_type)
    ll = to_linear_layout(x.type.layout, shape)
    layout = DistributedLinearLayout([[b[o] for o in order] for b in ll.reg_bases],
                                     [[b[o] for o in order] for b in ll.lane_bases],
                                     [[b[o] for o in order] for b in ll.warp_bases], [],
                                     [shape[o] for o in order])
    out_type = distributed_type(x.dtype, [shape[o] for o in order], layout)
    handle = sem.b.create("tile.trans", [x], [out_type],
                          {"order": sem.b.array_attr(order, "i32")})[0]
    return tensor(handle, out_type)


def _e2m1(sem, nib):
    """The float32 value of 4-bit e2m1 codes (int32 0..15): sign, 2 exponent bits (bias 1),
    1 mantissa bit; exponent 0 is subnormal (0 or 0.5)."""
    mag = sem.binary("and", nib, 7)
    e = sem.binary("rshift", mag, 1)
    m = sem.cast(sem.binary("and", mag, 1), core.float32)
    half_m = sem.binary("mul", m, 0.5)
    scale = sem.cast(sem.binary("rshift", sem.binary("lshift", 1, e), 1),
                     core.float32)  # 2^(e-1) for e >= 1 (0 for e = 0, not used)
    normal = sem.binary("mul", sem.binary("add", half_m, 1.0), scale)
    val = sem.where(sem.compare("eq", e, 0), half_m, normal)
    negative = sem.compare("ne", sem.binary("and", nib, 8), 0)
    return sem.where(negative, sem.unary("neg", val), val)


@builtin
def fp4_to_fp(src, elem_type, axis, _semantic=None):
    """Decode fp4 (e2m1) values packed two per byte of ``src`` (uint8/int8; the low nibble is
    the first) along ``axis`` into ``elem_type`` (float16, bfloat16 or float32); ``axis``
    doubles (Gluon's ``fp4_to_fp``). Exact: every e2m1 value is representable."""
    sem = _semantic
    x = _tensor(sem, src, "fp4_to_fp")
    elem_type = _unwrap(elem_type)
    axis = sem.require_constexpr(axis, "fp4_to_fp axis")
    if x.dtype.primitive_bitwidth != 8 or not x.dtype.is_int():
        raise TypeError(f"fp4_to_fp needs bytes (uint8 or int8) holding two e2m1 values, got "
                        f"{x.dtype}")
    if elem_type not in (core.float16, core.bfloat16, core.float32):
        raise TypeError(f"fp4_to_fp decodes to float16, bfloat16 or float32, got {elem_type}")
    shape = list(x.type.shape)
    rank = len(shape)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(f"fp4_to_fp: axis must be an int in [{-rank}, {rank}), got {axis!r}")
    axis %= rank
    byte = sem.cast(sem.cast(x, core.uint8, bitcast=True), core.int32)
    lo = sem.cast(_e2m1(sem, sem.binary("and", byte, 15)), elem_type)
    hi = sem.cast(_e2m1(sem, sem.binary("rshift", byte, 4)), elem_type)
    pairs = join(lo, hi, _semantic=sem)  # [..., 2]: the pair last
    if axis != rank - 1:
        order = list(range(axis + 1)) + [rank] + list(range(axis + 1, rank))
        pairs = permute(pairs, order, _semantic=sem)  # the pair right after axis
    out = list(shape)
    out[axis] *= 2
    # Gluon's layout for the result: the same elements in the same threads (no data moves).
    return sem.convert_layout(sem.reshape(pairs, out), _fp4_layout(x.type.layout, shape, axis))


@builtin
def register_slice(source, shape, offsets, _semantic=None):
    """The block ``offsets .. offsets + shape`` of ``source``, in ``source``'s layout, taken
    from the registers that hold it (Gluon's register-only ``slice``;
    ``tile.extract_slice``): no data moves between threads, so the layout must put the block
    on the same lanes and warps as the source (whole tiles of its threads), and each offset
    must be a multiple of the block's size along its dimension."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(source))
    if not x.type.is_block:
        raise TypeError(f"slice needs a tensor, got a scalar of type {x.dtype}")
    if is_inferred(x.type.layout):
        raise ValueError("slice needs its source in a distributed layout (convert it first)")
    shape = [_unwrap(s) for s in _unwrap(shape)]
    offsets = [_unwrap(o) for o in _unwrap(offsets)]
    src = list(x.type.shape)
    rank = len(src)
    for what, vals in (("shape", shape), ("offsets", offsets)):
        if len(vals) != rank or not all(isinstance(v, int) and not isinstance(v, bool)
                                        for v in vals):
            raise ValueError(f"slice: {what} must be {rank} constexpr int(s), got {vals!r}")
    for d in range(rank):
        n, o = shape[d], offsets[d]
        if n < 1 or n & (n - 1):
            raise ValueError(f"slice: shape {shape} must be powers of 2")
        if o < 0 or o + n > src[d]:
            raise ValueError(f"slice: offset {offsets} + shape {shape} exceeds the source "
                             f"shape {src}")
        if o % n:
            raise ValueError(f"slice: offset {o} along dimension {d} must be a multiple of "
                             f"the slice's size {n} there")
    rt = distributed_type(x.dtype, tuple(shape), x.type.layout)
    text = "array<i64: " + ", ".join(str(o) for o in offsets) + ">"
    return sem._op("tile.extract_slice", [x], rt, {"offsets": text})
