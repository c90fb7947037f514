"""AMD matrix-core register layouts under Gluon's names (``AMDMFMALayout``, ``AMDWMMALayout``).

``AMDMFMALayout`` (CDNA3/CDNA4) lowers to ``#tile_amd.mfma``; ``DotOperandLayout`` over it is
an mfma operand (``#tile_amd.dot_op``). Kiln does not lower wmma (RDNA) yet: that layout only
records Gluon's arguments, since Gluon code builds layouts at import time (Triton's own tests
do, in their parameter lists); a kernel that uses one gets an error at its line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from .._constexpr import _unwrap
from .._layouts import DistributedLayout, _int_tuple, _is_pow2, _list_text

__all__ = ["AMDMFMALayout", "AMDWMMALayout"]


def _check_positive(owner, layout, names):
    """Every entry of the list fields ``names`` is at least 1. Unlowered shapes are refused
    where a kernel uses the layout, but a zero or negative count is no layout at all: say so
    here, at the line that builds it, not when the module is parsed (at the kernel's def)."""
    for name in names:
        values = getattr(layout, name)
        if values is not None and any(v < 1 for v in values):
            raise ValueError(f"{owner}: {name} entries must be positive, got {list(values)}")


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
class AMDMFMALayout(DistributedLayout):
    """The accumulator layout of AMD's mfma instructions (Gluon's ``AMDMFMALayout``).

    ``version`` is the CDNA generation (1: gfx908, 2: gfx90a, 3: gfx942, 4: gfx950),
    ``instr_shape`` the instruction's ``[M, N, K]`` (``[32, 32, k]`` or ``[16, 16, k]``; k
    picks the instruction, e.g. ``[32, 32, 8]`` or, on gfx950, ``[32, 32, 16]`` for fp16;
    ``[4, 64, 64]``, or ``[64, 4, 64]`` transposed, runs the 4x4 instructions with one operand
    shared by their 16 blocks, as Triton).
    In a 64-lane wave, lane l holds column l % N of an M x N block and 4 consecutive rows from
    4 (l // N), repeated 8 rows apart in a 32 x 32 block; ``transposed`` swaps rows and
    columns (each lane holds consecutive elements of a row: better for stores and chained
    dots). A warp computes ``tiles_per_warp`` blocks; warps tile the tensor
    ``warps_per_cta[1]`` across first. ``element_bitwidth`` is 32 (f32 or i32 accumulators)
    or 64 (f64, ``instr_shape`` ``[16, 16, 4]``: lane l holds column l % 16 and rows
    l // 16, 4 + l // 16, 8 + ..., one a register, as v_mfma_f64_16x16x4_f64 writes them).
    With three ``warps_per_cta`` entries the layout is batched ([B, M, N], warps along the
    batch dimension after M and N, as Triton's). A version picks its generation's
    instructions (CDNA1's bf16 takes ``[32, 32, 4]`` / ``[16, 16, 8]``, two a lane; f64 and
    the four-a-lane bf16 forms start at version 2; CDNA3 replaced the i8 ``[32, 32, 8]`` /
    ``[16, 16, 16]`` forms by ``[32, 32, 16]`` / ``[16, 16, 32]``); an older version runs on a
    newer chip where its instruction is still there. Layouts Gluon accepts but Kiln cannot
    lower (other shapes, a ``cga_layout``) are built and refused where a kernel uses them."""

    _operands_follow_rank = True  # DotOperandLayout over a batched layout is 3-D too

    version: int
    instr_shape: Sequence[int]
    transposed: bool
    warps_per_cta: Sequence[int]
    element_bitwidth: Optional[int] = None
    tiles_per_warp: Optional[Sequence[int]] = None
    cga_layout: Sequence = field(default=())

    def __post_init__(self):
        object.__setattr__(self, "version", _unwrap(self.version))
        object.__setattr__(self, "transposed", bool(_unwrap(self.transposed)))
        object.__setattr__(self, "instr_shape", _int_tuple("instr_shape", self.instr_shape))
        object.__setattr__(self, "warps_per_cta", _int_tuple("warps_per_cta",
                                                             self.warps_per_cta))
        bits = _unwrap(self.element_bitwidth)
        object.__setattr__(self, "element_bitwidth", 32 if bits is None else bits)
        tiles = _unwrap(self.tiles_per_warp)
        object.__setattr__(self, "tiles_per_warp",
                           (1,) * len(self.warps_per_cta) if tiles is None
                           else _int_tuple("tiles_per_warp", tiles))
        object.__setattr__(self, "cga_layout",
                           tuple(tuple(b) for b in (_unwrap(self.cga_layout) or ())))
        # Gluon's own checks, at construction.
        if not isinstance(self.version, int) or not 1 <= self.version <= 4:
            raise ValueError(f"AMDMFMALayout: version must be in [1, 4], got {self.version!r}")
        _check_positive("AMDMFMALayout", self, ("instr_shape", "warps_per_cta",
                                                "tiles_per_warp"))
        if len(self.instr_shape) != 3:
            raise ValueError(f"AMDMFMALayout: instr_shape must be [M, N, K], got "
                             f"{list(self.instr_shape)}")
        if list(self.instr_shape[:2]) not in ([32, 32], [16, 16], [64, 4], [4, 64]):
            raise ValueError(f"AMDMFMALayout: invalid instruction shape "
                             f"{list(self.instr_shape)}")
        if self.element_bitwidth not in (32, 64):
            raise ValueError(f"AMDMFMALayout: element_bitwidth must be 32 or 64, got "
                             f"{self.element_bitwidth}")

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _problem(self):
        what = None
        if self.rank not in (2, 3):
            what = f"rank {self.rank}: mfma accumulators are 2-D, or 3-D (batched)"
        elif self.rank == 3 and self.tiles_per_warp[0] != 1:
            what = (f"tiles_per_warp {list(self.tiles_per_warp)}: a batched layout's batch "
                    f"entry is 1")
        elif list(self.instr_shape[:2]) == [4, 64] and self.transposed:
            what = (f"instr_shape {list(self.instr_shape)} is not transposed (transposed, use "
                    f"[64, 4, k])")
        elif list(self.instr_shape[:2]) == [64, 4] and not self.transposed:
            what = (f"instr_shape {list(self.instr_shape)} must be transposed (not transposed, "
                    f"use [4, 64, k])")
        elif self.element_bitwidth == 64 and list(self.instr_shape[:2]) != [16, 16]:
            what = (f"element_bitwidth 64 with instr_shape {list(self.instr_shape)}: the f64 "
                    f"mfma Kiln lowers is 16x16x4 (v_mfma_f64_16x16x4_f64)")
        elif self.cga_layout:
            what = "cga_layout: AMD has no clusters"
        elif not all(_is_pow2(v) for v in self.warps_per_cta + self.tiles_per_warp):
            what = "warps_per_cta and tiles_per_warp must be powers of 2"
        return f"{self!r}: {what}" if what else None

    def _attr_text(self, render) -> str:
        problem = self._problem()
        if problem:
            raise ValueError(problem)
        return (f"#tile_amd.mfma<{{version = {self.version}, instrShape = "
                f"{_list_text(self.instr_shape)}, transposed = "
                f"{'true' if self.transposed else 'false'}, warpsPerCTA = "
                f"{_list_text(self.warps_per_cta)}, tilesPerWarp = "
                f"{_list_text(self.tiles_per_warp)}, elementBitWidth = "
                f"{self.element_bitwidth}}}>")

    # DotOperandLayout over this layout (kiln.language.DotOperandLayout asks its parent).
    def _check_dot_operand(self, operand_index, k_width):
        if not _is_pow2(k_width) or not 1 <= k_width <= 32:
            raise ValueError(f"DotOperandLayout: k_width must be a power of 2 in [1, 32] for "
                             f"an mfma operand, got {k_width}")

    def _dot_operand_text(self, operand_index, k_width, render) -> str:
        return (f"#tile_amd.dot_op<{{opIdx = {operand_index}, parent = {render(self)}, "
                f"kWidth = {k_width}}}>")

    def mangle(self) -> str:
        return (f"MFMA{self.version}_{'x'.join(map(str, self.instr_shape))}_"
                f"{int(self.transposed)}_{'x'.join(map(str, self.warps_per_cta))}_"
                f"{self.element_bitwidth}_{'x'.join(map(str, self.tiles_per_warp))}"
                f"{'C' + '_'.join('x'.join(map(str, b)) for b in self.cga_layout) if self.cga_layout else ''}"
                f"MFMA")


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
        object.__setattr__(self, "version", _unwrap(self.version))
        if isinstance(self.version, bool) or not isinstance(self.version, int) or \
                self.version < 1:
            raise ValueError(f"AMDWMMALayout: version must be a positive int, got "
                             f"{self.version!r}")
        _check_positive("AMDWMMALayout", self, ("warps_per_cta", "instr_shape",
                                                "tiles_per_warp"))
