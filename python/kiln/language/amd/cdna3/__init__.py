"""CDNA3 (gfx942) builtins, as in Gluon's ``amd.cdna3``.

* :func:`buffer_load`: a load through a buffer resource: one scalar base pointer plus a tensor
  of int32 *element* offsets. Lanes whose ``mask`` is false get an offset past the resource's
  end, so the hardware returns 0 for them without touching memory, and the result is
  ``other`` there;
* :func:`buffer_store`: the matching store; masked lanes are dropped by the hardware.

Offsets must stay below 2**31 bytes from the base. ``cache`` is a cache modifier: loads take
'', '.ca', '.cg' (bypass the CU cache: sc0), '.cv' (sc0 sc1); stores '', '.wb', '.cg', '.cs'
(non-temporal), '.wt'. Every wave issues every buffer instruction (no branch around masked
lanes), which is what lets Kiln count them in ``s_waitcnt vmcnt(N)``.
"""

from ..._core import builtin
from .. import _buffer

__all__ = ["buffer_load", "buffer_store"]


@builtin
def buffer_load(ptr, offsets, mask=None, other=None, cache=None, _semantic=None):
    """``ptr[offsets]`` for a scalar pointer ``ptr`` and int32 element ``offsets``; ``other``
    (0 when omitted) where ``mask`` is false."""
    return _buffer.buffer_load(_semantic, ptr, offsets, mask, other, cache)


@builtin
def buffer_store(stored_value, ptr, offsets, mask=None, cache=None, _semantic=None):
    """Store ``stored_value`` to ``ptr[offsets]`` where ``mask`` is true."""
    return _buffer.buffer_store(_semantic, stored_value, ptr, offsets, mask, cache)
