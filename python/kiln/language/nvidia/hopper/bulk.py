"""Bulk copies of contiguous bytes (no tensor descriptor), with Gluon's names
(``triton.experimental.gluon.language.nvidia.hopper.bulk``, after Triton 3.8)::

    from kiln.language.nvidia.hopper import bulk, mbarrier

    mbarrier.expect(bar, 4096)
    bulk.async_load(smem, src_ptr, 4096, bar)
    mbarrier.wait(bar, 0)

One thread asks the copy engine to move ``num_bytes`` bytes from a global address into
the start of a shared buffer (PTX ``cp.async.bulk ... mbarrier::complete_tx::bytes``); the
bytes complete the barrier's current phase, as a TMA load's do.
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .._mbarrier_word import check_barrier as _barrier
from .mbarrier import _pred

__all__ = ["async_load"]

_WHAT = "bulk.async_load"


def _num_bytes(sem, num_bytes, limit):
    n = _unwrap(num_bytes)
    if isinstance(n, bool):
        raise TypeError(f"{_WHAT}: num_bytes must be an integer, got {n!r}")
    if isinstance(n, int):
        if n <= 0 or n % 16:
            raise ValueError(f"{_WHAT}: num_bytes must be a positive multiple of 16, got {n}")
        if n > limit:
            raise ValueError(f"{_WHAT}: num_bytes is {n}, more than the destination's "
                             f"{limit} bytes (smem.nbytes_per_cta)")
        return sem.as_tensor(n, core.int32)
    if not isinstance(n, tensor) or n.type.is_block or not n.dtype.is_int() or \
            n.dtype.is_bool() or n.dtype.primitive_bitwidth > 32:
        raise TypeError(f"{_WHAT}: num_bytes must be a scalar integer of at most 32 bits, "
                        f"got {n!r}")
    return sem.cast(n, core.int32)


def _part_index(sem, bases, rank):
    """This CTA's part among the distinct parts of a buffer the layout's ``cga_layout``
    splits (the rank's bits with a nonzero basis, in order; bits of CTAs that repeat a part
    are left out), and the mask of those repeating bits."""
    index, out_bit, redundant = None, 0, 0
    for bit, vec in enumerate(bases):
        if not any(vec):
            redundant |= 1 << bit
            continue
        term = sem.binary("lshift", sem.binary("and", sem.binary("rshift", rank, bit), 1),
                          out_bit)
        index = term if index is None else sem.binary("or", index, term)
        out_bit += 1
    return index, redundant


@builtin
def async_load(smem, pointer, num_bytes, barrier, pred=True, multicast=False,
               _semantic=None):
    """Copy ``num_bytes`` bytes from the global address ``pointer`` into the start of
    ``smem``, byte for byte in the buffer's physical order (no swizzle is applied); the
    bytes complete ``barrier``'s current phase (arm it with ``mbarrier.expect`` for them).

    ``pointer`` is a scalar pointer, 16-byte aligned; ``num_bytes`` a positive multiple of
    16 of at most ``smem.nbytes_per_cta`` bytes (a constexpr, or a run-time integer of at
    most 32 bits); ``smem`` whole slots of an unpadded buffer. One thread of those where
    ``pred`` holds issues the copy. In a cluster whose buffer layout splits the buffer
    (``cga_layout``), CTA part ``i`` (in increasing rank, ranks that repeat a part left
    out) comes from ``pointer + i * smem.nbytes_per_cta`` bytes; with ``multicast=True``
    the CTAs that repeat a part share one copy, issued by the one of lowest rank into
    every one of their buffers and counted on each one's barrier."""
    sem = _semantic
    if not isinstance(smem, core.shared_memory_descriptor):
        raise TypeError(f"{_WHAT}: smem must be a shared memory descriptor, got {smem!r}")
    ptr = _unwrap(pointer)
    if not isinstance(ptr, tensor) or ptr.type.is_block or not ptr.dtype.is_ptr():
        raise TypeError(f"{_WHAT}: pointer must be a scalar global-memory pointer, got "
                        f"{ptr!r}")
    if getattr(ptr.dtype, "address_space", 1) != 1:
        raise TypeError(f"{_WHAT}: pointer must point to global memory, got {ptr.dtype}")
    multicast = _unwrap(multicast)
    if not isinstance(multicast, bool):
        raise TypeError(f"{_WHAT}: multicast must be a constexpr bool, got {multicast!r}")
    limit = int(_unwrap(smem.nbytes_per_cta))
    nbytes = _num_bytes(sem, num_bytes, limit)
    bar = _barrier(barrier, _WHAT)
    preds = _pred(sem, pred, _WHAT)
    bases = tuple(getattr(smem.type.layout, "cga_layout", ()) or ())
    mask = []
    if bases:
        sem.check_cga(smem.type.layout, _WHAT)
        rank = sem.binary("and", sem._grid_op("program_id", 0), sem.num_ctas - 1)
        index, redundant = _part_index(sem, bases, rank)
        if index is not None:
            elem = ptr.dtype.element_ty.primitive_bitwidth // 8
            if elem <= 0 or limit % elem:
                raise ValueError(f"{_WHAT}: a CTA's part ({limit} bytes) is not a whole "
                                 f"number of the pointer's {ptr.dtype.element_ty} elements")
            ptr = sem.binary("add", ptr, sem.binary("mul", index, limit // elem))
        if multicast and redundant:
            from .tma import _multicast_mask
            mask = [_multicast_mask(sem, rank, redundant)]
    segments = sem.b.array_attr([1, 1, 1, 1, len(preds), len(mask)])
    sem.b.create("tile_nv.async_bulk_copy_global_to_local",
                 [ptr, nbytes, bar, smem] + preds + mask, [],
                 {"operandSegmentSizes": segments})
