"""CDNA3 (gfx942) builtins, as in Gluon's ``amd.cdna3``.

* :func:`buffer_load`: a load through a buffer resource: one scalar base pointer plus a tensor
  of int32 *element* offsets. Lanes whose ``mask`` is false get an offset past the resource's
  end, so the hardware returns 0 for them without touching memory, and the result is
  ``other`` there;
* :func:`buffer_store`: the matching store; masked lanes are dropped by the hardware;
* :func:`mfma`: ``a @ b + acc`` on the matrix cores.

Offsets must stay below 2**31 bytes from the base. ``cache`` is a cache modifier: loads take
'', '.ca', '.cg' (bypass the CU cache: sc0), '.cv' (sc0 sc1); stores '', '.wb', '.cg', '.cs'
(non-temporal), '.wt'. Every wave issues every buffer instruction (no branch around masked
lanes), which is what lets Kiln count them in ``s_waitcnt vmcnt(N)``.
"""

from ..._core import builtin, tensor
from .. import _buffer, _scaled_upcast
from .._layouts import AMDMFMALayout

__all__ = ["scaled_upcast", "buffer_load", "buffer_store", "mfma", "buffer_atomic_add",
           "buffer_atomic_and", "buffer_atomic_or", "buffer_atomic_xor", "buffer_atomic_max",
           "buffer_atomic_min", "buffer_atomic_xchg"]


@builtin
def buffer_load(ptr, offsets, mask=None, other=None, cache=None, _semantic=None):
    """``ptr[offsets]`` for a scalar pointer ``ptr`` and int32 element ``offsets``; ``other``
    (0 when omitted) where ``mask`` is false."""
    return _buffer.buffer_load(_semantic, ptr, offsets, mask, other, cache)


@builtin
def buffer_store(stored_value, ptr, offsets, mask=None, cache=None, _semantic=None):
    """Store ``stored_value`` to ``ptr[offsets]`` where ``mask`` is true."""
    return _buffer.buffer_store(_semantic, stored_value, ptr, offsets, mask, cache)


@builtin
def mfma(a, b, acc, cd_regclass=None, _semantic=None):
    """``a @ b + acc`` by ``v_mfma``: ``acc`` (M x N) in an ``AMDMFMALayout`` whose
    ``instr_shape`` names the instruction, ``a`` (M x K) and ``b`` (K x N) in
    ``DotOperandLayout(0 / 1, acc's layout, k_width)`` with one k_width. fp32, fp16, bf16
    into fp32 and int8 into int32 on gfx942 and gfx950; fp8 (``[32, 32, 16]``,
    ``[16, 16, 32]``) in float8e4b8 / float8e5b16 on gfx942 and float8e4nv / float8e5 on
    gfx950; gfx950 adds the double-rate fp16, bf16 and int8 shapes (``[32, 32, 16]``,
    ``[16, 16, 32]``, int8 ``[32, 32, 32]``, ``[16, 16, 64]``).
    fp64 into fp64 takes ``instr_shape`` ``[16, 16, 4]`` and ``element_bitwidth=64``.
    M, N and K must be multiples of the instruction's. Batched: ``a`` (B x M x K), ``b``
    (B x K x N) and ``acc`` (B x M x N) with an AMDMFMALayout of 3 ``warps_per_cta``
    entries (the batch dimension's first). ``cd_regclass`` (newer Gluon's: ``"a"`` for the
    accumulation registers, ``"v"`` for the vector ones) is accepted and leaves the class to
    LLVM's register allocator, which puts large accumulators in AGPRs itself."""
    rc = cd_regclass.value if hasattr(cd_regclass, "value") else cd_regclass
    if rc not in (None, "a", "v"):
        raise ValueError(f"mfma: cd_regclass must be 'a', 'v' or None, got {rc!r}")
    _semantic.check_matrix_operands("mfma", a, b, acc,
                                    lambda lay: isinstance(lay, AMDMFMALayout),
                                    "an AMDMFMALayout", batched=True)
    handle = _semantic.b.create("tile_amd.mfma", [a, b, acc], [acc.type], {})[0]
    return tensor(handle, acc.type)


def _buffer_atomic(op):
    @builtin
    def fn(ptr, offsets, value, mask=None, sem=None, scope=None, _semantic=None):
        return _buffer.buffer_atomic(_semantic, op, ptr, offsets, value, mask, sem, scope)
    fn.__name__ = fn.__qualname__ = f"buffer_atomic_{op}"
    fn.__doc__ = (f"Atomic {op} of ``value`` at ``ptr[offsets]`` (a scalar base, int32 element "
                  f"offsets) where ``mask`` holds; returns the old values. ``sem`` and "
                  f"``scope`` as for kiln.language.atomic_add: buffer_atomic_{op} "
                  f"instructions (masked lanes address past the buffer's end).")
    return fn


buffer_atomic_add = _buffer_atomic("add")
buffer_atomic_and = _buffer_atomic("and")
buffer_atomic_or = _buffer_atomic("or")
buffer_atomic_xor = _buffer_atomic("xor")
buffer_atomic_max = _buffer_atomic("max")
buffer_atomic_min = _buffer_atomic("min")
buffer_atomic_xchg = _buffer_atomic("xchg")


@builtin
def scaled_upcast(src, scale, elem_type, axis=None, _semantic=None):
    """``src`` (fp8, or fp4 packed two a byte along ``axis``, the low nibble first) times
    2**(e - 127) for the raw E8M0 bytes e of ``scale`` (int8 or uint8, the result's shape and
    layout), in ``elem_type`` (float16 or bfloat16), rounded once to nearest even (Gluon's
    ``amd.cdna3.scaled_upcast``; see kiln.language.amd._scaled_upcast)."""
    return _scaled_upcast.scaled_upcast(_semantic, src, scale, elem_type, axis)
