"""Host-side Hopper (sm_90a) objects, as in Gluon's ``triton.experimental.gluon.nvidia.hopper``.

A :class:`TensorDescriptor` describes a global tensor (base address, shape, strides) and the
block a kernel copies at a time (``block_shape``, landing in shared memory with an
``NVMMASharedLayout``). A kernel parameter of type ``tensordesc`` takes one: the runtime
encodes it with the driver's ``cuTensorMapEncodeTiled`` into a 128-byte ``CUtensorMap`` and
passes that by value (a ``__grid_constant__`` parameter), and the kernel's TMA copies read it::

    from kiln.nvidia.hopper import TensorDescriptor

    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    a_desc = TensorDescriptor.from_tensor(a, [128, 64], layout)   # a: a 2-D bf16 CUDA tensor
    kernel[grid](a_desc, ...)

Every TMA rule the driver would refuse with a bare ``CUDA_ERROR_INVALID_VALUE`` is checked
here first, with an error naming the field and its value. :class:`TensorDescriptorIm2Col`
(at the end of this file) is the im2col kind, for ``tma.async_load_im2col``.
"""

from __future__ import annotations

import operator
from typing import Dict, List, Sequence

from ..jit import _pointer_dtype_name
from ..language import _core
from ..language.nvidia.hopper.tma import ALIGN_BYTES, MAX_STRIDE_BYTES, TRANSPOSED_TMA  # noqa: F401
from ..language.nvidia.hopper._tma_im2col import (CORNER_RANGES, MAX_CHANNELS,
                                                  MAX_ELEMENT_STRIDE, MAX_PIXELS,
                                                  tensor_descriptor_im2col_type)

__all__ = ["TensorDescriptor", "TensorDescriptorIm2Col", "tma_box"]

MAX_RANK = 5            # TMA tensors have 1 to 5 dimensions
MAX_BOX_DIM = 256       # elements per box dimension
MAX_ROWS = 4096         # rows of a 2-D block, copied as boxes of MAX_BOX_DIM rows
MAX_DIM = 2**32         # elements per tensor dimension
SWIZZLES = (0, 32, 64, 128)
SWIZZLE_ROWS = 8        # rows of one swizzle atom (a block of fewer continues it by address)
PADDINGS = ("zero", "nan")

# Element types TMA copies (signature spelling, as kiln.compiler.type_name writes it). 8-bit
# floats travel as bytes, so NaN padding is for the 16/32/64-bit floats only.
_TMA_DTYPES = ("fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "i8", "u8", "i16", "u16",
               "i32", "u32", "i64", "u64")
_NAN_DTYPES = ("fp16", "bf16", "fp32", "fp64")
# What from_tensor reads of its tensor: (attribute, how the error names it, must be callable).
_TENSOR_FIELDS = (("data_ptr", "data_ptr()", True), ("shape", "shape", False),
                  ("stride", "stride()", True), ("dtype", "dtype", False))
_LAYOUT_FIELDS = ("swizzle_byte_width", "element_bitwidth", "rank", "transposed", "fp4_padded")

# (dtype, block_shape, layout) -> a small int: what a warm launch compares instead of hashing
# and comparing the layout every call (kiln.jit's launch key, the launcher's spec check).
_SPEC_IDS: Dict[tuple, int] = {}
# (address, base dtype, shape, strides, block_shape, layout, padding) -> a valid descriptor's
# fields, its encoded maps included (shared by every descriptor of those fields).
_VALIDATED: Dict[tuple, dict] = {}


def _spec_id(dtype, block_shape, layout):
    """The interned id of a descriptor's kind, or None for a layout not hashed by value (an
    object that could change under the id; the launch then takes the full checks)."""
    if type(layout).__hash__ in (None, object.__hash__):
        return None
    key = (dtype, block_shape, layout)
    try:
        found = _SPEC_IDS.get(key)
    except TypeError:
        return None
    if found is None:
        found = _SPEC_IDS[key] = len(_SPEC_IDS) + 1
    return found


def tma_box(block_shape: Sequence[int], swizzle_byte_width: int,
            element_bitwidth: int) -> List[int]:
    """The TMA box (outermost dimension first, like ``block_shape``) that a descriptor with
    this block shape and NVMMA swizzle is encoded with; the compiler's TMA lowering follows
    the same rule.

    The box is the block, except where the block has more than ``MAX_BOX_DIM`` rows (a 2-D
    block, up to ``MAX_ROWS``: boxes of ``MAX_BOX_DIM`` rows, as Triton splits them) or where
    the block's rows are wider than the swizzle pattern
    (``swizzle_byte_width > 0`` and ``block_shape[-1] * element_bitwidth / 8 >
    swizzle_byte_width``): the hardware swizzles at most one pattern width per box row, so
    the innermost box dimension is ``swizzle_byte_width * 8 // element_bitwidth`` elements and
    the kernel copies a block as ``block_shape[-1] / box[-1]`` boxes, one per swizzle-wide
    column chunk (each at its column offset, into consecutive shared-memory chunks).
    """
    box = [int(d) for d in block_shape]
    if swizzle_byte_width and box[-1] * element_bitwidth > swizzle_byte_width * 8:
        box[-1] = swizzle_byte_width * 8 // element_bitwidth
    if len(box) == 2 and box[0] > MAX_BOX_DIM:
        # More rows than a box holds: boxes of MAX_BOX_DIM rows, one under the other.
        box[0] = MAX_BOX_DIM
    return box


def _err(what: str) -> str:
    return f"TensorDescriptor: {what}"


def _ints(values, field: str) -> List[int]:
    try:
        items = list(values)
    except TypeError:
        raise TypeError(_err(f"{field} must be a sequence of ints, got "
                             f"{type(values).__name__}")) from None
    out = []
    for i, v in enumerate(items):
        try:
            if isinstance(v, bool):
                raise TypeError
            out.append(operator.index(v))
        except TypeError:
            raise TypeError(_err(f"{field}[{i}] must be an int, got {v!r}")) from None
    return out


def _device_address(base) -> int:
    data_ptr = getattr(base, "data_ptr", None)
    if not callable(data_ptr):
        raise TypeError(_err(f"base must be a device tensor (an object with data_ptr() and "
                             f"dtype), got {type(base).__name__}"))
    device = getattr(base, "device", None)
    if getattr(device, "type", device) == "cpu" or getattr(base, "is_cuda", None) is False:
        raise ValueError(_err("base is a CPU tensor; TMA copies device memory"))
    return int(data_ptr())


class _Revalidated:
    """A field TensorDescriptor's constructor computes: after ``block_shape`` or ``layout`` was
    assigned, the instance no longer holds it, and the first read re-runs the checks and
    recomputes every such field (reads before that cost nothing extra: the instance's own
    value shadows this class attribute)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        obj._revalidate()
        return obj.__dict__[self.name]


_DERIVED = ("_spec_id", "_spec", "_maps", "_block_shape", "_cta_block", "_layout", "_swizzle")


def _same(current, value) -> bool:
    """Whether an assigned block_shape or layout is the one the descriptor has."""
    if isinstance(current, tuple):
        try:
            return current == tuple(int(v) for v in value)
        except (TypeError, ValueError):
            return False
    try:
        return current is value or bool(current == value)
    except Exception:  # noqa: BLE001  -- a layout that cannot compare: treat as new
        return False


def _check_tensor_fields(err, shape, strides, address, dname, elem_bytes, padding,
                         round_f32_to_tf32, last_dim):
    """The checks a tiled and an im2col descriptor share (``err`` prefixes the message with
    the class; ``last_dim`` names the contiguous dimension): dimensions in range, strides 16-
    byte multiples below 2**40 with the last one 1, a 16-byte aligned base, tf32 rounding of
    float32 only, zero or NaN padding (NaN of floats only)."""
    for i, d in enumerate(shape):
        if not 1 <= d <= MAX_DIM:
            raise ValueError(err(f"shape[{i}] = {d} is out of range [1, 2**32]"))
    rank = len(shape)
    if strides[-1] != 1:
        raise ValueError(err(f"strides[{rank - 1}] = {strides[-1]}: {last_dim} must be "
                             f"contiguous (stride 1)"))
    for i, s in enumerate(strides[:-1]):
        nbytes = s * elem_bytes
        if s < 1 or nbytes % ALIGN_BYTES:
            raise ValueError(err(f"strides[{i}] = {s} ({nbytes} bytes of {dname}) must be a "
                                 f"positive multiple of {ALIGN_BYTES} bytes"))
        if nbytes >= MAX_STRIDE_BYTES:
            raise ValueError(err(f"strides[{i}] = {s} ({nbytes} bytes) must be less than "
                                 f"2**40 bytes"))
    if address % ALIGN_BYTES:
        raise ValueError(err(f"base.data_ptr() = {address:#x} is not {ALIGN_BYTES}-byte "
                             f"aligned"))
    if round_f32_to_tf32 and dname != "fp32":
        raise ValueError(err(f"round_f32_to_tf32=True needs a float32 tensor, got {dname}"))
    if padding not in PADDINGS:
        raise ValueError(err(f"padding must be 'zero' or 'nan', got {padding!r}"))
    if padding == "nan" and dname not in _NAN_DTYPES:
        raise ValueError(err(f"padding='nan' needs a float dtype ({', '.join(_NAN_DTYPES)}), "
                             f"got {dname}"))


def _layout_spec(layout) -> dict:
    """The NVMMA layout's fields as a descriptor's parameter spec holds them."""
    return {"swizzle_byte_width": int(layout.swizzle_byte_width),
            "element_bitwidth": int(layout.element_bitwidth),
            "rank": int(layout.rank), "transposed": bool(layout.transposed),
            "fp4_padded": bool(layout.fp4_padded)}


class TensorDescriptor:
    """The host side of a TMA tensor descriptor (Gluon's ``TensorDescriptor``).

    ``base``: a device tensor (``data_ptr()``, ``dtype``; torch tensors and the like), whose
    dtype is the descriptor's element type. ``shape`` and ``strides`` (in elements, the last
    one 1) describe the global tensor from ``base``; ``block_shape`` the block one copy moves;
    ``layout`` the ``NVMMASharedLayout`` the block has in shared memory (read by attribute:
    ``swizzle_byte_width``, ``element_bitwidth``, ``rank``, ``transposed``, ``fp4_padded``).
    ``padding`` is what out-of-bounds elements read as: ``"zero"`` or ``"nan"`` (float
    tensors). ``round_f32_to_tf32`` (float32 tensors; Gluon's after Triton 3.6) makes TMA
    round each element it loads to tf32 (the tensor map's TFLOAT32 type). ``block_shape`` and ``layout`` may be assigned (an autotuning ``pre_hook`` sets
    them per config, as Triton's tutorials do): the new pair is checked when the descriptor
    is next used, so either may be set first. The other attributes are read-only; the
    encoded map is cached on the object.
    """

    for _name in _DERIVED:
        locals()[_name] = _Revalidated()
        locals()[_name].__set_name__(None, _name)
    del _name

    def __init__(self, base, shape, strides, block_shape, layout, padding="zero",
                 round_f32_to_tf32=False):
        address = _device_address(base)
        if not isinstance(round_f32_to_tf32, bool):
            raise TypeError(_err(f"round_f32_to_tf32 must be a bool, got "
                                 f"{round_f32_to_tf32!r}"))
        # Projects build their descriptors for every call: the same fields again are valid
        # again, and share the maps encoded for them.
        key = known = None
        if type(layout).__hash__ not in (None, object.__hash__):  # hashed by value
            try:
                key = (address, getattr(base, "dtype", None), tuple(shape), tuple(strides),
                       tuple(block_shape), layout, padding, round_f32_to_tf32)
                known = _VALIDATED.get(key)
            except TypeError:  # unhashable fields: the checks below say what is wrong
                key = known = None
        if known is not None:
            self.__dict__.update(known)
            self._base = base
            return
        try:
            name = _pointer_dtype_name(base)
            dtype = _core.dtype_from_name(name)
        except (TypeError, ValueError):
            raise TypeError(_err(f"base.dtype {getattr(base, 'dtype', None)!r} is not a "
                                 f"tensor dtype Kiln knows")) from None
        dname = _core.signature_name(dtype)
        if dname not in _TMA_DTYPES:
            raise ValueError(_err(f"base.dtype {dname} is not supported by TMA descriptors "
                                  f"(supported: {', '.join(_TMA_DTYPES)})"))
        bits = dtype.primitive_bitwidth
        elem_bytes = bits // 8

        shape = _ints(shape, "shape")
        strides = _ints(strides, "strides")
        block_shape = _ints(block_shape, "block_shape")
        rank = len(shape)
        if not 1 <= rank <= MAX_RANK:
            raise ValueError(_err(f"rank (len(shape) = {rank}) must be 1 to {MAX_RANK}"))
        for field, values in (("strides", strides), ("block_shape", block_shape)):
            if len(values) != rank:
                raise ValueError(_err(f"len({field}) = {len(values)} does not match the rank "
                                      f"{rank} of shape {shape}"))

        self._check_layout(layout, rank, bits, dname)

        _check_tensor_fields(_err, shape, strides, address, dname, elem_bytes, padding,
                             round_f32_to_tf32, "the last dimension")
        # A layout split among the CTAs of a cluster (cga_layout): each CTA copies its part,
        # which is the box.
        cga = [list(b) for b in (getattr(layout, "cga_layout", ()) or ())]
        cta_block = list(layout.per_cta_shape(block_shape, wrap=True)) if cga else block_shape
        for i, b in enumerate(block_shape):
            # A 2-D block's rows may span several boxes (tma_box).
            most = MAX_ROWS if (rank == 2 and i == 0) else MAX_BOX_DIM
            if b < 1 or b & (b - 1) or cta_block[i] > most:
                part = f" (each CTA's part {cta_block[i]})" if cga else ""
                raise ValueError(_err(f"block_shape[{i}] = {b}{part} must be a power of two in "
                                      f"[1, {most}]"))
        row_bytes = block_shape[-1] * elem_bytes
        if row_bytes % ALIGN_BYTES:
            raise ValueError(_err(f"block_shape[{rank - 1}] = {block_shape[-1]} elements of "
                                  f"{dname} is {row_bytes} bytes; the innermost block "
                                  f"dimension must be a multiple of {ALIGN_BYTES} bytes"))
        if cga and cta_block[-1] * elem_bytes % ALIGN_BYTES:
            raise ValueError(_err(f"block_shape {block_shape} split by the layout's cga_layout "
                                  f"{cga} gives each CTA rows of {cta_block[-1]} elements of "
                                  f"{dname}, {cta_block[-1] * elem_bytes} bytes; the innermost "
                                  f"dimension of a CTA's part must be a multiple of "
                                  f"{ALIGN_BYTES} bytes"))
        # Last: whether the block fits its layout, once every field is valid on its own.
        self._check_swizzle_fits(cta_block, int(layout.swizzle_byte_width), elem_bytes,
                                 dname)

        self._base = base
        self._address = address
        self._dtype = dtype
        self._dtype_name = dname
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._block_shape = tuple(block_shape)
        self._cta_block = tuple(cta_block)
        self._layout = layout
        self._padding = padding
        self._tf32 = round_f32_to_tf32
        self._swizzle = int(layout.swizzle_byte_width)
        self._spec = {
            "dtype": dname, "block_shape": list(block_shape),
            "layout": _layout_spec(layout)}
        if cga:
            self._spec["layout"]["cga_layout"] = cga
        self._maps: Dict[str, bytes] = {}
        # Equal ids <=> equal (dtype, block_shape, layout): what kernels specialize on.
        self._spec_id = _spec_id(dtype, self._block_shape, layout)
        if key is not None:
            if len(_VALIDATED) > 4096:
                _VALIDATED.clear()
            _VALIDATED[key] = {k: v for k, v in self.__dict__.items() if k != "_base"}

    @staticmethod
    def _check_swizzle_fits(block_shape: List[int], swizzle: int, elem_bytes: int,
                            dname: str) -> None:
        """The rule the kernel's buffer in this layout must follow (the ``nvmma_shared``
        buffer verifier, which otherwise refuses the kernel's ``tensordesc`` parameter at its
        ``def`` line): a swizzled block has rows at least one swizzle wide. (A block of fewer
        than ``SWIZZLE_ROWS`` rows is swizzled as TMA swizzles it, by address: its boxes'
        lines continue the swizzle pattern.)"""
        if not swizzle:
            return
        rank = len(block_shape)
        row_bytes = block_shape[-1] * elem_bytes
        if row_bytes < swizzle:
            raise ValueError(_err(
                f"block_shape[{rank - 1}] = {block_shape[-1]} elements of {dname} is "
                f"{row_bytes} bytes, narrower than the {swizzle}-byte swizzle "
                f"(layout.swizzle_byte_width = {swizzle}), which needs rows of at least "
                f"{swizzle // elem_bytes} elements; use a smaller swizzle "
                f"(NVMMASharedLayout.get_default_for picks one that fits)"))

    @staticmethod
    def _check_layout(layout, rank: int, bits: int, dname: str) -> None:
        missing = [f for f in _LAYOUT_FIELDS if not hasattr(layout, f)]
        if missing:
            raise TypeError(_err(f"layout must be an NVMMASharedLayout (with "
                                 f"{', '.join(_LAYOUT_FIELDS)}), got {type(layout).__name__} "
                                 f"(no {', '.join(missing)})"))
        if layout.swizzle_byte_width not in SWIZZLES:
            raise ValueError(_err(f"layout.swizzle_byte_width = {layout.swizzle_byte_width!r} "
                                  f"must be 0, 32, 64 or 128"))
        if layout.element_bitwidth != bits:
            raise ValueError(_err(f"layout.element_bitwidth = {layout.element_bitwidth!r} does "
                                  f"not match base.dtype {dname} ({bits} bits)"))
        if layout.rank != rank:
            raise ValueError(_err(f"layout.rank = {layout.rank!r} does not match the rank "
                                  f"{rank} of shape"))
        if layout.transposed:
            raise ValueError(_err(TRANSPOSED_TMA))
        if layout.fp4_padded:
            raise ValueError(_err("layout.fp4_padded = True: fp4-padded layouts are not "
                                  "supported for TMA descriptors yet"))

    @staticmethod
    def from_tensor(tensor, block_shape, layout, padding="zero",
                    round_f32_to_tf32=False) -> "TensorDescriptor":
        """The whole of ``tensor`` (``shape = tensor.shape``, ``strides = tensor.stride()``),
        copied in ``block_shape`` blocks. ``tensor`` is a device tensor: an object with
        ``data_ptr()``, ``shape``, ``stride()`` and ``dtype`` (a torch tensor, for one)."""
        missing = [label for attr, label, call in _TENSOR_FIELDS
                   if not hasattr(tensor, attr) or (call and not callable(getattr(tensor, attr)))]
        if missing:
            raise TypeError(f"TensorDescriptor.from_tensor: tensor must be a device tensor (an "
                            f"object with data_ptr(), shape, stride() and dtype, e.g. a torch "
                            f"tensor), got {type(tensor).__name__} (no {', '.join(missing)})")
        return TensorDescriptor(tensor, tensor.shape, tensor.stride(), block_shape, layout,
                                padding, round_f32_to_tf32)

    base = property(lambda self: self._base, doc="The tensor the descriptor reads.")
    dtype = property(lambda self: self._dtype, doc="Element type (a kiln.language dtype).")
    shape = property(lambda self: list(self._shape), doc="Global shape, in elements.")
    strides = property(lambda self: list(self._strides), doc="Global strides, in elements.")
    def _next(self, field):
        pending = self.__dict__.get("_pending")
        return pending[field] if pending is not None else self.__dict__.get(
            "_" + field, getattr(self, "_" + field))

    def _assign(self, field, value):
        if "_pending" not in self.__dict__ and _same(getattr(self, "_" + field), value):
            return  # a pre_hook setting the block it has: the encoded map stays
        pending = self.__dict__.get("_pending") or {
            "block_shape": self._block_shape, "layout": self._layout}
        pending = dict(pending, **{field: value})
        for name in _DERIVED:
            self.__dict__.pop(name, None)
        self.__dict__["_pending"] = pending

    def _revalidate(self):
        pending = self.__dict__.pop("_pending", None)
        if pending is None:
            raise AttributeError("TensorDescriptor is not initialized")
        try:
            self.__init__(self._base, self._shape, self._strides, pending["block_shape"],
                          pending["layout"], self._padding, self._tf32)
        except Exception:
            self.__dict__["_pending"] = pending  # still to check, once fixed
            raise

    block_shape = property(lambda self: list(self._next("block_shape")),
                           lambda self, v: self._assign("block_shape", v),
                           doc="One copy's block (assignable: checked at the next use).")
    layout = property(lambda self: self._next("layout"),
                      lambda self, v: self._assign("layout", v),
                      doc="The block's NVMMASharedLayout (assignable: checked at the next use).")
    padding = property(lambda self: self._padding, doc="'zero' or 'nan'.")
    round_f32_to_tf32 = property(lambda self: self._tf32,
                                 doc="Whether TMA rounds loaded float32 elements to tf32.")

    def __repr__(self):
        return (f"TensorDescriptor({self._dtype_name}, shape={list(self._shape)}, "
                f"strides={list(self._strides)}, block_shape={list(self._block_shape)}, "
                f"swizzle={self._swizzle}, padding={self._padding!r})")

    def _param_spec(self) -> dict:
        """What a kernel compiled for this descriptor records for the parameter (the
        ``dtype``, ``block_shape`` and ``layout`` keys of a ``tensordesc`` param in the
        kernel's metadata): ``{"dtype": "bf16", "block_shape": [...], "layout":
        {"swizzle_byte_width", "element_bitwidth", "rank", "transposed", "fp4_padded"}}``."""
        s = self._spec
        return {"dtype": s["dtype"], "block_shape": list(s["block_shape"]),
                "layout": dict(s["layout"])}

    def _box(self) -> List[int]:
        return tma_box(self._cta_block, self._swizzle, self._dtype.primitive_bitwidth)

    def _tensor_map(self, driver) -> bytes:
        """The 128 encoded bytes for ``driver`` (a :class:`kiln.runtime.Driver`), encoded on
        first use per backend and cached: the launch path calls this every launch."""
        key = driver.backend
        encoded = self._maps.get(key)
        if encoded is None:
            elem_bytes = self._dtype.primitive_bitwidth // 8
            encoded = bytes(driver.encode_tensor_map(
                "tf32" if self._tf32 else self._dtype_name, self._address, self._shape[::-1],
                [s * elem_bytes for s in self._strides[-2::-1]], self._box()[::-1],
                None, self._swizzle, self._padding == "nan"))
            self._maps[key] = encoded
        return encoded


# --- im2col descriptors -----------------------------------------------------------------------
#
# An im2col descriptor describes a rank-3 to 5 channels-last tensor (NWC, NHWC, NDHWC) and a
# bounding box of pixels: from ``pixel_box_lower_corner`` to the last pixel moved by
# ``pixel_box_upper_corner``, per spatial dimension (D, H, W order, as the tensor). A kernel's
# ``tma.async_load_im2col`` gathers ``block_shape = [pixels, channels]``: ``pixels``
# consecutive pixels of that box (W fastest, stepping by ``element_strides``), from the
# coordinates it gives, each moved by its offsets, and ``channels`` channels of each. The
# runtime encodes it with the driver's ``cuTensorMapEncodeIm2col``; every limit the driver
# would refuse with a bare ``CUDA_ERROR_INVALID_VALUE`` is checked first, by name.


def _im2col_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _im2col_err(what: str) -> str:
    return f"TensorDescriptorIm2Col: {what}"


class _Renamed:
    """Gives the errors of TensorDescriptor's shared checks this class's name."""

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if isinstance(err, (TypeError, ValueError)) and str(err).startswith("TensorDescriptor:"):
            raise type(err)("TensorDescriptorIm2Col:" + str(err)[len("TensorDescriptor:"):]) \
                from None
        return False


class TensorDescriptorIm2Col:
    """The host side of a TMA im2col descriptor (Gluon's ``TensorDescriptorIm2Col``), passed
    to a kernel parameter that ``tma.async_load_im2col`` reads.

    ``base``, ``shape``, ``strides``, ``layout``, ``padding`` and ``round_f32_to_tf32`` are
    as :class:`kiln.nvidia.hopper.TensorDescriptor`'s, for a tensor of rank 3 to 5 whose
    last dimension is the channels. ``block_shape`` is ``[pixels, channels]`` (powers of two,
    at most 1024 pixels and 256 channels). ``element_strides`` (one per dimension, 1 to 8,
    the last 1; default all 1) steps through the pixel box, as a convolution's stride.
    ``pixel_box_lower_corner`` and ``pixel_box_upper_corner`` (one per spatial dimension,
    required) move the box's first and last pixel from the tensor's: within [-32768, 32767]
    for rank 3, [-128, 127] for rank 4, [-16, 15] for rank 5, and the box must hold a pixel
    in every spatial dimension. The attributes are read-only; the encoded map is cached."""

    def __init__(self, base, shape, strides, block_shape, layout, padding="zero",
                 round_f32_to_tf32=False, element_strides=None, pixel_box_lower_corner=None,
                 pixel_box_upper_corner=None):
        with _Renamed():
            self._init(base, shape, strides, block_shape, layout, padding, round_f32_to_tf32,
                       element_strides, pixel_box_lower_corner, pixel_box_upper_corner)

    def _init(self, base, shape, strides, block_shape, layout, padding, round_f32_to_tf32,
              element_strides, pixel_box_lower_corner, pixel_box_upper_corner):
        address = _device_address(base)
        if not isinstance(round_f32_to_tf32, bool):
            raise TypeError(_im2col_err(f"round_f32_to_tf32 must be a bool, got "
                                        f"{round_f32_to_tf32!r}"))
        try:
            dtype = _core.dtype_from_name(_pointer_dtype_name(base))
        except (TypeError, ValueError):
            raise TypeError(_im2col_err(f"base.dtype {getattr(base, 'dtype', None)!r} is not a "
                                        f"tensor dtype Kiln knows")) from None
        dname = _core.signature_name(dtype)
        if dname not in _TMA_DTYPES:
            raise ValueError(_im2col_err(f"base.dtype {dname} is not supported by TMA descriptors "
                                         f"(supported: {', '.join(_TMA_DTYPES)})"))
        elem_bytes = dtype.primitive_bitwidth // 8
        shape = [int(v) for v in _ints(shape, "shape")]
        strides = _ints(strides, "strides")
        block_shape = _ints(block_shape, "block_shape")
        rank = len(shape)
        if rank not in CORNER_RANGES:
            raise ValueError(_im2col_err(f"im2col tensors have rank 3, 4 or 5 (N, spatial "
                                         f"dimensions, C), got shape {shape} of rank {rank}"))
        if len(strides) != rank:
            raise ValueError(_im2col_err(f"len(strides) = {len(strides)} does not match the rank "
                                         f"{rank} of shape {shape}"))
        if len(block_shape) != 2:
            raise ValueError(_im2col_err(f"block_shape is [pixels, channels], got {block_shape}"))
        TensorDescriptor._check_layout(layout, 2, dtype.primitive_bitwidth, dname)
        _check_tensor_fields(_im2col_err, shape, strides, address, dname, elem_bytes, padding,
                             round_f32_to_tf32, "the channels")
        pixels, channels = block_shape
        if not _im2col_pow2(pixels) or pixels > MAX_PIXELS:
            raise ValueError(_im2col_err(f"block_shape[0] = {pixels} pixels per column must be a "
                                         f"power of two in [1, {MAX_PIXELS}]"))
        if not _im2col_pow2(channels) or channels > MAX_CHANNELS:
            raise ValueError(_im2col_err(f"block_shape[1] = {channels} channels per pixel must be a "
                                         f"power of two in [1, {MAX_CHANNELS}]"))
        if channels * elem_bytes % ALIGN_BYTES:
            raise ValueError(_im2col_err(f"block_shape[1] = {channels} channels of {dname} is "
                                         f"{channels * elem_bytes} bytes; a pixel's channels must be "
                                         f"a multiple of {ALIGN_BYTES} bytes"))
        cga = [list(b) for b in (getattr(layout, "cga_layout", ()) or ())]
        if any(any(v for v in b) for b in cga):
            raise ValueError(_im2col_err(f"the layout's cga_layout {cga} splits the block among "
                                         f"CTAs; an im2col block can only be repeated (zero bases)"))
        if element_strides is None:
            element_strides = [1] * rank
        element_strides = _ints(element_strides, "element_strides")
        if len(element_strides) != rank:
            raise ValueError(_im2col_err(f"element_strides has {len(element_strides)} entries, the "
                                         f"tensor's rank is {rank}"))
        for i, s in enumerate(element_strides):
            if not 1 <= s <= MAX_ELEMENT_STRIDE:
                raise ValueError(_im2col_err(f"element_strides[{i}] = {s} must be in [1, "
                                             f"{MAX_ELEMENT_STRIDE}]"))
        if element_strides[-1] != 1:
            raise ValueError(_im2col_err(f"element_strides[{rank - 1}] = {element_strides[-1]}: the "
                                         f"channels are read contiguously (TMA ignores a channel "
                                         f"stride), so it must be 1"))
        lo, hi = CORNER_RANGES[rank]
        corners = []
        for name, corner in (("pixel_box_lower_corner", pixel_box_lower_corner),
                             ("pixel_box_upper_corner", pixel_box_upper_corner)):
            if corner is None:
                raise ValueError(_im2col_err(f"{name} is required (one offset per spatial dimension, "
                                             f"{rank - 2} here)"))
            corner = _ints(corner, name)
            if len(corner) != rank - 2:
                raise ValueError(_im2col_err(f"{name} has {len(corner)} entries; a rank-{rank} "
                                             f"tensor has {rank - 2} spatial dimensions"))
            for i, v in enumerate(corner):
                if not lo <= v <= hi:
                    raise ValueError(_im2col_err(f"{name}[{i}] = {v} is outside [{lo}, {hi}], the "
                                                 f"range of a rank-{rank} tensor's pixel box"))
            corners.append(corner)
        lower, upper = corners
        for i in range(rank - 2):
            extent = shape[1 + i] + upper[i] - lower[i]
            if extent < 1:
                raise ValueError(_im2col_err(f"the pixel box is empty along spatial dimension {i}: "
                                             f"shape[{1 + i}] = {shape[1 + i]} from "
                                             f"{lower[i]} to {shape[1 + i] - 1} + {upper[i]}"))
        TensorDescriptor._check_swizzle_fits(block_shape, int(layout.swizzle_byte_width),
                                             elem_bytes, dname)

        self._base = base
        self._address = address
        self._dtype = dtype
        self._dtype_name = dname
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._block_shape = tuple(block_shape)
        self._layout = layout
        self._padding = padding
        self._tf32 = round_f32_to_tf32
        self._element_strides = tuple(element_strides)
        self._lower = tuple(lower)
        self._upper = tuple(upper)
        self._swizzle = int(layout.swizzle_byte_width)
        self._spec = {
            "dtype": dname, "block_shape": list(block_shape),
            "layout": _layout_spec(layout), "im2col": {"rank": rank}}
        if cga:
            self._spec["layout"]["cga_layout"] = cga
        self._maps: Dict[str, bytes] = {}
        # The kernels' kind: an im2col one of this rank, never a tiled one's id.
        self._spec_id = _spec_id(dtype, ("im2col", rank) + self._block_shape, layout)

    @staticmethod
    def from_tensor(tensor, block_shape, layout, padding="zero", round_f32_to_tf32=False,
                    element_strides=None, pixel_box_lower_corner=None,
                    pixel_box_upper_corner=None) -> "TensorDescriptorIm2Col":
        """The whole of ``tensor`` (a device tensor with ``data_ptr()``, ``shape``,
        ``stride()`` and ``dtype``), gathered in ``block_shape = [pixels, channels]``
        blocks."""
        if not callable(getattr(tensor, "stride", None)) or not hasattr(tensor, "shape"):
            raise TypeError(f"TensorDescriptorIm2Col.from_tensor: tensor must be a device "
                            f"tensor (data_ptr(), shape, stride(), dtype), got "
                            f"{type(tensor).__name__}")
        return TensorDescriptorIm2Col(tensor, tensor.shape, tensor.stride(), block_shape,
                                      layout, padding, round_f32_to_tf32, element_strides,
                                      pixel_box_lower_corner, pixel_box_upper_corner)

    base = property(lambda self: self._base, doc="The tensor the descriptor reads.")
    dtype = property(lambda self: self._dtype, doc="Element type (a kiln.language dtype).")
    shape = property(lambda self: list(self._shape), doc="Global shape, in elements.")
    strides = property(lambda self: list(self._strides), doc="Global strides, in elements.")
    block_shape = property(lambda self: list(self._block_shape), doc="[pixels, channels].")
    layout = property(lambda self: self._layout, doc="The block's NVMMASharedLayout.")
    padding = property(lambda self: self._padding, doc="'zero' or 'nan'.")
    round_f32_to_tf32 = property(lambda self: self._tf32)
    element_strides = property(lambda self: list(self._element_strides))
    pixel_box_lower_corner = property(lambda self: list(self._lower))
    pixel_box_upper_corner = property(lambda self: list(self._upper))

    @property
    def mode(self) -> str:
        return "im2col"

    def __repr__(self):
        return (f"TensorDescriptorIm2Col({self._dtype_name}, shape={list(self._shape)}, "
                f"strides={list(self._strides)}, block_shape={list(self._block_shape)}, "
                f"lower={list(self._lower)}, upper={list(self._upper)}, "
                f"element_strides={list(self._element_strides)}, swizzle={self._swizzle}, "
                f"padding={self._padding!r})")

    def _kernel_type(self):
        """The parameter type a kernel compiled for this descriptor takes."""
        return tensor_descriptor_im2col_type(self._dtype, self._block_shape, self._layout,
                                             len(self._shape))

    def _param_spec(self) -> dict:
        s = self._spec
        return {"dtype": s["dtype"], "block_shape": list(s["block_shape"]),
                "layout": dict(s["layout"]), "im2col": dict(s["im2col"])}

    def _channels_per_box(self) -> int:
        """The channels one TMA box holds: the block's, or one swizzle width of them (the
        kernel then copies the block as several boxes, as kiln.nvidia.hopper.tma_box)."""
        return tma_box(self._block_shape, self._swizzle, self._dtype.primitive_bitwidth)[-1]

    def _encode_args(self) -> List:
        """cuTensorMapEncodeIm2col's arguments (dimension 0 innermost), for the driver."""
        elem_bytes = self._dtype.primitive_bitwidth // 8
        return ["tf32" if self._tf32 else self._dtype_name, self._address, self._shape[::-1],
                [s * elem_bytes for s in self._strides[-2::-1]], self._lower[::-1],
                self._upper[::-1], self._channels_per_box(), self._block_shape[0],
                self._element_strides[::-1], self._swizzle, self._padding == "nan"]

    def _tensor_map(self, driver) -> bytes:
        """The 128 encoded bytes for ``driver``, encoded on first use per backend."""
        key = driver.backend
        encoded = self._maps.get(key)
        if encoded is None:
            encoded = bytes(driver.encode_im2col_tensor_map(*self._encode_args()))
            self._maps[key] = encoded
        return encoded

