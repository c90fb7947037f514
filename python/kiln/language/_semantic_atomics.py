"""The atomics of the semantic layer (``atomic_*`` and ``atomic_cas`` on global pointers):
a mixin of :class:`~kiln.language._semantic.Semantic`, whose helpers (``cast``,
``broadcast_all``, ``_ptr_tensor``, ...) its methods use."""

from __future__ import annotations

from . import _core as core
from ._core import _unwrap, tensor


class AtomicSemantic:
    """Global-memory atomics; mixed into ``Semantic``."""

    _SEMS = ("relaxed", "acquire", "release", "acq_rel")
    _SCOPES = ("cta", "gpu", "sys")

    def _atomic_common(self, what, pointer, values, sem, scope, exact=()):
        """The pointer tensor (a scalar pointer: one element), ``values`` broadcast to it and
        cast to the pointee type, and the checked ``sem`` / ``scope``. ``exact`` names values
        that must already have the pointee type (see :meth:`_check_exact`)."""
        ptr = self._ptr_tensor(pointer, what)
        elt = ptr.dtype.element_ty
        sem = _unwrap(sem) or "acq_rel"
        scope = _unwrap(scope) or "gpu"
        if sem not in self._SEMS:
            raise ValueError(f"{what}: sem must be one of {', '.join(self._SEMS)}, got {sem!r}")
        if scope not in self._SCOPES:
            raise ValueError(f"{what}: scope must be one of {', '.join(self._SCOPES)}, got "
                             f"{scope!r}")
        like = tensor(ptr.handle, ptr.type.with_element_ty(elt))
        out = []
        for i, v in enumerate(values):
            v = _unwrap(v)
            if i < len(exact):
                self._check_exact(what, exact[i], v, elt)
            v = v if isinstance(v, tensor) else self.literal_like(v, like)
            if v.dtype.is_ptr():
                raise TypeError(f"{what}: values must not be pointers")
            out.append(self.cast(v, elt))
        ptr, *out = self.broadcast_all([ptr] + out, what)
        out = [v if v.type.is_block else self.splat(v, ptr.type.with_element_ty(elt))
               for v in out]
        return ptr, elt, out, sem, scope

    @staticmethod
    def _check_exact(what, name, value, elt):
        """``value`` has the type ``elt`` already: a tensor of it, or a literal of its kind
        that ``elt`` holds (an int for an integer type, a float for a float type). Triton's
        tt.atomic_cas, too, takes only cmp and val of the pointee type (and types a literal
        as int32 or fp32 first; Kiln lets an int literal take any integer type that holds
        it). Compare-and-swap compares bits: an int 1 next to fp32 elements could mean 1.0
        or the bits 0x1, and a conversion would silently pick one."""
        hint = ("; convert it explicitly (.to() for the value, .to(..., bitcast=True) for "
                "the bits)")
        if isinstance(value, tensor):
            if value.dtype == elt:
                return
            got = f"a tensor of {value.dtype}"
        elif isinstance(value, bool):
            if elt.is_bool():  # refused for its width by the caller
                return
            got = f"{value!r} (a Python bool)"
        elif isinstance(value, float):
            if elt.is_floating():
                return
            got = f"{value!r} (a Python float)"
        elif isinstance(value, int) and elt.is_int() and not elt.is_bool():
            bits = elt.primitive_bitwidth
            lo, hi = ((0, (1 << bits) - 1) if elt.is_int_unsigned() else
                      (-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
            if lo <= value <= hi:
                return
            got, hint = f"{value!r}, which {elt} cannot hold", ""
        else:
            got = f"{value!r} (a Python {type(value).__name__})"
        raise TypeError(f"{what}: {name} must have the pointer's element type {elt}, got "
                        f"{got}{hint}")

    def atomic_rmw(self, op, pointer, val, mask, sem, scope, attrs=None) -> tensor:
        """``attrs``: extra attributes of the atomic ops (a vendor's marks)."""
        what = f"atomic_{op}"
        ptr, elt, (val,), sem, scope = self._atomic_common(what, pointer, [val], sem, scope)
        if elt.is_floating():
            kinds = {"add": "fadd", "max": "fmax", "min": "fmin", "xchg": "xchg"}
            if op not in kinds:
                raise TypeError(f"{what} needs integer values, got {elt}")
            if elt.primitive_bitwidth == 8 or (op == "xchg" and elt.primitive_bitwidth < 32):
                raise TypeError(f"{what}: no atomic {op} on {elt}")
            kind = kinds[op]
        else:
            if elt.is_bool() or elt.primitive_bitwidth < 32:
                raise TypeError(f"{what}: atomics need 32- or 64-bit integers, got {elt}")
            kind = {"max": "umax", "min": "umin"}.get(op, op) if elt.is_int_unsigned() else op
        m = self._atomic_mask(what, ptr, mask)
        if op in ("max", "min") and elt in (core.float32, core.float64):
            old = self._float_max_min(op, ptr, val, m, sem, scope, attrs)
        else:
            old = self._rmw(kind, ptr, val, m, sem, scope, attrs)
        return self._atomic_result(pointer, old)

    def _atomic_mask(self, what, ptr, mask):
        """The user's mask as an i1 tensor of the pointers' shape, or None."""
        if _unwrap(mask) is None:
            return None
        m = self.cast(self.as_tensor(_unwrap(mask)), core.int1)
        m = m if m.type.is_block else self.splat(m, ptr.type.with_element_ty(core.int1))
        ptr2, m = self.broadcast_all([ptr, m], what)
        if tuple(ptr2.type.shape) != tuple(ptr.type.shape):
            raise ValueError(f"{what}: the mask's shape {list(m.type.shape)} must "
                             f"broadcast to the pointers' {list(ptr.type.shape)}")
        return m

    def _rmw(self, kind, ptr, val, mask, sem, scope, attrs=None) -> tensor:
        operands = [ptr, val] + ([mask] if mask is not None else [])
        handle = self.b.create("tile.atomic_rmw", operands, [val.type],
                               {"kind": f'"{kind}"', "sem": f'"{sem}"',
                                "scope": f'"{scope}"', **(attrs or {})})[0]
        return tensor(handle, val.type)

    def _float_max_min(self, op, ptr, val, mask, sem, scope, attrs=None) -> tensor:
        """atomic_max / atomic_min of fp32 / fp64 as Triton's: integer atomics on the bits.
        A float whose sign bit is clear orders as its bits do as signed integers (every
        negative one below it); one whose sign bit is set orders reversed as its bits do as
        unsigned integers (every non-negative one below it). So max is a signed max where
        ``val``'s sign bit is clear and an unsigned min where it is set (min: signed min,
        unsigned max), each under the user's mask; the old value is that of the one that
        acted. -0.0 orders below +0.0; a NaN acts as its bits do."""
        sint, uint = ((core.int32, core.uint32) if val.dtype.primitive_bitwidth == 32 else
                      (core.int64, core.uint64))
        ival = self.cast(val, sint, bitcast=True)
        neg = self.compare("lt", ival, self.constant_like(0, ival.type))  # the sign bit
        pos = self.unary("not", neg)
        iptr = self._reinterpret_ptr(ptr, sint)
        uptr = tensor(iptr.handle, iptr.type.with_element_ty(ptr.dtype.with_element_ty(uint)))
        signed, unsigned = ("max", "umin") if op == "max" else ("min", "umax")
        both = (lambda c: c) if mask is None else (lambda c: self.logical("and", mask, c))
        old_pos = self._rmw(signed, iptr, ival, both(pos), sem, scope, attrs)
        old_neg = self._rmw(unsigned, uptr, self.cast(ival, uint), both(neg), sem, scope,
                            attrs)
        old = self.where(pos, old_pos, self.cast(old_neg, sint))
        return self.cast(old, val.dtype, bitcast=True)

    def _reinterpret_ptr(self, ptr: tensor, elt) -> tensor:
        """``ptr`` as pointers to ``elt``, of the same width (the same addresses;
        ``tile.ptr_cast``)."""
        rt = ptr.type.with_element_ty(ptr.dtype.with_element_ty(elt))
        return self._op("tile.ptr_cast", [ptr], rt)

    def _atomic_result(self, pointer, old: tensor):
        """An atomic through a scalar pointer returns a scalar, as in Gluon: the one element
        (every thread holds the old value; one thread performed the atomic)."""
        if self.as_tensor(_unwrap(pointer)).type.is_block:
            return old
        return self.reduce(old, 0, lambda a, b: a)

    def atomic_cas(self, pointer, cmp, val, sem, scope) -> tensor:
        ptr, elt, (cmp, val), sem, scope = self._atomic_common("atomic_cas", pointer,
                                                                [cmp, val], sem, scope,
                                                                exact=("cmp", "val"))
        if elt.primitive_bitwidth not in (32, 64) or elt.is_bool():
            raise TypeError(f"atomic_cas needs 32- or 64-bit values, got {elt}")
        handle = self.b.create("tile.atomic_cas", [ptr, cmp, val], [val.type],
                               {"sem": f'"{sem}"', "scope": f'"{scope}"'})[0]
        return self._atomic_result(pointer, tensor(handle, val.type))
