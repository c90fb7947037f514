"""CDNA4 (gfx950) builtins, as in Gluon's ``amd.cdna4``: everything of
:mod:`kiln.language.amd.cdna3` (``buffer_load``, ``buffer_store``, ``mfma``) plus :mod:`.async_copy`:
``global_load_to_shared`` and ``buffer_load_to_shared`` (direct-to-LDS copies),
``commit_group`` and ``wait_group`` (groups and exact ``s_waitcnt vmcnt(N)`` waits) and
``load_shared_relaxed`` (an LDS read a wait already ordered); and the microscaled matrix
product :func:`mfma_scaled` with :func:`get_mfma_scale_layout` for its scales."""

from ..._core import builtin
from ..._constexpr import _unwrap
from .._layouts import AMDMFMALayout
from ..cdna3 import (buffer_load, buffer_store, mfma, buffer_atomic_add,  # noqa: F401
                     buffer_atomic_and, buffer_atomic_or, buffer_atomic_xor, buffer_atomic_max,
                     buffer_atomic_min, buffer_atomic_xchg)
from .. import _padded, _scaled, _scaled_upcast
from .._scaled import get_mfma_scale_layout
from . import async_copy

__all__ = ["compute_efficient_padded_shared_layout", "scaled_upcast", "buffer_load", "buffer_store", "mfma", "mfma_scaled",
           "get_mfma_scale_layout", "buffer_atomic_add", "buffer_atomic_and",
           "buffer_atomic_or", "buffer_atomic_xor", "buffer_atomic_max", "buffer_atomic_min",
           "buffer_atomic_xchg", "async_copy"]


@builtin
def mfma_scaled(a, a_scale, a_format, b, b_scale, b_format, acc, _semantic=None):
    """``(a * a_scale) @ (b * b_scale) + acc`` by ``v_mfma_scale_f32_*_f8f6f4`` (gfx950).

    ``a`` (M x K) and ``b`` (K x N) hold OCP microscaling formats named by ``a_format`` /
    ``b_format``: ``"e4m3"`` or ``"e5m2"`` (a value a byte: uint8, or float8e4nv / float8e5)
    or ``"e2m1"`` (two values a uint8 byte, packed along K, lower nibble first: a is M x K/2,
    b K/2 x N), in ``DotOperandLayout(0 / 1, acc's layout, 16)``. ``acc`` is float32 in an
    ``AMDMFMALayout(4, [16, 16, 128] or [32, 32, 64], ...)``. Each scale is an E8M0 byte
    ``s`` (2 ** (s - 127)) for 32 consecutive K values of a row of a (``a_scale``: M x K/32)
    or a column of b (``b_scale``: N x K/32), in :func:`get_mfma_scale_layout`'s layout; None
    means 1 (0x7F) and an int is that byte for every block."""
    return _scaled.mfma_scaled(_semantic, a, a_scale, a_format, b, b_scale, b_format, acc)


@builtin
def scaled_upcast(src, scale, elem_type, axis=None, _semantic=None):
    """``src`` (fp8, or fp4 packed two a byte along ``axis``, the low nibble first) times
    2**(e - 127) for the raw E8M0 bytes e of ``scale`` (int8 or uint8, the result's shape and
    layout), in ``elem_type`` (float16 or bfloat16), rounded once to nearest even (Gluon's
    ``amd.cdna4.scaled_upcast``; see kiln.language.amd._scaled_upcast)."""
    return _scaled_upcast.scaled_upcast(_semantic, src, scale, elem_type, axis)


def compute_efficient_padded_shared_layout(dot_operand_layout, shape, dtype, is_k_contig=True):
    """The padded shared layout (a ``PaddedSharedLayout``) Triton's AMD backend picks for the
    mfma operand ``dot_operand_layout`` (an ``AMDMFMALayout`` version 4 parent) of ``shape``
    ([BM, BK] for A, [BK, BN] for B) and ``dtype`` (4-, 8- or 16-bit; packed fp4 as uint8)
    filled by direct-to-LDS copies, K contiguous or not: LDS reads without bank conflicts
    where the shape allows. None where the choice does not apply (see
    kiln.language.amd._padded). Gluon's helper, usable in a kernel and on the host."""
    dot, dtype = _unwrap(dot_operand_layout), _unwrap(dtype)
    if not isinstance(getattr(dot, "parent", None), AMDMFMALayout):
        raise TypeError(f"compute_efficient_padded_shared_layout: dot_operand_layout must be a "
                        f"DotOperandLayout with an AMDMFMALayout parent, got {dot!r}")
    if dot.parent.version != 4:
        raise ValueError(f"compute_efficient_padded_shared_layout: only an mfma version 4 "
                         f"(CDNA4) parent is supported, got version {dot.parent.version}")
    shape = [int(_unwrap(d)) for d in _unwrap(shape)]
    return _padded.efficient_padded_layout(
        dot.operand_index, dot.k_width, dot.parent.instr_shape[dot.operand_index],
        dtype.primitive_bitwidth, shape, bool(_unwrap(is_k_contig)))
