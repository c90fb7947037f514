"""Named barriers: barriers of some of a CTA's warps (``bar.sync`` / ``bar.arrive`` with a
barrier id and a thread count), as CUTLASS's ``NamedBarrier``. Two warp groups take turns
through them (each waits for its own barrier and arrives at the other's) without the shared
memory and polling of an mbarrier.

``sync(id, num_threads)`` arrives at barrier ``id`` and waits until ``num_threads`` threads
have arrived there; ``arrive(id, num_threads)`` counts the calling warps and goes on. Memory
accesses before an arrival are visible to the threads that waited for that phase. Ids are 0
to 13; the thread count is whole warps (a multiple of 32, at most 1024) and the same at every
use of an id. Kiln maps id k onto the hardware's barrier 15 - k: its own barriers count from 0
up (the CTA's, and in a kernel with ``warp_specialize`` one more for its start and one per
worker partition), so a kernel with P worker partitions has ids 0 to 13 - P."""

from __future__ import annotations

from .._core import _unwrap, builtin

__all__ = ["sync", "arrive"]


def _args(id, num_threads, what):
    id, num_threads = _unwrap(id), _unwrap(num_threads)
    for name, v in (("id", id), ("num_threads", num_threads)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"named_barrier.{what}: {name} must be a constexpr int, got {v!r}")
    return {"id": f"{id} : i32", "num_threads": f"{num_threads} : i32"}


@builtin
def sync(id, num_threads, _semantic=None):
    """Arrive at named barrier ``id`` and wait until ``num_threads`` threads have arrived
    (``bar.sync``)."""
    _semantic.b.create("tile_nv.named_barrier_sync", [], [], _args(id, num_threads, "sync"))


@builtin
def arrive(id, num_threads, _semantic=None):
    """Arrive at named barrier ``id`` of ``num_threads`` threads without waiting
    (``bar.arrive``)."""
    _semantic.b.create("tile_nv.named_barrier_arrive", [], [],
                       _args(id, num_threads, "arrive"))
