"""Gluon's ``gather`` (a warp-local gather: ``tile.gather``, lowered with warp shuffles) and
``histogram`` (counts of the values 0..num_bins-1, built from a broadcast compare and a sum)."""

from __future__ import annotations

from ._core import _unwrap, builtin, distributed_type, int1, int32
from ._layouts import BlockedLayout, DistributedLayout, SliceLayout, is_inferred

__all__ = ["gather", "histogram"]

# histogram compares every element with every bin: at most this many pairs a thread.
_MAX_PAIRS_PER_THREAD = 4096


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


def _compare_layout(m, bins, warp_size, num_warps):
    """A 2-D layout for (elements, bins) pairs: lanes and warps over the elements first."""
    t0 = min(m, warp_size)
    w0 = min(max(m // t0, 1), num_warps)
    return BlockedLayout([1, 1], [t0, warp_size // t0], [w0, num_warps // w0], [0, 1])


@builtin
def histogram(input, num_bins, mask=None, layout=None, _semantic=None):
    """How many elements of the 1-D integer tensor ``input`` equal each of 0 .. num_bins-1
    (where ``mask`` is true, if given), as an int32 tensor of ``num_bins`` in ``layout``
    (Gluon's ``histogram``); other values are not counted. Kiln compares every element with
    every bin and sums."""
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
    if not isinstance(layout, DistributedLayout):
        raise TypeError(f"histogram: layout must be the result's distributed layout, got "
                        f"{layout!r}")
    m = x.type.shape[0]
    threads = sem.warp_size * sem.num_warps
    if m * num_bins > _MAX_PAIRS_PER_THREAD * threads:
        raise ValueError(f"histogram compares every element with every bin: {m} elements x "
                         f"{num_bins} bins is more than {_MAX_PAIRS_PER_THREAD} pairs a thread "
                         f"for {threads} threads")
    pairs = _compare_layout(m, num_bins, sem.warp_size, sem.num_warps)
    xs = sem.expand_dims(sem.convert_layout(x, SliceLayout(1, pairs)), 1)
    bins = sem.expand_dims(sem.arange(0, num_bins, SliceLayout(0, pairs)), 0)
    hit = sem.compare("eq", sem.cast(xs, int32) if x.dtype.primitive_bitwidth < 32 else xs,
                      bins)
    if mask is not None:
        keep = sem.cast(sem.as_tensor(_unwrap(mask)), int1)
        keep = sem.expand_dims(sem.convert_layout(keep, SliceLayout(1, pairs)), 1)
        hit = sem.logical("and", hit, keep)
    counts = sem.reduce_builtin("sum", sem.cast(hit, int32), axis=0)
    return sem.convert_layout(counts, layout)
