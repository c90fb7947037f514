"""CDNA3 (gfx942) builtins, as in Gluon's ``amd.cdna3``.

* :func:`buffer_load`: a load through a buffer resource: one scalar base pointer plus a tensor
  of int32 *element* offsets. Lanes whose ``mask`` is false get an offset past the resource's
  end, so the hardware returns 0 for them without touching memory, and the result is
  ``other`` there;
* :func:`buffer_store`: the matching store; masked lanes are dropped by the hardware;
* :func:`mfma`: ``a @ b + acc`` on the matrix cores.

Offsets must stay below 2**31 bytes from the base. ``cache`` is a cache modifier: loads take
'', '.ca', '.cg' (bypass the CU cache: sc0), '.cv' (sc0 sc1); stores '', '.wb', '.cg', '.cs'
(non-temporal), '.wt'. Every wave issues every buffer instruction (no branch around masked
lanes), which is what lets Kiln count them in ``s_waitcnt vmcnt(N)``.
"""

from ..._core import _unwrap, builtin, tensor
from .. import _buffer
from .._layouts import AMDMFMALayout

__all__ = ["buffer_load", "buffer_store", "mfma"]


@builtin
def buffer_load(ptr, offsets, mask=None, other=None, cache=None, _semantic=None):
    """``ptr[offsets]`` for a scalar pointer ``ptr`` and int32 element ``offsets``; ``other``
    (0 when omitted) where ``mask`` is false."""
    return _buffer.buffer_load(_semantic, ptr, offsets, mask, other, cache)


@builtin
def buffer_store(stored_value, ptr, offsets, mask=None, cache=None, _semantic=None):
    """Store ``stored_value`` to ``ptr[offsets]`` where ``mask`` is true."""
    return _buffer.buffer_store(_semantic, stored_value, ptr, offsets, mask, cache)


@builtin
def mfma(a, b, acc, _semantic=None):
    """``a @ b + acc`` by ``v_mfma``: ``acc`` (M x N) in an ``AMDMFMALayout`` whose
    ``instr_shape`` names the instruction, ``a`` (M x K) and ``b`` (K x N) in
    ``DotOperandLayout(0 / 1, acc's layout, k_width)`` with one k_width. fp32, fp16, bf16
    into fp32 and int8 into int32 on gfx942 and gfx950; gfx950 adds the double-rate fp16,
    bf16 and int8 shapes (``[32, 32, 16]``, ``[16, 16, 32]``, int8 ``[32, 32, 32]``,
    ``[16, 16, 64]``) and fp8 (float8e4nv / float8e5, ``[32, 32, 16]``, ``[16, 16, 32]``).
    M, N and K must be multiples of the instruction's."""
    what = "mfma"
    for name, v in (("a", a), ("b", b), ("acc", acc)):
        if not isinstance(v, tensor) or not v.type.is_block or len(v.shape) != 2:
            raise TypeError(f"{what}: {name} must be a 2-D tensor, got {v!r}")
    layout = acc.type.layout
    if not isinstance(layout, AMDMFMALayout):
        raise TypeError(f"{what}: acc must be in an AMDMFMALayout, got {layout!r}")
    for idx, (name, v) in enumerate((("a", a), ("b", b))):
        lay = v.type.layout
        if getattr(lay, "operand_index", None) != idx or getattr(lay, "parent", None) != layout:
            raise TypeError(f"{what}: {name} must be in DotOperandLayout({idx}, acc's layout, "
                            f"k_width), got {lay!r}")
    if a.type.layout.k_width != b.type.layout.k_width:
        raise ValueError(f"{what}: a and b must have the same k_width, got "
                         f"{a.type.layout.k_width} and {b.type.layout.k_width}")
    (m, k), (k2, n) = [int(_unwrap(d)) for d in a.shape], [int(_unwrap(d)) for d in b.shape]
    if k2 != k or [int(_unwrap(d)) for d in acc.shape] != [m, n]:
        raise ValueError(f"{what}: shapes do not multiply: a {[m, k]}, b {[k2, n]}, acc "
                         f"{[int(_unwrap(d)) for d in acc.shape]}")
    handle = _semantic.b.create("tile_amd.mfma", [a, b, acc], [acc.type], {})[0]
    return tensor(handle, acc.type)
