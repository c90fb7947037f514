"""Direct-to-LDS copies, with Gluon's names (``amd.cdna4.async_copy``).

The hardware writes a wave's copy at one LDS base (M0) plus lane x width, so the register
layout must give each wave's lanes consecutive slots of ``dest`` for the copy's width: 4 bytes
on gfx942, 4 or 16 on gfx950 (a compile error at the call otherwise, never an ``llc`` abort).
Copies complete in order with the wave's other vector-memory instructions; ``wait_group(n)``
counts commit groups, and Kiln turns it into the exact ``s_waitcnt vmcnt(N)``: N the fewest
vector-memory instructions issued after the awaited group on any path (buffer loads and stores
included)::

    from kiln.language.amd.cdna4 import async_copy as cp

    cp.buffer_load_to_shared(bufs.index(k % NBUF), a_ptr, offs)
    cp.commit_group()
    cp.wait_group(NBUF - 2)
    x = cp.load_shared_relaxed(bufs.index(k % NBUF), layout)

A plain ``.load(layout)`` after the wait gets the same code when Kiln can prove the wait
covers the copies into its bytes (tile-annotate-local-load-alias); ``load_shared_relaxed``
asserts it, and Kiln warns if its analysis finds a copy that may still be in flight.
"""

from ..._core import builtin
from .. import _buffer

__all__ = ["global_load_to_shared", "buffer_load_to_shared", "commit_group", "wait_group",
           "load_shared_relaxed"]


@builtin
def global_load_to_shared(dest, ptr, mask=None, other=None, cache_modifier="", _semantic=None):
    """Start copying ``*ptr`` (a tensor of pointers shaped like ``dest``) into ``dest`` with
    ``global_load_lds``. Lanes whose ``mask`` is false read nothing and write ``other``
    (zeros when None) with an LDS store of their own: they branch around the copy, so a
    wave with no lane active may issue no copy instruction (wait counts assume it does not)."""
    return _buffer.global_load_to_shared(_semantic, dest, ptr, mask, other, cache_modifier)


@builtin
def buffer_load_to_shared(dest, ptr, offsets, mask=None, other=None, cache_modifier="",
                          _semantic=None):
    """Start copying ``ptr[offsets]`` into ``dest`` with ``buffer_load ... lds``; masked lanes
    read past the buffer's end and write zeros, with no branch (every wave issues the copy).
    A non-zero ``other`` is written by the masked lanes themselves, branched around the copy
    as in ``global_load_to_shared``."""
    return _buffer.buffer_load_to_shared(_semantic, dest, ptr, offsets, mask, other,
                                         cache_modifier)


@builtin
def commit_group(_semantic=None):
    """Close the group of this wave's copies issued since its last commit."""
    return _semantic.async_commit_group()


@builtin
def wait_group(num_outstanding=0, _semantic=None):
    """Wait until at most ``num_outstanding`` (a constexpr) of the most recent groups are in
    flight."""
    return _semantic.async_wait(num_outstanding)


@builtin
def load_shared_relaxed(smem, layout, _semantic=None):
    """Read ``smem`` in ``layout``, asserting that a wait already ordered it after the copies
    into it: no conservative wait before the LDS read."""
    return _buffer.load_shared_relaxed(_semantic, smem, layout)
