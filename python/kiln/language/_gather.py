"""Gluon's ``gather`` (a warp-local gather: ``tile.gather``, lowered with warp shuffles) and
``histogram`` (counts of the values 0..num_bins-1: ``tile.histogram``, atomic adds into shared
memory)."""

from __future__ import annotations

from ._core import _unwrap, builtin, distributed_type, int1, int32, int64, uint32
from ._layouts import DistributedLayout, is_inferred

__all__ = ["gather", "histogram"]


@builtin
def gather(src, index, axis, _semantic=None):
    """``out[I] = src[I with I[axis] replaced by index[I]]`` (Gluon's ``gather``): the result
    has ``index``'s shape and layout and ``src``'s dtype. Kiln gathers within each warp (warp
    shuffles), so every element a thread needs must be in its own warp of ``src``'s layout; an
    index outside ``[0, src.shape[axis])`` reads an unspecified element of the row."""
    sem = _semantic
    axis = sem.require_constexpr(axis, "gather axis")
    src, index = sem.as_tensor(_unwrap(src)), sem.as_tensor(_unwrap(index))
    if not src.type.is_block or not index.type.is_block:
        raise TypeError("gather needs tensors for src and index")
    if not index.dtype.is_int() or index.dtype.is_bool():
        raise TypeError(f"gather: index must be an integer tensor, got {index.dtype}")
    rank = len(src.type.shape)
    if len(index.type.shape) != rank:
        raise ValueError(f"gather: src and index must have the same rank, got {rank} and "
                         f"{len(index.type.shape)}")
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(f"gather: axis must be an int in [{-rank}, {rank}), got {axis!r}")
    axis %= rank
    for d in range(rank):
        if d != axis and src.type.shape[d] != index.type.shape[d]:
            raise ValueError(f"gather: src {tuple(src.type.shape)} and index "
                             f"{tuple(index.type.shape)} must agree on every dimension but "
                             f"axis {axis}")
    for t in (src, index):
        if is_inferred(t.type.layout):
            raise ValueError("gather needs src and index in distributed layouts (convert "
                             "them first)")
    rt = distributed_type(src.dtype, index.type.shape, index.type.layout)
    return sem._op("tile.gather", [src, index], rt, {"axis": sem.b.int_attr(axis)})


@builtin
def histogram(input, num_bins, mask=None, layout=None, _semantic=None):
    """How many elements of the 1-D integer tensor ``input`` equal each of 0 .. num_bins-1
    (where ``mask`` is true, if given), as an int32 tensor of ``num_bins`` in ``layout``
    (Gluon's ``histogram``); other values are not counted. ``tile.histogram`` counts into
    shared memory with one atomic add an element."""
    sem = _semantic
    num_bins = sem.require_constexpr(num_bins, "histogram num_bins")
    layout = _unwrap(layout)
    x = sem.as_tensor(_unwrap(input))
    if not x.type.is_block or len(x.type.shape) != 1:
        raise ValueError(f"histogram needs a 1-D tensor, got {x.type}")
    if not x.dtype.is_int() or x.dtype.is_bool():
        raise TypeError(f"histogram needs integer values, got {x.dtype}")
    if not isinstance(num_bins, int) or isinstance(num_bins, bool) or num_bins < 1 or \
            num_bins & (num_bins - 1):
        raise ValueError(f"histogram: num_bins must be a power of 2, got {num_bins!r}")
    if not isinstance(layout, DistributedLayout) or is_inferred(layout):
        raise TypeError(f"histogram: layout must be the result's distributed layout, got "
                        f"{layout!r}")
    if is_inferred(x.type.layout):
        raise ValueError("histogram needs its input in a distributed layout (convert it "
                         "first)")
    if x.dtype.primitive_bitwidth < 32:  # counted as the values they are, sign included
        x = sem.cast(x, uint32 if x.dtype.is_int_unsigned() else int32)
    elif x.dtype.is_int_unsigned():
        x = sem.cast(x, int32 if x.dtype.primitive_bitwidth == 32 else int64, bitcast=True)
    operands = [x]
    if mask is not None:
        keep = sem.cast(sem.as_tensor(_unwrap(mask)), int1)
        keep = sem.broadcast_all([keep, x], "histogram")[0]
        if keep.type.layout != x.type.layout:
            keep = sem.convert_layout(keep, x.type.layout)
        operands.append(keep)
    rt = distributed_type(int32, (num_bins,), layout)
    return sem._op("tile.histogram", operands, rt)
