"""Barriers across a thread-block cluster (sm_90a), with Gluon's names after Triton 3.6
(``triton.experimental.gluon.language.nvidia.hopper.cluster``): ``arrive`` and ``wait`` split
``barrier.cluster`` in two, ``barrier`` does both. Every thread of every CTA of the cluster
takes part; a kernel launched without clusters is a cluster of one CTA. ``cta_rank()`` is this
CTA's rank in its cluster (Gluon's, after Triton 3.8)."""

from __future__ import annotations

from ..._core import _unwrap, builtin
from ... import _core as core

__all__ = ["arrive", "wait", "barrier", "cta_rank"]


def _relaxed(relaxed, what):
    relaxed = _unwrap(relaxed)
    if not isinstance(relaxed, bool):
        raise TypeError(f"{what}: relaxed must be a constexpr bool, got {relaxed!r}")
    return "true" if relaxed else "false"


@builtin
def arrive(relaxed=False, _semantic=None):
    """Arrive at the cluster barrier (``barrier.cluster.arrive``); with ``relaxed`` the
    arrival does not release this thread's earlier memory accesses."""
    _semantic.b.create("tile_nv.cluster_arrive", [], [],
                       {"relaxed": _relaxed(relaxed, "cluster.arrive")})


@builtin
def wait(_semantic=None):
    """Wait until every thread of the cluster has arrived (``barrier.cluster.wait``)."""
    _semantic.b.create("tile_nv.cluster_wait", [], [])


@builtin
def barrier(relaxed=False, _semantic=None):
    """``arrive(relaxed)`` then ``wait()``."""
    _semantic.b.create("tile_nv.cluster_arrive", [], [],
                       {"relaxed": _relaxed(relaxed, "cluster.barrier")})
    _semantic.b.create("tile_nv.cluster_wait", [], [])


@builtin
def cta_rank(_semantic=None):
    """This CTA's rank in its cluster, an int32 scalar in [0, num_ctas): 0 outside a cluster
    (``program_id`` is the cluster's index, as in Triton). A cluster's CTAs are launched next
    to each other along x: the rank is the low bits of the CTA's x index, the rank every
    cluster split of a layout uses."""
    sem = _semantic
    if sem.num_ctas == 1:
        return sem.as_tensor(0, core.int32)
    return sem.binary("and", sem._grid_op("program_id", 0), sem.num_ctas - 1)
