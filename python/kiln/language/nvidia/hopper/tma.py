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
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .mbarrier import _barrier, _pred

__all__ = ["async_copy_global_to_shared", "async_copy_shared_to_global", "store_wait",
           "async_load", "async_store"]


def _desc(tensor_desc, what):
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


@builtin
def async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred=True,
                                _semantic=None):
    """Thread 0 (where ``pred``) copies the block of ``tensor_desc`` at ``coord`` into
    ``result``; the copy's bytes complete ``barrier``'s current phase."""
    what = "tma.async_copy_global_to_shared"
    desc = _desc(tensor_desc, what)
    coords = _coords(_semantic, desc, coord, what)
    bar = _barrier(barrier, what)
    dst = _buffer(desc, result, what, "result")
    preds = _pred(_semantic, pred, what)
    segments = _semantic.b.array_attr([1, len(coords), 1, 1, len(preds)])
    _semantic.b.create("tile_nv.async_tma_copy_global_to_local",
                       [desc] + coords + [bar, dst] + preds, [],
                       {"operandSegmentSizes": segments})


@builtin
def async_copy_shared_to_global(tensor_desc, coord, src, _semantic=None):
    """Thread 0 stores ``src`` into the block of ``tensor_desc`` at ``coord`` (elements outside
    the tensor are not written); ``store_wait`` waits for it to finish reading ``src``. Make
    the CTA's writes to ``src`` visible first with ``fence_async_shared()``."""
    what = "tma.async_copy_shared_to_global"
    desc = _desc(tensor_desc, what)
    coords = _coords(_semantic, desc, coord, what)
    buf = _buffer(desc, src, what, "src")
    _semantic.b.create("tile_nv.async_tma_copy_local_to_global", [desc] + coords + [buf], [])


@builtin
def store_wait(pendings, _semantic=None):
    """Waits until at most ``pendings`` of this thread's TMA stores still read their source."""
    n = _unwrap(pendings)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TypeError(f"tma.store_wait: pendings must be a constexpr int >= 0, got {n!r}")
    _semantic.b.create("tile_nv.async_tma_store_wait", [], [], {"pendings": f"{n} : i32"})


async_load = async_copy_global_to_shared
async_store = async_copy_shared_to_global
