"""``cp.async`` copies from global to shared memory (sm_80 and later), with Gluon's names
(``triton.experimental.gluon.language.nvidia.ampere.async_copy``).

Each thread starts copying its elements of ``pointer`` into the same elements of ``smem``;
copies are grouped by :func:`commit_group` and awaited with :func:`wait_group`. A wait orders
only the issuing thread: Kiln inserts the CTA barrier that other threads' reads need after it
(and none when every thread reads back only what it copied itself)::

    from kiln.language.nvidia.ampere import async_copy as cp

    cp.async_copy_global_to_shared(bufs.index(k % NBUF), ptrs, mask=m)
    cp.commit_group()
    cp.wait_group(NBUF - 1)
    tile = bufs.index(k % NBUF).load(layout)

Copies move 4, 8 or 16 bytes per thread and instruction (``.cg`` for 16, ``.ca`` otherwise),
as wide as the register layout, the shared layout and the pointers' contiguity and alignment
allow; a narrower copy is a compile error at the call. Masked-off lanes write zeros.

``commit_group()`` and ``async_copy_global_to_shared`` return tokens (Gluon ignores their
results); ``wait_for(token)`` waits for a token's group with a count Kiln computes::

    prev = cp.commit_group()
    for k in range(n):
        ...copies...
        g = cp.commit_group()
        cp.wait_for(prev)          # becomes wait_group(1): one group may stay in flight
        prev = g
"""

from ..._core import _unwrap, builtin
from ... import _cache_policy as _cp
from .._mbarrier_word import check_barrier

__all__ = ["async_copy_global_to_shared", "async_load", "commit_group", "wait_group",
           "wait_for", "mbarrier_arrive"]


@builtin
def async_copy_global_to_shared(smem, pointer, mask=None, cache_modifier="", eviction_policy="",
                                volatile=False, cache_policy=None, _semantic=None):
    """Start copying ``*pointer`` (a tensor of pointers shaped like ``smem``) into ``smem``;
    where ``mask`` is false the buffer gets zeros. ``cache_policy`` (a ``CachePolicy``, or
    ``cache_modifier`` / ``eviction_policy``, not both): its cache modifier applies, the rest
    is a hint Kiln does not apply."""
    policy = _cp.normalize("async_copy_global_to_shared", cache_policy, cache_modifier,
                           eviction_policy)
    modifier = cache_modifier if policy is None else _cp.cache_modifier_of(policy)
    return _semantic.async_copy_global_to_local(smem, pointer, mask, modifier,
                                                eviction_policy, volatile)


async_load = async_copy_global_to_shared


@builtin
def commit_group(_semantic=None):
    """Close the group of this thread's async copies issued since its last commit."""
    return _semantic.async_commit_group()


@builtin
def wait_group(num_outstanding=0, _semantic=None):
    """Wait until at most ``num_outstanding`` (a constexpr) of this thread's most recent groups
    are still in flight."""
    return _semantic.async_wait(num_outstanding)


@builtin
def wait_for(*tokens, _semantic=None):
    """Kiln extension: wait until the groups of ``tokens`` (what ``commit_group`` or
    ``async_copy_global_to_shared`` returned, also carried through loops) have landed, leaving
    every later group in flight. Kiln computes the ``wait_group`` count: the fewest groups
    committed after theirs on any path (tile-insert-wait-counts)."""
    return _semantic.async_wait_for(tokens)


@builtin
def mbarrier_arrive(mbarrier, increment_count=True, _semantic=None):
    """Every thread: ``mbarrier``'s current phase also waits for the async copies this thread
    issued before (``cp.async.mbarrier.arrive``), whatever their commit groups; a
    ``mbarrier.wait`` on the phase sees them landed. With ``increment_count`` (the default)
    the copies' arrival does not count toward the barrier's ``init`` count."""
    bar = check_barrier(mbarrier, "async_copy.mbarrier_arrive")
    inc = "true" if _unwrap(increment_count) else "false"
    _semantic.b.create("tile_nv.async_copy_mbarrier_arrive", [bar], [], {"increment": inc})
