"""Accesses to a buffer the CTAs of a cluster split, where an element may lie in another CTA's
part (Gluon's distributed shared memory): the NVIDIA hooks ``split_gather``, ``split_scatter``,
``split_atomic``, ``split_load`` and ``split_store``. Each element is read or written in the CTA whose part holds
it, through ``mapa`` and ld / st.shared::cluster.

Two forms. Where the buffer and the indices are split along the gather's axis only (and the
buffer is not a view crossing the split), ``tile_nv.cluster_gather`` / ``cluster_scatter`` take
the index along the axis and each element's rank. Otherwise -- a tensor split differently from
the buffer, a view sliced along a split dimension (``kiln.language.cluster_view``) --
``tile_nv.cluster_load`` / ``cluster_store`` take every coordinate of every element in its
CTA's part: the element's coordinates in the view, plus the view's offsets, split into the part
(the low bits) and the CTA tile (the high bits, whose bits the buffer's cga bases name). A
buffer every CTA along some rank bits holds a copy of (a zero basis) is read in the reader's
own copy, and written in every copy the writer's tensor does not already reach through the
CTAs that repeat it."""

from __future__ import annotations

from .. import _core as core
from .._layouts import AutoLayout
from .._shape_ops import _position


def _buffer_bases(smem):
    """The buffer's split as cga bases (moves in CTA parts): a shared linear layout's block
    bases, when each moves by whole parts along one dimension, count as such."""
    layout = smem.type.layout
    blocks = getattr(layout, "block_bases", None)
    if blocks and not getattr(layout, "cga_layout", None):
        part = layout.cta_shape
        out = []
        for vec in blocks:
            moving = [(d, v) for d, v in enumerate(vec) if v]
            if len(moving) > 1 or any(v % part[d] for d, v in moving):
                return None  # not a set of whole parts
            out.append(tuple(v // part[d] if v else 0 for d, v in enumerate(vec)))
        return out
    return [tuple(b) for b in (getattr(layout, "cga_layout", ()) or ())]


def _whole(smem, what):
    """(the IR-level descriptor, the view's offsets in it) of a descriptor or cluster view."""
    whole = smem.whole if isinstance(smem, core.cluster_view) else smem
    offsets = smem.offsets if isinstance(smem, core.cluster_view) else (0,) * len(smem.type.shape)
    st = whole.type
    if len(st.shape) != st.layout.rank:
        raise ValueError(f"{what}: {smem.type} has leading ring dimensions; index a slot "
                         f"first (.index(i))")
    if st.layout.cga_split and _buffer_bases(whole) is None:
        raise NotImplementedError(f"{what}: a buffer split among the CTAs of a cluster by "
                                  f"{st.layout!r} is reachable from other CTAs only where "
                                  f"each CTA holds whole parts (a cga_layout, or block "
                                  f"bases that move by whole parts)")
    return whole, offsets


def _rank_bits(sem, bases, tiles):
    """(ranks, keep): the rank bits that a basis moving along a dimension takes from that
    dimension's CTA tile; the bits the buffer repeats (zero bases) or does not split (past its
    bases) stay the accessing CTA's own."""
    i32 = core.int32
    ranks = None
    keep = 0xF & ~((1 << len(bases)) - 1)
    for b, vec in enumerate(bases):
        moving = [(d, v) for d, v in enumerate(vec) if v]
        if not moving:
            keep |= 1 << b
            continue
        d, step = moving[0]
        bit = sem.binary("and", sem.binary("rshift", tiles[d],
                                           sem.as_tensor(step.bit_length() - 1, i32)),
                         sem.as_tensor(1, i32))
        bit = sem.binary("lshift", bit, sem.as_tensor(b, i32)) if b else bit
        ranks = bit if ranks is None else sem.binary("or", ranks, bit)
    # The kernel's end waits for the cluster (kernel_end): no CTA leaves while another may
    # still access its shared memory.
    sem.cluster_shared_reads = True
    return ranks, keep


def _coordinates(sem, shape, layout):
    """Each element's coordinate along each dimension: i32 tensors of ``shape`` in ``layout``."""
    return [_position(sem, layout, list(shape), d) for d in range(len(shape))]


def _locate_scattered(sem, smem, coords):
    """_locate for a buffer whose CTA parts are no boxes (a cluster view over flat runs, see
    SharedLinearLayout.scattered): each element's offset in its CTA's run and that CTA's rank
    bits, XORs of what each bit of its coordinates contributes (the layout's inverse)."""
    i32 = core.int32
    layout = smem.type.layout
    nbits = len(layout.offset_bases)
    combined = None
    for d, c in enumerate(coords):
        if smem.offsets[d]:
            c = sem.binary("add", c, sem.as_tensor(smem.offsets[d], i32))
        for i, (offset, rank) in enumerate(layout.scattered_map()[d]):
            mask = offset | (rank << nbits)
            if not mask:
                continue
            bit = sem.binary("and", sem.binary("rshift", c, sem.as_tensor(i, i32))
                             if i else c, sem.as_tensor(1, i32))
            term = sem.binary("mul", bit, sem.as_tensor(mask, i32))
            combined = term if combined is None else sem.binary("xor", combined, term)
    if combined is None:
        combined = sem.binary("and", coords[0], sem.as_tensor(0, i32))
    local = sem.binary("and", combined, sem.as_tensor((1 << nbits) - 1, i32))
    ranks = sem.binary("rshift", combined, sem.as_tensor(nbits, i32))
    moving = sum(1 << b for b, vec in enumerate(layout.block_bases) if any(vec))
    sem.cluster_shared_reads = True  # as _rank_bits
    zero = sem.binary("and", combined, sem.as_tensor(0, i32))
    return smem.whole, [zero] * (len(coords) - 1) + [local], ranks, 0xF & ~moving


def _locate(sem, smem, coords, what):
    """(IR descriptor, part coordinates, ranks, keep) of elements at ``coords`` of ``smem``."""
    if isinstance(smem, core.cluster_view) and smem.scattered:
        return _locate_scattered(sem, smem, coords)
    whole, offsets = _whole(smem, what)
    st = whole.type
    part = st.layout.per_cta_shape(st.shape)
    i32 = core.int32
    local, tiles = [], []
    for d, c in enumerate(coords):
        if offsets[d]:
            c = sem.binary("add", c, sem.as_tensor(offsets[d], i32))
        if part[d] == st.shape[d]:
            local.append(c)  # within the buffer (the view's bounds), every CTA's part
            tiles.append(None)
            continue
        local.append(sem.binary("and", c, sem.as_tensor(part[d] - 1, i32)))
        tiles.append(sem.binary("rshift", c, sem.as_tensor(part[d].bit_length() - 1, i32)))
    ranks, keep = _rank_bits(sem, _buffer_bases(whole), tiles)
    if ranks is None:
        ranks = sem.binary("and", coords[0], sem.as_tensor(0, i32))
    return whole, local, ranks, keep


def _axis_only(smem, indices, axis):
    """Whether cluster_gather / cluster_scatter's form fits: buffer and indices split along
    the axis only, the buffer not a view crossing the split."""
    if isinstance(smem, core.cluster_view) or isinstance(indices.type.layout, AutoLayout):
        return False
    if len(smem.type.shape) != smem.type.layout.rank:
        return False
    bases = _buffer_bases(smem)
    if bases is None:
        return False
    ibases = [tuple(b) for b in getattr(indices.type.layout, "cga_bases", ())]
    return not any(v for b in bases + ibases for d, v in enumerate(b) if d != axis)


def _targets(sem, smem, indices, axis):
    """(local indices, ranks, keep) of cluster_gather / cluster_scatter: index i along
    ``axis`` is element i % part of the part in the CTA whose split rank bits are those of
    i // part (a basis moving 2^k parts along the axis is bit k)."""
    part = smem.type.layout.per_cta_shape(smem.type.shape)[axis]
    i32 = core.int32
    idx = sem.cast(indices, i32)
    local = sem.binary("and", idx, sem.as_tensor(part - 1, i32))
    tile = sem.binary("rshift", idx, sem.as_tensor(part.bit_length() - 1, i32))
    tiles = [tile if d == axis else None for d in range(len(smem.type.shape))]
    ranks, keep = _rank_bits(sem, _buffer_bases(smem), tiles)
    if ranks is None:
        ranks = sem.binary("and", idx, sem.as_tensor(0, i32))
    return local, ranks, keep


def _replica_bits(sem, smem, layout):
    """The rank bits along which the buffer repeats (every CTA a copy: a zero basis, or no
    basis at all) but the tensor does not: a write must reach each of those copies."""
    whole = smem.whole if isinstance(smem, core.cluster_view) else smem
    bits = sem.num_ctas.bit_length() - 1
    bases = _buffer_bases(whole) or []
    tensor = [tuple(b) for b in getattr(layout, "cga_bases", ())]
    out = 0
    for b in range(bits):
        buffer_repeats = b >= len(bases) or not any(bases[b])
        tensor_moves = b < len(tensor) and any(tensor[b])
        if buffer_repeats and tensor_moves:
            out |= 1 << b
    return out


def _store_to_copies(sem, name, operands, ranks, keep, replicas):
    """``name`` (cluster_store / cluster_scatter-like, the ranks last but the attributes)
    once per combination of the ``replicas`` bits: each copy of a repeated buffer gets the
    elements (their rank bits set explicitly, no longer kept)."""
    i32 = core.int32
    bits = [1 << b for b in range(4) if replicas & (1 << b)]
    for combo in range(1 << len(bits)):
        fixed = sum(bit for k, bit in enumerate(bits) if combo & (1 << k))
        r = sem.binary("or", ranks, sem.as_tensor(fixed, i32)) if fixed else ranks
        sem.b.create(name, operands + [r], [], {"keep": f"{keep & ~replicas} : i32"})


def _indexed_coordinates(sem, indices, axis, what):
    if isinstance(indices.type.layout, AutoLayout):
        raise ValueError(f"{what}: indices need a concrete layout")
    coords = _coordinates(sem, indices.type.shape, indices.type.layout)
    coords[axis] = sem.cast(indices, core.int32)
    return coords


def split_gather(sem, smem, indices, axis, result_type):
    if _axis_only(smem, indices, axis):
        local, ranks, keep = _targets(sem, smem, indices, axis)
        return sem._op("tile_nv.cluster_gather", [smem, local, ranks], result_type,
                       {"axis": f"{axis} : i32", "keep": f"{keep} : i32"})
    coords = _indexed_coordinates(sem, indices, axis, "gather")
    whole, local, ranks, keep = _locate(sem, smem, coords, "gather")
    return sem._op("tile_nv.cluster_load", [whole] + local + [ranks], result_type,
                   {"keep": f"{keep} : i32"})


def split_scatter(sem, smem, values, indices, axis):
    replicas = _replica_bits(sem, smem, indices.type.layout)
    if _axis_only(smem, indices, axis) and not replicas:
        local, ranks, keep = _targets(sem, smem, indices, axis)
        sem.b.create("tile_nv.cluster_scatter", [values, smem, local, ranks], [],
                     {"axis": f"{axis} : i32", "keep": f"{keep} : i32"})
        return
    coords = _indexed_coordinates(sem, indices, axis, "scatter")
    whole, local, ranks, keep = _locate(sem, smem, coords, "scatter")
    _store_to_copies(sem, "tile_nv.cluster_store", [values, whole] + local, ranks, keep,
                     replicas)


def split_load(sem, smem, layout, result_type):
    coords = _coordinates(sem, smem.type.shape, layout)
    whole, local, ranks, keep = _locate(sem, smem, coords, "load from shared memory")
    return sem._op("tile_nv.cluster_load", [whole] + local + [ranks], result_type,
                   {"keep": f"{keep} : i32"})


def split_store(sem, smem, value):
    if isinstance(value.type.layout, AutoLayout):
        raise ValueError("store to shared memory: a value stored into other CTAs' parts of "
                         "a buffer needs a concrete layout")
    coords = _coordinates(sem, value.type.shape, value.type.layout)
    whole, local, ranks, keep = _locate(sem, smem, coords, "store to shared memory")
    _store_to_copies(sem, "tile_nv.cluster_store", [value, whole] + local, ranks, keep,
                     _replica_bits(sem, smem, value.type.layout))


def _repeated_bits(sem, layout):
    """The rank bits along which the CTAs of the cluster hold the same elements of a tensor in
    ``layout`` (its zero cga bases; every bit for a layout without them)."""
    bits = sem.num_ctas.bit_length() - 1
    bases = [tuple(b) for b in getattr(layout, "cga_bases", ())]
    if not bases:
        return (1 << bits) - 1
    return sum(1 << b for b, vec in enumerate(bases) if not any(vec))


def split_atomic(sem, smem, kind, values, indices, axis, mask, what):
    """Gluon's ``atomic_scatter_<op>`` on a buffer the cluster splits: each element's atomic
    in the CTA whose part holds it (tile_nv.cluster_atomic_rmw), returning the old values.
    Elements several CTAs hold (the values' layout repeats them) are acted on once, by the CTA
    whose repeated rank bits are 0, which passes the old values (where used) to the others
    through shared memory between two cluster barriers: every CTA of the cluster must reach
    the call."""
    coords = _indexed_coordinates(sem, indices, axis, what)
    whole, local, ranks, keep = _locate(sem, smem, coords, what)
    # Rank bits along which the buffer is held in copies (zero or missing bases): each CTA
    # acts on its own copy, which stays equal to the others only where the values repeat
    # along those bits too (every copy then receives the same atomics).
    bits = sem.num_ctas.bit_length() - 1
    if isinstance(smem, core.cluster_view) and smem.scattered:
        bases = [tuple(b) for b in smem.type.layout.block_bases]
    else:
        bases = _buffer_bases(whole) or []
    copies = sum(1 << b for b in range(bits) if b >= len(bases) or not any(bases[b]))
    split = copies & ~_repeated_bits(sem, values.type.layout)
    if split:
        raise ValueError(f"{what}: the buffer is held in copies by the CTAs that differ in "
                         f"rank bits {split:#x} (zero or missing cga bases), but the values' "
                         f"layout splits them there: each copy would receive only its CTA's "
                         f"atomics. Split the buffer as the values, or give every such CTA "
                         f"all the values")
    repeated = _repeated_bits(sem, values.type.layout) & ~copies
    i32 = core.int32
    if repeated:
        rank = sem._grid_op("program_id", 0)
        owner = sem.compare("eq", sem.binary("and", rank, sem.as_tensor(repeated, i32)),
                            sem.as_tensor(0, i32))
        owner = sem.broadcast_all([owner, coords[0]], what)[0]
        mask = owner if mask is None else sem.binary("and", mask, owner)
    operands = [values, whole] + local + [ranks] + ([mask] if mask is not None else [])
    segments = [1, 1, len(local), 1, 1 if mask is not None else 0]
    return sem._op("tile_nv.cluster_atomic_rmw", operands, values.type,
                   {"kind": f'"{kind}"', "keep": f"{keep} : i32",
                    "tile.repeated_ctas": f"{repeated} : i32",
                    "operandSegmentSizes": sem.b.array_attr(segments)})
