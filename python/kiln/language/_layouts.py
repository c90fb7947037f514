"""Register layouts (Gluon's ``BlockedLayout``, ``SliceLayout``, ``DistributedLinearLayout``).

Layouts are frozen, hashable dataclasses so that they can be ``constexpr`` values, be part of a
kernel's specialization key (through :meth:`mangle`) and be compared for equality. Each renders
to the textual attribute of the ``tile`` dialect.

Every distributed layout also converts to its F2-linear form (:func:`to_linear_layout`): a list of
basis vectors per hardware index (register, lane, warp). The frontend uses that form to infer
the layout of a ``reshape`` and to check ``convert_layout(..., assert_trivial=True)``; the C++
side computes the same form for lowering.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Tuple

from . import _cga
from ._constexpr import _unwrap

__all__ = [
    "DistributedLayout",
    "BlockedLayout",
    "SliceLayout",
    "DistributedLinearLayout",
    "to_linear_layout",
    "SharedLayout",
    "SwizzledSharedLayout",
    "SharedLinearLayout",
    "AutoLayout",
    "CoalescedLayout",
    "is_inferred",
]


def _is_pow2(n: int) -> bool:
    return isinstance(n, int) and n > 0 and (n & (n - 1)) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _int_tuple(name: str, values) -> Tuple[int, ...]:
    values = _unwrap(values)
    try:
        out = tuple(int(_unwrap(v)) for v in values)
    except TypeError:
        raise TypeError(f"{name} must be a list of integers, got {values!r}") from None
    return out


def _list_text(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _bases_text(bases) -> str:
    return "[" + ", ".join(_list_text(b) for b in bases) + "]"


class DistributedLayout:
    """Base class of the register layouts."""

    @property
    def rank(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_ir(self, render: Callable[["DistributedLayout"], str] = None) -> str:
        """The ``#tile.…`` attribute text. ``render`` renders nested layouts (aliases)."""
        return self._attr_text(render or (lambda l: l.to_ir()))

    def _attr_text(self, render) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def mangle(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def cga_bases(self) -> tuple:
        """The layout's cluster split (see :mod:`kiln.language._cga`); () for one CTA."""
        return ()

    def without_cga(self) -> "DistributedLayout":
        """The layout of one CTA's part (what the IR holds)."""
        return self


class _InferredLayout(DistributedLayout):
    """A layout the compiler chooses (pass tile-resolve-layouts); it fits every rank."""

    _ir = ""

    @property
    def rank(self):
        return None

    def _attr_text(self, render) -> str:
        return self._ir

    def mangle(self) -> str:
        return type(self).__name__

    def __eq__(self, other) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AutoLayout(_InferredLayout):
    """A layout inferred from the layouts ``set_auto_layout`` fixes, forward and backward
    through elementwise ops, broadcasts, ``expand_dims``, reductions and loops (Gluon's
    ``AutoLayout``; the default of ``arange``, ``full`` and ``zeros``)."""

    _ir = "#tile.auto"


class CoalescedLayout(_InferredLayout):
    """A blocked layout Kiln chooses for coalesced access from the pointers a load or store
    reads (Gluon's ``CoalescedLayout``)."""

    _ir = "#tile.coalesced"


def is_inferred(layout) -> bool:
    """Whether ``layout`` is one the compiler chooses (``AutoLayout``, ``CoalescedLayout``)."""
    return isinstance(layout, _InferredLayout)


@dataclass(frozen=True, repr=False)
class BlockedLayout(DistributedLayout):
    """Each thread holds ``size_per_thread`` contiguous elements; a warp tiles
    ``threads_per_warp`` threads and a CTA ``warps_per_cta`` warps; ``order`` lists the
    dimensions from fastest to slowest varying."""

    size_per_thread: Sequence[int]
    threads_per_warp: Sequence[int]
    warps_per_cta: Sequence[int]
    order: Sequence[int]
    cga_layout: Sequence = field(default=())

    def __post_init__(self):
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"):
            object.__setattr__(self, name, _int_tuple(name, getattr(self, name)))
        rank = len(self.size_per_thread)
        object.__setattr__(self, "cga_layout",
                           _cga.normalize("BlockedLayout", _unwrap(self.cga_layout), rank))
        if rank == 0:
            raise ValueError("BlockedLayout needs at least one dimension")
        for name in ("threads_per_warp", "warps_per_cta", "order"):
            if len(getattr(self, name)) != rank:
                raise ValueError(
                    f"BlockedLayout: {name} has {len(getattr(self, name))} entries but "
                    f"size_per_thread has {rank}")
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            for v in getattr(self, name):
                if not _is_pow2(v):
                    raise ValueError(f"BlockedLayout: {name} entries must be powers of 2, "
                                     f"got {list(getattr(self, name))}")
        if sorted(self.order) != list(range(rank)):
            raise ValueError(f"BlockedLayout: order must be a permutation of "
                             f"0..{rank - 1}, got {list(self.order)}")

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    @property
    def cga_bases(self) -> tuple:
        return self.cga_layout

    def without_cga(self):
        if not self.cga_layout:
            return self
        return BlockedLayout(self.size_per_thread, self.threads_per_warp, self.warps_per_cta,
                             self.order)

    def _attr_text(self, render) -> str:
        text = ("#tile.blocked<{sizePerThread = " + _list_text(self.size_per_thread)
                + ", threadsPerWarp = " + _list_text(self.threads_per_warp)
                + ", warpsPerCTA = " + _list_text(self.warps_per_cta)
                + ", order = " + _list_text(self.order) + "}>")
        return _cga.wrap(self.cga_layout, text) if self.cga_layout else text

    def mangle(self) -> str:
        def m(v):
            return "x".join(str(i) for i in v)
        cga = ("C" + "_".join(m(b) for b in self.cga_layout)) if self.cga_layout else ""
        return (f"B{m(self.size_per_thread)}_{m(self.threads_per_warp)}_"
                f"{m(self.warps_per_cta)}_{m(self.order)}{cga}B")

    def __repr__(self) -> str:
        cga = f", cga_layout={[list(b) for b in self.cga_layout]}" if self.cga_layout else ""
        return (f"BlockedLayout(size_per_thread={list(self.size_per_thread)}, "
                f"threads_per_warp={list(self.threads_per_warp)}, "
                f"warps_per_cta={list(self.warps_per_cta)}, order={list(self.order)}{cga})")


@dataclass(frozen=True, repr=False)
class SliceLayout(DistributedLayout):
    """``parent`` with dimension ``dim`` removed (the layout of a reduction along ``dim``)."""

    dim: int
    parent: DistributedLayout

    def __post_init__(self):
        object.__setattr__(self, "dim", int(_unwrap(self.dim)))
        parent = _unwrap(self.parent)
        object.__setattr__(self, "parent", parent)
        if not isinstance(parent, DistributedLayout):
            raise TypeError(f"SliceLayout: parent must be a distributed layout, got {parent!r}")
        if is_inferred(parent):
            raise TypeError(f"SliceLayout: parent must be a concrete layout, got {parent!r} (a "
                            f"slice of a value with it is inferred with it)")
        if not 0 <= self.dim < parent.rank:
            raise ValueError(f"SliceLayout: dim {self.dim} is out of range for a parent of "
                             f"rank {parent.rank}")
        if parent.rank < 2:
            raise ValueError("SliceLayout: the parent layout must have rank >= 2")

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    @property
    def cga_bases(self) -> tuple:
        return _cga.slice_bases(self.parent.cga_bases, self.dim)

    def without_cga(self):
        parent = self.parent.without_cga()
        return self if parent is self.parent else SliceLayout(self.dim, parent)

    def _attr_text(self, render) -> str:
        return f"#tile.slice<{{dim = {self.dim}, parent = {render(self.parent)}}}>"

    def mangle(self) -> str:
        return f"SL{self.dim}_{self.parent.mangle()}SL"

    def __repr__(self) -> str:
        return f"SliceLayout(dim={self.dim}, parent={self.parent!r})"


# Registers per thread a tensor may take: 2^11, the same limit as the C++ verifier
# (LinearLayout::kMaxInBits); compile time grows past 2^10 (a target may set a lower
# limit, checked when the kernel is lowered).
MAX_REGISTER_BASES = 11


@dataclass(frozen=True, repr=False)
class DistributedLinearLayout(DistributedLayout):
    """A raw F2-linear layout for tensors of ``shape``: the coordinates of an element are the
    XOR of the bases of the set bits of its register, lane and warp indices."""

    reg_bases: Sequence[Sequence[int]]
    lane_bases: Sequence[Sequence[int]]
    warp_bases: Sequence[Sequence[int]]
    block_bases: Sequence[Sequence[int]]
    shape: Sequence[int]

    def __post_init__(self):
        shape = _int_tuple("shape", self.shape)
        object.__setattr__(self, "shape", shape)
        for name in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            bases = tuple(_int_tuple(name, b) for b in (_unwrap(getattr(self, name)) or ()))
            for b in bases:
                if len(b) != len(shape):
                    raise ValueError(f"DistributedLinearLayout: every basis in {name} needs "
                                     f"{len(shape)} coordinates (one per dimension of "
                                     f"{list(shape)}), got {list(b)}")
            object.__setattr__(self, name, bases)
        for name, most in (("reg_bases", MAX_REGISTER_BASES), ("lane_bases", 6), ("warp_bases", 5)):
            n = len(getattr(self, name))
            if n > most:
                raise ValueError(f"DistributedLinearLayout: at most {most} {name} (2^{most} per "
                                 f"{'thread' if name == 'reg_bases' else 'CTA'}), got {n}")
        if not shape:
            raise ValueError("DistributedLinearLayout: shape must not be empty")
        for i, d in enumerate(shape):
            if not _is_pow2(d):
                raise ValueError(f"DistributedLinearLayout: shape element {i} must be a power "
                                 f"of 2, got {d}")
        # A cluster's split (Gluon's block bases, in elements): each basis zero (the CTAs
        # differing in that rank bit hold the same elements) or a move by whole CTA parts
        # along one dimension, which Kiln keeps as the layout's cga bases (in parts).
        splits = [1] * len(shape)
        for b in self.block_bases:
            for d, c in enumerate(b):
                if c:
                    splits[d] *= 2
        part = tuple(max(1, n // k) for n, k in zip(shape, splits))
        cga = []
        for b in self.block_bases:
            moving = [(d, c) for d, c in enumerate(b) if c]
            if len(moving) > 1 or any(c % part[d] or not _is_pow2(c // part[d])
                                      for d, c in moving):
                raise ValueError(f"DistributedLinearLayout: block basis {list(b)} does not "
                                 f"move by whole CTA parts (of shape {list(part)}) along one "
                                 f"dimension; Kiln supports such block bases only")
            cga.append(tuple(c // part[d] if c else 0 for d, c in enumerate(b)))
        object.__setattr__(self, "_cga", _cga.normalize("DistributedLinearLayout", cga,
                                                        len(shape)))
        object.__setattr__(self, "_part", part)
        shape = part  # the register, lane and warp bases cover one CTA's part
        strides = _strides(shape)
        flat = []
        for b in self.reg_bases + self.lane_bases + self.warp_bases:
            for i, (c, d) in enumerate(zip(b, shape)):
                if not 0 <= c < d:
                    raise ValueError(f"DistributedLinearLayout: basis {list(b)} lies outside "
                                     f"the shape {list(shape)}")
            flat.append(sum(c * s for c, s in zip(b, strides)))
        numel = 1
        for d in shape:
            numel *= d
        if _f2_rank(flat) != _log2(numel):
            raise ValueError(f"DistributedLinearLayout: the bases do not cover every element "
                             f"of the shape {list(shape)}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def cga_bases(self) -> tuple:
        return self._cga

    def without_cga(self):
        if not self.block_bases:
            return self
        return DistributedLinearLayout(self.reg_bases, self.lane_bases, self.warp_bases, [],
                                       self._part)

    def _attr_text(self, render) -> str:
        text = (f"#tile.linear<{{register = {_bases_text(self.reg_bases)}, "
                f"lane = {_bases_text(self.lane_bases)}, warp = {_bases_text(self.warp_bases)}}}>")
        return _cga.wrap(self._cga, text) if self._cga else text

    def mangle(self) -> str:
        def m(bases):
            return "_".join("x".join(str(c) for c in b) for b in bases)
        blocks = f"B{m(self.block_bases)}" if self.block_bases else ""
        return (f"LL{m(self.reg_bases)}R{m(self.lane_bases)}L{m(self.warp_bases)}W{blocks}"
                f"{'x'.join(str(d) for d in self.shape)}LL")

    def __repr__(self) -> str:
        def l(bases):
            return [list(b) for b in bases]
        return (f"DistributedLinearLayout(reg_bases={l(self.reg_bases)}, "
                f"lane_bases={l(self.lane_bases)}, warp_bases={l(self.warp_bases)}, "
                f"block_bases={l(self.block_bases)}, shape={list(self.shape)})")


# ---------------------------------------------------------------------------------------------
# F2-linear forms
# ---------------------------------------------------------------------------------------------


def _reshaped_bases(bases, shape, new_shape):
    """Offset bases (coordinates under ``shape``) moved to the coordinates of their row-major
    flat index under ``new_shape``: over power-of-two dimensions flattening concatenates the
    coordinates' bits, so a basis that XORs several coordinates maps to the XOR of their
    images."""
    strides = _strides(shape)

    def unflatten(flat):
        out = []
        for d in reversed(new_shape):
            out.append(flat % d)
            flat //= d
        return out[::-1]
    return [unflatten(sum(c * st for c, st in zip(b, strides))) for b in bases]


def _strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return list(reversed(strides))


def _f2_rank(vectors) -> int:
    """Rank over GF(2) of integers seen as bit vectors."""
    basis = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


def _blocked_bases(layout: BlockedLayout, shape):
    rank = len(shape)

    def unit(d, v):
        b = [0] * rank
        b[d] = v
        return b

    reg, lane, warp = [], [], []
    tile = [1] * rank
    for bases, sizes in ((reg, layout.size_per_thread), (lane, layout.threads_per_warp),
                         (warp, layout.warps_per_cta)):
        for d in layout.order:
            for _ in range(_log2(sizes[d])):
                bases.append(unit(d, tile[d]))
                tile[d] *= 2
    # A dimension larger than the CTA tile wraps into more registers.
    for d in layout.order:
        while tile[d] < shape[d]:
            reg.append(unit(d, tile[d]))
            tile[d] *= 2
    # A dimension smaller than the tile: registers beyond it disappear, lanes and warps that
    # would step outside it broadcast (hold the same elements).
    reg = [b for b in reg if all(c < s for c, s in zip(b, shape))]
    lane = [[c if c < s else 0 for c, s in zip(b, shape)] for b in lane]
    warp = [[c if c < s else 0 for c, s in zip(b, shape)] for b in warp]
    return reg, lane, warp


# C++'s answer to "the linear form of this layout on this shape", installed by kiln.compiler
# when the compiler extension is present (kiln.language imports nothing else of Kiln):
# ``oracle(layout_attr_text, shape) -> (reg, lane, warp) or None``. The pure-Python
# _python_linear_bases below is the fallback, and test_layout_differential.py keeps the two
# equal.
_layout_oracle: Optional[Callable] = None


def set_layout_oracle(oracle: Optional[Callable]) -> None:
    global _layout_oracle
    if oracle is not _layout_oracle:
        _layout_oracle = oracle
        _oracle_bases.cache_clear()


@functools.lru_cache(maxsize=4096)
def _oracle_bases(layout: DistributedLayout, shape: tuple):
    got = _layout_oracle(layout.to_ir(), list(shape))
    return None if got is None else tuple(got)


def shared_offset_bases(layout, shape, element_bits: int):
    """The offset bases C++ gives a shared layout on one buffer of ``shape`` (elements of
    ``element_bits``): the coordinates each bit of an element's offset adds; None without
    the compiler or for a layout it has no map of."""
    if _layout_oracle is None:
        return None
    got = _layout_oracle(layout.to_ir(), list(shape), element_bits)
    return None if not got else [list(b) for b in got[0]]


def _linear_bases(layout: DistributedLayout, shape):
    """(register, lane, warp) bases of ``layout`` on ``shape``: C++'s when available."""
    if _layout_oracle is not None and isinstance(layout, DistributedLayout):
        got = _oracle_bases(layout, tuple(shape))
        if got is not None:
            return tuple([list(b) for b in bases] for bases in got)
    return _python_linear_bases(layout, shape)


def _python_linear_bases(layout: DistributedLayout, shape):
    shape = list(shape)
    if isinstance(layout, BlockedLayout):
        return _blocked_bases(layout, shape)
    if isinstance(layout, SliceLayout):
        parent_shape = shape[:layout.dim] + [1] + shape[layout.dim:]
        reg, lane, warp = _python_linear_bases(layout.parent, parent_shape)

        def drop(b):
            return b[:layout.dim] + b[layout.dim + 1:]
        reg = [drop(b) for b in reg if any(drop(b))]
        return reg, [drop(b) for b in lane], [drop(b) for b in warp]
    if isinstance(layout, DistributedLinearLayout):
        if list(layout.shape) != shape:
            raise ValueError(f"{layout!r} is defined for shape {list(layout.shape)}, "
                             f"not {shape}")
        return ([list(b) for b in layout.reg_bases], [list(b) for b in layout.lane_bases],
                [list(b) for b in layout.warp_bases])
    raise TypeError(f"no linear form for layout {layout!r}")


def to_linear_layout(layout: DistributedLayout, shape) -> DistributedLinearLayout:
    """The F2-linear form of ``layout`` for tensors of ``shape`` (Gluon's ``to_linear_layout``)."""
    shape = _int_tuple("shape", shape)
    reg, lane, warp = _linear_bases(_unwrap(layout), shape)
    return DistributedLinearLayout(reg, lane, warp, [], shape)


def reshape_linear(layout: DistributedLayout, src_shape, dst_shape) -> DistributedLinearLayout:
    """The layout that keeps every element in its thread and register when a tensor of
    ``src_shape`` is reinterpreted (row-major) as ``dst_shape``."""
    reg, lane, warp = _linear_bases(layout, list(src_shape))
    src_strides, dst_strides = _strides(list(src_shape)), _strides(list(dst_shape))

    def move(b):
        flat = sum(c * s for c, s in zip(b, src_strides))
        return [(flat // s) % d for s, d in zip(dst_strides, dst_shape)]
    return DistributedLinearLayout([move(b) for b in reg], [move(b) for b in lane],
                                   [move(b) for b in warp], [], list(dst_shape))


def is_trivial_conversion(src: DistributedLayout, dst: DistributedLayout, shape) -> bool:
    """True when converting between the layouts moves no data between threads: the lane and
    warp bases agree and the registers are a permutation of each other."""
    if src == dst:
        return True
    sr, sl, sw = _linear_bases(src, shape)
    dr, dl, dw = _linear_bases(dst, shape)
    return sl == dl and sw == dw and sorted(sr) == sorted(dr)


class SharedLayout:
    """Base class of the shared-memory layouts (where each element of a buffer lives)."""

    def to_ir(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def cga_split(self):
        """How many CTAs of a cluster split each dimension of the buffer (None: not split)."""
        return None

    def per_cta_shape(self, shape, wrap=False):
        """The shape of one CTA's part of a buffer of ``shape`` (what the IR holds). With
        ``wrap`` (a descriptor's block, as in Gluon), a dimension smaller than its split is
        held whole by every CTA (the CTA tiles wrap around it); a buffer refuses it."""
        split = self.cga_split
        if not split or all(x == 1 for x in split):
            return tuple(shape)
        lead = len(shape) - len(split)
        out = list(shape)
        for d, k in enumerate(split):
            n = out[lead + d]
            if wrap and n < k:
                out[lead + d] = 1
                continue
            if n % k:
                more = ("; a buffer is split into equal parts (a TMA descriptor's block may "
                        "be smaller than its split: each CTA then holds all of it)"
                        if n < k else "")
                raise ValueError(f"{self!r}: dimension {lead + d} of size {n} cannot be split "
                                 f"among {k} CTAs{more}")
            out[lead + d] = n // k
        return tuple(out)

    def mangle(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def permuted(self, perm):
        """The layout of the same bytes with dimensions permuted (dimension i of the result
        is dimension perm[i]); None when this layout cannot express it."""
        return None

    def reshaped(self, shape, new_shape):
        """The layout of the same bytes seen as a buffer of ``new_shape``; None when this
        layout cannot express it."""
        return None

    # Whether a reshape in this layout is emitted as a reinterpret of the same bytes (the
    # IR's memdesc_reshape does not know this layout's reshaped form).
    reshape_as_reinterpret = False

    # Whether the compiler's linear map of this layout is the element offset itself (a padded
    # layout's leaves its padding out): then any reshape is a linear view of it.
    map_is_offset = False


@dataclass(frozen=True, repr=False)
class SwizzledSharedLayout(SharedLayout):
    """Rows stored one after another (``order[0]`` fastest); within a row, groups of ``vec``
    elements are permuted by XOR with the phase ``(row // per_phase) % max_phase``, so that
    reading a column touches different banks (Gluon's ``SwizzledSharedLayout``)."""

    map_is_offset = True
    vec: int
    per_phase: int
    max_phase: int
    order: Sequence[int]
    cga_layout: Sequence = field(default=())

    def __post_init__(self):
        for name in ("vec", "per_phase", "max_phase"):
            value = _unwrap(getattr(self, name))
            if isinstance(value, bool) or not isinstance(value, int) or not _is_pow2(value):
                raise ValueError(f"SwizzledSharedLayout: {name} must be a power of 2, got "
                                 f"{value!r}")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "order", _int_tuple("order", self.order))
        if not self.order or sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"SwizzledSharedLayout: order must be a permutation of "
                             f"0..{len(self.order) - 1}, got {list(self.order)}")
        object.__setattr__(self, "cga_layout", _cga.normalize(
            "SwizzledSharedLayout", _unwrap(self.cga_layout), len(self.order)))

    @property
    def rank(self) -> int:
        return len(self.order)

    @property
    def cga_split(self):
        return _cga.split(self.cga_layout, self.rank) if self.cga_layout else None

    def to_ir(self) -> str:
        return (f"#tile.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = {_list_text(self.order)}}}>")

    def permuted(self, perm):
        if self.cga_layout:
            return None
        # Rows and columns are named by ``order``: rename them.
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        return SwizzledSharedLayout(self.vec, self.per_phase, self.max_phase,
                                    [inverse[o] for o in self.order])

    def reshaped(self, shape, new_shape):
        # Only an unswizzled row-major buffer is row-major under any shape.
        if self.max_phase != 1 or list(self.order) != list(range(self.rank))[::-1] or \
                self.cga_layout:
            return None
        return SwizzledSharedLayout(1, 1, 1, list(range(len(new_shape)))[::-1])

    def mangle(self) -> str:
        cga = "C" + "_".join("x".join(map(str, b)) for b in self.cga_layout) \
            if self.cga_layout else ""
        return (f"SSS{self.vec}_{self.per_phase}_{self.max_phase}_"
                f"{'x'.join(map(str, self.order))}{cga}SSS")

    def __repr__(self) -> str:
        cga = f", cga_layout={[list(b) for b in self.cga_layout]}" if self.cga_layout else ""
        return (f"SwizzledSharedLayout(vec={self.vec}, per_phase={self.per_phase}, "
                f"max_phase={self.max_phase}, order={list(self.order)}{cga})")


@dataclass(frozen=True, repr=False)
class SharedLinearLayout(SharedLayout):
    """A shared-memory layout given as an F2-linear map (Gluon's ``SharedLinearLayout``): element
    offset ``o`` of the buffer holds the XOR of the ``offset_bases`` of the set bits of ``o``
    (one basis per offset bit). The buffer's shape follows from the bases; ``alignment`` is the
    byte alignment the buffer needs. wgmma reads such a buffer when it is one of the
    instruction's canonical layouts (e.g. unswizzled core matrices of 8 rows x 16 bytes)."""

    offset_bases: Sequence[Sequence[int]]
    block_bases: Sequence[Sequence[int]] = field(default=())
    alignment: int = 16

    def __post_init__(self):
        bases = tuple(_int_tuple("offset_bases", b) for b in (_unwrap(self.offset_bases) or ()))
        if not bases or not bases[0]:
            raise ValueError("SharedLinearLayout: offset_bases must not be empty")
        rank = len(bases[0])
        if any(len(b) != rank for b in bases):
            raise ValueError(f"SharedLinearLayout: every offset basis must have {rank} entries")
        blocks = tuple(_int_tuple("block_bases", b) for b in (_unwrap(self.block_bases) or ()))
        # Coordinates, so never negative (the shape is read from the largest of them).
        for name, group in (("offset_bases", bases), ("block_bases", blocks)):
            for b in group:
                if any(c < 0 for c in b):
                    raise ValueError(f"SharedLinearLayout: {name} entries are coordinates "
                                     f"and must not be negative, got {list(b)}")
        alignment = int(_unwrap(self.alignment))
        if not _is_pow2(alignment):
            raise ValueError(f"SharedLinearLayout: alignment must be a positive power of two, "
                             f"got {alignment}")
        # Lists, as Gluon keeps them (code that builds layouts edits a layout's bases in place
        # to make another: Triton's tests transpose them that way).
        object.__setattr__(self, "offset_bases", [list(b) for b in bases])
        object.__setattr__(self, "block_bases", [list(b) for b in blocks])
        object.__setattr__(self, "alignment", alignment)
        def flat(vectors, shape):
            return [sum(c << sum(_log2(d) for d in shape[:i]) for i, c in enumerate(b))
                    for b in vectors]

        shape = self.cta_shape
        if len(bases) == sum(_log2(d) for d in shape) and \
                _f2_rank(flat(bases, shape)) == len(bases):
            return
        # A CTA's part need not be a box: the offset and (nonzero) block bases together may
        # reach every element of the whole buffer once (Gluon: a block basis that moves rows
        # between CTAs by other than whole parts). Such a buffer is only allocated, sliced,
        # loaded and stored (see ``scattered``).
        whole = self.shape
        together = bases + tuple(b for b in blocks if any(b))
        if blocks and len(together) == sum(_log2(d) for d in whole) and \
                _f2_rank(flat(together, whole)) == len(together):
            object.__setattr__(self, "_scattered", True)
            return
        raise ValueError(f"SharedLinearLayout: the offset bases must reach every element "
                         f"of shape {list(shape)} exactly once")

    @property
    def scattered(self) -> bool:
        """Whether a CTA's part is no box (the offset bases alone reach elements scattered
        over the whole buffer; the block bases say which CTA holds which)."""
        return getattr(self, "_scattered", False)

    def scattered_map(self):
        """For a scattered layout: per dimension, per coordinate bit, the (element offset
        XOR mask, CTA rank bit mask) that bit of an element's coordinate contributes -- the
        inverse of the layout's F2-linear map."""
        whole = self.shape
        rank = self.rank
        shifts = [sum(_log2(d) for d in whole[:i]) for i in range(rank)]
        nbits = len(self.offset_bases)
        rows = []  # (coordinate vector as bits, combination of inputs)
        for k, b in enumerate(self.offset_bases):
            rows.append((sum(c << shifts[i] for i, c in enumerate(b)), 1 << k))
        for r, b in enumerate(self.block_bases):
            if any(b):
                rows.append((sum(c << shifts[i] for i, c in enumerate(b)), 1 << (nbits + r)))
        pivots = {}
        for vec, combo in rows:
            for p in sorted(pivots, reverse=True):
                if vec >> p & 1:
                    vec ^= pivots[p][0]
                    combo ^= pivots[p][1]
            if vec:
                pivots[vec.bit_length() - 1] = (vec, combo)
        out = []
        for d in range(rank):
            bits = []
            for i in range(_log2(whole[d])):
                vec, combo = 1 << (shifts[d] + i), 0
                for p in sorted(pivots, reverse=True):
                    if vec >> p & 1:
                        vec ^= pivots[p][0]
                        combo ^= pivots[p][1]
                bits.append((combo & ((1 << nbits) - 1), combo >> nbits))
            out.append(bits)
        return out

    @staticmethod
    def _extent(bases, rank):
        top = [0] * rank
        for b in bases:
            for i, v in enumerate(b):
                top[i] = max(top[i], v)
        return tuple(1 << v.bit_length() for v in top)

    @property
    def shape(self) -> Tuple[int, ...]:
        """The whole buffer's shape, over the CTAs of a cluster (Gluon's ``shape``)."""
        return self._extent(list(self.offset_bases) + list(self.block_bases), self.rank)

    @property
    def cta_shape(self) -> Tuple[int, ...]:
        """The shape of one CTA's part: what the offset bases reach."""
        return self._extent(self.offset_bases, self.rank)

    @property
    def cga_split(self):
        return tuple(w // c for w, c in zip(self.shape, self.cta_shape))

    @property
    def rank(self) -> int:
        return len(self.offset_bases[0])

    def to_ir(self) -> str:
        if self.scattered:
            raise NotImplementedError(
                f"{self!r}: a CTA's part of such a buffer is not a box (its block bases move "
                f"elements between CTAs by other than whole parts); such a buffer can be "
                f"allocated, sliced, loaded and stored, not passed on or used by other ops")
        return (f"#tile.shared_linear<{{offset = {_bases_text(self.offset_bases)}, "
                f"shape = {_list_text(self.cta_shape)}, alignment = {max(16, self.alignment)}}}>")

    def permuted(self, perm):
        return SharedLinearLayout([[b[p] for p in perm] for b in self.offset_bases],
                                  [[b[p] for p in perm] for b in self.block_bases],
                                  self.alignment)

    def reshaped(self, shape, new_shape):
        # Row-major flattening of power-of-two dimensions concatenates their bits, so each
        # offset basis maps to the coordinates of its flat index under the new shape (a
        # basis that XORs several coordinates maps to the XOR of their images).
        shape, new_shape = list(shape), list(new_shape)
        if self.block_bases or self.scattered or tuple(shape) != tuple(self.cta_shape) or \
                not all(_is_pow2(d) for d in new_shape) or \
                math.prod(shape) != math.prod(new_shape):
            return None
        bases = _reshaped_bases(self.offset_bases, shape, new_shape)
        return SharedLinearLayout(bases, [], self.alignment)

    # The IR's memdesc_reshape keeps a layout's own family; this one's reshaped form is
    # computed here, over the same bytes.
    reshape_as_reinterpret = True

    def _key(self):
        return (tuple(map(tuple, self.offset_bases)), tuple(map(tuple, self.block_bases)),
                self.alignment)

    def __eq__(self, other) -> bool:
        return isinstance(other, SharedLinearLayout) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def mangle(self) -> str:
        bases = "_".join("x".join(map(str, b)) for b in self.offset_bases)
        blocks = "_".join("x".join(map(str, b)) for b in self.block_bases)
        return f"SLL{bases}B{blocks}A{self.alignment}SLL"

    def __repr__(self) -> str:
        return (f"SharedLinearLayout(offset_bases={[list(b) for b in self.offset_bases]}, "
                f"block_bases={[list(b) for b in self.block_bases]}, "
                f"alignment={self.alignment})")


@dataclass(frozen=True, repr=False)
class PaddedSharedLayout(SharedLayout):
    """Elements placed by a linear map from a 1-D offset to the coordinates of a buffer of
    ``shape`` (``offset_bases``: one basis per offset bit), with ``padding`` unused elements
    inserted after every ``interval`` elements for each ``[interval, padding]`` pair (summed
    where intervals coincide); Gluon's ``PaddedSharedLayout``. Padding moves the rows of a
    tile to other banks instead of permuting elements within them::

        address(o) = o + sum((o // interval) * padding for interval, padding in pairs)

    ``PaddedSharedLayout.with_identity_for(pairs, shape, order)`` makes the row-major map
    (``order[0]`` fastest)."""

    interval_padding_pairs: Sequence[Sequence[int]]
    offset_bases: Sequence[Sequence[int]]
    cga_layout: Sequence = field(default=())
    shape: Sequence[int] = field(default=())

    def __post_init__(self):
        pairs = tuple(tuple(_int_tuple("interval_padding_pairs", p))
                      for p in _unwrap(self.interval_padding_pairs))
        if not pairs or any(len(p) != 2 for p in pairs):
            raise ValueError(f"PaddedSharedLayout: interval_padding_pairs must be a non-empty "
                             f"list of [interval, padding] pairs, got {pairs!r}")
        for interval, padding in pairs:
            if not (_is_pow2(interval) and _is_pow2(padding)):
                raise ValueError(f"PaddedSharedLayout: intervals and paddings must be powers "
                                 f"of 2, got [{interval}, {padding}]")
        intervals = [p[0] for p in pairs]
        if len(set(intervals)) != len(intervals):
            raise ValueError(f"PaddedSharedLayout: intervals must be distinct, got "
                             f"{intervals}")
        shape = _int_tuple("shape", self.shape)
        if not shape or not all(_is_pow2(d) for d in shape):
            raise ValueError(f"PaddedSharedLayout: shape must be a non-empty list of powers "
                             f"of 2, got {list(shape)}")
        bases = tuple(_int_tuple("offset_bases", b) for b in _unwrap(self.offset_bases))
        if any(len(b) != len(shape) for b in bases):
            raise ValueError(f"PaddedSharedLayout: every offset basis must have "
                             f"{len(shape)} entries (the shape's rank)")
        for b in bases:
            if not all(0 <= c < d for c, d in zip(b, shape)):
                raise ValueError(f"PaddedSharedLayout: offset basis {list(b)} lies outside "
                                 f"the shape {list(shape)}")
        if len(bases) != sum(_log2(d) for d in shape) or _f2_rank(
                [sum(c << sum(_log2(d) for d in shape[:i]) for i, c in enumerate(b))
                 for b in bases]) != len(bases):
            raise ValueError(f"PaddedSharedLayout: the offset bases must reach every element "
                             f"of shape {list(shape)} exactly once")
        object.__setattr__(self, "interval_padding_pairs", pairs)
        object.__setattr__(self, "offset_bases", bases)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "cga_layout", tuple(_unwrap(self.cga_layout) or ()))
        if self.cga_layout:
            raise ValueError("PaddedSharedLayout: cga_layout must be [] (Kiln supports one "
                             "CTA per program)")

    @staticmethod
    def with_identity_for(interval_padding_pairs, shape, order, cga_layout=()):
        """The row-major map for ``shape`` with ``order[0]`` fastest, and the given padding."""
        shape = _int_tuple("shape", shape)
        order = _int_tuple("order", order)
        if sorted(order) != list(range(len(shape))):
            raise ValueError(f"PaddedSharedLayout.with_identity_for: order must be a "
                             f"permutation of 0..{len(shape) - 1}, got {list(order)}")
        bases = []
        for dim in order:
            for k in range(_log2(shape[dim]) if _is_pow2(shape[dim]) else 0):
                bases.append([1 << k if i == dim else 0 for i in range(len(shape))])
        return PaddedSharedLayout(interval_padding_pairs, bases, cga_layout, shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def to_ir(self) -> str:
        intervals = _list_text([p[0] for p in self.interval_padding_pairs])
        paddings = _list_text([p[1] for p in self.interval_padding_pairs])
        return (f"#tile.padded_shared<{{intervals = {intervals}, paddings = {paddings}, "
                f"offset = {_bases_text(self.offset_bases)}, shape = {_list_text(self.shape)}}}>")

    def reshaped(self, shape, new_shape):
        # The padding follows the element offset, which a reshape keeps: the same intervals
        # and paddings, each offset basis moved to its flat index's coordinates under the new
        # shape (row-major over power-of-two dimensions, as SharedLinearLayout's).
        shape, new_shape = list(shape), list(new_shape)
        if self.cga_layout or tuple(shape) != tuple(self.shape) or \
                not all(_is_pow2(d) for d in shape + new_shape) or \
                math.prod(shape) != math.prod(new_shape):
            return None
        bases = _reshaped_bases(self.offset_bases, shape, new_shape)
        return PaddedSharedLayout(self.interval_padding_pairs, bases, (), new_shape)

    # A reshaped padded layout is computed here; the IR sees a reinterpret of the same bytes.
    reshape_as_reinterpret = True

    def permuted(self, perm):
        return PaddedSharedLayout(self.interval_padding_pairs,
                                  [[b[p] for p in perm] for b in self.offset_bases],
                                  self.cga_layout, [self.shape[p] for p in perm])

    def mangle(self) -> str:
        pairs = "_".join(f"{i}p{p}" for i, p in self.interval_padding_pairs)
        bases = "_".join("x".join(map(str, b)) for b in self.offset_bases)
        return f"PSL{pairs}B{bases}S{'x'.join(map(str, self.shape))}PSL"

    def __repr__(self) -> str:
        return (f"PaddedSharedLayout(interval_padding_pairs="
                f"{[list(p) for p in self.interval_padding_pairs]}, offset_bases="
                f"{[list(b) for b in self.offset_bases]}, shape={list(self.shape)})")


def warps_per_cta(layout, shape):
    """How many warps a layout spreads along each dimension (Gluon's
    ``_layouts.warps_per_cta``): as in Gluon, a SliceLayout or DotOperandLayout answers with
    its parent's list (the parent's rank, so that the product is the layout's number of
    warps), a linear layout by its warp bases on ``shape``'s rank."""
    layout = _unwrap(layout)
    shape = _int_tuple("shape", shape)
    if isinstance(layout, DistributedLinearLayout):
        out = [1] * len(shape)
        for b in layout.warp_bases:
            for d, v in enumerate(b):
                if v:
                    out[d] *= 2
                    break
        return out
    parent = getattr(layout, "parent", None)
    if parent is not None:  # SliceLayout, DotOperandLayout
        return warps_per_cta(parent, shape)
    return list(layout.warps_per_cta)

