"""Buffer ops and direct-to-LDS copies for CDNA3/CDNA4: what ``cdna3``, ``cdna4`` and
``cdna4.async_copy`` share. Each function takes the kernel's semantic object (``_semantic``)
and emits ``tile_amd`` ops; argument checks raise at the user's line."""

from .._core import _unwrap, tensor
from .. import _core as core

_LOAD_CACHE = ("", ".ca", ".cg", ".cv")
_STORE_CACHE = ("", ".wb", ".cg", ".cs", ".wt")


def _cache(value, allowed, what):
    value = _unwrap(value)
    value = "" if value is None else value
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{what}: cache modifier must be one of "
                         f"{', '.join(repr(c) for c in allowed)}, got {value!r}")
    return value


def _base(sem, ptr, what):
    ptr = sem.as_tensor(_unwrap(ptr))
    if not ptr.dtype.is_ptr() or ptr.type.is_block:
        raise TypeError(f"{what}: ptr must be a scalar pointer (the buffer's base, e.g. a "
                        f"kernel argument), got {ptr.type}")
    return ptr


def _offsets(sem, offsets, what):
    offsets = sem.as_tensor(_unwrap(offsets))
    if not offsets.type.is_block or not offsets.dtype.is_int() or \
            offsets.dtype.primitive_bitwidth != 32:
        raise TypeError(f"{what}: offsets must be a tensor of int32 element offsets (a buffer "
                        f"addresses at most 2**31 bytes), got {offsets.type}")
    return offsets


def _mask_other(sem, offsets, elt, mask, other, what):
    """(offsets, mask or None, other or None), broadcast to one shape."""
    mask, other = _unwrap(mask), _unwrap(other)
    operands = [offsets]
    if mask is not None:
        operands.append(sem.cast(sem.as_tensor(mask), core.int1))
    if other is not None:
        if mask is None:
            raise ValueError(f"{what}: `other` cannot be given without `mask`")
        like = tensor(offsets.handle, offsets.type.with_element_ty(elt))
        other = other if isinstance(other, tensor) else sem.literal_like(other, like)
        operands.append(sem.cast(other, elt))
    operands = sem.broadcast_all(operands, what)
    if tuple(operands[0].type.shape) != tuple(offsets.type.shape):
        raise ValueError(f"{what}: mask/other broadcast the offsets to "
                         f"{tuple(operands[0].type.shape)}; they must have the offsets' "
                         f"shape {tuple(offsets.type.shape)}")
    off = operands[0]
    m = operands[1] if mask is not None else None
    o = operands[-1] if other is not None else None
    return off, m, o


def _attrs(sem, segments, cache):
    attrs = {"operandSegmentSizes": sem.b.array_attr(segments)}
    if cache:
        attrs["cache"] = f'"{cache}"'
    return attrs


def buffer_load(sem, ptr, offsets, mask, other, cache):
    what = "buffer_load"
    ptr = _base(sem, ptr, what)
    offsets = _offsets(sem, offsets, what)
    elt = ptr.dtype.element_ty
    off, m, o = _mask_other(sem, offsets, elt, mask, other, what)
    cache = _cache(cache, _LOAD_CACHE, what)
    operands = [ptr, off] + [x for x in (m, o) if x is not None]
    rt = off.type.with_element_ty(elt)
    return sem._op("tile_amd.buffer_load", operands, rt,
                   _attrs(sem, [1, 1, m is not None, o is not None], cache))


def buffer_store(sem, stored_value, ptr, offsets, mask, cache):
    what = "buffer_store"
    ptr = _base(sem, ptr, what)
    offsets = _offsets(sem, offsets, what)
    elt = ptr.dtype.element_ty
    value = _unwrap(stored_value)
    like = tensor(offsets.handle, offsets.type.with_element_ty(elt))
    value = value if isinstance(value, tensor) else sem.literal_like(value, like)
    if value.dtype.is_ptr():
        raise TypeError(f"{what}: storing pointers is not supported")
    value = sem.cast(value, elt)
    operands = [offsets, value]
    if _unwrap(mask) is not None:
        operands.append(sem.cast(sem.as_tensor(_unwrap(mask)), core.int1))
    operands = sem.broadcast_all(operands, what)
    if tuple(operands[0].type.shape) != tuple(offsets.type.shape):
        raise ValueError(f"{what}: the value and mask must have the offsets' shape "
                         f"{tuple(offsets.type.shape)}")
    cache = _cache(cache, _STORE_CACHE, what)
    ops = [operands[1], ptr, operands[0]] + operands[2:]
    attrs = {"cache": f'"{cache}"'} if cache else None
    sem.b.create("tile_amd.buffer_store", ops, [], attrs)
    return None


def _check_dest(dest, offsets, what):
    if not isinstance(dest, core.shared_memory_descriptor):
        raise TypeError(f"{what}: dest must be a shared memory descriptor (from "
                        f"allocate_shared_memory), got {dest!r}")
    if tuple(offsets.type.shape) != dest.type.shape:
        raise ValueError(f"{what}: the offsets' shape {tuple(offsets.type.shape)} "
                         f"must equal dest's {dest.type.shape}")


def buffer_load_to_shared(sem, dest, ptr, offsets, mask, other, cache_modifier):
    what = "buffer_load_to_shared"
    ptr = _base(sem, ptr, what)
    offsets = _offsets(sem, offsets, what)
    off, m, o = _mask_other(sem, offsets, ptr.dtype.element_ty, mask, other, what)
    _check_dest(dest, off, what)
    if ptr.dtype.element_ty != dest.dtype:
        raise TypeError(f"{what}: ptr points to {ptr.dtype.element_ty} but dest holds "
                        f"{dest.dtype}")
    cache = _cache(cache_modifier, _LOAD_CACHE, what)
    operands = [ptr, off, dest] + [x for x in (m, o) if x is not None]
    tt = core.async_token_type()
    segments = [1, 1, 1, m is not None, o is not None]
    return tensor(sem.b.create("tile_amd.buffer_load_to_local", operands, [tt],
                               _attrs(sem, segments, cache))[0], tt)


def global_load_to_shared(sem, dest, ptr, mask, other, cache_modifier):
    what = "global_load_to_shared"
    if _unwrap(other) is not None and _unwrap(mask) is None:
        raise ValueError(f"{what}: `other` cannot be given without `mask`")
    # The copy's cache policy bits, as buffer_load_to_shared's.
    cache = _cache(cache_modifier, _LOAD_CACHE, what)
    return sem.async_copy_global_to_local(dest, ptr, mask, cache, other=other,
                                          cache_modifiers=_LOAD_CACHE)


def load_shared_relaxed(sem, smem, layout):
    """A local_load the user asserts a wait orders (tile.synced_via_wait)."""
    return sem.local_load(smem, _unwrap(layout), synced_via_wait=True)


def buffer_atomic(sem, op, ptr, offsets, value, mask, sem_order, scope):
    """Gluon's ``buffer_atomic_<op>``: the atomic of :func:`kiln.language.atomic_add` & co. on
    ``ptr + offsets`` (a scalar base and int32 element offsets), as ``buffer_atomic_<op>``
    instructions on the base's buffer resource (the ``tile_amd.buffer`` mark on the atomic):
    lanes that do not act get an offset past the resource's end. An operation no buffer
    atomic has (16-bit floats) is a global atomic."""
    what = f"buffer_atomic_{op}"
    ptr = _base(sem, ptr, what)
    offsets = _offsets(sem, offsets, what)
    ptrs = sem.binary("add", sem.splat(ptr, offsets.type.with_element_ty(ptr.dtype)), offsets)
    return sem.atomic_rmw(op, ptrs, value, mask, sem_order, scope,
                          attrs={"tile_amd.buffer": "unit"})
