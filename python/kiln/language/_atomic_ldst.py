"""Gluon's ``atomic_load``, ``atomic_store`` and ``atomic_poll`` (after Triton 3.8): atomic
accesses of global memory with a memory order and scope, and a spin until a word holds a
value. NVIDIA targets: each element is one PTX ``ld.{relaxed,acquire}.{cta,gpu,sys}.global``
or ``st.{relaxed,release}...`` (sm_70's memory model), emitted as inline assembly over the
elements (``tile.inline_asm_elementwise``, not pure, so none is dropped or merged).

Where Kiln differs from Gluon: the accesses are not vectorized (one instruction per element;
Gluon's relaxed accesses plus a fence vectorize up to 16 bytes); ``atomic_poll`` takes a
pointer to a scalar (Gluon's newest also takes tensors) and every thread that holds the
scalar polls (acquiring for itself: no CTA barrier follows); AMD targets are refused at the
call."""

from __future__ import annotations

from . import _core as core
from ._core import _unwrap, builtin, tensor

__all__ = ["atomic_load", "atomic_store", "atomic_poll"]

_SCOPES = ("cta", "gpu", "sys")


def _check(sem, what, order, scope, orders, default):
    target = str(sem.target)
    if not target.startswith("cuda"):
        raise TypeError(f"{what} is not yet available for {target} in Kiln (NVIDIA targets "
                        f"only); an atomic_add of 0 / atomic_xchg does the access on any "
                        f"target")
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


def _ptx_type(bits):
    return {8: "u8", 16: "u16", 32: "b32", 64: "b64"}[bits]


def _asm(sem, asm, constraints, values, dtype):
    """One not-pure inline-assembly statement per element of ``values`` (broadcast already;
    the first is the pointers); returns its one result, a tensor of ``dtype``."""
    rt = values[0].type.with_element_ty(dtype)
    attrs = {"asm_string": sem.b.str_attr(asm), "constraints": sem.b.str_attr(constraints),
             "pure": "false", "pack": sem.b.int_attr(1)}
    names = sem.b.create("tile.inline_asm_elementwise", values, [rt], attrs)
    return tensor(names[0], rt)


def _word(sem, v, bits):
    """``v``'s bits as the 32- or 64-bit integer an inline-asm register holds."""
    if v.dtype.is_bool():
        v = sem.cast(v, core.int8)
    if v.dtype.is_floating():
        v = sem.cast(v, {16: core.int16, 32: core.int32, 64: core.int64}[bits], bitcast=True)
    return sem.cast(v, core.int64 if bits == 64 else core.int32)


def _mask_word(sem, what, ptr, mask):
    m = sem._atomic_mask(what, ptr, mask)
    return None if m is None else sem.cast(m, core.int32)


@builtin
def atomic_load(pointer, mask=None, sem=None, scope=None, _semantic=None):
    """Atomically load ``*pointer`` (a pointer or a tensor of pointers) with ``sem``
    ("acquire", the default, or "relaxed") at ``scope`` ("gpu", the default, "cta" or
    "sys"). Where ``mask`` is false nothing is read and the element is 0."""
    s = _semantic
    order, scope = _check(s, "atomic_load", sem, scope, ("relaxed", "acquire"), "acquire")
    ptr = s._ptr_tensor(pointer, "atomic_load")
    elt = ptr.dtype.element_ty
    bits = _bits("atomic_load", elt)
    reg, wide = ("l", core.int64) if bits == 64 else ("r", core.int32)
    ld = f"ld.{order}.{scope}.global.{_ptx_type(bits)} $0, [$1];"
    m = _mask_word(s, "atomic_load", ptr, mask)
    if m is None:
        word = _asm(s, ld, f"={reg},l", [ptr], wide)
    else:
        asm = (f"{{ .reg .pred %p; setp.ne.b32 %p, $2, 0; mov.b{64 if bits == 64 else 32} "
               f"$0, 0; @%p {ld} }}")
        word = _asm(s, asm, f"={reg},l,r", [ptr, m], wide)
    if elt.is_bool():
        out = s.compare("ne", word, s.constant_like(0, word.type))
    else:
        same = {8: core.int8, 16: core.int16, 32: core.int32, 64: core.int64}[bits]
        out = s.cast(word, same)  # the low bits
        if elt != same:
            out = s.cast(out, elt, bitcast=True)
    return s._atomic_result(pointer, out)


@builtin
def atomic_store(pointer, value, mask=None, sem=None, scope=None, _semantic=None):
    """Atomically store ``value`` (cast to the pointee type) to ``*pointer`` with ``sem``
    ("release", the default, or "relaxed") at ``scope`` ("gpu", "cta" or "sys"); nothing is
    stored where ``mask`` is false. Returns nothing."""
    s = _semantic
    order, scope = _check(s, "atomic_store", sem, scope, ("relaxed", "release"), "release")
    ptr, elt, (val,), _, _ = s._atomic_common("atomic_store", pointer, [value], order, scope)
    bits = _bits("atomic_store", elt)
    reg = "l" if bits == 64 else "r"
    word = _word(s, val, bits)
    st = f"st.{order}.{scope}.global.{_ptx_type(bits)} [$1], $2;"
    m = _mask_word(s, "atomic_store", ptr, mask)
    if m is None:
        _asm(s, f"{st} mov.b32 $0, 0;", f"=r,l,{reg}", [ptr, word], core.int32)
    else:
        asm = f"{{ .reg .pred %p; setp.ne.b32 %p, $3, 0; @%p {st} }} mov.b32 $0, 0;"
        _asm(s, asm, f"=r,l,{reg},r", [ptr, word, m], core.int32)
    return None


@builtin
def atomic_poll(pointer, expected_value, sem=None, scope=None, timeout_ns=None,
                _semantic=None):
    """Spin until ``*pointer == expected_value`` (a pointer to a 16-, 32- or 64-bit integer),
    each read an atomic load with ``sem`` ("acquire", the default, or "relaxed") at
    ``scope``; with ``timeout_ns``, give up once that many nanoseconds of the GPU's global
    timer have passed (0: one read). Returns an int1 scalar: true where the value was seen,
    false on a timeout (then nothing is acquired)."""
    s = _semantic
    order, scope = _check(s, "atomic_poll", sem, scope, ("acquire", "relaxed"), "acquire")
    p = s.as_tensor(_unwrap(pointer))
    if p.type.is_block:
        raise TypeError("atomic_poll only supports a pointer to a scalar in Kiln (Gluon's "
                        "newest also polls a tensor of pointers)")
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
    exp = s._one_element(exp)
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
        t = s._one_element(s.cast(t, core.int64))
        asm = (head + ".reg .u64 %t0, %t; mov.u64 %t0, %globaltimer; "
               f"KILN_POLL: {ld} setp.ne.b{w} %p, %v, $2; "
               "mov.u64 %t, %globaltimer; sub.u64 %t, %t, %t0; "
               "setp.lt.and.u64 %q, %t, $3, %p; @%q bra KILN_POLL; "
               "selp.u32 $0, 0, 1, %p; }")
        ok = _asm(s, asm, f"=r,l,{reg},l", [ptr, exp, t], core.int32)
    flag = s.compare("ne", ok, s.constant_like(0, ok.type))
    return s._atomic_result(pointer, flag)
