"""TMA (tensor memory accelerator) copies through tensor descriptors, with Gluon's names
(``triton.experimental.gluon.language.nvidia.hopper.tma``)::

    from kiln.language.nvidia.hopper import mbarrier, tma

    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, [off_m, off_k], bar, smem)
    mbarrier.wait(bar, 0)
    ...
    tma.async_copy_shared_to_global(out_desc, [off_m, off_n], smem)
    tma.store_wait(0)

A copy is issued by thread 0 for the whole CTA. Loads complete on an mbarrier (arm it with
``mbarrier.expect`` for the bytes); stores join a bulk group that ``store_wait`` waits for.
Coordinates are element offsets, outermost first; elements outside the tensor read as zero
(``padding="nan"`` on the host descriptor: NaN) and are not written.

``async_load_im2col`` (Gluon's, also ``async_copy_global_to_shared_im2col``) loads through an
im2col descriptor (``kiln.nvidia.hopper.TensorDescriptorIm2Col``): a block of ``[pixels,
channels]`` gathered from an NHWC-style tensor, at ``coord`` moved by 16-bit ``offsets``.

The reduce-stores ``async_atomic_add`` / ``_min`` / ``_max`` / ``_and`` / ``_or`` / ``_xor``
take a store's arguments and combine the block into global memory, each element atomically;
they join the stores' bulk groups. ``store_wait(0, read_only=False)`` waits until their
writes (and the stores') have reached global memory.
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .mbarrier import _barrier, _pred
from ._tma_im2col import tensor_descriptor_im2col, tensor_descriptor_im2col_type
from . import _tma_im2col
from .. import _cache_policy as _cp

__all__ = ["async_copy_global_to_shared", "async_copy_shared_to_global", "store_wait",
           "async_load", "async_store", "async_atomic_add", "async_atomic_min",
           "async_atomic_max", "async_atomic_and", "async_atomic_or", "async_atomic_xor",
           "make_tensor_descriptor", "tensor_descriptor", "tensor_descriptor_type",
           "async_copy_global_to_shared_im2col", "async_load_im2col",
           "tensor_descriptor_im2col", "tensor_descriptor_im2col_type"]

# Gluon refuses a transposed layout too (its verifier: a descriptor's layout must not be
# transposed); here for device-side descriptors and the host's TensorDescriptor.
TRANSPOSED_TMA = ("layout.transposed = True: TMA writes a block in global memory's order "
                  "(the last dimension contiguous), so its shared layout cannot be transposed; "
                  "copy with transposed=False and take buffer.permute((1, 0)) for a "
                  "transposed view")
# What TMA asks of a tensor's byte strides, here for device-side descriptors and, imported from
# here, in kiln.nvidia.hopper.TensorDescriptor on the host.
ALIGN_BYTES = 16        # base address, byte strides and the innermost block row
MAX_STRIDE_BYTES = 2**40

# Gluon names the descriptor's classes here too (annotations: ``desc: tma.tensor_descriptor``).
tensor_descriptor = core.tensor_descriptor
tensor_descriptor_type = core.tensor_descriptor_type


def _desc(tensor_desc, what):
    if isinstance(tensor_desc, tensor_descriptor_im2col):
        raise TypeError(f"{what}: tensor_desc is an im2col descriptor, which only "
                        f"tma.async_load_im2col takes")
    if not isinstance(tensor_desc, core.tensor_descriptor):
        raise TypeError(f"{what}: tensor_desc must be a tensor descriptor (a kernel parameter "
                        f"passed a kiln.nvidia.hopper.TensorDescriptor), got {tensor_desc!r}")
    return tensor_desc


def _coords(sem, desc, coord, what):
    coord = _unwrap(coord)
    if not isinstance(coord, (list, tuple)):
        raise TypeError(f"{what}: coord must be a list of {desc.rank} integers, got {coord!r}")
    if len(coord) != desc.rank:
        raise ValueError(f"{what}: the descriptor's block has rank {desc.rank}, but "
                         f"{len(coord)} coordinates are given")
    out = []
    for c in coord:
        t = sem.cast(sem.as_tensor(_unwrap(c)), core.int32)
        if t.type.is_block:
            raise TypeError(f"{what}: coordinates must be scalars, got {t.type}")
        out.append(t)
    return out


def _buffer(desc, smem, what, name):
    if not isinstance(smem, core.shared_memory_descriptor):
        raise TypeError(f"{what}: {name} must be a shared memory descriptor, got {smem!r}")
    st, dt = smem.type, desc.type
    if list(st.shape) != list(dt.block_shape) or st.element_ty != dt.element_ty:
        raise ValueError(f"{what}: {name} is {list(st.shape)} x {st.element_ty}, the "
                         f"descriptor's block {list(dt.block_shape)} x {dt.element_ty}")
    if st.layout != dt.layout:
        raise ValueError(f"{what}: {name}'s layout {st.layout!r} is not the descriptor's "
                         f"{dt.layout!r}")
    return smem


def _cluster_part(sem, desc, coords, what):
    """A block the descriptor's layout splits among the CTAs of a cluster (``cga_layout``):
    each CTA copies its own part, the coordinates moved to where that part starts. Returns
    the coordinates, this CTA's rank (None outside a cluster) and the mask of the rank's bits
    that only repeat a part (zero bases: CTAs that hold the same elements)."""
    bases = tuple(getattr(desc.layout, "cga_layout", ()) or ())
    if not bases:
        return coords, None, 0
    sem.check_cga(desc.layout, what)
    shape = desc.type.block_shape
    part = desc.type.cta_block_shape
    lead = len(shape) - len(bases[0])
    tiles = [max(1, n // p) for n, p in zip(shape, part)]
    # The launch puts a cluster's CTAs next to each other along x: the rank is the low bits
    # of the CTA's x index (what tile-split-cluster uses too).
    rank = sem.binary("and", sem._grid_op("program_id", 0), sem.num_ctas - 1)
    redundant = 0
    out = list(coords)
    for bit, vec in enumerate(bases):
        if not any(v & (tiles[lead + d] - 1) for d, v in enumerate(vec)):
            redundant |= 1 << bit
    for d in range(len(bases[0])):
        tile = None
        for bit, vec in enumerate(bases):
            if vec[d] & (tiles[lead + d] - 1):
                term = sem.binary("mul", sem.binary("and", sem.binary("rshift", rank, bit), 1),
                                  vec[d])
                tile = term if tile is None else sem.binary("or", tile, term)
        if tile is not None:
            tile = sem.binary("and", tile, tiles[lead + d] - 1)
            out[lead + d] = sem.binary("add", out[lead + d],
                                       sem.binary("mul", tile, part[lead + d]))
    return out, rank, redundant


def _multicast_mask(sem, rank, redundant):
    """The CTAs that hold the same part as this one (bit k: rank k), as PTX's ctaMask: this
    CTA's rank with the repeating bits cleared, then every combination of those bits."""
    pattern = 0
    for r in range(sem.num_ctas):
        if r & ~redundant == 0:
            pattern |= 1 << r
    fixed = (sem.num_ctas - 1) & ~redundant
    return sem.binary("lshift", pattern, sem.binary("and", rank, fixed))


def _load(what, tensor_desc, coord, barrier, result, pred, multicast, sem, cache_policy=None):
    policy = _cp.tma_attrs(what, sem, cache_policy)
    multicast = _unwrap(multicast)
    if not isinstance(multicast, bool):
        raise TypeError(f"{what}: multicast must be a constexpr bool, got {multicast!r}")
    desc = _desc(tensor_desc, what)
    coords = _coords(sem, desc, coord, what)
    bar = _barrier(barrier, what)
    dst = _buffer(desc, result, what, "result")
    preds = _pred(sem, pred, what)
    coords, rank, redundant = _cluster_part(sem, desc, coords, what)
    # As Gluon: multicast where the layout repeats a part among CTAs, else each CTA loads its
    # own part (multicast=True on a layout without repeats multicasts nothing).
    mask = [_multicast_mask(sem, rank, redundant)] if multicast and redundant else []
    segments = sem.b.array_attr([1, len(coords), 0, 1, 1, len(preds), len(mask)])
    sem.b.create("tile_nv.async_tma_copy_global_to_local",
                 [desc] + coords + [bar, dst] + preds + mask, [],
                 {"operandSegmentSizes": segments, **policy})


@builtin
def async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred=True,
                                multicast=False, cache_policy=None, _semantic=None):
    """Thread 0 (where ``pred``) copies the block of ``tensor_desc`` at ``coord`` into
    ``result``; the copy's bytes complete ``barrier``'s current phase.

    In a cluster (``num_ctas`` > 1, the layout's ``cga_layout`` splitting the block), each
    CTA copies its own part (``desc.nbytes_per_cta`` bytes, which its barrier expects). With
    ``multicast=True``, CTAs whose parts are the same (zero ``cga_layout`` bases) share one
    copy: the one of lowest rank issues it into all of their buffers, each counting the bytes
    on its own barrier at the same place. Before a slot is refilled that way, every CTA that
    receives it must be done reading it (``gl.barrier(cluster=True)``, or the
    ``hopper.cluster`` barriers).

    ``cache_policy``: a ``CachePolicy`` with an L2 eviction policy (an NVIDIA one's ``l2``, or
    a generic one's evict_first / evict_last), the copy's L2 cache hint."""
    _load("tma.async_copy_global_to_shared", tensor_desc, coord, barrier, result, pred,
          multicast, _semantic, cache_policy)


@builtin
def async_load(tensor_desc, coord, barrier, result, pred=True, multicast=False,
               cache_policy=None, _semantic=None):
    """Gluon's newer name of :func:`async_copy_global_to_shared`."""
    _load("tma.async_load", tensor_desc, coord, barrier, result, pred, multicast, _semantic,
          cache_policy)


@builtin
def async_load_im2col(tensor_desc, coord, offsets, barrier, result, pred=True,
                      multicast=False, cache_policy=None, _semantic=None):
    """Thread 0 (where ``pred``) gathers an im2col block through ``tensor_desc`` (a
    ``TensorDescriptorIm2Col`` parameter) into ``result``; the bytes complete ``barrier``'s
    current phase, as :func:`async_copy_global_to_shared`.

    ``coord`` has one coordinate per tensor dimension (N, the spatial ones, C): the first
    pixel of the block, which goes on through the host descriptor's pixel box (W fastest,
    then H, D, N), and the first channel. ``offsets`` has one unsigned 16-bit offset per
    spatial dimension (outermost first; ints or integer scalars), added to every pixel: the
    filter tap of a convolution. PTX limits them by the tensor's rank: [0, 65535] for 3,
    [0, 255] for 4, [0, 31] for 5. The block is ``[pixels, channels]``; pixels past the
    tensor's edge read as the padding."""
    _tma_im2col.emit_load("tma.async_load_im2col", tensor_desc, coord, offsets, barrier,
                          result, pred, multicast, _semantic, (_barrier, _buffer, _pred),
                          _cp.tma_attrs("tma.async_load_im2col", _semantic, cache_policy))


@builtin
def async_copy_global_to_shared_im2col(tensor_desc, coord, offsets, barrier, result,
                                       pred=True, multicast=False, cache_policy=None,
                                       _semantic=None):
    """Gluon's older name of :func:`async_load_im2col`."""
    what = "tma.async_copy_global_to_shared_im2col"
    _tma_im2col.emit_load(what, tensor_desc, coord, offsets, barrier, result, pred, multicast,
                          _semantic, (_barrier, _buffer, _pred),
                          _cp.tma_attrs(what, _semantic, cache_policy))


def _store(what, op, tensor_desc, coord, src, sem, attrs=None, once=False):
    desc = _desc(tensor_desc, what)
    coords = _coords(sem, desc, coord, what)
    buf = _buffer(desc, src, what, "src")
    coords, _, redundant = _cluster_part(sem, desc, coords, what)
    # A store of a part several CTAs hold writes the same bytes from each; a reduce-store
    # would combine them several times.
    if once and redundant:
        raise ValueError(f"{what}: the layout's cga_layout {list(desc.layout.cga_layout)} "
                         f"gives several CTAs of the cluster the same part (a zero basis), "
                         f"and each would reduce it into the tensor; use a cga_layout that "
                         f"gives each part to one CTA")
    sem.b.create(op, [desc] + coords + [buf], [], attrs or {})
    if not getattr(sem, "worker_partition_depth", 0):
        sem.tma_stores_issued = True  # the kernel's end waits for them (nvidia/__init__.py)


@builtin
def async_copy_shared_to_global(tensor_desc, coord, src, cache_policy=None, _semantic=None):
    """Thread 0 stores ``src`` into the block of ``tensor_desc`` at ``coord`` (elements outside
    the tensor are not written); ``store_wait`` waits for it to finish reading ``src``. Make
    the CTA's writes to ``src`` visible first with ``fence_async_shared()``. ``cache_policy``
    as for :func:`async_copy_global_to_shared`."""
    what = "tma.async_copy_shared_to_global"
    _store(what, "tile_nv.async_tma_copy_local_to_global", tensor_desc, coord, src, _semantic,
           _cp.tma_attrs(what, _semantic, cache_policy))


@builtin
def async_store(tensor_desc, coord, src, cache_policy=None, _semantic=None):
    """Gluon's newer name of :func:`async_copy_shared_to_global`."""
    _store("tma.async_store", "tile_nv.async_tma_copy_local_to_global", tensor_desc, coord,
           src, _semantic, _cp.tma_attrs("tma.async_store", _semantic, cache_policy))


# What cp.reduce.async.bulk.tensor combines (PTX ISA), by the descriptor's element type. The
# hardware takes the type from the tensor map, whose signedness the host descriptor encodes
# from the tensor's dtype: add has u64 but no s64, min and max compare signed or unsigned.
# and, or and xor on an INT64 map stop an H200 with an illegal instruction (ptxas accepts
# them; 32-bit maps of either sign and UINT64 maps work), so 64-bit bitwise ones are u64 only.
_REDUCE_DTYPES = {
    "add": ("fp16", "bf16", "fp32", "i32", "u32", "u64"),
    "min": ("fp16", "bf16", "i32", "u32", "i64", "u64"),
    "max": ("fp16", "bf16", "i32", "u32", "i64", "u64"),
    "and": ("i32", "u32", "u64"),
    "or": ("i32", "u32", "u64"),
    "xor": ("i32", "u32", "u64"),
}


def _reduce(kind, tensor_desc, coord, src, sem):
    what = f"tma.async_atomic_{kind}"
    desc = _desc(tensor_desc, what)
    elem = desc.type.element_ty
    name = core.signature_name(elem)
    if name not in _REDUCE_DTYPES[kind]:
        hint = ""
        if name == "i64" and kind == "add":
            hint = (": PTX adds 64-bit integers as u64 only; describe the tensor as uint64 (the "
                    "same bits)")
        elif name == "i64":
            hint = (f": on an int64 tensor map the GPU stops with an illegal instruction; "
                    f"describe the tensor as uint64 (the same bits: tensor.view(torch.uint64))")
        raise TypeError(f"{what}: TMA reduce-stores have no {kind} on {name} (supported: "
                        f"{', '.join(_REDUCE_DTYPES[kind])}){hint}")
    # A descriptor made in the kernel encodes every integer type as signed (its element type
    # in the IR has no sign), so an unsigned min, max or 64-bit add would be computed signed.
    if getattr(desc, "_made_in_kernel", False) and name in ("u32", "u64") and (
            kind in ("min", "max") or name == "u64"):
        raise TypeError(f"{what}: a descriptor made with tma.make_tensor_descriptor holds "
                        f"{name} as a signed type, which {kind} would not compute unsigned "
                        f"(or, for a 64-bit and, or, xor, not at all); pass a host "
                        f"TensorDescriptor")
    _store(what, "tile_nv.async_tma_reduce", desc, coord, src, sem,
           {"kind": f"#tile_nv<tma_reduce_kind {kind}>"}, once=True)


@builtin
def async_atomic_add(tensor_desc, coord, src, _semantic=None):
    """Thread 0 adds ``src`` into the block of ``tensor_desc`` at ``coord``, each element
    atomically (fp16, bf16, fp32, 32-bit and unsigned 64-bit integers); as a store, it joins
    the bulk group ``store_wait`` waits for."""
    _reduce("add", tensor_desc, coord, src, _semantic)


@builtin
def async_atomic_min(tensor_desc, coord, src, _semantic=None):
    """Thread 0 lowers each element of the block of ``tensor_desc`` at ``coord`` to ``src``'s
    where smaller, atomically (fp16, bf16, 32- and 64-bit integers)."""
    _reduce("min", tensor_desc, coord, src, _semantic)


@builtin
def async_atomic_max(tensor_desc, coord, src, _semantic=None):
    """Thread 0 raises each element of the block of ``tensor_desc`` at ``coord`` to ``src``'s
    where larger, atomically (fp16, bf16, 32- and 64-bit integers)."""
    _reduce("max", tensor_desc, coord, src, _semantic)


@builtin
def async_atomic_and(tensor_desc, coord, src, _semantic=None):
    """Thread 0 ands ``src`` into the block of ``tensor_desc`` at ``coord``, bitwise and
    atomically (32-bit integers and uint64: an int64 tensor map stops the GPU)."""
    _reduce("and", tensor_desc, coord, src, _semantic)


@builtin
def async_atomic_or(tensor_desc, coord, src, _semantic=None):
    """Thread 0 ors ``src`` into the block of ``tensor_desc`` at ``coord``, bitwise and
    atomically (32-bit integers and uint64: an int64 tensor map stops the GPU)."""
    _reduce("or", tensor_desc, coord, src, _semantic)


@builtin
def async_atomic_xor(tensor_desc, coord, src, _semantic=None):
    """Thread 0 xors ``src`` into the block of ``tensor_desc`` at ``coord``, bitwise and
    atomically (32-bit integers and uint64: an int64 tensor map stops the GPU)."""
    _reduce("xor", tensor_desc, coord, src, _semantic)


@builtin
def store_wait(pendings, read_only=True, _semantic=None):
    """Waits until at most ``pendings`` of this thread's TMA stores and reduce-stores are
    pending: still reading their source (``read_only=True``), or, with ``read_only=False``,
    still reading it or writing global memory (what a release to other CTAs needs)."""
    n = _unwrap(pendings)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TypeError(f"tma.store_wait: pendings must be a constexpr int >= 0, got {n!r}")
    read_only = _unwrap(read_only)
    if not isinstance(read_only, bool):
        raise TypeError(f"tma.store_wait: read_only must be a constexpr bool, got "
                        f"{read_only!r}")
    attrs = {"pendings": f"{n} : i32"}
    if not read_only:
        attrs["read_only"] = "false"
    _semantic.b.create("tile_nv.async_tma_store_wait", [], [], attrs)
    if n == 0 and not getattr(_semantic, "worker_partition_depth", 0):
        # The stores so far are done reading: the kernel's end need not wait again unless
        # more follow. (A wait under a branch may not run; the async-safety check still
        # reports a store it leaves in flight at the end.)
        _semantic.tma_stores_issued = False


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, layout, padding_option="zero",
                           _semantic=None):
    """A TMA descriptor made in the kernel (Gluon's ``tma.make_tensor_descriptor``) for the
    tensor at ``base`` (a scalar pointer, 16-byte aligned) with ``shape`` and ``strides`` (in
    elements; scalars or ints, the last stride 1 and the others multiples of 16 bytes, which
    is checked for ints only), copying ``block_shape`` blocks laid out by ``layout`` (an
    ``NVMMASharedLayout``). It lives in the kernel's global scratch (128 bytes per descriptor
    per CTA), which the launch allocates: with ``kiln.set_allocator``'s function, else with
    torch. ``padding_option`` "nan" fills out-of-bounds elements with NaN."""
    from ...nvidia._layouts import NVMMASharedLayout
    what = "tma.make_tensor_descriptor"
    sem = _semantic
    if not isinstance(base, tensor) or base.type.is_block or not base.dtype.is_ptr():
        raise TypeError(f"{what}: base must be a scalar pointer, got {base!r}")
    elem = base.dtype.element_ty
    block = [int(_unwrap(d)) for d in _unwrap(block_shape)]
    layout = _unwrap(layout)
    if not isinstance(layout, NVMMASharedLayout):
        raise TypeError(f"{what}: layout must be an NVMMASharedLayout, got {layout!r}")
    if layout.transposed:
        raise ValueError(f"{what}: {TRANSPOSED_TMA}")
    shape, strides = list(_unwrap(shape)), list(_unwrap(strides))
    if len(shape) != len(block) or len(strides) != len(block):
        raise ValueError(f"{what}: shape ({len(shape)}), strides ({len(strides)}) and "
                         f"block_shape ({len(block)}) must have one entry per dimension")
    if not 1 <= len(block) <= 5:
        raise ValueError(f"{what}: TMA tensors have 1 to 5 dimensions, got {len(block)}")
    last = _unwrap(strides[-1])
    if not (isinstance(last, int) and last == 1):
        raise ValueError(f"{what}: the last stride must be the constant 1 (TMA reads rows "
                         f"contiguously), got {last!r}")
    # The other strides in bytes, as the host-side TensorDescriptor checks them (PTX's
    # tensormap.replace wants multiples of 16 under 2**40; the device does not report
    # another value). Checked where they are compile-time ints; a runtime stride is the
    # caller's to keep so, as in Gluon, which checks no stride but the last.
    elem_bytes = elem.primitive_bitwidth // 8
    for i, st in enumerate(strides[:-1]):
        st = _unwrap(st)
        if isinstance(st, bool) or not isinstance(st, int):
            continue
        nbytes = st * elem_bytes
        if st < 1 or nbytes % ALIGN_BYTES:
            raise ValueError(f"{what}: strides[{i}] = {st} ({nbytes} bytes of {elem}) must be "
                             f"{ALIGN_BYTES}-byte aligned (a positive multiple of "
                             f"{ALIGN_BYTES} bytes)")
        if nbytes >= MAX_STRIDE_BYTES:
            raise ValueError(f"{what}: strides[{i}] = {st} ({nbytes} bytes) must be less "
                             f"than 2**40 bytes")
    padding = _unwrap(padding_option)
    if padding not in ("zero", "nan", ""):
        raise ValueError(f"{what}: padding_option must be \"zero\" or \"nan\", got "
                         f"{padding!r}")
    if padding == "nan" and not elem.is_floating():
        raise ValueError(f"{what}: NaN padding needs a float element type, got {elem}")
    dims = [sem.cast(sem.as_tensor(_unwrap(d)), core.int32) for d in shape]
    steps = [sem.cast(sem.as_tensor(_unwrap(d)), core.int64) for d in strides]
    for t in dims + steps:
        if t.type.is_block:
            raise TypeError(f"{what}: shape and strides must be scalars, got {t.type}")
    ty = core.tensor_descriptor_type(elem, block, layout)
    segments = sem.b.array_attr([1, len(dims), len(steps)])
    attrs = {"operandSegmentSizes": segments}
    if padding == "nan":
        attrs["padding"] = '"nan"'
    handle = sem.b.create("tile_nv.make_tensor_descriptor", [base] + dims + steps, [ty],
                          attrs)[0]
    desc = core.tensor_descriptor(handle, ty, shape=dims, strides=steps)
    desc._made_in_kernel = True  # its tensor map's integers are signed (_reduce)
    return desc
