"""Thread-block clusters (Gluon's ``cga_layout``): how a tensor or a shared buffer is split
among the CTAs of a cluster.

A layout's ``cga_layout`` has one basis per bit of the CTA's rank in its cluster (the cluster
has ``2 ** len(cga_layout)`` CTAs, the kernel's ``num_ctas``). Each basis is the move, in CTA
tiles, that the bit makes along every dimension: ``[[1, 0]]`` splits dimension 0 in two (CTA 1
holds the second half), a zero basis means the CTAs that differ in that bit hold the same
elements (broadcast). So a dimension is split ``2 ** (number of bases moving along it)`` ways.

Kiln compiles a clustered kernel as the program of one CTA. A split tensor keeps its whole
shape in the IR with a ``#tile.cga<{bases, layout}>`` layout (automatic layouts may resolve to
one), and the pass tile-split-cluster gives it each CTA's part, where only ``arange`` needs to
know where the CTA's part starts; shared buffers have each CTA's part from the start. Ops that
would move data between the CTAs of a cluster (reductions along a split dimension, layout
conversions that change the split) are errors.
"""

from __future__ import annotations

from typing import Sequence, Tuple


def normalize(owner: str, bases, rank=None) -> Tuple[Tuple[int, ...], ...]:
    """``bases`` as a tuple of int tuples, checked: equal lengths (``rank`` when known), each
    basis zero or one power of two along one dimension, no two moving the same way."""
    out = []
    for b in bases or ():
        try:
            vec = tuple(int(v) for v in b)
        except TypeError:
            raise TypeError(f"{owner}: cga_layout must be a list of bases (lists of ints), "
                            f"got {bases!r}") from None
        out.append(vec)
    out = tuple(out)
    if len(out) > 4:
        raise ValueError(f"{owner}: cga_layout has {len(out)} bases; a cluster has at most 16 "
                         f"CTAs (4 bases)")
    if out:
        n = rank if rank is not None else len(out[0])
        seen = set()
        for vec in out:
            if len(vec) != n:
                raise ValueError(f"{owner}: every cga_layout basis needs {n} entries (one per "
                                 f"dimension), got {list(vec)}")
            moving = [(d, v) for d, v in enumerate(vec) if v]
            if len(moving) > 1 or any(v < 0 or v & (v - 1) for _, v in moving):
                raise ValueError(f"{owner}: a cga_layout basis moves by a power of two of CTA "
                                 f"tiles along one dimension (or is zero), got {list(vec)}")
            if moving and moving[0] in seen:
                raise ValueError(f"{owner}: two cga_layout bases move the same way "
                                 f"({list(vec)})")
            if moving:
                seen.add(moving[0])
    return out


def split(bases, rank: int) -> Tuple[int, ...]:
    """How many CTA tiles each dimension is split into."""
    out = [1] * rank
    for vec in bases:
        for d, v in enumerate(vec):
            if v:
                out[d] *= 2
    return tuple(out)


def per_cta_shape(shape: Sequence[int], bases, what: str = "") -> Tuple[int, ...]:
    """``shape`` divided by the split of ``bases``; a dimension smaller than its split (a
    size-1 dimension of a broadcast) is held whole by every CTA, as in Gluon (the CTA tiles
    wrap around it)."""
    parts = split(bases, len(shape))
    return tuple(max(1, n // s) for n, s in zip(shape, parts))


def slice_bases(bases, dim: int):
    """The bases of a slice of a layout along ``dim`` (that dimension dropped)."""
    return tuple(tuple(v for d, v in enumerate(vec) if d != dim) for vec in bases)


def wrap(bases, inner_text: str) -> str:
    """The ``#tile.cga`` attribute text of a layout of one CTA split by ``bases``."""
    text = "[" + ", ".join("[" + ", ".join(str(v) for v in b) + "]" for b in bases) + "]"
    return f"#tile.cga<{{bases = {text}, layout = {inner_text}}}>"


def make_cga_layout(ctas_per_cga: Sequence[int], cta_split_num: Sequence[int],
                    cta_order: Sequence[int]):
    """The ``cga_layout`` bases of a cluster given in the older split form: ``ctas_per_cga[d]``
    CTAs along dimension ``d``, of which ``cta_split_num[d]`` hold different parts (the rest
    repeat them: broadcast), the CTA rank's bits going to the dimensions in ``cta_order``
    (fastest first). Along each dimension the low bits split it, the high bits broadcast.

    Gluon offers this as ``triton._C.libtriton.gluon_ir.make_cga_layout``; a returned list is
    what ``BlockedLayout(..., cga_layout=)`` and the shared layouts take.
    """
    rank = len(cta_order)
    if len(ctas_per_cga) != rank or len(cta_split_num) != rank:
        raise ValueError(f"make_cga_layout: ctas_per_cga {list(ctas_per_cga)}, cta_split_num "
                         f"{list(cta_split_num)} and cta_order {list(cta_order)} need one entry "
                         f"per dimension each")
    if sorted(int(d) for d in cta_order) != list(range(rank)):
        raise ValueError(f"make_cga_layout: cta_order {list(cta_order)} is not a permutation "
                         f"of 0..{rank - 1}")

    def log2(what, n):
        n = int(n)
        if n < 1 or n & (n - 1):
            raise ValueError(f"make_cga_layout: {what} must be powers of two, got {n}")
        return n.bit_length() - 1

    bases = []
    for d in cta_order:
        d = int(d)
        total, part = int(ctas_per_cga[d]), int(cta_split_num[d])
        if part < 1 or total % part:
            raise ValueError(f"make_cga_layout: dimension {d} has {total} CTAs, not a multiple "
                             f"of its split {part}")
        for bit in range(log2("split counts", part)):
            bases.append([1 << bit if k == d else 0 for k in range(rank)])
        for _ in range(log2("CTA counts", total // part)):
            bases.append([0] * rank)
    if len(bases) > 4:
        raise ValueError(f"make_cga_layout: {1 << len(bases)} CTAs; a cluster has at most 16")
    return bases
