"""mbarriers (sm_90a), with Gluon's names (``triton.experimental.gluon.language.nvidia.hopper.
mbarrier``): a 64-bit shared-memory word that counts arrivals (and, for TMA, transaction
bytes) per phase::

    from kiln.language.nvidia.hopper import mbarrier

    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    ...
    mbarrier.arrive(bar)          # thread 0, after a CTA barrier: completes phase 0
    mbarrier.wait(bar, 0)         # every thread: returns once phase 0 has completed
    mbarrier.invalidate(bar)

``init``, ``invalidate``, ``arrive`` and ``expect`` are made by one thread on behalf of the
CTA (``arrive`` after a CTA barrier, so that every thread's earlier writes are released with
the arrival; ``expect`` arms the barrier for TMA bytes and publishes nothing, so it has no
barrier); ``wait`` spins in every thread. On a fresh barrier (phase 0 in
progress) ``wait(bar, 1)`` returns at once, the usual way a producer's first wait on an
"empty" barrier passes.
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from ..._layouts import SwizzledSharedLayout
from .._mbarrier_word import check_barrier as _barrier

__all__ = ["MBarrierLayout", "allocate_mbarrier", "init", "invalidate", "expect", "wait",
           "arrive", "fence_init_release_cluster"]

_MAX_COUNT = (1 << 20) - 1


def MBarrierLayout(cga_layout=()):
    """The shared layout of mbarrier words (Gluon's ``MBarrierLayout``): unswizzled."""
    return SwizzledSharedLayout(1, 1, 1, [0], cga_layout=cga_layout)


def _multicta(num_ctas, two_cta=False):
    """The layout of ``num_ctas`` barrier words, one in each CTA of a cluster (Gluon's
    ``MBarrierLayout.multicta``: bases [[1], [2], ...])."""
    num_ctas, two_cta = _unwrap(num_ctas), _unwrap(two_cta)
    if isinstance(num_ctas, bool) or not isinstance(num_ctas, int) or num_ctas < 1 or \
            num_ctas & (num_ctas - 1):
        raise ValueError(f"MBarrierLayout.multicta: num_ctas must be a power of two, got "
                         f"{num_ctas!r}")
    if two_cta:
        raise ValueError("MBarrierLayout.multicta: two_cta=True (a barrier two CTAs share, "
                         "for Blackwell's two-CTA MMA) is not supported on Hopper")
    return MBarrierLayout([[1 << i] for i in range(num_ctas.bit_length() - 1)])


MBarrierLayout.multicta = _multicta


@builtin
def allocate_mbarrier(batch=None, two_ctas=False, _semantic=None):
    """A new mbarrier in shared memory (Gluon's helper, after Triton 3.6): one word (shape
    [1]), or ``batch`` of them (shape [batch, 1], ``bars.index(i)`` is one); initialize each
    with ``init``. In a cluster of ``num_ctas`` CTAs, each CTA has its own word (shape
    [num_ctas] or [batch, num_ctas], as in Gluon). Barriers that CTAs share (``two_ctas``)
    are not supported."""
    batch, two_ctas = _unwrap(batch), _unwrap(two_ctas)
    if two_ctas:
        raise ValueError(f"allocate_mbarrier: barriers shared by two CTAs of a cluster "
                         f"(two_ctas={two_ctas!r}, for Blackwell's two-CTA MMA) are not "
                         f"supported")
    n = _semantic.num_ctas
    layout = MBarrierLayout.multicta(n) if n > 1 else MBarrierLayout()
    if batch is None:
        return _semantic.allocate_shared_memory(core.int64, [n], layout, None)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise TypeError(f"allocate_mbarrier: batch must be a positive constexpr int, got "
                        f"{batch!r}")
    return _semantic.allocate_shared_memory(core.int64, [batch, n], layout, None)


@builtin
def fence_init_release_cluster(_semantic=None):
    """``fence.mbarrier_init.release.cluster``: this thread's earlier ``init``s become visible
    to the cluster's other CTAs; pair it with ``cluster.barrier(relaxed=True)``."""
    _semantic.b.create("tile_nv.fence_mbarrier_init_cluster", [], [])


def _int(value, what, name, lo):
    value = _unwrap(value)
    if isinstance(value, tensor) or isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what}: {name} must be a constexpr int, got {value!r}")
    if not lo <= value <= _MAX_COUNT:
        raise ValueError(f"{what}: {name} must be in [{lo}, {_MAX_COUNT}], got {value}")
    return value


def _pred(sem, pred, what):
    """[] for an always-true predicate, else [i1 scalar]."""
    pred = _unwrap(pred)
    if pred is True:
        return []
    if pred is False or pred is None:
        pred = sem.as_tensor(False)
    p = sem.cast(sem.as_tensor(pred), core.int1)
    if p.type.is_block:
        raise TypeError(f"{what}: pred must be a scalar, got {p.type}")
    return [p]


@builtin
def init(mbarrier, count, _semantic=None):
    """Thread 0 initializes ``mbarrier`` for ``count`` arrivals per phase (phase 0 starts).

    In a cluster (``num_ctas`` > 1) another CTA's multicast copy may signal this barrier, so
    an init at the kernel's top level is followed, as in Gluon, by
    ``fence_init_release_cluster()`` and a relaxed cluster barrier: no CTA goes on before
    every CTA's barriers are initialized. (Inside an ``if``, a loop or a partition, where not
    every thread of the cluster passes, write them yourself where they all do.)"""
    bar = _barrier(mbarrier, "mbarrier.init")
    count = _int(count, "mbarrier.init", "count", 1)
    _semantic.b.create("tile_nv.mbarrier_init", [bar], [], {"count": f"{count} : i32"})
    block = _semantic.b.block
    if _semantic.num_ctas > 1 and block is _semantic.entry_block:
        # Inits in a row share one fence and barrier: the previous init's move after this one
        # when only views and constants (what indexes a batch of barriers) came in between.
        last = getattr(_semantic, "_cluster_init_fence", None)
        if last is not None and last[0] is block and \
                all(any(f'"{op}"' in line for op in _MOVABLE_PAST_FENCE)
                    for line in block.lines[last[1] + 3:-1]):
            del block.lines[last[1]:last[1] + 3]
        _semantic._cluster_init_fence = (block, len(block.lines))
        _semantic.b.create("tile_nv.fence_mbarrier_init_cluster", [], [])
        _semantic.b.create("tile_nv.cluster_arrive", [], [], {"relaxed": "true"})
        _semantic.b.create("tile_nv.cluster_wait", [], [])


# Ops between two inits that the first one's init fence may move past (pure: views of shared
# memory and constants).
_MOVABLE_PAST_FENCE = ("tile.memdesc_index", "tile.memdesc_subslice", "arith.constant")


@builtin
def invalidate(mbarrier, _semantic=None):
    """Thread 0 invalidates ``mbarrier``; its word may be reused afterwards."""
    bar = _barrier(mbarrier, "mbarrier.invalidate")
    _semantic.b.create("tile_nv.mbarrier_invalidate", [bar], [])


@builtin
def expect(mbarrier, bytes=None, pred=True, bytes_per_cta=None, *, from_cta=None,
           _semantic=None):
    """Thread 0 (where ``pred``) arrives on ``mbarrier`` expecting ``bytes`` transaction bytes
    (``mbarrier.arrive.expect_tx``): the phase completes once the copies signalling it (TMA,
    bulk copies) have delivered them. ``bytes_per_cta`` is Gluon's later name: in a cluster
    each CTA's barrier expects the bytes its own part receives (``desc.nbytes_per_cta``). The
    count is a constexpr or a run-time integer of at most 32 bits.

    ``from_cta`` (Gluon's, a cluster: a mask of a CTA's rank bits, default ``num_ctas - 1``)
    routes the arrival: the CTA whose rank has the bits outside the mask clear arrives, for
    every CTA that shares its masked bits, on each one's barrier; the others arrive nowhere.
    ``from_cta=0``: CTA 0 arms every CTA's barrier (the expect of a multicast copy it
    issues)."""
    sem = _semantic
    bar = _barrier(mbarrier, "mbarrier.expect")
    if (bytes is None) == (bytes_per_cta is None):
        raise TypeError("mbarrier.expect: give the byte count once (bytes, or its later name "
                        "bytes_per_cta)")
    count = _unwrap(bytes if bytes is not None else bytes_per_cta)
    dynamic = []
    if isinstance(count, tensor):
        if count.type.is_block or not count.dtype.is_int() or count.dtype.is_bool() or \
                count.dtype.primitive_bitwidth > 32:
            raise TypeError(f"mbarrier.expect: bytes must be a constexpr int or a scalar "
                            f"integer of at most 32 bits, got {count!r}")
        dynamic = [sem.cast(count, core.int32)]
        n = 0
    else:
        n = _int(count, "mbarrier.expect", "bytes", 0)
    attrs = {"bytes": f"{n} : i32"}
    from_cta = _unwrap(from_cta)
    if from_cta is not None:
        full = sem.num_ctas - 1
        if isinstance(from_cta, bool) or not isinstance(from_cta, int) or \
                not 0 <= from_cta <= full:
            raise ValueError(f"mbarrier.expect: from_cta must be a constexpr int in [0, "
                             f"num_ctas - 1 = {full}] (bits of a CTA's rank), got {from_cta!r}")
        if full & ~from_cta:
            attrs["cta_mask"] = f"{full & ~from_cta} : i32"
    preds = _pred(sem, pred, "mbarrier.expect")
    attrs["operandSegmentSizes"] = sem.b.array_attr([1, len(dynamic), len(preds)])
    sem.b.create("tile_nv.mbarrier_expect", [bar] + dynamic + preds, [], attrs)


@builtin
def wait(mbarrier, phase, pred=True, deps=(), _semantic=None):
    """Every thread (where ``pred``) waits until the phase of ``mbarrier`` with parity ``phase``
    (its low bit) has completed. ``deps`` (buffers the wait guards) is accepted as in Gluon;
    Kiln's allocator keeps buffers alive through their uses already."""
    bar = _barrier(mbarrier, "mbarrier.wait")
    ph = _semantic.cast(_semantic.as_tensor(_unwrap(phase)), core.int32)
    if ph.type.is_block:
        raise TypeError(f"mbarrier.wait: phase must be a scalar, got {ph.type}")
    for d in deps:
        if not isinstance(d, core.shared_memory_descriptor):
            raise TypeError(f"mbarrier.wait: deps must be shared memory descriptors, got {d!r}")
    _semantic.b.create("tile_nv.mbarrier_wait",
                       [bar, ph] + _pred(_semantic, pred, "mbarrier.wait"), [])


@builtin
def arrive(mbarrier, *, count=1, pred=True, cta_mask=0, from_cta=None, _semantic=None):
    """Thread 0 (where ``pred``), after a CTA barrier, arrives ``count`` times on ``mbarrier``
    (release: the CTA's earlier shared-memory writes are visible to the threads whose wait
    on this phase returns).

    ``cta_mask`` (a cluster: bit i is bit i of a CTA's rank) sends the arrivals instead to the
    barrier at the same place in every CTA whose rank differs from this one's only in those
    bits, this CTA's included (Gluon's ``cta_mask`` of ``nvidia.rubin.mbarrier.arrive``; on
    Hopper, one arrive a CTA, each releasing as a local one does): how the readers of a slot
    that a multicast copy refills tell the producers of every CTA that shares it.

    ``from_cta`` (Gluon's, after Triton 3.8: a mask of a CTA's rank bits, default
    ``num_ctas - 1``) routes one arrival to each barrier: the CTA whose rank has the bits
    outside the mask clear arrives, for every CTA that shares its masked bits, on each one's
    barrier; the others arrive nowhere (``from_cta=0``: CTA 0 arrives on every CTA's)."""
    sem = _semantic
    bar = _barrier(mbarrier, "mbarrier.arrive")
    count = _int(count, "mbarrier.arrive", "count", 1)
    mask = _unwrap(cta_mask)
    n = sem.num_ctas
    if isinstance(mask, bool) or not isinstance(mask, int):
        raise TypeError(f"mbarrier.arrive: cta_mask must be a constexpr int, got {mask!r}")
    if mask and not 0 < mask <= n - 1:
        raise ValueError(f"mbarrier.arrive: cta_mask must be in [0, num_ctas - 1 = {n - 1}] "
                         f"(bits of a CTA's rank in its cluster), got {mask}")
    preds = _pred(sem, pred, "mbarrier.arrive")
    from_cta = _unwrap(from_cta)
    if from_cta is not None:
        if mask:
            raise ValueError("mbarrier.arrive: give cta_mask or from_cta, not both")
        if isinstance(from_cta, bool) or not isinstance(from_cta, int) or \
                not 0 <= from_cta <= n - 1:
            raise ValueError(f"mbarrier.arrive: from_cta must be a constexpr int in [0, "
                             f"num_ctas - 1 = {n - 1}] (bits of a CTA's rank), got "
                             f"{from_cta!r}")
        mask = (n - 1) & ~from_cta
    attrs = {"count": f"{count} : i32"}
    if mask:
        attrs["cta_mask"] = f"{mask} : i32"
        if from_cta is not None:
            # Only the group's leader (its rank's broadcast bits clear) arrives, on each
            # barrier of the group: the op says so, so that the checks count its arrivals.
            attrs["from_leader"] = "unit"
    sem.b.create("tile_nv.mbarrier_arrive", [bar] + preds, [], attrs)
