"""TMA im2col descriptors in a kernel (Gluon's ``tma.tensor_descriptor_im2col`` and
``tma.tensor_descriptor_im2col_type``) and what an im2col load checks and emits.

An im2col descriptor describes a rank-3 to 5 tensor (N, spatial dimensions, C: NWC, NHWC or
NDHWC) and copies blocks of ``[pixels, channels]``: ``pixels`` consecutive pixels of the
bounding box the host descriptor holds (``kiln.nvidia.hopper.TensorDescriptorIm2Col``),
``channels`` channels of each. A copy takes one coordinate per tensor dimension (the first
pixel's and the first channel) and one 16-bit offset per spatial dimension (the filter
tap), so its IR type records the tensor's rank (``!tile.tensordesc<..., im2col = N>``).
"""

from __future__ import annotations

from ... import _core as core
from ..._core import _unwrap, tensor

__all__ = ["tensor_descriptor_im2col", "tensor_descriptor_im2col_type"]

# PTX ISA (tensor im2col mode): by the tensor's rank, the unsigned range of the offsets a
# copy takes and the signed range of the host descriptor's pixel-box corners.
OFFSET_LIMITS = {3: 2**16 - 1, 4: 2**8 - 1, 5: 2**5 - 1}
CORNER_RANGES = {3: (-2**15, 2**15 - 1), 4: (-2**7, 2**7 - 1), 5: (-2**4, 2**4 - 1)}
MAX_PIXELS = 1024       # pixelsPerColumn
MAX_CHANNELS = 256      # channelsPerPixel
MAX_ELEMENT_STRIDE = 8


class tensor_descriptor_im2col_type(core.tensor_descriptor_type):
    """An im2col descriptor parameter: the ``[pixels, channels]`` block one copy gathers,
    its shared layout, and ``rank``, the rank of the tensor described (3 to 5), which the
    shape and strides that follow the descriptor into the kernel have."""

    def __init__(self, element_ty, block_shape, layout, rank: int = 4):
        super().__init__(element_ty, block_shape, layout)
        self.rank = int(_unwrap(rank))
        if len(self.block_shape) != 2:
            raise ValueError(f"tensor_descriptor_im2col_type: the block is [pixels, "
                             f"channels], got {list(self.block_shape)}")
        if self.rank not in OFFSET_LIMITS:
            raise ValueError(f"tensor_descriptor_im2col_type: im2col tensors have rank 3 to "
                             f"5, got {self.rank}")

    @property
    def tensor_rank(self):
        return self.rank

    def to_ir(self) -> str:
        return super().to_ir()[:-1] + f", im2col = {self.rank}>"

    def mangle(self) -> str:
        return super().mangle() + f"I{self.rank}"

    def param_spec(self) -> dict:
        return dict(super().param_spec(), im2col={"rank": self.rank})

    def make_value(self, handle: str):
        return tensor_descriptor_im2col(handle, self)

    def __eq__(self, other):
        return isinstance(other, tensor_descriptor_im2col_type) and \
            super().__eq__(other) and other.rank == self.rank

    def __hash__(self):
        return hash((super().__hash__(), self.rank))

    def __str__(self):
        return (f"tensordesc_im2col<{list(self.block_shape)}, {self.element_ty}, "
                f"rank={self.rank}, {self.layout!r}>")

    __repr__ = __str__


class tensor_descriptor_im2col(core.tensor_descriptor):
    """An im2col descriptor in a kernel (Gluon's ``tensor_descriptor_im2col``): as a tiled
    one, ``.block_type``, ``.block_shape`` (``[pixels, channels]``), ``.dtype`` and
    ``.layout`` are compile-time values, ``.shape`` and ``.strides`` the tensor's (one per
    tensor dimension); only ``tma.async_load_im2col`` takes it."""

    @property
    def rank(self):
        return self.type.rank

    def __repr__(self):
        return f"tensor_descriptor_im2col({self.handle}, {self.type})"


def _int_list(value, what, name):
    value = _unwrap(value)
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what}: {name} must be a list, got {value!r}")
    return [_unwrap(v) for v in value]


def emit_load(what, tensor_desc, coord, offsets, barrier, result, pred, multicast, sem,
              checks, policy=None):
    """One ``tile_nv.async_tma_copy_global_to_local`` through an im2col descriptor.
    ``checks`` are tma.py's shared argument checks (barrier, buffer, predicate); ``policy``
    the copy's L2 policy attributes."""
    multicast = _unwrap(multicast)
    if not isinstance(multicast, bool):
        raise TypeError(f"{what}: multicast must be a constexpr bool, got {multicast!r}")
    if not isinstance(tensor_desc, tensor_descriptor_im2col):
        raise TypeError(f"{what}: tensor_desc must be an im2col tensor descriptor (a kernel "
                        f"parameter passed a kiln.nvidia.hopper.TensorDescriptorIm2Col), got "
                        f"{tensor_desc!r}")
    desc = tensor_desc
    rank = desc.rank
    coord = _int_list(coord, what, "coord")
    if len(coord) != rank:
        raise ValueError(f"{what}: the im2col descriptor's tensor has rank {rank}, so coord "
                         f"takes {rank} coordinates (N, spatial, C), got {len(coord)}")
    offsets = _int_list(offsets, what, "offsets")
    if len(offsets) != rank - 2:
        raise ValueError(f"{what}: a rank-{rank} im2col tensor takes {rank - 2} offsets (one "
                         f"per spatial dimension), got {len(offsets)}")
    coords = []
    for c in coord:
        t = sem.cast(sem.as_tensor(c), core.int32)
        if t.type.is_block:
            raise TypeError(f"{what}: coordinates must be scalars, got {t.type}")
        coords.append(t)
    limit = OFFSET_LIMITS[rank]
    offs = []
    for i, o in enumerate(offsets):
        if isinstance(o, bool):
            raise TypeError(f"{what}: offsets[{i}] must be an integer, got {o!r}")
        if isinstance(o, int):
            if not 0 <= o <= limit:
                raise ValueError(f"{what}: offsets[{i}] = {o} is outside [0, {limit}], the "
                                 f"range PTX gives the offsets of a rank-{rank} im2col tensor")
            # PTX reads the 16 bits unsigned; the IR's i16 holds the same bits.
            offs.append(sem.as_tensor(o - (1 << 16) if o >= 1 << 15 else o, core.int16))
            continue
        if not isinstance(o, tensor) or o.type.is_block or not o.dtype.is_int():
            raise TypeError(f"{what}: offsets[{i}] must be an int or an integer scalar, got "
                            f"{o!r}")
        offs.append(sem.cast(o, core.int16) if o.dtype != core.int16 else o)
    barrier_of, buffer_of, pred_of = checks
    bar = barrier_of(barrier, what)
    dst = buffer_of(desc, result, what, "result")
    preds = pred_of(sem, pred, what)
    # The block of pixels x channels has no place in the tensor's coordinates that a cluster
    # could split: a cga_layout may only repeat it (multicast), not split it.
    bases = tuple(getattr(desc.layout, "cga_layout", ()) or ())
    if any(any(v for v in basis) for basis in bases):
        raise ValueError(f"{what}: the layout's cga_layout {[list(b) for b in bases]} splits "
                         f"the im2col block among the CTAs of the cluster, which im2col "
                         f"coordinates cannot follow; use a cga_layout of zero bases (each CTA "
                         f"the whole block) or none")
    # Every CTA of the cluster holds the whole block: with multicast=True one copy fills
    # all of them (the mask of every rank), as tma.py's tiled loads do for repeated parts.
    mask = []
    if bases:
        sem.check_cga(desc.layout, what)
        if multicast:
            mask = [sem.as_tensor((1 << sem.num_ctas) - 1)]
    segments = sem.b.array_attr([1, len(coords), len(offs), 1, 1, len(preds), len(mask)])
    sem.b.create("tile_nv.async_tma_copy_global_to_local",
                 [desc] + coords + offs + [bar, dst] + preds + mask, [],
                 {"operandSegmentSizes": segments, **(policy or {})})
