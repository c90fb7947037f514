"""NVIDIA layouts, with Gluon's names: ``NVMMASharedLayout`` (what TMA writes and wgmma reads),
``NVMMADistributedLayout`` (the mma.sync and wgmma accumulators) and ``DotOperandLayout`` (their
operands in registers). All are re-exported by ``kiln.language``, as Gluon's ``gl`` namespace
has them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .. import _cga
from .._constexpr import _unwrap
from .._layouts import (BlockedLayout, DistributedLayout, SharedLayout, _int_tuple, _is_pow2,
                        _list_text)

__all__ = ["NVMMASharedLayout", "NVMMADistributedLayout", "DotOperandLayout"]

_DEFAULT_FOR: dict = {}  # get_default_for's arguments -> its layout (layouts are immutable)


@dataclass(frozen=True, repr=False)
class NVMMASharedLayout(SharedLayout):
    """Rows of the contiguous dimension cut into ``swizzle_byte_width``-byte chunks (16 when
    0), one chunk of every row stored before the next chunk; in each chunk the 16-byte units
    are XORed with the row's phase: the 32/64/128-byte swizzle modes of TMA and wgmma
    (Gluon's ``NVMMASharedLayout``). ``transposed`` makes the second-to-last dimension the
    contiguous one. Buffers in it are 1024-byte aligned."""

    swizzle_byte_width: int
    element_bitwidth: int
    rank: int = 2
    transposed: bool = False
    fp4_padded: bool = False
    cga_layout: Sequence = field(default=())

    def __post_init__(self):
        for name in ("swizzle_byte_width", "element_bitwidth", "rank"):
            value = _unwrap(getattr(self, name))
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"NVMMASharedLayout: {name} must be an int, got {value!r}")
            object.__setattr__(self, name, value)
        if self.swizzle_byte_width not in (0, 32, 64, 128):
            raise ValueError(f"NVMMASharedLayout: swizzle_byte_width must be 0, 32, 64 or "
                             f"128, got {self.swizzle_byte_width}")
        if self.element_bitwidth not in (8, 16, 32, 64):
            raise ValueError(f"NVMMASharedLayout: element_bitwidth must be 8, 16, 32 or 64, "
                             f"got {self.element_bitwidth}")
        if not 1 <= self.rank <= 5:
            raise ValueError(f"NVMMASharedLayout: rank must be in [1, 5], got {self.rank}")
        object.__setattr__(self, "transposed", bool(_unwrap(self.transposed)))
        if self.rank == 1 and (self.swizzle_byte_width or self.transposed):
            raise ValueError(f"NVMMASharedLayout: a rank-1 layout is neither swizzled nor "
                             f"transposed, got swizzle_byte_width={self.swizzle_byte_width}, "
                             f"transposed={self.transposed}")
        object.__setattr__(self, "fp4_padded", bool(_unwrap(self.fp4_padded)))
        if self.fp4_padded:
            raise ValueError("NVMMASharedLayout: fp4_padded is not supported yet (Kiln has no "
                             "fp4 types)")
        object.__setattr__(self, "cga_layout", _cga.normalize(
            "NVMMASharedLayout", _unwrap(self.cga_layout), 2 if self.cga_layout else None))

    @staticmethod
    def get_default_for(block_shape, dtype, transposed=False, fp4_padded=False,
                        cga_layout=None):
        """The widest swizzle (128, 64, 32 bytes, else 0) whose width divides the bytes of
        the block's contiguous dimension; 0 for blocks of fewer than 8 rows (of one CTA's part
        where ``cga_layout`` splits the block among a cluster's CTAs)."""
        # Host code calls this for every launch: the layout of the same arguments, once.
        try:
            key = (tuple(block_shape), dtype, transposed, fp4_padded,
                   None if cga_layout is None else repr(cga_layout))
            found = _DEFAULT_FOR.get(key)
        except TypeError:  # unhashable arguments: computed every time
            key, found = None, None
        if found is None:
            found = NVMMASharedLayout._default_for(block_shape, dtype, transposed, fp4_padded,
                                                   cga_layout)
            if key is not None:
                if len(_DEFAULT_FOR) > 4096:
                    _DEFAULT_FOR.clear()
                _DEFAULT_FOR[key] = found
        return found

    @staticmethod
    def _default_for(block_shape, dtype, transposed, fp4_padded, cga_layout):
        shape = list(_int_tuple("block_shape", block_shape))
        dtype = _unwrap(dtype)
        bits = dtype.primitive_bitwidth
        if cga_layout:  # the swizzle of one CTA's part, as Gluon picks it
            bases = _cga.normalize("NVMMASharedLayout", _unwrap(cga_layout), 2)
            shape = shape[:-2] + list(_cga.per_cta_shape(shape[-2:], bases))
        if transposed:
            shape = shape[1:] + shape[:1]
        contiguous = shape[-1] * bits // 8
        swizzle = 0
        for width in (128, 64, 32):
            if contiguous >= width and contiguous % width == 0:
                swizzle = width
                break
        outer = 1
        for d in shape[:-1]:
            outer *= d
        if len(shape) < 2 or outer < 8:
            swizzle = 0
        return NVMMASharedLayout(swizzle, bits, len(shape), transposed, fp4_padded,
                                 cga_layout or ())

    def to_ir(self) -> str:
        return (f"#tile_nv.nvmma_shared<swizzle = {self.swizzle_byte_width}, elementBitWidth = "
                f"{self.element_bitwidth}, layoutRank = {self.rank}, transposed = "
                f"{'true' if self.transposed else 'false'}>")

    def permuted(self, perm):
        perm = list(perm)
        lead = list(range(self.rank - 2))
        if perm[:-2] != lead:
            return None
        if perm[-2:] == [self.rank - 2, self.rank - 1]:
            return self
        return NVMMASharedLayout(self.swizzle_byte_width, self.element_bitwidth, self.rank,
                                 not self.transposed)

    def reshaped(self, shape, new_shape):
        # Unit dimensions added or dropped in front of the last two (Gluon's
        # ``smem.index(i).reshape([rows, cols])`` of a [slots, 1, rows, cols] ring): the
        # leading dimensions' offsets come after the rows' and the chunks', in order, and a
        # dimension of 1 has none, so the bytes are the same.
        shape, new_shape = list(shape), list(new_shape)
        if self.cga_layout or len(shape) < 2 or len(new_shape) < 2 or \
                shape[-2:] != new_shape[-2:]:
            return None
        if [d for d in shape[:-2] if d != 1] != [d for d in new_shape[:-2] if d != 1]:
            return None
        return NVMMASharedLayout(self.swizzle_byte_width, self.element_bitwidth,
                                 len(new_shape), self.transposed)

    reshape_as_reinterpret = True
    map_is_offset = True

    @property
    def cga_split(self):
        return _cga.split(self.cga_layout, len(self.cga_layout[0])) if self.cga_layout else None

    def descriptor_spec(self) -> dict:
        """The fields a TMA descriptor records (kiln.nvidia.hopper.TensorDescriptor)."""
        spec = {"swizzle_byte_width": self.swizzle_byte_width,
                "element_bitwidth": self.element_bitwidth, "rank": self.rank,
                "transposed": self.transposed, "fp4_padded": self.fp4_padded}
        if self.cga_layout:
            spec["cga_layout"] = [list(b) for b in self.cga_layout]
        return spec

    def mangle(self) -> str:
        cga = "C" + "_".join("x".join(map(str, b)) for b in self.cga_layout) \
            if self.cga_layout else ""
        return (f"NVS{self.swizzle_byte_width}_{self.element_bitwidth}_{self.rank}_"
                f"{int(self.transposed)}{'P' if self.fp4_padded else ''}{cga}NVS")

    def __repr__(self) -> str:
        return (f"NVMMASharedLayout(swizzle_byte_width={self.swizzle_byte_width}, "
                f"element_bitwidth={self.element_bitwidth}, rank={self.rank}, "
                f"transposed={self.transposed})")


@dataclass(frozen=True, repr=False)
class NVMMADistributedLayout(DistributedLayout):
    """The accumulator layout of the tensor cores (Gluon's ``NVMMADistributedLayout``).

    * ``version=[3, 0]`` (wgmma, sm_90a): warps tile 16-row x ``instr_shape[1]``-column blocks,
      ``warps_per_cta[0]`` down (4 consecutive warps take 64 rows) and ``warps_per_cta[1]``
      across; ``instr_shape`` is ``[16, n, k]``. Any ``warps_per_cta`` is a layout (for
      conversions); ``warpgroup_mma`` needs 4 consecutive warps down (``warps_per_cta[0]`` a
      multiple of 4).
    * ``version=[2, 0]`` or ``[2, 1]`` (mma.sync, sm_80+): warps tile 16 x 8 blocks,
      consecutive warps across first; ``instr_shape`` is ``[16, 8]``.
    * Rank 3 (``warps_per_cta=[batch, m, n]``, ``instr_shape`` ``[1, 16, 8]`` for mma.sync):
      the same tiles, one batch index per tile, warps along the batch last. Such layouts
      exist for conversions, loads and stores; no instruction takes them yet."""

    version: Sequence[int]
    warps_per_cta: Sequence[int]
    instr_shape: Sequence[int]
    cga_layout: Sequence = field(default=())

    def __post_init__(self):
        object.__setattr__(self, "version", _int_tuple("version", self.version))
        object.__setattr__(self, "warps_per_cta", _int_tuple("warps_per_cta",
                                                             self.warps_per_cta))
        object.__setattr__(self, "instr_shape", _int_tuple("instr_shape", self.instr_shape))
        object.__setattr__(self, "cga_layout", _cga.normalize(
            "NVMMADistributedLayout", _unwrap(self.cga_layout), len(self.warps_per_cta)))
        if not self.warps_per_cta or not all(_is_pow2(w) for w in self.warps_per_cta):
            raise ValueError(f"NVMMADistributedLayout: warps_per_cta must be powers of 2, got "
                             f"{list(self.warps_per_cta)}")
        # What Gluon accepts but Kiln cannot lower yet (other versions, batched rank-3
        # accumulators) is an error where a kernel uses the layout, not where Python code
        # builds it: Gluon code builds layouts at import time (e.g. test parameters).
        object.__setattr__(self, "_unsupported", None)
        if self.version not in ((2, 0), (2, 1), (3, 0)):
            object.__setattr__(self, "_unsupported",
                               f"NVMMADistributedLayout: version must be [2, 0], [2, 1] "
                               f"(mma.sync) or [3, 0] (wgmma), got {list(self.version)}")
            return
        rank = len(self.warps_per_cta)
        if rank not in (2, 3):
            object.__setattr__(self, "_unsupported",
                               f"NVMMADistributedLayout: warps_per_cta must be [m, n] or "
                               f"[batch, m, n], got {list(self.warps_per_cta)}")
            return
        problem = None
        if self.version[0] == 2:
            want = (16, 8) if rank == 2 else (1, 16, 8)
            if self.instr_shape != want:
                problem = (f"NVMMADistributedLayout: version {list(self.version)} (mma.sync) "
                           f"has instr_shape {list(want)}"
                           f"{' (batched: warps_per_cta [batch, m, n])' if rank == 3 else ''}, "
                           f"got {list(self.instr_shape)}")
        elif len(self.instr_shape) != 3 or self.instr_shape[0] != 16 or \
                not _is_pow2(self.instr_shape[1]) or not 8 <= self.instr_shape[1] <= 256:
            problem = (f"NVMMADistributedLayout: instr_shape must be [16, n, k] with n a power "
                       f"of 2 in [8, 256], got {list(self.instr_shape)}")
        object.__setattr__(self, "_unsupported", problem)

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _attr_text(self, render) -> str:
        if self._unsupported:
            raise ValueError(self._unsupported)
        text = (f"#tile_nv.nvmma<{{versionMajor = {self.version[0]}, versionMinor = "
                f"{self.version[1]}, warpsPerCTA = {_list_text(self.warps_per_cta)}, "
                f"instrShape = {_list_text(self.instr_shape)}}}>")
        return _cga.wrap(self.cga_layout, text) if self.cga_layout else text

    @property
    def cga_bases(self) -> tuple:
        return self.cga_layout

    def without_cga(self):
        if not self.cga_layout:
            return self
        return NVMMADistributedLayout(self.version, self.warps_per_cta, self.instr_shape)

    def mangle(self) -> str:
        cga = "C" + "_".join("x".join(map(str, b)) for b in self.cga_layout) \
            if self.cga_layout else ""
        return (f"NVD{self.version[0]}{self.version[1]}_"
                f"{'x'.join(map(str, self.warps_per_cta))}_"
                f"{'x'.join(map(str, self.instr_shape))}{cga}NVD")

    def __repr__(self) -> str:
        return (f"NVMMADistributedLayout(version={list(self.version)}, warps_per_cta="
                f"{list(self.warps_per_cta)}, instr_shape={list(self.instr_shape)})")


@dataclass(frozen=True, repr=False)
class DotOperandLayout(DistributedLayout):
    """Operand ``operand_index`` (0: A, M x K; 1: B, K x N) of the tensor-core instruction whose
    accumulator is laid out by ``parent`` (an ``NVMMADistributedLayout``), held in registers:
    each thread holds ``k_width`` consecutive K elements together (2 for 16-bit types), lanes
    split K in 4 and M or N in 8, and warps follow the parent's warps (Gluon's
    ``DotOperandLayout``). For wgmma (version 3) only A may be held in registers.

    With an ``AMDMFMALayout`` parent it is an mfma operand (``kiln.language.amd``): a lane
    holds ``k_width`` consecutive K elements, lanes split M or N by the instruction's, then K.

    With a ``BlockedLayout`` parent it is an operand of ``dot_fma``: each thread holds the whole
    K extent of the rows (A) or columns (B) of its accumulator elements; ``k_width`` is ignored
    (Gluon passes 0)."""

    operand_index: int
    parent: DistributedLayout
    k_width: int

    def __post_init__(self):
        for name in ("operand_index", "k_width"):
            value = _unwrap(getattr(self, name))
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"DotOperandLayout: {name} must be an int, got {value!r}")
            object.__setattr__(self, name, value)
        parent = _unwrap(self.parent)
        object.__setattr__(self, "parent", parent)
        if self.operand_index not in (0, 1):
            raise ValueError(f"DotOperandLayout: operand_index must be 0 (A) or 1 (B), got "
                             f"{self.operand_index}")
        if isinstance(parent, BlockedLayout):
            # dot_fma's operands: k_width means nothing there (Gluon passes 0).
            if parent.rank not in (2, 3):
                raise ValueError(f"DotOperandLayout: a BlockedLayout parent has rank 2 or 3 "
                                 f"([batch,] M x N), got {parent.rank}")
            return
        if hasattr(parent, "_check_dot_operand"):  # another vendor's accumulator (AMD mfma)
            parent._check_dot_operand(self.operand_index, self.k_width)
            return
        if not isinstance(parent, NVMMADistributedLayout):
            raise TypeError(f"DotOperandLayout: parent must be an NVMMADistributedLayout, an "
                            f"AMDMFMALayout or a BlockedLayout (dot_fma), got {parent!r}")
        if parent.version[0] == 3 and self.operand_index != 0:
            raise ValueError("DotOperandLayout: wgmma (version [3, 0]) reads B from shared "
                             "memory; only operand 0 (A) is held in registers")
        if not _is_pow2(self.k_width) or not 1 <= self.k_width <= 16:
            raise ValueError(f"DotOperandLayout: k_width must be a power of 2 in [1, 16], got "
                             f"{self.k_width}")

    @property
    def rank(self) -> int:
        # Blocked and NVMMA parents may be batched, and any parent that says its operands
        # follow its rank (a vendor's matrix-core layout); the others are 2-D.
        return self.parent.rank if isinstance(self.parent, (BlockedLayout,
                                                            NVMMADistributedLayout)) or \
            getattr(self.parent, "_operands_follow_rank", False) else 2

    @property
    def cga_bases(self) -> tuple:
        # The parent's split, except along K: every CTA holds the whole reduction dimension
        # of its operand (a parent basis along N is a broadcast of A, one along M of B).
        k = self.rank - 1 if self.operand_index == 0 else self.rank - 2
        return tuple(tuple(0 if d == k else v for d, v in enumerate(b))
                     for b in self.parent.cga_bases)

    def without_cga(self):
        parent = self.parent.without_cga()
        return self if parent is self.parent else DotOperandLayout(self.operand_index, parent,
                                                                   self.k_width)

    def _attr_text(self, render) -> str:
        if hasattr(self.parent, "_dot_operand_text"):
            return self.parent._dot_operand_text(self.operand_index, self.k_width, render)
        bases = self.cga_bases
        if isinstance(self.parent, BlockedLayout):
            text = (f"#tile.dot_operand<{{opIdx = {self.operand_index}, parent = "
                    f"{render(self.parent.without_cga() if bases else self.parent)}}}>")
            return _cga.wrap(bases, text) if bases else text
        text = (f"#tile_nv.dot_op<{{opIdx = {self.operand_index}, parent = "
                f"{render(self.parent.without_cga() if bases else self.parent)}, "
                f"kWidth = {self.k_width}}}>")
        return _cga.wrap(bases, text) if bases else text

    def mangle(self) -> str:
        return f"DO{self.operand_index}_{self.k_width}_{self.parent.mangle()}DO"

    def __repr__(self) -> str:
        return (f"DotOperandLayout(operand_index={self.operand_index}, parent="
                f"{self.parent!r}, k_width={self.k_width})")


# Gluon's _layouts module defines these layouts too, and kernels import them from there
# (``from triton.experimental.gluon.language._layouts import DotOperandLayout``).
from .. import _layouts as _gluon_layouts  # noqa: E402

for _cls in (NVMMASharedLayout, NVMMADistributedLayout, DotOperandLayout):
    setattr(_gluon_layouts, _cls.__name__, _cls)
del _cls
