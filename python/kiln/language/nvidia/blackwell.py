"""Blackwell's tensor-memory layouts, as descriptions only (Gluon's
``triton.experimental.gluon.language.nvidia.blackwell``).

Kiln compiles for Ampere and Hopper (sm_80, sm_90a) and CDNA: it has no tensor memory and no
``tcgen05`` instructions. A kernel written for both Hopper and Blackwell often builds its
accumulator's tensor-memory layout on the host, passes it as a constexpr and takes its Hopper
path inside (``isinstance(layout, TensorMemoryLayout)``, ``layout.two_ctas``). These two classes
let such a kernel compile its Hopper path; every Blackwell operation is absent, so a kernel that
reaches one fails at that line. The names Gluon's module re-exports from Hopper's and Ampere's
(``mma_v2``, ``async_copy``, ``mbarrier``, ``fence_async_shared``, ``async_store``) are here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from .._core import _unwrap
# What Gluon's Blackwell module re-exports from Hopper's and Ampere's (a kernel written for
# Blackwell and Ampere imports mma_v2 from here).
from .ampere import async_copy, mma_v2  # noqa: F401
from .hopper import async_store, fence_async_shared, mbarrier  # noqa: F401


def _bases(owner, bases) -> Tuple[Tuple[int, int], ...]:
    out = tuple(tuple(int(v) for v in _unwrap(b)) for b in (_unwrap(bases) or ()))
    if any(len(b) != 2 for b in out):
        raise ValueError(f"{owner}: every cga_layout basis has 2 entries, got {bases!r}")
    return out


@dataclass(frozen=True)
class TensorMemoryLayout:
    """A tensor-memory layout: ``block`` (rows, columns) of one CTA, ``col_stride`` 32-bit
    columns between adjacent elements, ``cga_layout``, ``two_ctas``, ``fp4_padded``."""

    block: Tuple[int, int]
    col_stride: int
    cga_layout: Tuple[Tuple[int, int], ...] = ()
    two_ctas: bool = False
    fp4_padded: bool = False

    def __post_init__(self):
        block = tuple(int(_unwrap(d)) for d in _unwrap(self.block))
        stride = int(_unwrap(self.col_stride))
        if len(block) != 2:
            raise ValueError(f"TensorMemoryLayout: block has 2 entries, got {self.block!r}")
        if stride < 1 or stride & (stride - 1):
            raise ValueError(f"TensorMemoryLayout: col_stride must be a power of two, got "
                             f"{stride}")
        object.__setattr__(self, "block", block)
        object.__setattr__(self, "col_stride", stride)
        object.__setattr__(self, "cga_layout", _bases("TensorMemoryLayout", self.cga_layout))
        object.__setattr__(self, "two_ctas", bool(_unwrap(self.two_ctas)))
        object.__setattr__(self, "fp4_padded", bool(_unwrap(self.fp4_padded)))


@dataclass(frozen=True)
class TensorMemoryScalesLayout:
    """The tensor-memory layout of block scales: ``cga_layout``."""

    cga_layout: Tuple[Tuple[int, int], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "cga_layout",
                           _bases("TensorMemoryScalesLayout", self.cga_layout))
