"""The GPU runtime's native layer (``libkiln_runtime.so``) through its C API, with ctypes.

The library dispatches to the CUDA Driver API or the HIP runtime, each opened with dlopen on
first use (python/src/runtime.cc); nothing here depends on the Python version. Arguments are
packed here into one buffer, each at its own offset: scalars and pointers in 8-byte
little-endian slots (value in the low bytes), a ``tensordesc`` (an encoded 128-byte TMA tensor
map, passed by value) at a 64-byte-aligned offset.

Found at ``$KILN_RUNTIME_LIBRARY`` or beside this file; importing raises ImportError when it
is missing (``kiln.runtime`` reports that as a :class:`KilnRuntimeError`).
"""

from __future__ import annotations

import ctypes
import json
import operator
import os
import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple

API_VERSION = 5

TENSOR_MAP_BYTES = 128  # a CUtensorMap
TENSOR_MAP_ALIGN = 64
TENSOR_MAP_MAX_RANK = 5


def _find_library() -> str:
    explicit = os.environ.get("KILN_RUNTIME_LIBRARY")
    if explicit:
        return explicit
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkiln_runtime.so")
    if not os.path.isfile(here):
        raise ImportError(f"Kiln's runtime library is missing ({here}); build it with "
                          f"scripts/build-runtime.sh or install the kiln wheel")
    return here


library_path = _find_library()
try:
    _lib = ctypes.CDLL(library_path)
except OSError as e:
    raise ImportError(f"cannot load {library_path}: {e}") from e

_u64, _cstr, _int = ctypes.c_uint64, ctypes.c_char_p, ctypes.c_int
_u32 = ctypes.c_uint32
_lib.kiln_rt_api_version.restype = _int
_lib.kiln_rt_error.restype = _cstr
for _name, _args in {
        "kiln_rt_load_error": [_cstr, ctypes.POINTER(_cstr)],
        "kiln_rt_device_count": [_cstr, ctypes.POINTER(_int)],
        "kiln_rt_device_info": [_cstr, ctypes.POINTER(_cstr)],
        "kiln_rt_load_module": [_cstr, _cstr, ctypes.c_size_t, ctypes.POINTER(_u64)],
        "kiln_rt_unload_module": [_cstr, _u64],
        "kiln_rt_get_function": [_cstr, _u64, _cstr, ctypes.c_long, ctypes.POINTER(_u64)],
        "kiln_rt_function_resources": [_cstr, _u64, ctypes.POINTER(_int), ctypes.POINTER(_int)],
        "kiln_rt_launch": [_cstr, _u64] + [ctypes.c_uint] * 8 + [
            _u64, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(_u32), ctypes.c_size_t],
        "kiln_rt_encode_tensor_map": [
            _cstr, _cstr, ctypes.c_uint, _u64, ctypes.POINTER(_u64), ctypes.POINTER(_u64),
            ctypes.POINTER(_u32), ctypes.POINTER(_u32), _int, _int, ctypes.c_void_p],
        "kiln_rt_encode_im2col_tensor_map": [
            _cstr, _cstr, ctypes.c_uint, _u64, ctypes.POINTER(_u64), ctypes.POINTER(_u64),
            ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32), _u32, _u32,
            ctypes.POINTER(_u32), _int, _int, ctypes.c_void_p],
        "kiln_rt_synchronize": [_cstr]}.items():
    getattr(_lib, _name).argtypes = _args
    getattr(_lib, _name).restype = _int
if _lib.kiln_rt_api_version() != API_VERSION:
    raise ImportError(f"{library_path} implements runtime API version "
                      f"{_lib.kiln_rt_api_version()}, this package needs {API_VERSION}")


class DriverError(RuntimeError):
    """A GPU driver call failed (or the driver library cannot be used)."""


def _check(rc: int) -> None:
    if rc:
        raise DriverError(_lib.kiln_rt_error().decode("utf-8", "replace"))


_NAMES: Dict[str, bytes] = {}


def _b(backend: str) -> bytes:
    name = _NAMES.get(backend)
    if name is None:
        name = _NAMES[backend] = backend.encode()
    return name


# --- driver calls -------------------------------------------------------------------------


def load_error(backend: str) -> Optional[str]:
    """Why the backend's library cannot be loaded, or None if it loads."""
    why = _cstr()
    _check(_lib.kiln_rt_load_error(_b(backend), ctypes.byref(why)))
    return why.value.decode("utf-8", "replace") or None


def device_count(backend: str) -> int:
    n = _int()
    if backend not in ("cuda", "hip"):
        raise ValueError(f"unknown backend '{backend}' (expected 'cuda' or 'hip')")
    _check(_lib.kiln_rt_device_count(_b(backend), ctypes.byref(n)))
    return n.value


def available_backends() -> List[str]:
    """Backends ('cuda', 'hip') whose driver loads, initializes and has a device."""
    out = []
    for backend in ("cuda", "hip"):
        try:
            if device_count(backend) > 0:
                out.append(backend)
        except DriverError:
            pass  # absent or unusable driver: simply not available
    return out


def device_info(backend: str) -> dict:
    """Properties of device 0: name, major, minor, arch, multiprocessor_count, warp_size,
    max_shared_per_block(_optin)."""
    text = _cstr()
    _check(_lib.kiln_rt_device_info(_b(backend), ctypes.byref(text)))
    return json.loads(text.value.decode("utf-8", "replace"))


def load_module(backend: str, image: bytes) -> int:
    module = _u64()
    image = bytes(image)
    _check(_lib.kiln_rt_load_module(_b(backend), image, len(image), ctypes.byref(module)))
    return module.value


def unload_module(backend: str, module: int) -> None:
    _check(_lib.kiln_rt_unload_module(_b(backend), module))


def get_function(backend: str, module: int, name: str, shared_bytes: int = 0) -> int:
    func = _u64()
    _check(_lib.kiln_rt_get_function(_b(backend), module, name.encode(), shared_bytes,
                                     ctypes.byref(func)))
    return func.value


def function_resources(backend: str, func: int):
    """(registers per thread, local bytes per thread) of a loaded function; -1 for what the
    driver cannot tell."""
    regs, local = _int(), _int()
    _check(_lib.kiln_rt_function_resources(_b(backend), func, ctypes.byref(regs),
                                           ctypes.byref(local)))
    return regs.value, local.value


def launch(backend: str, func: int, grid: Sequence[int], block: Sequence[int],
           shared_bytes: int, stream: int, arg_types: Sequence[str], args: Sequence,
           cluster: int = 1) -> None:
    """``cluster`` > 1: each ``cluster`` consecutive CTAs along x form one hardware
    thread-block cluster (grid x must be a multiple of it)."""
    plan = _plan(arg_types)
    buf = plan.pack(args)  # first: a bad argument never reaches the driver
    # The library copies the buffer during the call (to a 64-byte-aligned one).
    _check(_lib.kiln_rt_launch(_b(backend), func, *grid, *block, cluster, shared_bytes,
                               stream or 0, buf, plan.size, plan.c_offsets, plan.count))


def synchronize(backend: str) -> None:
    _check(_lib.kiln_rt_synchronize(_b(backend)))


def pack_args(arg_types: Sequence[str], args: Sequence) -> Tuple[bytes, Tuple[int, ...]]:
    """The launch's argument buffer and each argument's byte offset in it: what ``launch``
    hands the driver. Scalars and pointers take 8-byte little-endian slots at 8-byte-aligned
    offsets; a ``tensordesc`` takes its 128 bytes at a 64-byte-aligned offset; the gaps are
    zero."""
    plan = _plan(arg_types)
    return plan.pack(args), plan.offsets


def encode_tensor_map(backend: str, dtype: str, global_address: int, dims: Sequence[int],
                      strides_bytes: Sequence[int], box: Sequence[int],
                      element_strides: Optional[Sequence[int]] = None, swizzle_bytes: int = 0,
                      oob_nan: bool = False) -> bytes:
    """A tiled TMA tensor map (CUDA's ``cuTensorMapEncodeTiled``) as its 128 bytes, the value
    a ``tensordesc`` kernel argument takes.

    Dimension 0 is the innermost (contiguous) one, as in CUDA: ``dims``, ``box`` and
    ``element_strides`` (default all 1) have one entry per dimension, ``strides_bytes`` one
    fewer (the byte strides of dimensions 1, 2, ...). ``dtype`` is Kiln's signature spelling
    (``"bf16"``, ``"fp32"``, ``"i8"`` ...). ``swizzle_bytes`` is 0, 32, 64 or 128; ``oob_nan``
    makes out-of-bounds reads NaN instead of zero (16/32/64-bit floats only). Interleave is
    none and L2 promotion 128 bytes. Only basic shapes are checked here; the driver checks the
    rest (:class:`kiln.nvidia.hopper.TensorDescriptor` checks everything first, by name).
    Raises DriverError when the backend has no tensor maps or the driver refuses."""
    rank = len(dims)
    if not 1 <= rank <= TENSOR_MAP_MAX_RANK:
        raise ValueError(f"tensor map: rank must be 1 to {TENSOR_MAP_MAX_RANK}, got {rank}")
    if element_strides is None:
        element_strides = [1] * rank
    arrays = []
    for what, values, want, ctype in (("dims", dims, rank, _u64),
                                      ("strides_bytes", strides_bytes, rank - 1, _u64),
                                      ("box", box, rank, _u32),
                                      ("element_strides", element_strides, rank, _u32)):
        if len(values) != want:
            raise ValueError(f"tensor map: {what} needs {want} entries for rank {rank}, "
                             f"got {len(values)}")
        bits = 8 * ctypes.sizeof(ctype)
        arrays.append((ctype * max(want, 1))(*[_c_uint(v, f"tensor map: {what}", bits)
                                               for v in values]))
    address = _c_uint(global_address, "tensor map: global_address", 64)
    out = ctypes.create_string_buffer(TENSOR_MAP_BYTES)
    _check(_lib.kiln_rt_encode_tensor_map(
        _b(backend), str(dtype).encode(), rank, address, *arrays, int(swizzle_bytes),
        1 if oob_nan else 0, out))
    return out.raw


def encode_im2col_tensor_map(backend: str, dtype: str, global_address: int,
                             dims: Sequence[int], strides_bytes: Sequence[int],
                             lower_corner: Sequence[int], upper_corner: Sequence[int],
                             channels_per_pixel: int, pixels_per_column: int,
                             element_strides: Optional[Sequence[int]] = None,
                             swizzle_bytes: int = 0, oob_nan: bool = False) -> bytes:
    """An im2col TMA tensor map (CUDA's ``cuTensorMapEncodeIm2col``) as its 128 bytes.

    As :func:`encode_tensor_map`, dimension 0 is the innermost (the channels), then W, H, D
    and N: ``dims`` and ``element_strides`` have one entry per dimension (rank 3 to 5),
    ``strides_bytes`` one fewer, ``lower_corner`` and ``upper_corner`` one per spatial
    dimension (W first). A copy moves ``pixels_per_column`` pixels of ``channels_per_pixel``
    channels. Only basic shapes are checked here
    (:class:`kiln.nvidia.hopper.TensorDescriptorIm2Col` checks everything first, by name)."""
    rank = len(dims)
    if not 3 <= rank <= TENSOR_MAP_MAX_RANK:
        raise ValueError(f"im2col tensor map: rank must be 3 to {TENSOR_MAP_MAX_RANK}, "
                         f"got {rank}")
    if element_strides is None:
        element_strides = [1] * rank
    arrays = []
    for what, values, want, ctype, signed in (
            ("dims", dims, rank, _u64, False), ("strides_bytes", strides_bytes, rank - 1, _u64, False),
            ("lower_corner", lower_corner, rank - 2, ctypes.c_int32, True),
            ("upper_corner", upper_corner, rank - 2, ctypes.c_int32, True),
            ("element_strides", element_strides, rank, _u32, False)):
        if len(values) != want:
            raise ValueError(f"im2col tensor map: {what} needs {want} entries for rank "
                             f"{rank}, got {len(values)}")
        check = _c_int32 if signed else (
            lambda v, w, c=ctype: _c_uint(v, w, 8 * ctypes.sizeof(c)))
        arrays.append((ctype * want)(*[check(v, f"im2col tensor map: {what}")
                                       for v in values]))
    address = _c_uint(global_address, "im2col tensor map: global_address", 64)
    channels = _c_uint(channels_per_pixel, "im2col tensor map: channels_per_pixel", 32)
    pixels = _c_uint(pixels_per_column, "im2col tensor map: pixels_per_column", 32)
    out = ctypes.create_string_buffer(TENSOR_MAP_BYTES)
    _check(_lib.kiln_rt_encode_im2col_tensor_map(
        _b(backend), str(dtype).encode(), rank, address, arrays[0], arrays[1], arrays[2],
        arrays[3], channels, pixels, arrays[4], int(swizzle_bytes), 1 if oob_nan else 0, out))
    return out.raw


def _c_int32(value, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be ints, got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be ints, got {type(value).__name__}") from None
    if not -2**31 <= v < 2**31:
        raise ValueError(f"{what}: {v} is out of range [-2**31, 2**31)")
    return v


def _c_uint(value, what: str, bits: int) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be ints, got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be ints, got {type(value).__name__}") from None
    if not 0 <= v < 1 << bits:
        raise ValueError(f"{what}: {v} is out of range [0, 2**{bits})")
    return v


# --- argument packing ---------------------------------------------------------------------


def _where(i: int, ty: str) -> str:
    return f"argument {i} ({ty})"


def _int_arg(value, i: int, ty: str, lo: int, hi: int) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{_where(i, ty)} expects an int, got {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{_where(i, ty)}: {value} is out of range [{lo}, {hi}]")
    return v


def _float_arg(value, i: int, ty: str) -> float:
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{_where(i, ty)} expects a float, got {type(value).__name__}")
    try:
        return float(value)
    except TypeError:
        raise TypeError(f"{_where(i, ty)} expects a float, got {type(value).__name__}") from None


def _f32_bits(value: float) -> int:
    """Bits of the float32 nearest `value` (C's double-to-float conversion: inf beyond)."""
    return struct.unpack("<I", bytes(ctypes.c_float(value)))[0]


def _bits_f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def _half_bits(value: float) -> int:
    """IEEE binary16 of float32(value), round to nearest even, overflow to inf."""
    f = _f32_bits(value)
    sign = (f >> 16) & 0x8000
    f &= 0x7FFFFFFF
    if f >= 0x47800000:  # >= 65536, inf or nan: inf, or a quiet nan
        return sign | (0x7E00 if f > 0x7F800000 else 0x7C00)
    if f < 0x38800000:  # below 2^-14: subnormal or zero; the FPU rounds the
        magic = 126 << 23  # mantissa when 0.5 is added (exact in double, then to float)
        return sign | ((_f32_bits(_bits_f32(f) + _bits_f32(magic)) - magic) & 0xFFFF)
    odd = (f >> 13) & 1
    f = (f + 0xC8000FFF + odd) & 0xFFFFFFFF  # rebias the exponent and round
    return sign | (f >> 13)


def _bf16_bits(value: float) -> int:
    """bfloat16 of float32(value): the top half, round to nearest even, nans stay nan."""
    f = _f32_bits(value)
    if (f & 0x7FFFFFFF) > 0x7F800000:
        return ((f >> 16) | 0x40) & 0xFFFF
    return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16) & 0xFFFF


def _signed(bits: int) -> Callable:
    lo, hi, mask = -(1 << (bits - 1)), (1 << (bits - 1)) - 1, (1 << bits) - 1
    return lambda v, i, ty: _int_arg(v, i, ty, lo, hi) & mask


def _unsigned(bits: int) -> Callable:
    hi = (1 << bits) - 1
    return lambda v, i, ty: _int_arg(v, i, ty, 0, hi)


_PACKERS: Dict[str, Callable] = {
    "i1": _unsigned(1), "i8": _signed(8), "i16": _signed(16), "i32": _signed(32),
    "i64": _signed(64), "u8": _unsigned(8), "u16": _unsigned(16), "u32": _unsigned(32),
    "u64": _unsigned(64),
    "fp16": lambda v, i, ty: _half_bits(_float_arg(v, i, ty)),
    "bf16": lambda v, i, ty: _bf16_bits(_float_arg(v, i, ty)),
    "fp32": lambda v, i, ty: _f32_bits(_float_arg(v, i, ty)),
    "fp64": lambda v, i, ty: struct.unpack("<Q", struct.pack("<d", _float_arg(v, i, ty)))[0],
}
_POINTER = _unsigned(64)


def _tensor_map_arg(value, i: int, ty: str) -> bytes:
    """An encoded tensor map: exactly TENSOR_MAP_BYTES bytes (bytes, bytearray, memoryview)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, (bytearray, memoryview)):
        data = bytes(value) if isinstance(value, bytearray) else value.tobytes()
    else:
        raise TypeError(f"{_where(i, ty)} expects an encoded {TENSOR_MAP_BYTES}-byte tensor map "
                        f"(bytes; a TensorDescriptor's is passed by kiln.runtime), got "
                        f"{type(value).__name__}")
    if len(data) != TENSOR_MAP_BYTES:
        raise ValueError(f"{_where(i, ty)}: an encoded tensor map is {TENSOR_MAP_BYTES} bytes, "
                         f"got {len(data)}")
    return data


# Per argument type: (size, alignment, struct code) in the argument buffer.
_SLOT = (8, 8, "Q")
_TENSOR_MAP_SLOT = (TENSOR_MAP_BYTES, TENSOR_MAP_ALIGN, f"{TENSOR_MAP_BYTES}s")


def _packer(ty: str) -> Callable:
    if ty.startswith("*"):  # any pointee: a 64-bit device address; None is null
        return lambda v, i, t: 0 if v is None else _POINTER(v, i, t)
    if ty == "tensordesc":
        return _tensor_map_arg
    return _PACKERS.get(ty) or _unknown(ty)


def _unknown(ty: str) -> Callable:
    def fail(v, i, t):
        raise TypeError(f"argument {i}: unknown type '{ty}'")
    return fail


class _Plan:
    """How one argument-type list packs: each argument's packer and offset, and one struct
    for the whole buffer (padding between arguments written as zero bytes)."""

    __slots__ = ("types", "packers", "offsets", "c_offsets", "size", "count", "struct")

    def __init__(self, types: Tuple[str, ...]):
        self.types = types
        self.packers = [_packer(t) for t in types]
        offsets, fmt, size = [], "<", 0
        for ty in types:
            nbytes, align, code = _TENSOR_MAP_SLOT if ty == "tensordesc" else _SLOT
            pad = -size % align
            if pad:
                fmt += f"{pad}x"
            size += pad
            offsets.append(size)
            fmt += code
            size += nbytes
        self.offsets = tuple(offsets)
        self.count = len(types)
        self.size = size
        self.c_offsets = (_u32 * max(self.count, 1))(*offsets)
        self.struct = struct.Struct(fmt)

    def pack(self, args: Sequence) -> bytes:
        types = self.types
        if len(args) != len(types):
            raise TypeError(f"expected {len(types)} arguments, got {len(args)}")
        return self.struct.pack(*[pack(a, i, t) for i, (pack, a, t)
                                  in enumerate(zip(self.packers, args, types))])


_PLANS: Dict[Tuple[str, ...], _Plan] = {}

# Per argument type, the struct code that writes an argument's slot as its packer does, for
# the values the launch fast path (kiln.runtime.launcher.LoadedKernel.fast_launcher) passes:
# pointers as int addresses, i1 as a bool, the ints as ints, floats as floats, a tensordesc as
# bytes of exactly TENSOR_MAP_BYTES. struct refuses (struct.error, OverflowError) what the
# packers refuse (an int out of the type's range, a float beyond float32's); the caller then
# takes the general path, which raises the packer's error.
_FAST_CODES = {"i1": "B7x", "i32": "i4x", "u32": "I4x", "i64": "q", "u64": "Q",
               "fp32": "f4x", "fp64": "d", "tensordesc": f"{TENSOR_MAP_BYTES}s"}


def unprototyped(fn):
    """``fn`` (a ctypes function of this library) without argtypes, or None when ``fn`` is not
    one (a stand-in). Called with ctypes objects for its 64-bit parameters and Python ints
    only for its 32-bit ones, it skips the per-argument conversions of argtypes (about half
    of a launch's ctypes cost)."""
    if not isinstance(fn, ctypes._CFuncPtr):
        return None
    raw = type(fn)(ctypes.cast(fn, ctypes.c_void_p).value)  # as lib.name with no argtypes
    raw.restype = fn.restype
    return raw


def fast_struct(arg_types: Sequence[str]) -> Optional[struct.Struct]:
    """A struct.Struct packing the whole argument buffer of ``launch`` (the layout of
    ``pack_args``) from the values of the launch fast path, or None when a type has no such
    code (fp16, bf16, i8, i16, ...)."""
    fmt, size = "<", 0
    for ty in arg_types:
        code = "Q" if ty.startswith("*") else _FAST_CODES.get(ty)
        if code is None:
            return None
        nbytes, align, _ = _TENSOR_MAP_SLOT if ty == "tensordesc" else _SLOT
        pad = -size % align
        if pad:
            fmt += f"{pad}x"
        size += pad + nbytes
        fmt += code
    return struct.Struct(fmt)


def _plan(arg_types: Sequence[str]) -> _Plan:
    types = tuple(arg_types)
    plan = _PLANS.get(types)
    if plan is None:
        plan = _PLANS[types] = _Plan(types)
    return plan
