"""Semantic layer: type promotion, broadcasting, layout checks, and the ops each builtin emits.

Errors are raised as ``ValueError``/``TypeError`` with a user-facing message; the code
generator attaches the location of the Python node being compiled.
"""

from __future__ import annotations

import builtins as _py_builtins
import math
import struct
from typing import List, Optional

from . import _cga, _debug
from . import _core as core
from . import _fp8
from ._core import _unwrap, distributed_type, dtype, pointer_type, tensor
from ._layouts import (AutoLayout, BlockedLayout, CoalescedLayout, DistributedLayout,
                       DistributedLinearLayout, SliceLayout, is_inferred,
                       is_trivial_conversion, reshape_linear)
from ._semantic_atomics import AtomicSemantic
from ._semantic_shared import SharedMemorySemantic

MAX_NUMEL = 1 << 20
_FP8 = ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15")

_INT_RANGES = {("sint", 8): (-2**7, 2**7 - 1), ("sint", 16): (-2**15, 2**15 - 1),
               ("sint", 32): (-2**31, 2**31 - 1), ("sint", 64): (-2**63, 2**63 - 1),
               ("uint", 8): (0, 2**8 - 1), ("uint", 16): (0, 2**16 - 1),
               ("uint", 32): (0, 2**32 - 1), ("uint", 64): (0, 2**64 - 1),
               ("bool", 1): (0, 1)}

_ARITH = {  # op: (float, signed int, unsigned int)
    "add": ("addf", "addi", "addi"), "sub": ("subf", "subi", "subi"),
    "mul": ("mulf", "muli", "muli"), "truediv": ("divf", None, None),
    "floordiv": (None, "divsi", "divui"), "mod": ("remf", "remsi", "remui"),
    "and": (None, "andi", "andi"), "or": (None, "ori", "ori"), "xor": (None, "xori", "xori"),
    "lshift": (None, "shli", "shli"), "rshift": (None, "shrsi", "shrui"),
}
_CMP = {  # op: (float, signed, unsigned)
    "lt": ("olt", "slt", "ult"), "le": ("ole", "sle", "ule"), "gt": ("ogt", "sgt", "ugt"),
    "ge": ("oge", "sge", "uge"), "eq": ("oeq", "eq", "eq"), "ne": ("une", "ne", "ne"),
}
# the ``predicate`` attribute values of arith.cmpf / arith.cmpi (arith::CmpFPredicate/CmpIPredicate)
_PREDICATE = {"oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "une": 13,
              "eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5,
              "ult": 6, "ule": 7, "ugt": 8, "uge": 9}
_OP_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
              "mod": "%", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}

# (packing format, bits for inf, -inf, nan) of float types printed as hex when not finite
_FLOAT_BITS = {"fp64": ("d", "0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
               "fp32": ("f", "0x7F800000", "0xFF800000", "0x7FC00000"),
               "fp16": ("e", "0x7C00", "0xFC00", "0x7E00"),
               "bf16": (None, "0x7F80", "0xFF80", "0x7FC0")}


def _is_pow2(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n > 0 and n & (n - 1) == 0


def _round_trips(text: str, value: float, name: str) -> bool:
    try:
        if name == "fp64":
            return float(text) == value
        if name in ("fp32", "fp16"):
            fmt = _FLOAT_BITS[name][0]
            return struct.pack(fmt, float(text)) == struct.pack(fmt, value)
    except OverflowError:
        return False
    return False


def float_literal(value: float, dt: dtype) -> str:
    """An MLIR float literal for ``value`` in ``dt`` (hex bits where decimal cannot say it)."""
    value = float(value)
    if math.isfinite(value):
        for digits in (6, 9, 17):
            text = f"{value:.{digits}e}"
            if dt.name not in ("fp32", "fp16", "fp64") or _round_trips(text, value, dt.name):
                return text
        return f"{value:.17e}"
    bits = _FLOAT_BITS.get(dt.name)
    if bits is None:
        raise ValueError(f"non-finite constant {value} is not supported for {dt}")
    return bits[3] if math.isnan(value) else bits[1] if value > 0 else bits[2]


def _flatten_values(value):
    """The leaves of a (nested) tuple of kernel values, in order."""
    value = _unwrap(value)
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out += _flatten_values(v)
        return out
    return [value]


def _rebuild_values(value, tensors):
    """``value`` with each tensor leaf replaced by the next of ``tensors``."""
    raw = _unwrap(value)
    if isinstance(raw, (tuple, list)):
        return type(raw)(_rebuild_values(v, tensors) for v in raw)
    return next(tensors) if isinstance(raw, tensor) else value


class Semantic(SharedMemorySemantic, AtomicSemantic):
    """Emits ops through an :class:`~kiln.compiler.ir.IRBuilder`."""

    def __init__(self, builder, *, target: str, num_warps: int, warp_size: int, codegen=None,
                 num_ctas: int = 1, debug: bool = False, overflow_checks: bool = False):
        self.b = builder
        self.entry_block = None  # the kernel body's block, its top level (helpers are inlined)
        self.debug = debug  # device_assert is compiled (Triton's debug mode)
        self.overflow_checks = overflow_checks  # signed +, -, * assert no overflow
        self.num_ctas = num_ctas
        self.target = target
        self.num_warps = num_warps
        self.warp_size = warp_size
        self.codegen = codegen
        self.combine_depth = 0  # > 0 while the body of a reduce combine function is emitted
        self.map_depth = 0  # > 0 while map_elementwise's function is emitted (if -> where)
        # In map_elementwise's function, the elements a branch or loop on values runs for
        # (innermost last): its loops iterate and its loads read only for them.
        self.map_loop_masks = []

    # -- helpers -------------------------------------------------------------------------------

    def check_vendor_builtin(self, name: str, module: str, target_prefix: str, label: str):
        """Every builtin of a vendor package calls this (through
        :func:`kiln.language._core.builtin`) before it emits anything: a builtin of another
        vendor than the target's is an error at the user's call, naming the builtin, its
        vendor and the target."""
        target = str(self.target)
        if target.startswith(target_prefix):
            return
        here = next((l for _, p, l in core._VENDOR_PACKAGES if target.startswith(p)), None)
        if here is None:
            return  # a target no vendor package claims: the back end decides
        raise TypeError(f"{name} is an {label} builtin ({module}); the kernel is compiled "
                        f"for {target}, an {here} target")

    @staticmethod
    def reject_fp8(what: str, *values):
        """fp8 tensors can be loaded, stored, moved between layouts and bitcast, but the
        lowering has no fp8 arithmetic, constants or conversions: say so here, at the user's
        line, rather than let the LLVM verifier fail on an internal op. ``what`` may name the
        dtype with ``{}``."""
        for v in values:
            v = _unwrap(v)
            dt = v.dtype if isinstance(v, tensor) else v
            if isinstance(dt, dtype) and dt.name in _FP8:
                raise TypeError(
                    f"{what.format(dt)} is not supported: fp8 values convert (x.to(...)) and "
                    f"compute by promotion (+, -, *, /, comparisons, minimum, maximum, where; "
                    f"abs on the sign bit), but math functions, reductions and scans take a "
                    f"wider float, as in Gluon: convert first, e.g. x.to(kl.float32)")

    def ty(self, t) -> str:
        return self.b.ty(t)

    def _op(self, name, operands, rt, attrs=None) -> tensor:
        """Emit op ``name`` with one result of type ``rt``."""
        return tensor(self.b.create(name, operands, [rt], attrs)[0], rt)

    def require_constexpr(self, value, what: str):
        if isinstance(value, tensor):
            raise TypeError(f"{what} must be a constexpr, got a runtime value of type "
                            f"{value.type}")
        if isinstance(value, (list, tuple)):
            return type(value)(self.require_constexpr(v, what) for v in value)
        return _unwrap(value)

    @staticmethod
    def _btype(t, elt):
        return t.with_element_ty(elt) if t.is_block else elt

    def check_shape(self, shape, what: str) -> tuple:
        shape = _unwrap(shape)
        if isinstance(shape, int):
            shape = [shape]
        out = []
        for i, d in enumerate(shape):
            d = _unwrap(d)
            if isinstance(d, tensor) or not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"{what}: shape element {i} must be a constexpr int, got {d!r}")
            if d <= 0:
                raise ValueError(f"{what}: shape element {i} must be positive, got {d}")
            if not _is_pow2(d):
                raise ValueError(f"{what}: shape element {i} must be a power of 2, got {d}")
            out.append(d)
        numel = math.prod(out)
        if numel > MAX_NUMEL:
            raise ValueError(f"{what}: shape {tuple(out)} has {numel} elements, more than the "
                             f"limit of {MAX_NUMEL}")
        return tuple(out)

    def check_layout(self, layout, shape, what: str, inferred: bool = False) -> DistributedLayout:
        """``layout`` for a tensor of ``shape``. With ``inferred`` (arange, full), None means
        ``AutoLayout()`` and the layouts the compiler chooses are accepted."""
        if layout is None:
            if inferred:
                return AutoLayout()
            raise TypeError(f"{what}: a layout is required; pass e.g. kl.BlockedLayout(...)")
        if not isinstance(layout, DistributedLayout):
            raise TypeError(f"{what}: layout must be a distributed layout, got {layout!r}")
        if is_inferred(layout):
            if inferred:
                return layout
            raise TypeError(f"{what}: {layout!r} is only for values the compiler lays out "
                            f"(kl.arange, kl.full, kl.set_auto_layout); give a concrete layout")
        if layout.rank != len(shape):
            raise ValueError(f"{what}: layout {layout!r} has rank {layout.rank} but the shape "
                             f"{tuple(shape)} has rank {len(shape)}")
        self._check_layout_context(layout, what)
        self.check_cga(layout, what)
        if isinstance(layout, DistributedLinearLayout) and tuple(layout.shape) != tuple(shape):
            raise ValueError(f"{what}: {layout!r} is defined for shape {tuple(layout.shape)}, "
                             f"not {tuple(shape)}")
        return layout

    def _check_layout_context(self, layout, what):
        if isinstance(layout, SliceLayout):
            return self._check_layout_context(layout.parent, what)
        if isinstance(layout, BlockedLayout):
            lanes, warps = math.prod(layout.threads_per_warp), math.prod(layout.warps_per_cta)
        elif isinstance(layout, DistributedLinearLayout):
            lanes, warps = 1 << len(layout.lane_bases), 1 << len(layout.warp_bases)
        else:
            return
        if lanes != self.warp_size:
            raise ValueError(f"{what}: {layout!r} spans {lanes} threads per warp, but "
                             f"{self.target} has {self.warp_size}")
        if warps != self.num_warps:
            raise ValueError(f"{what}: {layout!r} spans {warps} warps, but the kernel has "
                             f"num_warps={self.num_warps}")

    # -- constants ------------------------------------------------------------------------------

    def _literal(self, value, dt) -> str:
        if dt.is_floating():
            return float_literal(value, dt)
        if dt.is_bool():
            return "true" if value else "false"
        v = int(value)
        bits = dt.primitive_bitwidth
        v &= (1 << bits) - 1
        if v >= 1 << (bits - 1):
            v -= 1 << bits
        return str(v)

    def _check_fits(self, value, dt):
        if dt.is_int() and not isinstance(value, float):
            lo, hi = _INT_RANGES[(dt._kind, dt.primitive_bitwidth)]
            if not lo <= int(value) <= hi:
                raise ValueError(f"constant {value} does not fit in {dt}")

    def scalar_constant(self, value, dt) -> tensor:
        value = _unwrap(value)
        if _fp8.is_fp8(dt):
            return _fp8.constant(self, value, dt)
        self._check_fits(value, dt)
        lit = self._literal(value, dt)
        return self._op("arith.constant", [], dt,
                        {"value": lit if dt.is_bool() else f"{lit} : {dt.to_ir()}"})

    def block_constant(self, value, btype) -> tensor:
        dt = btype.element_ty
        if _fp8.is_fp8(dt):
            return _fp8.constant(self, value, dt, btype)
        if dt.is_floating() and not math.isfinite(float(value)):
            return self.splat(self.scalar_constant(value, dt), btype)
        self._check_fits(value, dt)
        return self._op("arith.constant", [], btype,
                        {"value": f"dense<{self._literal(value, dt)}> : {self.ty(btype)}"})

    def constant_like(self, value, t) -> tensor:
        return self.block_constant(value, t) if t.is_block else self.scalar_constant(value, t)

    def default_dtype(self, value) -> dtype:
        if isinstance(value, bool):
            return core.int1
        if isinstance(value, int):
            if -2**31 <= value < 2**31:
                return core.int32
            if -2**63 <= value < 2**63:
                return core.int64
            if value < 2**64:
                return core.uint64
            raise ValueError(f"integer constant {value} does not fit in 64 bits")
        if isinstance(value, float):
            return core.float32
        if isinstance(value, core.shared_memory_descriptor):
            raise TypeError(f"a shared-memory buffer ({value.type}) is not a tensor: read it "
                            f"into registers with .load(layout) first")
        raise TypeError(f"cannot use {value!r} ({type(value).__name__}) as a kernel value")

    def as_tensor(self, value, dt: Optional[dtype] = None) -> tensor:
        value = _unwrap(value)
        if isinstance(value, tensor):
            return value
        return self.scalar_constant(value, dt or self.default_dtype(value))

    def literal_dtype(self, value, other: dtype) -> dtype:
        """The dtype a Python literal takes next to a tensor of ``other`` (Triton's weak typing):
        the tensor's type when the literal is of the same kind and fits, else its own."""
        if other.is_ptr():
            return self.default_dtype(value)
        if isinstance(value, bool):
            return other
        if isinstance(value, float):
            return other if other.is_floating() else core.float32
        if isinstance(value, int):
            if other.is_floating():
                return other
            if other.is_bool():
                return self.default_dtype(value)
            lo, hi = _INT_RANGES[(other._kind, other.primitive_bitwidth)]
            return other if lo <= value <= hi else self.default_dtype(value)
        raise TypeError(f"cannot use {value!r} ({type(value).__name__}) as a kernel value")

    # -- casts ---------------------------------------------------------------------------------

    def cast(self, x: tensor, dst, bitcast: bool = False, rounding=None) -> tensor:
        """``x`` as ``dst``; ``rounding`` is Triton's ``fp_downcast_rounding`` (None, "rtne",
        "rtz") for narrowing float conversions."""
        x = self.as_tensor(x)
        dst = _unwrap(dst)
        if isinstance(dst, str):
            dst = core.dtype_from_name(dst)
        if not isinstance(dst, (dtype, pointer_type)):
            raise TypeError(f"cast target must be a dtype, got {dst!r}")
        src = x.dtype
        if rounding is not None and not bitcast:
            rounding = _fp8.check_rounding(rounding, src, dst)
        if src == dst:
            return x
        if src.is_ptr() and dst.is_ptr():
            # The same addresses as pointers to another element type (Triton's pointer
            # bitcast: `p.to(kl.pointer_type(kl.uint32))` reads bytes as words).
            if src.address_space != dst.address_space:
                raise TypeError(f"cannot cast {src} (address space {src.address_space}) to "
                                f"{dst} (address space {dst.address_space}): a pointer cast "
                                f"keeps its address space")
            if src.element_ty.is_ptr() or dst.element_ty.is_ptr():
                raise TypeError(f"cannot cast {src} to {dst}: pointers to pointers")
            return self._op("tile.ptr_cast", [x], self._btype(x.type, dst))
        if src.is_ptr() or dst.is_ptr():
            raise TypeError(f"cannot cast {src} to {dst}")
        if not bitcast and _fp8.involved(src, dst):
            return _fp8.cast(self, x, dst, rounding)
        rt = self._btype(x.type, dst)
        if bitcast:
            if src.primitive_bitwidth != dst.primitive_bitwidth:
                raise ValueError(f"bitcast needs equal bit widths: {src} is "
                                 f"{src.primitive_bitwidth} bits, {dst} is "
                                 f"{dst.primitive_bitwidth}")
            return self._conv("bitcast", x, rt)
        if dst.is_bool():
            return self.compare("ne", x, self.constant_like(0, x.type))
        if src.is_floating() and dst.is_floating():
            if src.primitive_bitwidth == dst.primitive_bitwidth:  # fp16 <-> bf16
                return self.cast(self.cast(x, core.float32), dst)
            op = "extf" if dst.primitive_bitwidth > src.primitive_bitwidth else "truncf"
            return self._conv(op, x, rt)
        if src.is_int() and dst.is_floating():
            op = "sitofp" if src.is_int_signed() else "uitofp"
            return self._conv(op, x, rt)
        if src.is_floating() and dst.is_int():
            return self._conv("fptoui" if dst.is_int_unsigned() else "fptosi", x, rt)
        if dst.primitive_bitwidth == src.primitive_bitwidth:  # signedness only
            return tensor(x.handle, rt)
        if dst.primitive_bitwidth > src.primitive_bitwidth:
            return self._conv("extsi" if src.is_int_signed() else "extui", x, rt)
        return self._conv("trunci", x, rt)

    def _conv(self, op, x, rt):
        return self._op(f"arith.{op}", [x], rt)

    # -- shapes -------------------------------------------------------------------------------

    def splat(self, x: tensor, btype: distributed_type) -> tensor:
        rt = btype.with_element_ty(x.dtype)
        return self._op("tile.splat", [x], rt)

    def broadcast_to(self, x, shape) -> tensor:
        x = self.as_tensor(x)
        shape = tuple(int(_unwrap(d)) for d in shape)
        if not x.type.is_block:
            raise TypeError("broadcast_to needs a tensor with a layout; use kl.full for "
                            "scalars")
        src = x.type.shape
        if src == shape:
            return x
        if len(src) != len(shape) or any(s != d and s != 1 for s, d in zip(src, shape)):
            raise ValueError(f"cannot broadcast shape {src} to {shape}")
        rt = distributed_type(x.dtype, shape, x.type.layout)
        return self._op("tile.broadcast", [x], rt)

    def broadcast_pair(self, a, b, what: str):
        """Bring two tensors (or scalars) to one shape and layout."""
        return tuple(self.broadcast_all([a, b], what))

    def broadcast_all(self, values, what: str) -> List[tensor]:
        """Bring tensors and scalars to one shape: shapes must agree up to size-1 dimensions
        (equal ranks), and all tensors must have the same layout."""
        values = [self.as_tensor(v) for v in values]
        blocks = [v.type for v in values if v.type.is_block]
        if not blocks:
            return values
        shape = blocks[0].shape
        for t in blocks[1:]:
            if len(t.shape) != len(shape) or any(
                    x != y and x != 1 and y != 1 for x, y in zip(shape, t.shape)):
                raise ValueError(f"shape mismatch in {what}: {shape} vs {t.shape}")
            shape = tuple(max(x, y) for x, y in zip(shape, t.shape))
        # As in Gluon: values with AutoLayout take the layout of the others.
        fixed = [t.layout for t in blocks if not isinstance(t.layout, AutoLayout)]
        layout = fixed[0] if fixed else blocks[0].layout
        for other in fixed[1:]:
            if other != layout:
                raise ValueError(f"Layout mismatch in broadcast: {layout!r} vs {other!r}")
        if fixed:
            values = [self.set_auto_layout(v, layout)
                      if v.type.is_block and isinstance(v.type.layout, AutoLayout) else v
                      for v in values]
        target = distributed_type(core.int32, shape, layout)
        return [self.broadcast_to(v, shape) if v.type.is_block else self.splat(v, target)
                for v in values]

    def expand_dims(self, x, axis: int) -> tensor:
        x = self.as_tensor(x)
        if not x.type.is_block:
            raise TypeError("expand_dims needs a tensor, got a scalar")
        rank = len(x.type.shape)
        axis = int(_unwrap(axis))
        if axis < 0:
            axis += rank + 1
        if not 0 <= axis <= rank:
            raise ValueError(f"expand_dims axis {axis} is out of range for rank {rank}")
        layout = x.type.layout
        if is_inferred(layout):
            shape = x.type.shape[:axis] + (1,) + x.type.shape[axis:]
            rt = distributed_type(x.dtype, shape, layout)
            return self._op("tile.expand_dims", [x], rt, {"axis": self.b.int_attr(axis)})
        if not (isinstance(layout, SliceLayout) and layout.dim == axis):
            raise ValueError(f"expand_dims along axis {axis} needs a source layout "
                             f"SliceLayout(dim={axis}, parent=...), got {layout!r}")
        shape = x.type.shape[:axis] + (1,) + x.type.shape[axis:]
        rt = distributed_type(x.dtype, shape, layout.parent)
        return self._op("tile.expand_dims", [x], rt, {"axis": self.b.int_attr(axis)})

    def subscript(self, x, slices) -> tensor:
        x = self.as_tensor(x)
        slices = list(slices) if isinstance(slices, tuple) else [slices]
        if not x.type.is_block:
            raise TypeError("only tensors can be indexed")
        kept = sum(1 for s in slices if isinstance(s, slice))
        if kept > len(x.type.shape):
            raise ValueError(f"too many ':' entries ({kept}) to index a rank-"
                             f"{len(x.type.shape)} tensor")
        for i, s in enumerate(slices):
            if s is None:
                x = self.expand_dims(x, i)
            elif not (isinstance(s, slice) and s == slice(None)):
                raise ValueError(f"unsupported tensor index {s!r}: only None and ':' are "
                                 f"supported")
        return x

    def reshape(self, x, shape, layout=None) -> tensor:
        x = self.as_tensor(x)
        if not x.type.is_block:
            raise TypeError("reshape needs a tensor, got a scalar")
        shape = self.check_shape(shape, "reshape")
        if math.prod(shape) != x.type.numel:
            raise ValueError(f"reshape changes the number of elements: {x.type.shape} "
                             f"({x.type.numel}) -> {shape} ({math.prod(shape)})")
        if layout is None:
            if shape == x.type.shape:
                return x
            if isinstance(x.type.layout, AutoLayout):  # tile-resolve-layouts relates the two
                return self._op("tile.reshape", [x], distributed_type(x.dtype, shape,
                                                                       AutoLayout()))
            self._require_fixed(x, "reshape without a layout")
            if x.type.layout.cga_bases:
                raise ValueError("reshape of a tensor split among the CTAs of a cluster is not "
                                 "supported yet")
            layout = reshape_linear(x.type.layout, x.type.shape, shape)
        self.check_layout(layout, shape, "reshape")
        rt = distributed_type(x.dtype, shape, layout)
        if rt == x.type:
            return x
        return self._op("tile.reshape", [x], rt)

    def set_auto_layout(self, x, layout) -> tensor:
        """Fix the layout of ``x`` (which has ``AutoLayout``) to ``layout``; the compiler
        propagates it to the values ``x`` comes from and goes to."""
        x = self.as_tensor(x)
        if not x.type.is_block:
            raise TypeError("set_auto_layout needs a tensor, got a scalar")
        if not isinstance(x.type.layout, AutoLayout):
            raise TypeError(f"set_auto_layout input must have AutoLayout, but its layout is "
                            f"{x.type.layout!r}")
        if isinstance(layout, AutoLayout) or not isinstance(layout, DistributedLayout):
            raise TypeError(f"set_auto_layout must set a distributed layout, got {layout!r}")
        if not isinstance(layout, CoalescedLayout):
            self.check_layout(layout, x.type.shape, "set_auto_layout")
        rt = distributed_type(x.dtype, x.type.shape, layout)
        return self._op("tile.set_auto_layout", [x], rt)

    def _require_fixed(self, x, what):
        if x.type.is_block and is_inferred(x.type.layout):
            raise TypeError(f"{what} needs a tensor with a concrete layout, but this one has "
                            f"{x.type.layout!r}; fix it first with kl.set_auto_layout or "
                            f"kl.convert_layout")

    def convert_layout(self, x, layout, assert_trivial=False) -> tensor:
        x = self.as_tensor(x)
        if not x.type.is_block:
            raise TypeError("convert_layout needs a tensor, got a scalar")
        self.check_layout(layout, x.type.shape, "convert_layout")
        if layout == x.type.layout:
            return x
        if self._cta_bases(x.type.layout) != self._cta_bases(layout):
            return self._convert_across_ctas(x, layout)
        if assert_trivial:
            self._require_fixed(x, "convert_layout(assert_trivial=True)")
        if assert_trivial and not is_trivial_conversion(x.type.layout, layout, x.type.shape):
            raise ValueError(f"convert_layout(assert_trivial=True) would move data between "
                             f"threads: {x.type.layout!r} -> {layout!r}")
        rt = distributed_type(x.dtype, x.type.shape, layout)
        return self._op("tile.convert_layout", [x], rt)

    def _convert_across_ctas(self, x, layout) -> tensor:
        """A layout move between layouts the cluster's CTAs split differently, as Gluon does
        it: through a buffer split as ``x`` is (each CTA stores its part), a cluster barrier,
        each CTA's load of its part of the result from wherever it lies (distributed shared
        memory), and a second cluster barrier before any CTA reuses or leaves its part. Every
        CTA of the cluster must reach it."""
        load = core.target_hook(self.target, "split_load")
        meet = core.target_hook(self.target, "cluster_barrier")
        what = (f"convert_layout between layouts that split the tensor differently among the "
                f"CTAs of a cluster ({x.type.layout!r} -> {layout!r})")
        if load is None or meet is None:
            raise ValueError(f"{what} moves data between CTAs, which {self.target} cannot do "
                             f"(no distributed shared memory)")
        if is_inferred(x.type.layout) or is_inferred(layout):
            raise ValueError(f"{what} needs concrete layouts on both sides")
        from ._layouts import SwizzledSharedLayout
        rank = len(x.type.shape)
        bases = [list(b) for b in x.type.layout.cga_bases]
        buf = self.allocate_shared_memory(
            x.dtype, list(x.type.shape),
            SwizzledSharedLayout(1, 1, 1, list(reversed(range(rank))), cga_layout=bases), None)
        self.local_store(buf, x)
        meet(self)
        y = self.local_load(buf, layout)
        meet(self)
        return y

    # -- arithmetic ---------------------------------------------------------------------------

    def promote(self, a: dtype, b: dtype, op: str) -> dtype:
        if a == b:
            return a
        if a.is_floating() or b.is_floating():
            if a.is_floating() and b.is_floating():
                if a.primitive_bitwidth == b.primitive_bitwidth:
                    return core.float32
                return a if a.primitive_bitwidth > b.primitive_bitwidth else b
            return a if a.is_floating() else b
        if a.is_bool() or b.is_bool():
            return b if a.is_bool() else a
        if a.is_int_signed() == b.is_int_signed():
            return a if a.primitive_bitwidth >= b.primitive_bitwidth else b
        u, s = (a, b) if a.is_int_unsigned() else (b, a)
        return u if u.primitive_bitwidth >= s.primitive_bitwidth else s

    def operands(self, a, b, what: str):
        """Type two operands (Python literals adapt to the tensor), promote, broadcast."""
        a, b = _unwrap(a), _unwrap(b)
        if not isinstance(a, tensor) and not isinstance(b, tensor):
            a = self.as_tensor(a)
        if not isinstance(a, tensor):
            a = self.literal_like(a, b)
        if not isinstance(b, tensor):
            b = self.literal_like(b, a)
        return a, b

    def literal_like(self, value, other: tensor) -> tensor:
        """A Python number next to ``other``: a dense constant of its shape when it is a
        tensor, else a scalar constant."""
        dt = self.literal_dtype(value, other.dtype)
        if other.type.is_block:
            return self.block_constant(value, other.type.with_element_ty(dt))
        return self.scalar_constant(value, dt)

    def _check_shapes(self, a, b, what):
        at, bt = a.type, b.type
        if at.is_block and bt.is_block and at.shape != bt.shape:
            if len(at.shape) != len(bt.shape) or any(
                    x != y and x != 1 and y != 1 for x, y in zip(at.shape, bt.shape)):
                raise ValueError(f"shape mismatch in {what}: {at.shape} vs {bt.shape}")

    def binary(self, op: str, a, b, overflow_check: bool = True,
               ieee_division: bool = False) -> tensor:
        if op in _CMP:
            return self.compare(op, a, b)
        if _fp8.involved(a, b):  # by promotion, as Triton (kiln.language._fp8)
            return _fp8.binary(self, op, a, b)
        a, b = self.operands(a, b, op)
        self._check_shapes(a, b, op)
        if a.dtype.is_ptr() or b.dtype.is_ptr():
            return self._ptr_arith(op, a, b)
        dt = self.promote(a.dtype, b.dtype, op)
        if op == "truediv" and dt.is_int():
            dt = core.float32
        names = _ARITH[op]
        arith = names[0] if dt.is_floating() else names[2] if dt.is_int_unsigned() else names[1]
        if arith is None:
            if op == "floordiv":
                raise TypeError(f"floor division (//) needs integer operands, got {a.dtype} "
                                f"and {b.dtype}")
            raise TypeError(f"operator {_OP_SYMBOL[op]} needs integer operands, got "
                            f"{a.dtype} and {b.dtype}")
        a, b = self.cast(a, dt), self.cast(b, dt)
        a, b = self.broadcast_pair(a, b, op)
        attrs = None
        if arith == "divf" and dt == core.float32 and not ieee_division:
            # `/` may be approximate (Triton's fp32 division: within 2 ulp); div_rn and
            # fdiv(ieee_rounding=True) round to nearest.
            attrs = {"fastmath": "#arith.fastmath<afn>"}
        result = self._op(f"arith.{arith}", [a, b], a.type, attrs)
        if overflow_check and self.overflow_checks and op in ("add", "sub", "mul") and \
                dt.is_int_signed() and \
                dt.primitive_bitwidth < 64:
            self._assert_no_overflow(op, arith, a, b, dt)
        return result

    def _assert_no_overflow(self, op, arith, a, b, dt):
        _debug.assert_no_overflow(self, op, arith, a, b, dt)

    def device_assert(self, cond, msg="", mask=None):
        return _debug.device_assert(self, cond, msg, mask)

    def device_print(self, prefix, args, hex=False):
        return _debug.device_print(self, prefix, args, hex)

    def _ptr_arith(self, op, a, b):
        if op not in ("add", "sub") or (a.dtype.is_ptr() and b.dtype.is_ptr()):
            raise TypeError(f"unsupported pointer arithmetic: {a.dtype} {_OP_SYMBOL[op]} "
                            f"{b.dtype}")
        if b.dtype.is_ptr():
            if op == "sub":
                raise TypeError(f"cannot subtract a pointer from {a.dtype}")
            a, b = b, a
        if not b.dtype.is_int() or b.dtype.is_bool():
            raise TypeError(f"pointer offsets must be integers, got {b.dtype}")
        if op == "sub":
            b = self.unary("neg", b)
        a, b = self.broadcast_pair(a, b, op)
        return self._op("tile.addptr", [a, b], a.type)

    def compare(self, op: str, a, b) -> tensor:
        if _fp8.involved(a, b):
            a, b = _fp8.exact(self, a, b, op)
        a, b = self.operands(a, b, op)
        self._check_shapes(a, b, op)
        if a.dtype.is_ptr() or b.dtype.is_ptr():
            raise TypeError(f"pointers cannot be compared ({a.dtype} vs {b.dtype})")
        dt = self.promote(a.dtype, b.dtype, op)
        a, b = self.cast(a, dt), self.cast(b, dt)
        a, b = self.broadcast_pair(a, b, op)
        names = _CMP[op]
        if dt.is_floating():
            inst, pred = "cmpf", names[0]
        else:
            inst, pred = "cmpi", names[2] if dt.is_int_unsigned() or dt.is_bool() else names[1]
        rt = self._btype(a.type, core.int1)
        return self._op(f"arith.{inst}", [a, b], rt,
                        {"predicate": self.b.int_attr(_PREDICATE[pred], "i64")})

    def unary(self, op: str, x) -> tensor:
        x = self.as_tensor(x)
        if op == "pos":
            return x
        if _fp8.involved(x) and op == "neg":  # exact through f32
            return self.cast(self.unary(op, self.cast(x, core.float32)), x.dtype)
        self.reject_fp8(f"{{}} arithmetic (unary {op})", x)
        if x.dtype.is_ptr():
            raise TypeError(f"unsupported operand for unary {op}: {x.dtype}")
        if op == "neg":
            if x.dtype.is_floating():
                return self._op("arith.negf", [x], x.type)
            zero = self.constant_like(0, x.type)
            return self._op("arith.subi", [zero, x], x.type)
        if op == "invert":
            if not x.dtype.is_int():
                raise TypeError(f"operator ~ needs an integer operand, got {x.dtype}")
            ones = self.constant_like(True if x.dtype.is_bool() else -1, x.type)
            return self._op("arith.xori", [x, ones], x.type)
        if op == "not":
            x = self.cast(x, core.int1)
            ones = self.constant_like(True, x.type)
            return self._op("arith.xori", [x, ones], x.type)
        raise ValueError(f"unknown unary operator {op}")

    def logical(self, op: str, a, b) -> tensor:
        a, b = self.cast(self.as_tensor(a), core.int1), self.cast(self.as_tensor(b), core.int1)
        self._check_shapes(a, b, op)
        a, b = self.broadcast_pair(a, b, op)
        inst = "andi" if op == "and" else "ori"
        return self._op(f"arith.{inst}", [a, b], a.type)

    def minmax(self, which: str, x, y, propagate_nan=None) -> tensor:
        if _fp8.involved(x, y):  # exact through f32, back to a common fp8 format
            x, y = self.operands(x, y, which)
            out = _fp8.computation_type(x.dtype, y.dtype, which)
            x, y = _fp8.exact(self, x, y, which)
            r = self.minmax(which, x, y, propagate_nan)
            return self.cast(r, out) if _fp8.is_fp8(out) else r
        x, y = self.operands(x, y, "maximum" if which == "max" else "minimum")
        self._check_shapes(x, y, "maximum" if which == "max" else "minimum")
        dt = self.promote(x.dtype, y.dtype, which)
        x, y = self.broadcast_pair(self.cast(x, dt), self.cast(y, dt), which)
        return self._op(f"arith.{self._minmax_op(which, dt, propagate_nan)}", [x, y], x.type)

    @staticmethod
    def _minmax_op(which, dt, propagate_nan=None):
        if dt.is_floating():
            nan = str(propagate_nan or "").upper().endswith("ALL")
            return f"{which}imumf" if nan else f"{which}numf"
        if dt.is_ptr():
            raise TypeError("pointers have no maximum/minimum")
        return f"{which}{'ui' if dt.is_int_unsigned() or dt.is_bool() else 'si'}"

    def where(self, cond, x, y) -> tensor:
        cond = self.cast(self.as_tensor(cond), core.int1)
        x, y = self.operands(x, y, "where")
        if x.dtype.is_ptr() or y.dtype.is_ptr():
            if x.dtype != y.dtype:
                raise TypeError(f"where: incompatible types {x.dtype} and {y.dtype}")
        else:
            dt = self.promote(x.dtype, y.dtype, "where")
            x, y = self.cast(x, dt), self.cast(y, dt)
        cond, x, y = self.broadcast_all([cond, x, y], "where")
        return self._op("arith.select", [cond, x, y], x.type)

    def math1(self, name: str, x) -> tensor:
        x = self.as_tensor(x)
        if name == "abs" and x.dtype.name in _FP8:
            return self._fp8_abs(x)
        self.reject_fp8(f"{name} on {{}}", x)
        if name == "abs":
            if x.dtype.is_int_unsigned() or x.dtype.is_bool():
                return x
            name = "absf" if x.dtype.is_floating() else "absi"
        elif not x.dtype.is_floating():
            raise TypeError(f"{name} expects a floating-point operand, got {x.dtype}")
        return self._op(f"math.{name}", [x], x.type)

    def _fp8_abs(self, x) -> tensor:
        """|x| of an fp8 tensor on its bits, as Gluon: the sign bit cleared. In the FNUZ
        formats (fp8e4b8, fp8e5b16) 0x80 is the NaN and stays one."""
        bits = self.cast(x, core.uint8, bitcast=True)
        cleared = self.binary("and", bits, self.as_tensor(0x7F, core.uint8))
        if x.dtype.name in ("fp8e4b8", "fp8e5b16"):
            nan = self.compare("eq", bits, self.as_tensor(0x80, core.uint8))
            cleared = self.where(nan, bits, cleared)
        return self.cast(cleared, x.dtype, bitcast=True)

    def hint(self, x, values, attr: str, what: str) -> tensor:
        """``tile.hint``: the user's promise (Gluon's multiple_of / max_contiguous /
        max_constancy) for the axis analysis. ``values``: one int per dimension (an int for a
        scalar or a 1-D tensor); each is reduced to the largest power of two dividing it."""
        x = self.as_tensor(_unwrap(x))
        # Booleans too (a mask's constancy tells a masked load how wide it may go), as Gluon.
        if not (x.dtype.is_int() or x.dtype.is_ptr() or x.dtype.is_bool()):
            raise TypeError(f"{what} hints integers, booleans or pointers, got {x.dtype}")
        values = _unwrap(values)
        values = [values] if isinstance(values, int) else [_unwrap(v) for v in values]
        rank = len(x.shape) if x.type.is_block else 1
        if len(values) != rank or not all(isinstance(v, int) and not isinstance(v, bool)
                                          for v in values):
            raise ValueError(f"{what}: values must be {rank} int(s), one per dimension of the "
                             f"input, got {values!r}")
        if any(v < 1 for v in values):
            raise ValueError(f"{what}: values must be positive, got {values!r}")
        pow2 = [v & -v for v in values]
        text = "array<i64: " + ", ".join(str(v) for v in pow2) + ">"
        return self._op("tile.hint", [x], x.type, {attr: text})

    def map_elementwise(self, fn, args, pack) -> tensor:
        """Gluon's map_elementwise, applied to whole tensors: ``fn`` (a @kiln.jit function)
        is inlined once with the broadcast tensors. An ``if`` on a value inside it runs both
        branches and selects per element (control.converted_if), and a ``while`` on a value
        runs while any element's condition holds, updating the elements whose condition does
        (control.converted_while), so it may branch and loop as Gluon's scalar function does,
        as long as those branches and loops have no side effects."""
        fn = _unwrap(fn)
        if not getattr(fn, "__kiln_jit__", False):
            what = getattr(fn, "__qualname__", None) or type(fn).__name__
            raise TypeError(f"map_elementwise: scalar_fn must be a @kiln.jit function, got "
                            f"{what}")
        pack = _unwrap(pack)
        if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
            raise ValueError(f"map_elementwise: pack must be a positive int, got {pack!r}")
        if not args:
            raise TypeError("map_elementwise needs at least one tensor argument")
        if self.codegen is None:
            raise RuntimeError("map_elementwise needs the code generator")
        tensors = [self.as_tensor(_unwrap(a)) for a in args]
        tensors = self.broadcast_all(tensors, "map_elementwise")
        self.map_depth += 1
        try:
            return self.codegen.call_function(fn, tensors, {}, self.codegen.node)
        finally:
            self.map_depth -= 1

    def erf(self, x) -> tensor:
        x = self.as_tensor(x)
        self.reject_fp8("erf on {}", x)
        if not x.dtype.is_floating() or x.dtype.primitive_bitwidth > 32:
            raise TypeError(f"erf expects a float32, float16 or bfloat16 operand, got {x.dtype}")
        y = self.cast(x, core.float32) if x.dtype != core.float32 else x
        library = core.library_math(self.target, "erf")  # the target's device library
        r = library(self, y) if library else None
        if r is None:
            r = self._op("math.erf", [y], y.type)
        return self.cast(r, x.dtype) if x.dtype != core.float32 else r

    def float_divide(self, x, y, what, ieee: bool = True) -> tensor:
        x, y = self.operands(self.as_tensor(x), self.as_tensor(y), "truediv")
        for v in (x, y):
            if not v.dtype.is_floating():
                raise TypeError(f"{what} expects floating-point operands, got {x.dtype} and "
                                f"{y.dtype}")
        return self.binary("truediv", x, y, ieee_division=ieee)

    def umulhi(self, x, y) -> tensor:
        x, y = self.operands(self.as_tensor(x), self.as_tensor(y), "mul")
        self._check_shapes(x, y, "umulhi")
        dt = self.promote(x.dtype, y.dtype, "mul")
        if not dt.is_int() or dt.is_bool() or dt.primitive_bitwidth not in (32, 64):
            raise TypeError(f"umulhi expects 32- or 64-bit integer operands, got {x.dtype} and "
                            f"{y.dtype}")
        n = dt.primitive_bitwidth
        x, y = self.broadcast_pair(self.cast(x, dt), self.cast(y, dt), "umulhi")
        u64 = x.type.with_element_ty(core.uint64) if x.type.is_block else core.uint64

        def const(v, like):
            return self.literal_like(v, tensor(like.handle, u64)) if like.type.is_block \
                else self.scalar_constant(v, core.uint64)

        def op(name, a, b):
            return self._op(f"arith.{name}", [a, b], u64)
        if n == 32:
            xw, yw = (self._op("arith.extui", [v], u64) for v in (x, y))
            hi = op("shrui", op("muli", xw, yw), const(32, xw))
            return self._op("arith.trunci", [hi], x.type)
        # 64 bits from 32-bit halves: hi = ah bh + (ah bl >> 32) + (cross >> 32), where
        # cross = (al bl >> 32) + (ah bl & (2^32 - 1)) + al bh (no term overflows 64 bits).
        xu, yu = (tensor(v.handle, u64) for v in (x, y))
        mask, s32 = const(0xFFFFFFFF, xu), const(32, xu)
        al, ah = op("andi", xu, mask), op("shrui", xu, s32)
        bl, bh = op("andi", yu, mask), op("shrui", yu, s32)
        ll, hl, lh, hh = op("muli", al, bl), op("muli", ah, bl), op("muli", al, bh), \
            op("muli", ah, bh)
        cross = op("addi", op("addi", op("shrui", ll, s32), op("andi", hl, mask)), lh)
        hi = op("addi", op("addi", hh, op("shrui", hl, s32)), op("shrui", cross, s32))
        return tensor(hi.handle, x.type)

    @staticmethod
    def check_dot_operand(what, name, v, idx, layout, k_width="k_width"):
        """``v`` must be in a DotOperandLayout (a vendor module defines it) of operand
        ``idx`` over ``layout``."""
        lay = v.type.layout
        if getattr(lay, "operand_index", None) != idx or getattr(lay, "parent", None) != layout:
            raise TypeError(f"{what}: {name} must be in DotOperandLayout({idx}, acc's layout, "
                            f"{k_width}), got {lay!r}")

    @staticmethod
    def check_matrix_operands(what, a, b, acc, acc_ok, acc_wanted, kwidth_note="",
                              batched=False):
        """The checks a register-operand matrix instruction (mma_v2, mfma) shares: 2-D
        tensors (or, ``batched``, all 3-D with one batch size first), ``acc`` in a layout
        ``acc_ok`` accepts (``acc_wanted`` names it), ``a`` and ``b`` in
        ``DotOperandLayout(0 / 1, acc's layout, k_width)`` with one k_width, shapes that
        multiply. Returns (m, n, k)."""
        rank = len(acc.shape) if isinstance(acc, tensor) and acc.type.is_block else 2
        if not batched or rank not in (2, 3):
            rank = 2
        dims = "2-D" if not batched else "2-D (or 3-D, batched)"
        for name, v in (("a", a), ("b", b), ("acc", acc)):
            if not isinstance(v, tensor) or not v.type.is_block or len(v.shape) != rank:
                raise TypeError(f"{what}: {name} must be a {dims} tensor like acc, got {v!r}"
                                if batched else
                                f"{what}: {name} must be a 2-D tensor, got {v!r}")
        layout = acc.type.layout
        if not acc_ok(layout):
            raise TypeError(f"{what}: acc must be in {acc_wanted}, got {layout!r}")
        for idx, (name, v) in enumerate((("a", a), ("b", b))):
            Semantic.check_dot_operand(what, name, v, idx, layout)
        if a.type.layout.k_width != b.type.layout.k_width:
            raise ValueError(f"{what}: a and b must have the same k_width{kwidth_note}, got "
                             f"{a.type.layout.k_width} and {b.type.layout.k_width}")
        sa, sb, sc = ([int(_unwrap(d)) for d in t.shape] for t in (a, b, acc))
        (m, k), (k2, n) = sa[-2:], sb[-2:]
        if k2 != k or sc[-2:] != [m, n] or sa[:-2] != sc[:-2] or sb[:-2] != sc[:-2]:
            raise ValueError(f"{what}: shapes do not multiply: a {sa}, b {sb}, acc {sc}")
        return m, n, k

    def dot_fma(self, a, b, acc) -> tensor:
        what = "dot_fma"
        for name, v in (("a", a), ("b", b), ("acc", acc)):
            if not isinstance(v, tensor) or not v.type.is_block:
                raise TypeError(f"{what}: {name} must be a tensor, got {v!r}")
        layout = acc.type.layout
        if not isinstance(layout, BlockedLayout):
            raise TypeError(f"{what}: acc must have a BlockedLayout, got {layout!r}")
        for idx, (name, v) in enumerate((("a", a), ("b", b))):
            Semantic.check_dot_operand(what, name, v, idx, layout)
        rank = len(acc.shape)
        if rank not in (2, 3) or len(a.shape) != rank or len(b.shape) != rank:
            raise ValueError(f"{what}: a, b and acc must all be 2-D (M x K, K x N, M x N) or "
                             f"all 3-D (batched)")
        sa, sb, sc = ([int(_unwrap(d)) for d in t.shape] for t in (a, b, acc))
        if sa[-1] != sb[-2] or sa[:-1] != sc[:-1] or sb[:-2] + sb[-1:] != sc[:-2] + sc[-1:]:
            raise ValueError(f"{what}: shapes do not multiply: a {sa}, b {sb}, acc {sc}")
        if a.dtype != b.dtype:
            raise TypeError(f"{what}: a and b must share a dtype, got {a.dtype} and {b.dtype}")
        ok = (a.dtype.is_floating() and acc.dtype.is_floating()) or \
            (a.dtype.is_int() and acc.dtype.is_int())
        if not ok or a.dtype.primitive_bitwidth > acc.dtype.primitive_bitwidth or \
                a.dtype.name.startswith("fp8") or acc.dtype.name.startswith("fp8"):
            raise TypeError(f"{what}: {a.dtype} operands cannot accumulate in {acc.dtype} "
                            f"(fp16, bf16, fp32 or fp64 into a float at least as wide; integers "
                            f"into an integer at least as wide)")
        return self._op("tile.dot_fma", [a, b, acc], acc.type)

    def fma(self, x, y, z) -> tensor:
        self.reject_fp8("fma on {}", x, y, z)
        x, y, z = (self.as_tensor(v) if isinstance(_unwrap(v), tensor) else _unwrap(v)
                   for v in (x, y, z))
        ref = next(v for v in (x, y, z) if isinstance(v, tensor))
        x, y, z = (v if isinstance(v, tensor) else
                   self.scalar_constant(v, self.literal_dtype(v, ref.dtype)) for v in (x, y, z))
        dt = self.promote(self.promote(x.dtype, y.dtype, "fma"), z.dtype, "fma")
        if not dt.is_floating():
            raise TypeError(f"fma expects floating-point operands, got {dt}")
        x, y, z = self.broadcast_all([self.cast(v, dt) for v in (x, y, z)], "fma")
        return self._op("math.fma", [x, y, z], x.type)

    # -- tensor creation and program ids -------------------------------------------------------

    def program_id(self, axis) -> tensor:
        pid = self._grid_op("program_id", axis)
        if self.num_ctas > 1 and axis == 0:  # a program is a cluster of num_ctas CTAs along x
            pid = self.binary("floordiv", pid, self.num_ctas)
        return pid

    def num_programs(self, axis) -> tensor:
        n = self._grid_op("num_programs", axis)
        if self.num_ctas > 1 and axis == 0:
            n = self.binary("floordiv", n, self.num_ctas)
        return n

    def _cta_bases(self, layout):
        """The layout's cluster bases, one per bit of num_ctas (zeros where it has none)."""
        if is_inferred(layout):
            return None
        bits = self.num_ctas.bit_length() - 1
        bases = tuple(layout.cga_bases)
        return bases or ((0,) * (layout.rank or 0),) * bits

    def check_same_cta_part(self, layout, shape, mdt, what):
        """A tensor (``layout``, ``shape``) and a buffer a cluster splits must split the same
        way: each CTA moves its own part, so the parts must be the same shape and the same
        CTA must hold each (equal cga bases; a layout without them: every CTA the whole)."""
        problem = self.cta_part_mismatch(layout, shape, mdt, what)
        if problem:
            raise ValueError(problem)

    def cta_part_mismatch(self, layout, shape, mdt, what):
        """Why a tensor and a buffer do not split the same way among the CTAs (None when they
        do): see check_same_cta_part."""
        if self.num_ctas == 1 or is_inferred(layout):
            return None
        if not (layout.cga_bases or mdt.layout.cga_split):
            return None
        mine = _cga.per_cta_shape(shape, layout.cga_bases, what)
        theirs = mdt.layout.per_cta_shape(mdt.shape)
        if tuple(mine) != tuple(theirs[len(theirs) - len(mine):]):
            return (f"{what}: the tensor's layout gives each CTA of the cluster a "
                    f"{list(mine)} part, but the buffer's layout {mdt.layout!r} a "
                    f"{list(theirs)} part")
        bits = self.num_ctas.bit_length() - 1
        rank = len(shape)
        tensor_bases = [tuple(b) for b in layout.cga_bases] or [(0,) * rank] * bits
        buffer_bases = [(0,) * (rank - len(b)) + tuple(b)[max(0, len(b) - rank):]
                        for b in (getattr(mdt.layout, "cga_layout", ()) or ())] \
            or [(0,) * rank] * bits
        if tensor_bases != buffer_bases:
            return (f"{what}: the tensor's layout and the buffer's split it among the "
                    f"CTAs of the cluster differently (cga_layout "
                    f"{[list(b) for b in tensor_bases]} and "
                    f"{[list(b) for b in buffer_bases]}): each CTA would move a part "
                    f"another CTA holds; give both the same cga_layout")
        return None

    def check_cga(self, layout, what):
        """A layout's cluster split must have one basis per bit of num_ctas."""
        bases = layout.cga_bases if isinstance(layout, DistributedLayout) else (
            getattr(layout, "cga_layout", None) or getattr(layout, "block_bases", None) or ())
        if bases and len(bases) != (self.num_ctas.bit_length() - 1):
            raise ValueError(f"{what}: {layout!r} splits {2 ** len(bases)} CTAs, but the kernel "
                             f"has num_ctas={self.num_ctas}")

    def _grid_op(self, name, axis):
        if not isinstance(axis, int) or isinstance(axis, bool) or axis not in (0, 1, 2):
            raise ValueError(f"{name} axis must be 0, 1 or 2, got {axis!r}")
        return self._op(f"tile.{name}", [], core.int32, {"axis": self.b.int_attr(axis)})

    def arange(self, start, end, layout) -> tensor:
        for name, v in (("start", start), ("end", end)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"arange {name} must be a constexpr int, got {v!r}")
            if not -2**31 <= v < 2**31:
                raise ValueError(f"arange {name} {v} does not fit in int32")
        n = end - start
        if n <= 0:
            raise ValueError(f"arange's end ({end}) must be greater than its start ({start})")
        if not _is_pow2(n):
            raise ValueError(f"arange's range must be a power of 2, got {n}")
        self.check_shape([n], "arange")
        layout = self.check_layout(layout, (n,), "arange", inferred=True)
        rt = distributed_type(core.int32, (n,), layout)
        # Split among a cluster's CTAs: tile-split-cluster makes it each CTA's part.
        return self._op("tile.arange", [], rt,
                        {"start": self.b.int_attr(start), "end": self.b.int_attr(end)})

    def full(self, shape, value, dt, layout) -> tensor:
        shape = self.check_shape(shape, "full")
        if isinstance(dt, str):
            dt = core.dtype_from_name(dt)
        if not isinstance(dt, dtype):
            raise TypeError(f"full: dtype must be a dtype, got {dt!r}")
        value = _unwrap(value)
        if len(shape) == 0:
            # Gluon's full of shape () is the scalar itself (its splat returns it): it
            # broadcasts against any tensor.
            if isinstance(value, tensor):
                if value.type.is_block:
                    raise TypeError("full: value must be a scalar")
                return self.cast(value, dt)
            if not isinstance(value, (int, float)):
                raise TypeError(f"full: value must be a number, got {value!r}")
            return self.scalar_constant(value, dt)
        layout = self.check_layout(layout, shape, "full", inferred=True)
        bt = distributed_type(dt, shape, layout)
        if isinstance(value, tensor):
            if value.type.is_block:
                raise TypeError("full: value must be a scalar")
            return self.splat(self.cast(value, dt), bt)
        if not isinstance(value, (int, float)):
            raise TypeError(f"full: value must be a number, got {value!r}")
        return self.block_constant(value, bt)

    # -- memory --------------------------------------------------------------------------------

    def _ptr_tensor(self, ptr, what):
        ptr = self.as_tensor(_unwrap(ptr))
        if not ptr.dtype.is_ptr():
            raise TypeError(f"{what}: pointer argument must be a pointer, got {ptr.dtype}")
        if not ptr.type.is_block:
            ptr = self._one_element(ptr)
        return ptr

    def _one_element(self, x: tensor) -> tensor:
        """A scalar as a one-element tensor every thread holds (a scalar pointer's access, as
        Gluon allows it: each thread reads the element; a store writes the same value from
        every thread)."""
        layout = BlockedLayout([1], [self.warp_size], [self.num_warps], [0])
        return self.splat(x, distributed_type(x.dtype, (1,), layout))

    def load(self, ptr, mask=None, other=None, volatile=False) -> tensor:
        volatile = _unwrap(volatile)
        if not isinstance(volatile, bool):
            raise TypeError(f"load: volatile must be a constexpr bool, got {volatile!r}")
        scalar = not self.as_tensor(_unwrap(ptr)).type.is_block
        if scalar:
            if mask is not None and self.as_tensor(_unwrap(mask)).type.is_block:
                raise TypeError("load: a scalar pointer takes a scalar mask")
            if mask is not None:
                mask = self._one_element(self.cast(self.as_tensor(_unwrap(mask)), core.int1))
            out = self._load_block(self._ptr_tensor(ptr, "load"), mask, other, volatile)
            # Every thread holds the element: any combine of the (single) value is it.
            return self.reduce(out, 0, lambda a, b: a)
        masks = self.map_loop_masks
        if masks:  # in a branch or loop on values of map_elementwise's function: only the
            # elements that take it read memory
            active = masks[-1]
            if list(self.as_tensor(_unwrap(ptr)).type.shape) == list(active.type.shape):
                mask = active if mask is None else self.binary(
                    "and", self.cast(self.as_tensor(_unwrap(mask)), core.int1), active)
        return self._load_block(self._ptr_tensor(ptr, "load"), mask, other, volatile)

    def _load_block(self, ptr, mask=None, other=None, volatile=False) -> tensor:
        elt = ptr.dtype.element_ty
        if other is not None and mask is None:
            raise ValueError("load: `other` cannot be given without `mask`")
        operands = [ptr]
        if mask is not None:
            operands.append(self.cast(self.as_tensor(mask), core.int1))
            if other is not None:
                other = other if isinstance(other, tensor) else self.literal_like(
                    other, tensor(ptr.handle, ptr.type.with_element_ty(elt)))
                operands.append(self.cast(other, elt))
        operands = self.broadcast_all(operands, "load")
        ptr = operands[0]
        rt = ptr.type.with_element_ty(elt)
        segments = [1, mask is not None, other is not None]  # ptr, optional mask, optional other
        attrs = {"operandSegmentSizes": self.b.array_attr(segments)}
        if volatile:
            attrs["isVolatile"] = "unit"
        return self._op("tile.load", operands, rt, attrs)

    def store(self, ptr, value, mask=None) -> None:
        if not self.as_tensor(_unwrap(ptr)).type.is_block:
            if isinstance(value, tensor) and value.type.is_block:
                raise TypeError("store: a scalar pointer takes a scalar value, got a tensor "
                                f"of shape {list(value.type.shape)}")
            if isinstance(value, tensor):
                value = self._one_element(value)
            if mask is not None:
                if self.as_tensor(_unwrap(mask)).type.is_block:
                    raise TypeError("store: a scalar pointer takes a scalar mask")
                mask = self._one_element(self.cast(self.as_tensor(_unwrap(mask)), core.int1))
        ptr = self._ptr_tensor(ptr, "store")
        elt = ptr.dtype.element_ty
        value = value if isinstance(value, tensor) else self.literal_like(
            value, tensor(ptr.handle, ptr.type.with_element_ty(elt)))
        if value.dtype.is_ptr():
            raise TypeError("store: storing pointers is not supported")
        operands = [ptr, self.cast(value, elt)]
        if mask is not None:
            operands.append(self.cast(self.as_tensor(mask), core.int1))
        self.b.create("tile.store", self.broadcast_all(operands, "store"))

    # -- reductions ----------------------------------------------------------------------------

    def reduce(self, x, axis: int, combine, keep_dims: bool = False) -> tensor:
        """``combine(a, b)`` emits the combine region's body for two scalars."""
        def combine_one(a, b):
            return [combine(a[0], b[0])]
        return self.reduce_tensors([x], axis, combine_one, keep_dims, "reduce")[0]

    def reduce_tensors(self, xs, axis, combine, keep_dims: bool = False, what="reduce"):
        """One ``tile.reduce`` of the tensors ``xs`` (one shape and layout) along ``axis``;
        ``combine(a, b)`` emits the combine region's body for two lists of scalars and returns
        a list. A list of results, one a tensor."""
        xs = [self.as_tensor(x) for x in xs]
        if self.combine_depth:
            raise TypeError("a reduction inside a reduce combine function is not supported: "
                            "the combine function receives two scalars and must combine them "
                            "with elementwise operations")
        for x in xs:
            if not x.type.is_block:
                raise TypeError(f"{what} needs a tensor, got a scalar")
            self.reject_fp8("a reduction of {}", x)
        first = xs[0].type
        for x in xs[1:]:
            if x.type.shape != first.shape or x.type.layout != first.layout:
                raise ValueError(f"{what} of a tuple needs tensors of one shape and layout, got "
                                 f"{first} and {x.type}")
        rank = len(first.shape)
        if axis is None:
            for ax in reversed(range(rank)):
                xs = self.reduce_tensors(xs, ax, combine, False, what)
            if keep_dims:
                raise ValueError("reduce with axis=None and keep_dims=True is not supported: "
                                 "reducing every axis gives a scalar, which has no layout "
                                 "to keep dimensions in (Gluon refuses it too); reduce "
                                 "one axis at a time with keep_dims=True")
            return xs
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"reduce axis must be a constexpr int, got {axis!r}")
        if axis < 0:
            axis += rank
        if not 0 <= axis < rank:
            raise ValueError(f"reduce axis {axis} is out of range for rank {rank}")
        layout = first.layout
        # Along an axis the layout splits among the CTAs of a cluster, each CTA reduces its
        # part and the CTAs combine their results through distributed shared memory
        # (tile-split-cluster marks the reduce; a target with distributed shared memory).
        elts = [x.dtype for x in xs]
        if rank == 1:
            rts = list(elts)
        else:
            rest = first.shape[:axis] + first.shape[axis + 1:]
            out_layout = layout if is_inferred(layout) else SliceLayout(axis, layout)
            rts = [distributed_type(elt, rest, out_layout) for elt in elts]
        from ._tuple_reduce import combine_block
        body = combine_block(self, elts, combine, "tile.reduce_return", what)
        names = self.b.create("tile.reduce", xs, rts, {"axis": self.b.int_attr(axis)}, [body])
        res = [tensor(n, rt) for n, rt in zip(names, rts)]
        if keep_dims:
            res = [self._expand_reduced(r, axis, first) for r in res]
        return res

    def _expand_reduced(self, res, axis, src_type):
        if not res.type.is_block:  # a 1-D reduction: back to shape (1,)
            return self.splat(res, distributed_type(res.dtype, (1,), src_type.layout))
        return self.expand_dims(res, axis)

    # -- warp specialization ------------------------------------------------------------------

    def warp_specialize(self, functions_and_args, worker_num_warps, worker_num_regs):
        """``tile.warp_specialize``: the first (function, args) pair runs on the kernel's warps,
        each further pair on ``worker_num_warps[k]`` warps of its own, all concurrently."""
        if self.codegen is None:
            raise RuntimeError("warp_specialize needs the code generator")
        pairs = _unwrap(functions_and_args)
        if not isinstance(pairs, (list, tuple)) or len(pairs) < 2:
            raise TypeError("warp_specialize: functions_and_args must be a list of (function, "
                            "args) pairs, the default partition's first and at least one "
                            "worker's after it")
        parts = []
        for i, pair in enumerate(pairs):
            pair = _unwrap(pair)
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"warp_specialize: entry {i} of functions_and_args must be a "
                                f"(function, args) pair")
            fn, args = _unwrap(pair[0]), _unwrap(pair[1])
            if not getattr(fn, "__kiln_jit__", False):
                what = getattr(fn, "__qualname__", None) or type(fn).__name__
                raise TypeError(f"warp_specialize: entry {i} must name a @kiln.jit function, "
                                f"got {what}")
            if not isinstance(args, (list, tuple)):
                raise TypeError(f"warp_specialize: the arguments of entry {i} ({fn.__name__}) "
                                f"must be a tuple")
            parts.append((fn, list(args)))
        workers = len(parts) - 1

        def int_list(value, what):
            value = _unwrap(value)
            if not isinstance(value, (list, tuple)) or len(value) != workers or not all(
                    isinstance(_unwrap(v), int) and not isinstance(_unwrap(v), bool)
                    for v in value):
                raise TypeError(f"warp_specialize: {what} must be a list of {workers} "
                                f"constexpr int(s), one per worker partition, got {value!r}")
            return [int(_unwrap(v)) for v in value]
        warps = int_list(worker_num_warps, "worker_num_warps")
        # Gluon's default (None): no register reallocation.
        regs = None if _unwrap(worker_num_regs) is None else int_list(worker_num_regs,
                                                                      "worker_num_regs")
        for k, n in enumerate(warps):
            if n < 1 or n > 32 or n & (n - 1):
                raise ValueError(f"warp_specialize: worker partition {k} has {n} warps; each "
                                 f"must be a power of two between 1 and 32")
        for k, r in enumerate(regs or ()):
            if r < 24 or r > 256 or r % 8:
                raise ValueError(f"warp_specialize: worker partition {k} asks for {r} "
                                 f"registers; each count must be a multiple of 8 between 24 "
                                 f"and 256")
        if self.num_warps + sum(warps) > 32:
            raise ValueError(f"warp_specialize: {self.num_warps} warps of the kernel plus "
                             f"{sum(warps)} of the workers exceed the 32 warps of a CTA")
        blocks = []
        returned, yielded = None, []
        for k, (fn, args) in enumerate(parts):
            saved = self.num_warps
            self.num_warps = saved if k == 0 else warps[k - 1]
            block = self.b.new_block()
            try:
                with self.b.insertion(block):
                    ret = self.codegen.call_partition(fn, args, k)
                    if k == 0:  # Gluon returns the default partition's value to the caller
                        returned = ret
                        yielded = [v for v in _flatten_values(ret) if isinstance(v, tensor)]
                    elif ret is not None and not (isinstance(ret, tuple) and not ret):
                        raise TypeError(f"warp_specialize: worker partition {k - 1} "
                                        f"({fn.__name__}) returns a value; only the default "
                                        f"partition (the first entry) returns values")
                    self.b.create("tile.warp_yield", yielded if k == 0 else [])
            finally:
                self.num_warps = saved
            blocks.append(block)
        attrs = {"partitionNumWarps": self.b.array_attr(warps)}
        if regs is not None:
            attrs["partitionNumRegs"] = self.b.array_attr(regs)
        names = self.b.create("tile.warp_specialize", [], [v.type for v in yielded], attrs,
                              blocks)
        results = iter([tensor(n, v.type) for n, v in zip(names, yielded)])
        return _rebuild_values(returned, results)

    def reduce_builtin(self, kind: str, x, axis=None, keep_dims=False, dt=None) -> tensor:
        x = self.as_tensor(x)
        if kind == "sum":
            if dt is not None:
                x = self.cast(x, dt)
            elif x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
                x = self.cast(x, core.uint32 if x.dtype.is_int_unsigned() else core.int32)

        def combine(a, b):
            if kind == "sum":
                return self.binary("add", a, b)
            return self.minmax(kind, a, b)
        return self.reduce(x, axis, combine, keep_dims)

    def reduce_with(self, x, axis, combine_fn, keep_dims=False) -> tensor:
        if isinstance(_unwrap(x), (tuple, list)):
            from ._tuple_reduce import reduce_tuple
            xs = _unwrap(x)
            if len(xs) == 1:  # Gluon: a 1-tuple reduces like its tensor, into a 1-tuple
                return (self.reduce_with(xs[0], axis, combine_fn, keep_dims),)
            return reduce_tuple(self, xs, axis, combine_fn, keep_dims)
        fn = _unwrap(combine_fn)
        if fn is _py_builtins.max or fn is core.maximum:
            return self.reduce(x, axis, lambda a, b: self.minmax("max", a, b), keep_dims)
        if fn is _py_builtins.min or fn is core.minimum:
            return self.reduce(x, axis, lambda a, b: self.minmax("min", a, b), keep_dims)
        if not getattr(fn, "__kiln_jit__", False):
            what = getattr(fn, "__qualname__", None) or type(fn).__name__
            raise TypeError(f"reduce: combine_fn must be a @kiln.jit function of two scalars "
                            f"(or max, min, kl.maximum, kl.minimum), got {what}")
        if self.codegen is None:
            raise RuntimeError("reduce with a combine function needs the code generator")

        def combine(a, b):
            return self.codegen.call_combine(fn, a, b)
        return self.reduce(x, axis, combine, keep_dims)
