"""``scaled_upcast`` of ``amd.cdna3`` and ``amd.cdna4`` (Gluon's names after Triton 3.6): fp8
(e4m3 / e5m2) or packed fp4 (e2m1, two a byte, the low nibble first) values times a power of
two given as a raw E8M0 byte, in fp16 or bf16.

An E8M0 byte e is 2**(e - 127); Gluon hands it to the hardware op as the bf16 whose exponent
field is e (the byte shifted left by 7), so e = 0 gives 0 and e = 255 infinity, and Kiln does
the same. The value is decoded to fp32 (exactly: every fp8 and fp4 value is an fp32), scaled
there (exactly, unless the product leaves fp32's normal range) and rounded once to the result
type, to nearest even.

Kiln computes this with the target's ordinary conversions and a multiply, on CDNA4 as on CDNA3
(Gluon's CDNA4 lowering uses the packed ``v_cvt_scalef32_*`` instructions).
"""

from __future__ import annotations

from .. import _core as core
from .._constexpr import _unwrap
from .._layouts import is_inferred
from .._shape_ops import fp4_to_fp

_FP8 = ("fp8e4nv", "fp8e5")


def _check(cond, message):
    if not cond:
        raise ValueError(f"scaled_upcast: {message}")


def scaled_upcast(sem, src, scale, elem_type, axis):
    src, scale = _unwrap(src), _unwrap(scale)
    elem_type, axis = _unwrap(elem_type), _unwrap(axis)
    for name, t in (("src", src), ("scale", scale)):
        if not isinstance(t, core.tensor) or not t.type.is_block or is_inferred(t.type.layout):
            raise TypeError(f"scaled_upcast: {name} must be a tensor in a distributed layout, "
                            f"got {t!r}")
    if elem_type not in (core.float16, core.bfloat16):
        raise TypeError(f"scaled_upcast: elem_type must be float16 or bfloat16, got "
                        f"{elem_type!r}")
    if scale.dtype not in (core.int8, core.uint8):
        raise TypeError(f"scaled_upcast: scale must hold raw E8M0 bytes (int8 or uint8), got "
                        f"{scale.dtype}")
    name = core.signature_name(src.dtype)
    shape = list(src.type.shape)
    if name in _FP8:
        _check(axis is None, f"axis must be None for fp8 src, got {axis!r}")
        value = sem.cast(src, core.float32)
    else:
        if src.dtype not in (core.int8, core.uint8):
            raise TypeError(f"scaled_upcast: src must be fp8 (float8e4nv, float8e5) or fp4 "
                            f"packed two a byte (int8 or uint8), got {src.dtype}")
        rank = len(shape)
        _check(isinstance(axis, int) and not isinstance(axis, bool) and -rank <= axis < rank,
               f"packed fp4 src needs an int axis in [{-rank}, {rank}), got {axis!r}")
        value = fp4_to_fp(src, core.float32, axis % rank, _semantic=sem)
        shape[axis % rank] *= 2
    _check(list(scale.type.shape) == shape,
           f"scale has shape {list(scale.type.shape)}, the result {shape}")
    _check(scale.type.layout == value.type.layout,
           f"scale's layout {scale.type.layout!r} must be the result's "
           f"{value.type.layout!r}")
    # 2**(e - 127) as fp32: the byte in the exponent field (bf16's e << 7, widened exactly).
    bits = sem.cast(sem.cast(scale, core.uint8, bitcast=True), core.int32)
    factor = sem.cast(sem.binary("lshift", bits, 23), core.float32, bitcast=True)
    return sem.cast(sem.binary("mul", value, factor), elem_type)
