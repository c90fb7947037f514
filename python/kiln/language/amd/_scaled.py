"""CDNA4's scaled mfma (Gluon's ``amd.cdna4.mfma_scaled`` and ``get_mfma_scale_layout``).

``v_mfma_scale_f32_16x16x128_f8f6f4`` / ``_32x32x64_`` multiply OCP microscaled operands:
e4m3 / e5m2 (a byte a value) or e2m1 (two values a byte, packed along K, lower nibble first),
each 32 consecutive K values of a row of ``a`` (a column of ``b``) scaled by one E8M0 byte
``s`` (2 ** (s - 127)). A lane holds 32 K values of one row and the one scale the instruction
reads for them; :func:`get_mfma_scale_layout` puts each scale in that lane.

Operands take ``k_width`` 16, the instruction's own K order. e4m3 / e5m2 operands may take
``k_width`` 32 (32 consecutive K values a lane group, as aiter's Gluon kernels pass them):
the instruction then sums K in another order, which both operands must share, and each of
its scales covers 16 values of two different 32-value blocks, so the scales must be None or
one int byte (MFMAScaledOpToLLVM.cpp)."""

from __future__ import annotations

from .. import _core as core
from .._constexpr import _unwrap, constexpr_function
from .._core import tensor
from .._layouts import DistributedLinearLayout
from ._layouts import AMDMFMALayout

FORMATS = {"e2m1": 2, "e4m3": 1, "e5m2": 1}  # format -> K values per byte
_FP8 = {"e4m3": "float8e4nv", "e5m2": "float8e5"}


def _bits(n):
    return n.bit_length() - 1


@constexpr_function
def get_mfma_scale_layout(dot_operand_layout, shape, scale_factor=32):
    """The layout of the E8M0 scales of a scaled-mfma operand in ``dot_operand_layout``:
    ``shape`` is ``[M, K // 32]`` for a, ``[N, K // 32]`` for b. Lane ``i + M q`` of an
    M x N instruction holds the scale of row (column) ``i``'s K block ``q``; further K blocks
    are registers, then the warp's tiles, the warps along M (N) and the repeats."""
    scale_factor = _unwrap(scale_factor)
    if scale_factor != 32:
        raise ValueError(f"get_mfma_scale_layout: CDNA4 scales one block of 32 K values, "
                         f"scale_factor must be 32, got {scale_factor}")
    parent = getattr(dot_operand_layout, "parent", None)
    if not isinstance(parent, AMDMFMALayout):
        raise TypeError(f"get_mfma_scale_layout: expects a DotOperandLayout over an "
                        f"AMDMFMALayout, got {dot_operand_layout!r}")
    shape = [int(_unwrap(d)) for d in _unwrap(shape)]
    if len(shape) != 2 or parent.rank != 2:
        raise ValueError(f"get_mfma_scale_layout: 2-D scales only, got shape {shape}")
    mn, ks = shape
    op = dot_operand_layout.operand_index
    mdim = parent.instr_shape[0]
    if mdim not in (16, 32):
        raise ValueError(f"get_mfma_scale_layout: the scaled mfma is 16x16x128 or 32x32x64, "
                         f"got instr_shape {list(parent.instr_shape)}")
    for name, v in (("M" if op == 0 else "N", mn), ("K // 32", ks)):
        if v < 1 or v & (v - 1):
            raise ValueError(f"get_mfma_scale_layout: {name} = {v} must be a power of 2")
    lane_groups = 64 // mdim
    clip = lambda b: [b[0] if b[0] < mn else 0, b[1] if b[1] < ks else 0]  # noqa: E731
    reg = [[0, 1 << i] for i in range(_bits(lane_groups), _bits(ks))]
    tiles = parent.tiles_per_warp[0 if op == 0 else 1]
    reg += [[mdim << i, 0] for i in range(_bits(tiles))]
    lane = [clip([1 << i, 0]) for i in range(_bits(mdim))]
    lane += [clip([0, 1 << i]) for i in range(_bits(lane_groups))]
    # Warps in the accumulator's order (N first): along the operand's own dimension they
    # step by its tiles, along the other they hold the same scales.
    wm, wn = parent.warps_per_cta
    step = mdim * tiles
    own, other = (wm, wn) if op == 0 else (wn, wm)
    own_bases = [clip([step << i, 0]) for i in range(_bits(own))]
    other_bases = [[0, 0]] * _bits(other)
    warp = other_bases + own_bases if op == 0 else own_bases + other_bases
    covered = step * own
    reg = [clip(b) for b in reg]
    reg += [[covered << i, 0] for i in range(_bits(max(1, mn // covered)))]
    reg = [b for b in reg if b != [0, 0]]
    return DistributedLinearLayout(reg, lane, warp, [], shape)


def _check_operand(sem, name, x, idx, acc_layout, fmt):
    if not isinstance(x, tensor) or not x.type.is_block or len(x.shape) != 2:
        raise TypeError(f"mfma_scaled: {name} must be a 2-D tensor, got {x!r}")
    sem.check_dot_operand("mfma_scaled", name, x, idx, acc_layout, "16")
    lay = x.type.layout
    if lay.k_width != 16 and not (lay.k_width == 32 and fmt in _FP8):
        raise ValueError(f"mfma_scaled: {name}'s k_width must be 16 (a lane group holds 16 "
                         f"bytes of K), or 32 for e4m3 / e5m2 data, got {lay.k_width} for "
                         f"{fmt}")
    ok = x.dtype in (core.uint8, core.int8) or (fmt in _FP8 and x.dtype == getattr(core, _FP8[fmt]))
    if not ok:
        raise TypeError(f"mfma_scaled: {name} is {x.dtype.name}, which cannot hold {fmt} data "
                        f"(uint8 bytes{' or ' + _FP8[fmt] if fmt in _FP8 else ', two values a byte'})")


def _scale(sem, scale, operand, name, shape):
    """A scale tensor of ``shape``: None is 2**0 (0x7F), an int a splat of that E8M0 byte."""
    scale = _unwrap(scale)
    if isinstance(scale, tensor):
        if scale.dtype not in (core.uint8, core.int8):
            raise TypeError(f"mfma_scaled: {name} must hold E8M0 bytes (uint8), got "
                            f"{scale.dtype.name}")
        if [int(_unwrap(d)) for d in scale.shape] != shape:
            raise ValueError(f"mfma_scaled: {name} must be {shape[0]} x {shape[1]} (one scale "
                             f"per 32 K values), got {[int(_unwrap(d)) for d in scale.shape]}")
        return scale
    if scale is None:
        scale = 0x7F
    if isinstance(scale, bool) or not isinstance(scale, int):
        raise TypeError(f"mfma_scaled: {name} must be None, an E8M0 byte (an int, 2 ** "
                        f"(s - 127)) or a uint8 tensor, got {scale!r}")
    if not 0 <= scale <= 255:
        raise ValueError(f"mfma_scaled: {name} = {scale} is not a byte")
    layout = get_mfma_scale_layout(operand.type.layout, shape)
    return sem.full(shape, scale, core.uint8, layout)


def mfma_scaled(sem, a, a_scale, a_format, b, b_scale, b_format, acc):
    a_format, b_format = _unwrap(a_format), _unwrap(b_format)
    for name, f in (("a_format", a_format), ("b_format", b_format)):
        if f not in FORMATS:
            raise ValueError(f"mfma_scaled: {name} must be 'e2m1', 'e4m3' or 'e5m2', got {f!r}")
    if not isinstance(acc, tensor) or not acc.type.is_block or \
            not isinstance(acc.type.layout, AMDMFMALayout):
        raise TypeError(f"mfma_scaled: acc must be a tensor in an AMDMFMALayout, got {acc!r}")
    _check_operand(sem, "a", a, 0, acc.type.layout, a_format)
    _check_operand(sem, "b", b, 1, acc.type.layout, b_format)
    kw = (a.type.layout.k_width, b.type.layout.k_width)
    if 32 in kw:
        if kw != (32, 32):
            raise ValueError(f"mfma_scaled: a and b must both have k_width 32 when one does "
                             f"(k_width 32 sums K in an order of its own, which both operands "
                             f"must share), got {kw[0]} and {kw[1]}")
        for name, sc in (("a_scale", a_scale), ("b_scale", b_scale)):
            if isinstance(_unwrap(sc), tensor):
                raise ValueError(f"mfma_scaled: with k_width 32 operands {name} must be None "
                                 f"or an int byte: the instruction applies each scale to 16 "
                                 f"K values of two 32-value blocks there; use k_width 16 for "
                                 f"per-block scales")
    (m, ka), (kb, n) = ([int(_unwrap(d)) for d in t.shape] for t in (a, b))
    k = ka * FORMATS[a_format]
    if kb * FORMATS[b_format] != k or [int(_unwrap(d)) for d in acc.shape] != [m, n]:
        raise ValueError(f"mfma_scaled: shapes do not multiply: a {[m, ka]} ({a_format}), b "
                         f"{[kb, n]} ({b_format}), acc {[int(_unwrap(d)) for d in acc.shape]} (e2m1 holds two K "
                         f"values a byte)")
    if k % 32:
        raise ValueError(f"mfma_scaled: K = {k} is not a multiple of the 32 values a scale covers")
    a_scale = _scale(sem, a_scale, a, "a_scale", [m, k // 32])
    b_scale = _scale(sem, b_scale, b, "b_scale", [n, k // 32])
    attrs = {"aFormat": f'"{a_format}"', "bFormat": f'"{b_format}"'}
    handle = sem.b.create("tile_amd.mfma_scaled", [a, a_scale, b, b_scale, acc], [acc.type],
                          attrs)[0]
    return tensor(handle, acc.type)
