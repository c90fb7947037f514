"""Gluon's ``atomic_load``, ``atomic_store`` and ``atomic_poll`` (after Triton 3.8): atomic
accesses of global memory with a memory order and scope, and a spin until words hold values.
NVIDIA targets. Loads and stores are ``tile_nv.atomic_load`` / ``atomic_store``: PTX
``ld.relaxed`` / ``st.relaxed`` at the scope, vectors of up to 16 bytes where ``load`` would
vectorize, with one ``fence.acq_rel`` after acquiring loads and before releasing stores (as
Gluon lowers them). ``atomic_poll`` is inline assembly per element (a loop of loads with
the order, ``tile.inline_asm_elementwise``, not pure): every thread polls the elements it
holds and acquires for itself (no CTA barrier follows).

Where Kiln differs from Gluon: AMD targets are refused at the call (NVIDIA builtins)."""

from __future__ import annotations

from .. import _core as core
from .._core import _unwrap, builtin, tensor

__all__ = ["atomic_load", "atomic_store", "atomic_poll"]

_SCOPES = ("cta", "gpu", "sys")


def _check(sem, what, order, scope, orders, default):
    # (Another target's kernel is refused before the call: an NVIDIA builtin.)
    order = _unwrap(order) or default
    scope = _unwrap(scope) or "gpu"
    if order not in orders:
        raise ValueError(f"{what} only supports {' and '.join(orders)} semantics, got "
                         f"{order!r}")
    if scope not in _SCOPES:
        raise ValueError(f"{what}: scope must be one of {', '.join(_SCOPES)}, got {scope!r}")
    return order, scope


def _bits(what, elt):
    """The access width in memory (int1 is a byte, as Triton stores it)."""
    bits = 8 if elt.is_bool() else elt.primitive_bitwidth
    if bits not in (8, 16, 32, 64):
        raise TypeError(f"{what}: no atomic access of {elt}")
    return bits


def _asm(sem, asm, constraints, values, dtype):
    """One not-pure inline-assembly statement per element of ``values`` (broadcast already;
    the first is the pointers); returns its one result, a tensor of ``dtype``."""
    rt = values[0].type.with_element_ty(dtype)
    attrs = {"asm_string": sem.b.str_attr(asm), "constraints": sem.b.str_attr(constraints),
             "pure": "false", "pack": sem.b.int_attr(1)}
    names = sem.b.create("tile.inline_asm_elementwise", values, [rt], attrs)
    return tensor(names[0], rt)


def _like(sem, what, v, ptr, name):
    """``v`` (a scalar or a tensor) over the pointers' shape and layout."""
    if not v.type.is_block:
        return sem.splat(v, ptr.type.with_element_ty(v.dtype))
    p2, v2 = sem.broadcast_all([ptr, v], what)
    if tuple(p2.type.shape) != tuple(ptr.type.shape):
        raise ValueError(f"{what}: {name}'s shape {list(v.type.shape)} must broadcast to the "
                         f"pointers' {list(ptr.type.shape)}")
    return v2


@builtin
def atomic_load(pointer, mask=None, sem=None, scope=None, _semantic=None):
    """Atomically load ``*pointer`` (a pointer or a tensor of pointers) with ``sem``
    ("acquire", the default, or "relaxed") at ``scope`` ("gpu", the default, "cta" or
    "sys"). Where ``mask`` is false nothing is read and the element is 0. Contiguous
    elements are read as vectors of up to 16 bytes, as ``load`` reads them."""
    s = _semantic
    order, scope = _check(s, "atomic_load", sem, scope, ("relaxed", "acquire"), "acquire")
    ptr = s._ptr_tensor(pointer, "atomic_load")
    elt = ptr.dtype.element_ty
    _bits("atomic_load", elt)
    m = s._atomic_mask("atomic_load", ptr, mask)
    rt = ptr.type.with_element_ty(elt)
    operands = [ptr] + ([m] if m is not None else [])
    names = s.b.create("tile_nv.atomic_load", operands, [rt],
                       {"sem": f'"{order}"', "scope": f'"{scope}"'})
    return s._atomic_result(pointer, tensor(names[0], rt))


@builtin
def atomic_store(pointer, value, mask=None, sem=None, scope=None, _semantic=None):
    """Atomically store ``value`` (cast to the pointee type) to ``*pointer`` with ``sem``
    ("release", the default, or "relaxed") at ``scope`` ("gpu", "cta" or "sys"); nothing is
    stored where ``mask`` is false. Contiguous elements are written as vectors of up to 16
    bytes. Returns nothing."""
    s = _semantic
    order, scope = _check(s, "atomic_store", sem, scope, ("relaxed", "release"), "release")
    ptr, elt, (val,), _, _ = s._atomic_common("atomic_store", pointer, [value], order, scope)
    _bits("atomic_store", elt)
    m = s._atomic_mask("atomic_store", ptr, mask)
    operands = [ptr, val] + ([m] if m is not None else [])
    s.b.create("tile_nv.atomic_store", operands, [],
               {"sem": f'"{order}"', "scope": f'"{scope}"'})
    return None


@builtin
def atomic_poll(pointer, expected_value, sem=None, scope=None, timeout_ns=None,
                _semantic=None):
    """Spin until ``*pointer == expected_value`` (a pointer, or a tensor of pointers, to 16-,
    32- or 64-bit integers; ``expected_value`` broadcast to it),
    each read an atomic load with ``sem`` ("acquire", the default, or "relaxed") at
    ``scope``; with ``timeout_ns``, give up once that many nanoseconds of the GPU's global
    timer have passed (0: one read). Returns int1 of the pointer's shape (a scalar for a
    scalar pointer): true where the value was seen, false on a timeout (then nothing is
    acquired)."""
    s = _semantic
    order, scope = _check(s, "atomic_poll", sem, scope, ("acquire", "relaxed"), "acquire")
    ptr = s._ptr_tensor(pointer, "atomic_poll")
    elt = ptr.dtype.element_ty
    if not elt.is_int() or elt.is_bool() or elt.primitive_bitwidth not in (16, 32, 64):
        raise TypeError("atomic_poll only supports integer elements with width {16, 32, 64}")
    bits = elt.primitive_bitwidth
    exp = s.cast(s.as_tensor(_unwrap(expected_value)), elt)
    same = {16: core.uint16, 32: core.uint32, 64: core.uint64}[bits]
    exp = s.cast(exp, same, bitcast=True)
    exp = s.cast(exp, core.uint64 if bits == 64 else core.uint32)  # zero-extended
    exp = s.cast(exp, core.int64 if bits == 64 else core.int32, bitcast=True)
    exp = _like(s, "atomic_poll", exp, ptr, "expected_value")
    w = 64 if bits == 64 else 32
    reg = "l" if bits == 64 else "r"
    ld = f"ld.{order}.{scope}.global.{'u16' if bits == 16 else f'b{w}'} %v, [$1];"
    timeout = _unwrap(timeout_ns)
    head = f"{{ .reg .pred %p, %q; .reg .b{w} %v; "
    if timeout is None:
        asm = (head + f"KILN_POLL: {ld} setp.ne.b{w} %p, %v, $2; @%p bra KILN_POLL; "
               f"mov.b32 $0, 1; }}")
        ok = _asm(s, asm, f"=r,l,{reg}", [ptr, exp], core.int32)
    else:
        if isinstance(timeout, bool) or not (isinstance(timeout, int) or (
                isinstance(timeout, tensor) and timeout.dtype.is_int()
                and not timeout.dtype.is_bool())):
            raise TypeError("atomic_poll timeout_ns must be a scalar integer")
        if isinstance(timeout, int) and timeout < 0:
            raise ValueError("atomic_poll timeout_ns must be non-negative")
        t = s.as_tensor(timeout)
        if t.type.is_block:
            raise TypeError("atomic_poll timeout_ns must be a scalar integer")
        t = _like(s, "atomic_poll", s.cast(t, core.int64), ptr, "timeout_ns")
        asm = (head + ".reg .u64 %t0, %t; mov.u64 %t0, %globaltimer; "
               f"KILN_POLL: {ld} setp.ne.b{w} %p, %v, $2; "
               "mov.u64 %t, %globaltimer; sub.u64 %t, %t, %t0; "
               "setp.lt.and.u64 %q, %t, $3, %p; @%q bra KILN_POLL; "
               "selp.u32 $0, 0, 1, %p; }")
        ok = _asm(s, asm, f"=r,l,{reg},l", [ptr, exp, t], core.int32)
    flag = s.compare("ne", ok, s.constant_like(0, ok.type))
    return s._atomic_result(pointer, flag)
