"""AMD matrix-core register layouts under Gluon's names (``AMDMFMALayout``, ``AMDWMMALayout``).

Kiln does not lower mfma or wmma yet (the AMD matrix-core issue), so these layouts only record
Gluon's arguments: Gluon code builds them at import time (Triton's own tests do, in their
parameter lists), and that must work; a kernel that uses one gets an error at its line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from .._constexpr import _unwrap
from .._layouts import DistributedLayout, _int_tuple

__all__ = ["AMDMFMALayout", "AMDWMMALayout"]


class _NotLowered(DistributedLayout):
    _what = ""

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _attr_text(self, render) -> str:
        raise ValueError(f"{self!r}: Kiln does not lower AMD {self._what} layouts yet")

    def mangle(self) -> str:
        return "".join(ch for ch in repr(self) if ch.isalnum())


@dataclass(frozen=True)
class AMDMFMALayout(_NotLowered):
    """The accumulator layout of AMD's mfma instructions (Gluon's ``AMDMFMALayout``)."""

    version: int
    instr_shape: Sequence[int]
    transposed: bool
    warps_per_cta: Sequence[int]
    element_bitwidth: Optional[int] = None
    tiles_per_warp: Optional[Sequence[int]] = None
    cga_layout: Sequence = field(default=())
    _what = "mfma"

    def __post_init__(self):
        object.__setattr__(self, "instr_shape", _int_tuple("instr_shape", self.instr_shape))
        object.__setattr__(self, "warps_per_cta", _int_tuple("warps_per_cta",
                                                             self.warps_per_cta))
        if self.tiles_per_warp is not None:
            object.__setattr__(self, "tiles_per_warp",
                               _int_tuple("tiles_per_warp", self.tiles_per_warp))
        object.__setattr__(self, "cga_layout",
                           tuple(tuple(b) for b in (_unwrap(self.cga_layout) or ())))


@dataclass(frozen=True)
class AMDWMMALayout(_NotLowered):
    """The accumulator layout of AMD's wmma instructions (Gluon's ``AMDWMMALayout``)."""

    version: int
    transposed: bool
    warps_per_cta: Sequence[int]
    instr_shape: Optional[Sequence[int]] = None
    tiles_per_warp: Optional[Sequence[int]] = None
    cga_layout: Sequence = field(default=())
    _what = "wmma"

    def __post_init__(self):
        object.__setattr__(self, "warps_per_cta", _int_tuple("warps_per_cta",
                                                             self.warps_per_cta))
        for name in ("instr_shape", "tiles_per_warp"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _int_tuple(name, getattr(self, name)))
        object.__setattr__(self, "cga_layout",
                           tuple(tuple(b) for b in (_unwrap(self.cga_layout) or ())))
