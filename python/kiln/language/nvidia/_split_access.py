"""``buf.gather(indices, axis)`` and ``buf.scatter(values, indices, axis)`` on a buffer the CTAs
of a cluster split (Gluon's distributed shared memory): the ``split_gather`` and
``split_scatter`` hooks of NVIDIA targets, which read or write each element in the CTA whose
part holds it (``tile_nv.cluster_gather`` / ``cluster_scatter``: mapa and ld / st.shared::cluster)."""

from __future__ import annotations

from .. import _core as core
from .._layouts import AutoLayout


def _targets(sem, smem, indices, axis, what):
    """(local indices, ranks, keep) of each element: index i along ``axis`` is element
    i % part of the part in the CTA whose split rank bits are those of i // part (a basis
    moving 2^k parts along the axis is bit k); the rank bits the buffer's split repeats (zero
    bases) stay the accessing CTA's own, its replica. The buffer and the indices may be split
    along the axis only."""
    bases = [tuple(b) for b in (getattr(smem.type.layout, "cga_layout", ()) or ())]
    ibases = [tuple(b) for b in getattr(indices.type.layout, "cga_bases", ())]
    if any(v for b in bases + ibases for d, v in enumerate(b) if d != axis) or \
            isinstance(indices.type.layout, AutoLayout):
        raise NotImplementedError(
            f"{what} of a buffer or tensor split among the CTAs of a cluster is supported "
            f"where the buffer and the indices are split along the axis ({axis}) only; got "
            f"the buffer's cga_layout {[list(b) for b in bases]} and the indices' "
            f"{[list(b) for b in ibases]}")
    part = smem.type.layout.per_cta_shape(smem.type.shape)[axis]
    i32 = core.int32
    idx = sem.cast(indices, i32)
    local = sem.binary("and", idx, sem.as_tensor(part - 1, i32))
    tile = sem.binary("rshift", idx, sem.as_tensor(part.bit_length() - 1, i32))
    ranks = sem.binary("and", idx, sem.as_tensor(0, i32))
    # Rank bits past the buffer's bases (all of them for a buffer every CTA holds whole):
    # the accessing CTA's own.
    keep = 0xF & ~((1 << len(bases)) - 1)
    for b, vec in enumerate(bases):
        step = vec[axis]
        if step == 0:
            keep |= 1 << b
            continue
        bit = sem.binary("and", sem.binary("rshift", tile,
                                           sem.as_tensor(step.bit_length() - 1, i32)),
                         sem.as_tensor(1, i32))
        ranks = sem.binary("or", ranks, sem.binary("lshift", bit, sem.as_tensor(b, i32)))
    # The kernel's end waits for the cluster (kernel_end): no CTA leaves while another may
    # still access its shared memory.
    sem.cluster_shared_reads = True
    return local, ranks, keep


def split_gather(sem, smem, indices, axis, result_type):
    local, ranks, keep = _targets(sem, smem, indices, axis, "gather")
    return sem._op("tile_nv.cluster_gather", [smem, local, ranks], result_type,
                   {"axis": f"{axis} : i32", "keep": f"{keep} : i32"})


def split_scatter(sem, smem, values, indices, axis):
    local, ranks, keep = _targets(sem, smem, indices, axis, "scatter")
    sem.b.create("tile_nv.cluster_scatter", [values, smem, local, ranks], [],
                 {"axis": f"{axis} : i32", "keep": f"{keep} : i32"})
