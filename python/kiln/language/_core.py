"""Core of the Kiln DSL surface: dtypes, types, tensor and the core builtins (``constexpr``
lives in :mod:`._constexpr` and is re-exported here).

Builtins are thin: they unwrap their arguments and call the semantic layer
(:mod:`kiln.language._semantic`), which the code generator passes in as ``_semantic=``. Called
outside a ``@kiln.jit`` function they raise a clear error.
"""

from __future__ import annotations

import builtins as _py
import functools
from typing import List, Sequence

from ._constexpr import _unwrap, constexpr, constexpr_function
from . import _cache_policy
from ._dtype_surface import block_queries, dtype_queries, flag, no_ir_hook
from ._layouts import DistributedLayout, SharedLayout

__all__ = [
    "constexpr", "constexpr_function", "dtype", "pointer_type", "distributed_type", "tensor",
    "builtin", "is_builtin",
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "float8e4nv", "float8e5", "float8e4b8",
    "float8e5b16", "float8e4b15", "program_id", "num_programs", "arange", "full", "load", "store", "convert_layout",
    "expand_dims", "broadcast", "broadcast_to", "reshape", "where", "maximum", "minimum",
    "cast", "reduce", "static_assert", "static_print", "num_warps", "static_range", "range",
    "warp_specialize",
]


# ---------------------------------------------------------------------------------------------
# dtypes and types
# ---------------------------------------------------------------------------------------------

_DTYPES = {
    # name: (kind, bitwidth, mlir type)
    "int1": ("bool", 1, "i1"),
    "int8": ("sint", 8, "i8"), "int16": ("sint", 16, "i16"),
    "int32": ("sint", 32, "i32"), "int64": ("sint", 64, "i64"),
    "uint8": ("uint", 8, "i8"), "uint16": ("uint", 16, "i16"),
    "uint32": ("uint", 32, "i32"), "uint64": ("uint", 64, "i64"),
    "fp8e4nv": ("float", 8, "f8E4M3FN"), "fp8e5": ("float", 8, "f8E5M2"),
    # The FNUZ fp8 formats (no negative zero, NaN = 0x80; Triton's names).
    "fp8e4b8": ("float", 8, "f8E4M3FNUZ"), "fp8e5b16": ("float", 8, "f8E5M2FNUZ"),
    # Triton's fp8e4b15: 4 exponent bits with bias 15, no infinities or negative zero.
    "fp8e4b15": ("float", 8, "f8E4M3B11FNUZ"),
    "fp16": ("float", 16, "f16"), "bf16": ("float", 16, "bf16"),
    "fp32": ("float", 32, "f32"), "fp64": ("float", 64, "f64"),
}


class base_value:
    """What every value a kernel computes with derives from (Gluon's ``base_value``):
    tensors, shared-memory and tensor descriptors."""


class base_type:
    """What every type of a kernel value derives from (Gluon's ``base_type``): dtypes,
    pointer, tensor, shared-memory and tensor-descriptor types."""


class dtype(dtype_queries, base_type):
    """A scalar element type (``kl.float32`` …). ``str()`` gives Triton's name (``fp32``); the
    queries of Triton's ``dtype`` (``is_fp16()``, ``kind()``, ``FP_TYPES`` …) come from
    :class:`._dtype_surface.dtype_queries`."""

    is_ptr_type = False

    def __init__(self, name: str):
        if name not in _DTYPES:
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name
        self._kind, self.primitive_bitwidth, self._ir = _DTYPES[name]

    def with_element_ty(self, element_ty):
        return element_ty

    @property
    def scalar(self):
        return self

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth

    def to_ir(self, builder=None) -> str:
        return self._ir

    def mangle(self) -> str:
        return self.name

    def __eq__(self, other):
        return type(other) is dtype and other.name == self.name

    def __hash__(self):
        return hash(("dtype", self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"kl.{_PUBLIC_NAMES.get(self.name, self.name)}"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self!r} is a dtype; use x.to({self!r}) to convert a tensor")


MAX_ADDRESS_SPACE = (1 << 24) - 1  # LLVM's limit


def address_space_problem(address_space):
    """Why ``address_space`` is not a valid pointer address space (None when it is)."""
    if isinstance(address_space, bool) or not isinstance(address_space, int):
        return f"pointer address space must be an integer, got {address_space!r}"
    if not 0 <= address_space <= MAX_ADDRESS_SPACE:
        return (f"pointer address space must be between 0 and {MAX_ADDRESS_SPACE}, got "
                f"{address_space}")
    return None


class pointer_type(dtype_queries, base_type):
    """Pointer to ``element_ty`` in ``address_space`` (1 = global). Triton's ``dtype`` queries
    answer as for Triton's ``pointer<elt>`` (see :mod:`._dtype_surface`)."""

    is_ptr_type = True
    _kind = "ptr"

    def __init__(self, element_ty, address_space: int = 1):
        element_ty = _unwrap(element_ty)
        address_space = _unwrap(address_space)
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer element type must be a dtype, got {element_ty!r}")
        problem = address_space_problem(address_space)
        if problem:
            raise ValueError(problem)
        self.element_ty = element_ty
        self.address_space = address_space
        self.name = "*" + element_ty.name

    @property
    def _triton_name(self) -> str:
        return f"pointer<{self.element_ty}>"

    def is_ptr(self):
        return True

    def with_element_ty(self, element_ty):
        return pointer_type(element_ty, self.address_space)

    @property
    def scalar(self):
        return self

    primitive_bitwidth = 64

    def to_ir(self, builder=None) -> str:
        suffix = "" if self.address_space == 1 else f", {self.address_space}"
        return f"!tile.ptr<{self.element_ty.to_ir()}{suffix}>"

    def mangle(self) -> str:
        space = "" if self.address_space == 1 else f"A{self.address_space}"
        return "P" + self.element_ty.name + space

    def __eq__(self, other):
        return (isinstance(other, pointer_type) and other.element_ty == self.element_ty
                and other.address_space == self.address_space)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space))

    def __str__(self):
        return self.name

    __repr__ = __str__


class distributed_type(block_queries, base_type):
    """A tensor type: element type, shape and register layout (Gluon's ``distributed_type``,
    a Triton ``block_type``: its ``dtype`` queries answer as Triton's do for a block)."""

    is_ptr_type = False

    def __init__(self, element_ty, shape: Sequence[int], layout: DistributedLayout):
        self.element_ty = element_ty
        self.shape = tuple(_py.int(_unwrap(d)) for d in shape)
        self.layout = layout

    @property
    def scalar(self):
        return self.element_ty

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self):
        return self.numel * (self.element_ty.primitive_bitwidth // 8)

    def is_ptr(self):  # Kiln's answer: a tensor of pointers (Triton's block types say False)
        return self.element_ty.is_ptr()

    def with_element_ty(self, element_ty):
        return distributed_type(element_ty, self.shape, self.layout)

    def to_ir(self, builder=None) -> str:
        """The MLIR type, with the layout written out (the IR printer uses aliases)."""
        return (f"tensor<{'x'.join(str(d) for d in self.shape)}x{self.element_ty.to_ir()}, "
                f"{self.layout.to_ir()}>")

    def mangle(self) -> str:
        return (f"T{self.element_ty.mangle()}S{'_'.join(str(d) for d in self.shape)}"
                f"L{self.layout.mangle()}")

    def __eq__(self, other):
        return (isinstance(other, distributed_type) and other.element_ty == self.element_ty
                and other.shape == self.shape and other.layout == self.layout)

    def __hash__(self):
        return hash((self.element_ty, self.shape, self.layout))

    def __str__(self):
        return f"<{list(self.shape)}, {self.element_ty}, {self.layout!r}>"

    __repr__ = __str__


int1 = dtype("int1")
int8, int16, int32, int64 = (dtype(n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")
float8e4b8, float8e5b16 = dtype("fp8e4b8"), dtype("fp8e5b16")
float8e4b15 = dtype("fp8e4b15")
float16, bfloat16, float32, float64 = (dtype(n) for n in ("fp16", "bf16", "fp32", "fp64"))
_PUBLIC_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                 "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b8": "float8e4b8",
                 "fp8e5b16": "float8e5b16", "fp8e4b15": "float8e4b15"}


def dtype_from_name(name: str):
    """Parse a signature type string: ``fp32``, ``i32``, ``u8``, ``bf16``, ``*fp16`` …"""
    name = name.strip()
    if name.startswith("*"):
        elem = dtype_from_name(name[1:])
        if isinstance(elem, pointer_type):
            raise ValueError(f"pointers to pointers are not supported: {name!r}")
        return pointer_type(elem)
    short = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
             "u1": "int1", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
             "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
             "bool": "int1", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5",
             "float8e4b8": "fp8e4b8", "float8e5b16": "fp8e5b16", "float8e4b15": "fp8e4b15"}
    name = short.get(name, name)
    if name not in _DTYPES:
        import difflib
        valid = sorted(_DTYPES)
        near = difflib.get_close_matches(name, valid + list(short), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ValueError(f"unknown type {name!r} in signature{hint} (types: "
                         f"{', '.join(valid)}; a '*' before one is a pointer to it)")
    return dtype(name)


# ---------------------------------------------------------------------------------------------
# builtins
# ---------------------------------------------------------------------------------------------


# Packages whose builtins belong to one vendor, each registered by the vendor's package
# itself (register_vendor_builtins): (package, target prefix, how messages name the vendor).
_VENDOR_PACKAGES: list = []


# Math a vendor's device library computes, by target prefix and function name: fn(semantic,
# f32 tensor) -> tensor, or None where that library is not installed (then Kiln's own math).
_LIBRARY_MATH = {}


def register_library_math(target_prefix: str, name: str, fn) -> None:
    _LIBRARY_MATH[(target_prefix, name)] = fn


# What a vendor's package provides to vendor-neutral builtins, by target prefix and name:
# fn(semantic, ...). "cluster_barrier": every thread of every CTA of the cluster meets.
_TARGET_HOOKS = {}


def register_target_hook(target_prefix: str, name: str, fn) -> None:
    _TARGET_HOOKS[(target_prefix, name)] = fn


def target_hook(target, name: str):
    return next((fn for (p, n), fn in _TARGET_HOOKS.items()
                 if n == name and str(target).startswith(p)), None)


def library_math(target: str, name: str):
    return next((fn for (p, n), fn in _LIBRARY_MATH.items()
                 if n == name and str(target).startswith(p)), None)


def register_vendor_builtins(package: str, target_prefix: str, label: str):
    """Builtins defined under ``package`` belong to the vendor whose targets start with
    ``target_prefix``: one used in a kernel compiled for another vendor's target is an error
    at the call."""
    _VENDOR_PACKAGES.append((package, target_prefix, label))


def _builtin_vendor(module: str):
    """(target prefix, label) of a builtin defined in ``module``, or None for a vendor-neutral
    one."""
    for package, prefix, label in _VENDOR_PACKAGES:
        if module == package or module.startswith(package + "."):
            return prefix, label
    return None


def builtin(fn):
    """Mark ``fn`` as a DSL builtin: the code generator calls it with ``_semantic=``.

    A builtin defined under a package registered with :func:`register_vendor_builtins`
    belongs to that vendor: called in a kernel compiled for another vendor's target, it is an
    error at the user's call (``Semantic.check_vendor_builtin``) before it emits anything."""
    module = getattr(fn, "__module__", None) or ""

    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, **kwargs):
        if _semantic is None:
            raise ValueError(f"{fn.__name__}() can only be called from inside a @kiln.jit "
                             f"function")
        vendor = _builtin_vendor(module)
        if vendor is not None:
            _semantic.check_vendor_builtin(fn.__name__, module, *vendor)
        return fn(*args, _semantic=_semantic, **kwargs)

    wrapper.__kiln_builtin__ = True
    return wrapper


def is_builtin(fn) -> bool:
    return getattr(fn, "__kiln_builtin__", False)


class tensor(base_value):
    """A value in a kernel: a scalar (``type`` is a dtype/pointer type) or a distributed tensor
    (``type`` is a :class:`distributed_type`). ``handle`` is its SSA name in the IR."""

    def __init__(self, handle: str, type):
        self.handle = handle
        self.type = type

    @property
    def dtype(self):
        return self.type.scalar

    @property
    def shape(self) -> List[constexpr]:
        return [constexpr(d) for d in self.type.shape] if self.type.is_block else []

    @property
    def numel(self):
        return constexpr(self.type.numel if self.type.is_block else 1)

    @property
    def rank(self):
        return len(self.type.shape) if self.type.is_block else 0

    def __repr__(self):
        return f"tensor({self.handle}, {self.type})"

    def __bool__(self):
        raise TypeError("a runtime tensor cannot be used as a Python bool here; use an if "
                        "statement or kl.where")

    def __iter__(self):
        raise TypeError("a runtime tensor cannot be iterated")

    # Methods mirroring Gluon's tensor methods.
    @builtin
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
        return _semantic.cast(self, _unwrap(dtype), bitcast=_unwrap(bitcast),
                              rounding=_unwrap(fp_downcast_rounding))

    @builtin
    def reshape(self, *shape, can_reorder=False, layout=None, _semantic=None):
        return reshape(self, *shape, can_reorder=can_reorder, layout=layout,
                       _semantic=_semantic)

    @builtin
    def expand_dims(self, axis, _semantic=None):
        return expand_dims(self, axis, _semantic=_semantic)

    @builtin
    def broadcast_to(self, *shape, _semantic=None):
        return broadcast_to(self, *shape, _semantic=_semantic)

    @builtin
    def sum(self, axis=None, keep_dims=False, dtype=None, _semantic=None):
        return _semantic.reduce_builtin("sum", self, _unwrap(axis), _unwrap(keep_dims),
                                        _unwrap(dtype))

    @builtin
    def max(self, axis=None, keep_dims=False, _semantic=None):
        return _semantic.reduce_builtin("max", self, _unwrap(axis), _unwrap(keep_dims))

    @builtin
    def min(self, axis=None, keep_dims=False, _semantic=None):
        return _semantic.reduce_builtin("min", self, _unwrap(axis), _unwrap(keep_dims))

    @builtin
    def __getitem__(self, slices, _semantic=None):
        return _semantic.subscript(self, slices)


def _tensor_binop(name):
    @builtin
    def fwd(self, other, _semantic=None):
        return _semantic.binary(name, self, other)

    @builtin
    def rev(self, other, _semantic=None):
        return _semantic.binary(name, other, self)
    return fwd, rev


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "lshift", "rshift", "and",
              "or", "xor"):
    _f, _r = _tensor_binop(_name)
    setattr(tensor, f"__{_name}__", _f)
    setattr(tensor, f"__r{_name}__", _r)
for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(tensor, f"__{_name}__", _tensor_binop(_name)[0])
tensor.__hash__ = object.__hash__
for _name in ("neg", "invert", "pos"):
    setattr(tensor, f"__{_name}__",
            builtin(lambda self, _semantic=None, _n=_name: _semantic.unary(_n, self)))


@builtin
def program_id(axis, _semantic=None):
    """Index of this program along grid ``axis`` (0, 1 or 2)."""
    return _semantic.program_id(_semantic.require_constexpr(axis, "program_id axis"))


@builtin
def num_programs(axis, _semantic=None):
    """Number of programs along grid ``axis`` (0, 1 or 2)."""
    return _semantic.num_programs(_semantic.require_constexpr(axis, "num_programs axis"))


@builtin
def arange(start, end, layout=None, _semantic=None):
    """1-D tensor ``[start, end)`` of int32 in ``layout``; ``end - start`` a power of 2."""
    req = _semantic.require_constexpr
    return _semantic.arange(req(start, "arange start"), req(end, "arange end"),
                            req(layout, "arange layout"))


@builtin
def full(shape, value, dtype, layout=None, _semantic=None):
    """Tensor of ``shape`` filled with ``value``."""
    req = _semantic.require_constexpr
    return _semantic.full(req(shape, "full shape"), value, req(dtype, "full dtype"),
                          req(layout, "full layout"))


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False, cache_policy=None,
         _semantic=None):
    """Masked load from a tensor of pointers; masked-off lanes yield ``other``. A ``volatile``
    load reads memory each time it runs, in program order (a volatile access); the
    pipeliner never issues it ahead. ``cache_policy`` (a ``CachePolicy``) or
    ``cache_modifier`` / ``eviction_policy`` (not both) are hints, checked, not applied."""
    _cache_policy.normalize("load", cache_policy, cache_modifier, eviction_policy)
    return _semantic.load(pointer, _unwrap(mask), _unwrap(other),
                          volatile=_semantic.require_constexpr(volatile, "load volatile"))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy="", cache_policy=None, _semantic=None):
    """Masked store of ``value`` to a tensor of pointers. ``cache_policy`` (a
    ``CachePolicy``) or ``cache_modifier`` / ``eviction_policy`` (not both) are hints,
    checked, not applied."""
    _cache_policy.normalize("store", cache_policy, cache_modifier, eviction_policy)
    return _semantic.store(pointer, _unwrap(value), _unwrap(mask))


@builtin
def set_auto_layout(value, layout, _semantic=None):
    """Fix the layout of ``value``, a tensor with ``AutoLayout``, to ``layout`` (a distributed
    layout or ``CoalescedLayout()``). Kiln's tile-resolve-layouts pass propagates it to the
    values ``value`` comes from and goes to; where another set_auto_layout already gave them a
    different layout, this one becomes a convert_layout and the compile reports a remark."""
    return _semantic.set_auto_layout(value, _semantic.require_constexpr(layout,
                                                                        "set_auto_layout layout"))


@builtin
def convert_layout(value, layout, assert_trivial=False, _semantic=None):
    """Move ``value`` to ``layout``; ``assert_trivial`` fails when data would move between
    threads."""
    req = _semantic.require_constexpr
    return _semantic.convert_layout(value, req(layout, "convert_layout layout"),
                                    req(assert_trivial, "assert_trivial"))


@builtin
def expand_dims(input, axis, _semantic=None):
    """Insert size-1 dimensions at ``axis`` (an int or a sequence); the source layout must be a
    ``SliceLayout`` of that dimension."""
    axis = _semantic.require_constexpr(axis, "expand_dims axis")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in sorted(_unwrap(a) for a in axes):
        input = _semantic.expand_dims(input, a)
    return input


@builtin
def broadcast(input, other, _semantic=None):
    """Broadcast two tensors to their common shape; returns both."""
    return _semantic.broadcast_pair(input, other, "broadcast")


@builtin
def broadcast_to(input, *shape, _semantic=None):
    """Broadcast ``input`` to ``shape``."""
    shape = _semantic.require_constexpr(_shape_args(shape), "broadcast_to shape")
    return _semantic.broadcast_to(input, shape)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        return list(_unwrap(shape[0]))
    return list(shape)


@builtin
def reshape(input, *shape, can_reorder=False, layout=None, _semantic=None):
    """Reinterpret ``input`` (row-major) with ``shape``. Without ``layout`` the result keeps
    every element in its thread (a linear layout)."""
    req = _semantic.require_constexpr
    shape = [req(d, "reshape shape") for d in _shape_args(shape)]
    return _semantic.reshape(input, shape, req(layout, "reshape layout"))


@builtin
def where(condition, x, y, _semantic=None):
    """Elementwise ``x if condition else y``."""
    return _semantic.where(condition, _unwrap(x), _unwrap(y))


@builtin
def maximum(x, y, propagate_nan=None, _semantic=None):
    return _semantic.minmax("max", _unwrap(x), _unwrap(y), _unwrap(propagate_nan))


@builtin
def minimum(x, y, propagate_nan=None, _semantic=None):
    return _semantic.minmax("min", _unwrap(x), _unwrap(y), _unwrap(propagate_nan))


@builtin
def clamp(x, min, max, propagate_nan=None, _semantic=None):
    """``x`` limited to [min, max] (floats; undefined where min > max), as Triton's and Gluon's
    ``clamp``: ``minimum(maximum(x, min), max)``; bf16 computes in f32 and returns f32, as
    Triton does. ``propagate_nan=PropagateNan.ALL`` keeps a NaN ``x`` NaN; by default a NaN
    ``x`` gives ``min``."""
    x, lo, hi = (_semantic.as_tensor(_unwrap(v)) for v in (x, min, max))
    for v in (x, lo, hi):
        if not v.dtype.is_floating():
            raise TypeError(f"clamp is only supported for floating-point types, got {v.dtype}")
    x, lo, hi = (_semantic.cast(v, float32) if v.dtype == bfloat16 else v for v in (x, lo, hi))
    nan = _unwrap(propagate_nan)
    return _semantic.minmax("min", _semantic.minmax("max", x, lo, nan), hi, nan)


@builtin
def expect_zero(x, mask, _semantic=None):
    """``x``, marked as expected to be zero where ``mask`` holds (values that underflowed):
    with ``debug=True`` a device assertion checks it, as Gluon's; otherwise ``x`` as it is."""
    m = _semantic.as_tensor(_unwrap(mask))
    if _semantic.debug:
        xt = _semantic.as_tensor(_unwrap(x))
        cond = _semantic.logical("or", _semantic.compare("eq", xt, 0),
                                 _semantic.unary("not", _semantic.cast(m, int1)))
        _semantic.device_assert(cond, "expect_zero expected x == 0 where mask is true", None)
    return x


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
    return _semantic.cast(_semantic.as_tensor(input), _unwrap(dtype), bitcast=_unwrap(bitcast),
                          rounding=_unwrap(fp_downcast_rounding))


@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None):
    """Reduce ``input`` along ``axis`` with ``combine_fn``: a ``@kiln.jit`` function of two
    scalars made of elementwise operations (no runtime if/for/while, no nested reductions),
    or ``max``/``min``/``kl.maximum``/``kl.minimum``."""
    req = _semantic.require_constexpr
    return _semantic.reduce_with(input, req(axis, "reduce axis"), combine_fn,
                                 req(keep_dims, "keep_dims"))


@builtin
def warp_specialize(functions_and_args, worker_num_warps, worker_num_regs=None, *older,
                    _semantic=None):
    """Run partitions of warps concurrently (Gluon's ``gl.warp_specialize``).

    ``functions_and_args`` is a list of ``(function, args)`` pairs of ``@kiln.jit`` functions
    and argument tuples: the first runs on the kernel's ``num_warps`` warps (the default
    partition), each further one on ``worker_num_warps[k]`` extra warps launched with the
    kernel. Partitions share shared memory and synchronize through mbarriers; inside one,
    ``kl.num_warps()``, layouts and CTA barriers are the partition's. Worker partitions may
    use the kernel's arguments and what is computed from them without memory access
    (constants, program ids, integer arithmetic, shared-memory buffers and their views).
    ``worker_num_regs`` is the register count per thread of each worker partition (a
    multiple of 8 in [24, 256]); without it (None, Gluon's default) no partition changes its
    register count. On a target that moves registers between warp groups (Hopper
    and later) with ``num_warps`` a multiple of 4, the workers' warps are padded to whole
    warp groups, each group sets its partitions' largest count at start and the kernel's
    warps take the rest of the register file; elsewhere the counts are not applied. The call
    returns what the default partition's function returns (workers return nothing); it may
    appear anywhere in a kernel, several times, in loops and branches.

    Gluon's earlier form (up to Triton 3.5), ``warp_specialize(default_args,
    default_partition, worker_args, worker_partitions, worker_num_warps, worker_num_regs)``
    (every worker taking ``worker_args``), is the same call."""
    if older:
        if len(older) != 3:
            raise TypeError(f"warp_specialize takes (functions_and_args, worker_num_warps"
                            f"[, worker_num_regs]) or Gluon's earlier (default_args, "
                            f"default_partition, worker_args, worker_partitions, "
                            f"worker_num_warps, worker_num_regs); got {3 + len(older)} "
                            f"arguments")
        default_args, default_partition, worker_args = (functions_and_args, worker_num_warps,
                                                        worker_num_regs)
        worker_partitions, worker_num_warps, worker_num_regs = older
        functions_and_args = [(default_partition, default_args)] + [
            (fn, worker_args) for fn in _unwrap(worker_partitions)]
    return _semantic.warp_specialize(functions_and_args, worker_num_warps, worker_num_regs)


@builtin
def static_assert(cond, msg="", _semantic=None):
    """Compile-time assertion."""
    cond = _semantic.require_constexpr(cond, "static_assert condition")
    if not cond:
        raise AssertionError(f"static_assert failed: {_unwrap(msg)}" if _unwrap(msg)
                             else "static_assert failed")


@builtin
def device_assert(cond, msg="", mask=None, _semantic=None):
    """Debug mode's assertion (Gluon's ``device_assert``): where ``cond`` is false (and
    ``mask``, if given, true) the kernel stops, and the driver reports ``msg`` with this file
    and line; compiled only with ``debug=True`` (a launch or compile option), dropped
    otherwise. A target without a device-side report traps without it."""
    return _semantic.device_assert(cond, _unwrap(msg), None if mask is None else mask)


@builtin
def device_print(prefix, *args, hex=False, _semantic=None):
    """Print ``args`` (tensors of one shape, or scalars) from the device (Gluon's
    ``device_print``): each thread prints, per element it holds, a line ``pid (x, y, z) idx
    (i, ...) <prefix> <value>``; ``hex`` prints integers in hexadecimal. The output appears
    when the launch completes (the driver's printf buffer); targets without a device printf
    refuse it at the call."""
    return _semantic.device_print(_unwrap(prefix), [_unwrap(a) for a in args],
                                  bool(_semantic.require_constexpr(hex, "hex")))


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False, _semantic=None):
    """Print at compile time."""
    _py.print(*(_unwrap(v) for v in values), sep=sep, end=end, file=file, flush=flush)


class async_token_type:
    """The type of the tokens that link async copies, commit groups and waits in the IR."""

    is_block = flag(False)
    is_ptr_type = False

    def to_ir(self) -> str:
        return "!tile.async_token"

    def __str__(self):
        return "async_token"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, async_token_type)

    def __hash__(self):
        return hash("async_token")


class shared_memory_descriptor_type(base_type):
    """The type of a shared-memory buffer: element type, shape, shared layout."""

    is_block = flag(False)
    is_ptr_type = False

    def __init__(self, element_ty, shape: Sequence[int], layout: SharedLayout,
                 mutable: bool = True, alloc_shape: Sequence[int] = None):
        self.element_ty = element_ty
        self.shape = tuple(_py.int(_unwrap(d)) for d in shape)
        self.layout = layout
        self.mutable = mutable
        self.alloc_shape = tuple(alloc_shape) if alloc_shape is not None else self.shape

    @property
    def scalar(self):
        return self.element_ty

    def to_ir(self) -> str:
        # A buffer split among the CTAs of a cluster: each CTA's part (see _cga).
        shape = self.layout.per_cta_shape(self.shape)
        alloc_shape = self.layout.per_cta_shape(self.alloc_shape)
        dims = "x".join(str(d) for d in shape)
        alloc = ("" if alloc_shape == shape
                 else ", " + "x".join(str(d) for d in alloc_shape))
        return (f"!tile.memdesc<{dims}x{self.element_ty.to_ir()}, {self.layout.to_ir()}"
                + (", mutable" if self.mutable else "") + alloc + ">")

    _flatten_ir_types = no_ir_hook("shared_memory_descriptor_type", "_flatten_ir_types")
    _unflatten_ir = no_ir_hook("shared_memory_descriptor_type", "_unflatten_ir")

    def mangle(self) -> str:
        return (f"M{self.element_ty.mangle()}S{'_'.join(str(d) for d in self.shape)}"
                f"A{'_'.join(str(d) for d in self.alloc_shape)}L{self.layout.mangle()}")

    def __eq__(self, other):
        return (isinstance(other, shared_memory_descriptor_type)
                and (other.element_ty, other.shape, other.layout, other.mutable,
                     other.alloc_shape)
                == (self.element_ty, self.shape, self.layout, self.mutable, self.alloc_shape))

    def __hash__(self):
        return hash((self.element_ty, self.shape, self.layout, self.mutable, self.alloc_shape))

    def __str__(self):
        return f"<shared {list(self.shape)}, {self.element_ty}, {self.layout!r}>"

    __repr__ = __str__


class shared_memory_descriptor(base_value):
    """A buffer in shared memory (Gluon's ``shared_memory_descriptor``): made by
    :func:`allocate_shared_memory`, read with ``.load(layout)``, written with ``.store(value)``."""

    def __init__(self, handle: str, type: shared_memory_descriptor_type):
        self.handle = handle
        self.type = type

    @property
    def dtype(self):
        return self.type.element_ty

    @property
    def shape(self) -> List[constexpr]:
        return [constexpr(d) for d in self.type.shape]

    @property
    def rank(self):
        return len(self.type.shape)

    @property
    def numel(self):
        n = 1
        for d in self.type.shape:
            n *= d
        return constexpr(n)

    @property
    def layout(self):
        return self.type.layout

    @property
    def nbytes_per_cta(self):
        """The bytes of one CTA's part (the whole buffer outside a cluster; Gluon's)."""
        n = 1
        for d in self.type.layout.per_cta_shape(self.type.shape):
            n *= d
        return constexpr(n * self.type.element_ty.primitive_bitwidth // 8)

    @builtin
    def _flatten_ir(self, handles, _semantic=None):
        no_ir_hook("shared_memory_descriptor", "_flatten_ir")(self)

    def __repr__(self):
        return f"shared_memory_descriptor({self.handle}, {self.type})"

    @builtin
    def load(self, layout, _semantic=None):
        """The buffer's contents as a tensor in the register layout ``layout``."""
        return _semantic.local_load(self, _unwrap(layout))

    @builtin
    def store(self, value, _semantic=None):
        """Write ``value`` (a tensor of the buffer's shape and type) into the buffer."""
        return _semantic.local_store(self, value)

    @builtin
    def gather(self, indices, axis, _semantic=None):
        """``result[I] = self[I with I[axis] replaced by indices[I]]``: a tensor of the
        indices' shape and layout (Gluon's)."""
        return _semantic.shared_gather(self, _unwrap(indices), axis)

    @builtin
    def scatter(self, values, indices, axis, _semantic=None):
        """``self[I with I[axis] replaced by indices[I]] = values[I]``, values and indices
        broadcast to one shape first (Gluon's)."""
        return _semantic.shared_scatter(self, _unwrap(values), _unwrap(indices), axis)

    # atomic_scatter_add / max / min / and / or / xor / xchg (made below the class).

    @builtin
    def index(self, index, _semantic=None):
        """The ``index``-th buffer along the leading dimension (a ring slot), as a view."""
        return _semantic.memdesc_index(self, index)

    @builtin
    def slice(self, start, length, dim=0, _semantic=None):
        """Elements ``start .. start+length`` along ``dim`` (constexprs), as a view."""
        return _semantic.memdesc_slice(self, start, length, dim)

    @builtin
    def permute(self, order, _semantic=None):
        """The same buffer with its dimensions permuted (``[1, 0]`` transposes), as a view."""
        return _semantic.memdesc_permute(self, order)

    @builtin
    def reshape(self, shape, _semantic=None):
        """The same buffer seen with another shape (unswizzled row-major buffers), as a view."""
        return _semantic.memdesc_reshape(self, shape)

    @builtin
    def _reinterpret(self, dtype=None, shape=None, layout=None, _semantic=None):
        """The bytes of this view, from its first, as a whole buffer of ``dtype``, ``shape`` and
        the shared layout ``layout``, each the view's own where not given (Gluon's
        ``_reinterpret``). The view must be one slot whose elements fill one contiguous range,
        and the new buffer must fit in its bytes."""
        return self._reinterpreted(dtype, shape, layout, _semantic)

    @builtin
    def reinterpret(self, dtype=None, shape=None, layout=None, _semantic=None):
        """Gluon's public name of :meth:`_reinterpret` (after Triton 3.8)."""
        return self._reinterpreted(dtype, shape, layout, _semantic)

    def _reinterpreted(self, dtype, shape, layout, sem):
        dtype = self.dtype if _unwrap(dtype) is None else _unwrap(dtype)
        shape = list(self.type.shape) if _unwrap(shape) is None else shape
        layout = self.layout if _unwrap(layout) is None else _unwrap(layout)
        return sem.memdesc_reinterpret(self, dtype, shape, layout)

    @builtin
    def _keep_alive(self, _semantic=None):
        """Keep the buffer alive (its bytes reserved) until here, as in Gluon: its live range
        ends here rather than at its last use."""
        return _semantic.local_dealloc(self)



def _atomic_scatter_method(op):
    """``shared_memory_descriptor.atomic_scatter_<op>`` (Gluon's)."""
    def method(self, values, indices, axis, mask=None, _semantic=None):
        return _semantic.shared_atomic_scatter(self, op, _unwrap(values), _unwrap(indices),
                                               axis, mask)
    method.__name__ = method.__qualname__ = f"atomic_scatter_{op}"
    method.__doc__ = (f"Atomic {op} at ``self[I with I[axis] replaced by indices[I]]`` for each "
                      f"element I (where ``mask``), returning the old values (Gluon's).")
    return builtin(method)


for _op in ("add", "max", "min", "and", "or", "xor", "xchg"):
    setattr(shared_memory_descriptor, f"atomic_scatter_{_op}", _atomic_scatter_method(_op))
del _op


_CLUSTER_VIEW_OPS = ("load", "store", "gather", "scatter", "atomic_scatter_*", "slice", "index")


class cluster_view_type(shared_memory_descriptor_type):
    """The type of a :class:`cluster_view`: the view's own shape, layout and offsets within the
    buffer (``whole``, an IR-level descriptor) it was sliced from. It has no IR form."""

    def __init__(self, whole: "shared_memory_descriptor", shape, offsets, layout=None,
                 whole_shape=None):
        wt = whole.type
        layout = layout or wt.layout
        whole_shape = tuple(whole_shape or wt.shape)
        super().__init__(wt.element_ty, shape, layout, wt.mutable,
                         whole_shape if layout is not wt.layout else wt.alloc_shape)
        self.offsets = tuple(offsets)
        self.whole_shape = whole_shape

    def to_ir(self) -> str:
        raise NotImplementedError(
            f"a view of a buffer split among the CTAs of a cluster that crosses the split "
            f"(sliced along a split dimension) cannot be passed on or carried; use it where "
            f"it is made (it supports {', '.join(_CLUSTER_VIEW_OPS)})")

    def mangle(self) -> str:
        return (super().mangle() + f"V{'_'.join(str(o) for o in self.offsets)}"
                f"W{'_'.join(str(d) for d in self.whole_shape)}")

    def __eq__(self, other):
        return (isinstance(other, cluster_view_type) and super().__eq__(other)
                and (other.offsets, other.whole_shape) == (self.offsets, self.whole_shape))

    def __hash__(self):
        return hash((super().__hash__(), self.offsets, self.whole_shape))


class cluster_view(shared_memory_descriptor):
    """A view of a buffer the CTAs of a cluster split, sliced along a split dimension: its
    elements lie in other CTAs' parts (Gluon's distributed shared memory). It keeps the
    descriptor it was sliced from (``whole``) and its offsets there; loads, stores, gathers
    and scatters reach each element in the CTA that holds it. It has no IR value of its own."""

    def __init__(self, whole: shared_memory_descriptor, shape, offsets, layout=None):
        # ``layout``: the buffer's own layout where ``whole`` holds it in another form (a
        # layout whose CTA parts are no boxes: ``whole`` is each CTA's part as a flat run).
        self.whole = whole
        self.type = cluster_view_type(whole, shape, offsets, layout,
                                      shape if layout is not None else None)

    def view(self, shape, offsets):
        """Another view of the same buffer (a slice or slot of this one)."""
        out = cluster_view(self.whole, shape, offsets)
        if self.type.layout is not self.whole.type.layout:
            out.type = cluster_view_type(self.whole, shape, offsets, self.type.layout,
                                         self.type.whole_shape)
        return out

    @property
    def scattered(self):
        """Whether ``whole`` holds the buffer as flat runs (a layout with no box parts)."""
        return self.type.layout is not self.whole.type.layout

    @property
    def offsets(self):
        return self.type.offsets

    @property
    def handle(self):
        raise NotImplementedError(
            f"this use of a view of a buffer split among the CTAs of a cluster that crosses "
            f"the split (sliced along a split dimension) is not supported; such a view "
            f"supports {', '.join(_CLUSTER_VIEW_OPS)}")

    @handle.setter
    def handle(self, value):  # pragma: no cover - views are made whole
        raise AttributeError("a cluster view has no handle")

    def __repr__(self):
        return f"cluster_view({self.whole!r}, offsets={list(self.offsets)})"

class block_type(block_queries, base_type):
    """The block a tensor descriptor copies: ``.shape`` (constexprs), ``.element_ty``,
    ``.nbytes`` (Gluon's ``block_type``, with Triton's ``dtype`` queries for a block)."""

    is_ptr_type = False

    def __init__(self, element_ty, shape: Sequence[int]):
        self.element_ty = element_ty
        self._shape = tuple(_py.int(_unwrap(d)) for d in shape)

    @property
    def shape(self) -> List[constexpr]:
        return [constexpr(d) for d in self._shape]

    @property
    def numel(self):
        n = 1
        for d in self._shape:
            n *= d
        return constexpr(n)

    @property
    def nbytes(self):
        return constexpr(self.numel.value * self.element_ty.primitive_bitwidth // 8)

    @property
    def scalar(self):
        return self.element_ty

    def with_element_ty(self, element_ty):
        return block_type(element_ty, self._shape)

    def to_ir(self, builder=None) -> str:
        return f"tensor<{'x'.join(str(d) for d in self._shape)}x{self.element_ty.to_ir()}>"

    def mangle(self) -> str:
        return f"{self.element_ty.mangle()}S{'_'.join(str(d) for d in self._shape)}S"

    def __eq__(self, other):
        return isinstance(other, block_type) and (other.element_ty, other._shape) == \
            (self.element_ty, self._shape)

    def __hash__(self):
        return hash((self.element_ty, self._shape))

    def __repr__(self):
        return f"block_type({self.element_ty}, {list(self._shape)})"


class tensor_descriptor_type(base_type):
    """A tensor descriptor kernel parameter (``!tile.tensordesc``): the block one copy moves
    and the shared layout it has in shared memory. The tensor's base, shape and strides are
    in the descriptor, passed at launch; the shape and strides also follow it as scalar
    parameters (``desc.shape``, ``desc.strides`` in the kernel), as in Gluon."""

    is_block = flag(False)
    is_ptr_type = False

    def __init__(self, element_ty, block_shape: Sequence[int], layout: SharedLayout):
        self.element_ty = element_ty
        self.block_shape = tuple(_py.int(_unwrap(d)) for d in block_shape)
        self.layout = layout

    @property
    def scalar(self):
        return self.element_ty

    @property
    def block_type(self):
        """The block one copy moves (Gluon's ``tensor_descriptor_type.block_type``)."""
        return block_type(self.element_ty, self.block_shape)

    def is_ptr(self):
        return False

    def is_int(self):
        return False

    @property
    def cta_block_shape(self):
        """The block of one CTA of a cluster (the layout's ``cga_layout`` splits it): the TMA
        box, and what the IR's descriptor type holds."""
        per_cta = getattr(self.layout, "per_cta_shape", None)
        return tuple(per_cta(self.block_shape, wrap=True)) if per_cta else self.block_shape

    @property
    def nbytes_per_cta(self):
        n = 1
        for d in self.cta_block_shape:
            n *= d
        return n * self.element_ty.primitive_bitwidth // 8

    def to_ir(self) -> str:
        dims = "x".join(str(d) for d in self.cta_block_shape)
        return f"!tile.tensordesc<tensor<{dims}x{self.element_ty.to_ir()}, {self.layout.to_ir()}>>"

    def mangle(self) -> str:
        return (f"D{self.element_ty.mangle()}S{'_'.join(str(d) for d in self.block_shape)}"
                f"L{self.layout.mangle()}")

    def param_spec(self) -> dict:
        """What launch metadata records of the parameter (checked against the descriptor
        passed at launch)."""
        spec = getattr(self.layout, "descriptor_spec", None)
        return {"dtype": signature_name(self.element_ty),
                "block_shape": list(self.block_shape),
                "layout": spec() if spec else repr(self.layout)}

    def make_value(self, handle: str):
        return tensor_descriptor(handle, self)

    def __eq__(self, other):
        return (isinstance(other, tensor_descriptor_type)
                and (other.element_ty, other.block_shape, other.layout)
                == (self.element_ty, self.block_shape, self.layout))

    def __hash__(self):
        return hash((self.element_ty, self.block_shape, self.layout))

    def __str__(self):
        return f"tensordesc<{list(self.block_shape)}, {self.element_ty}, {self.layout!r}>"

    __repr__ = __str__


def signature_name(ty) -> str:
    """A scalar dtype's spelling in kernel signatures and metadata: ``fp32``, ``bf16``,
    ``i32``, ``u8`` (kiln.compiler.type_name adds pointers and descriptors)."""
    n = ty.name
    if n.startswith("int"):
        return "i" + n[3:]
    if n.startswith("uint"):
        return "u" + n[4:]
    return n


class tensor_descriptor(base_value):
    """A tensor descriptor in a kernel (Gluon's ``tensor_descriptor``): ``.block_type``,
    ``.block_shape``, ``.dtype`` and ``.layout`` are compile-time values; copies take it."""

    def __init__(self, handle: str, type: tensor_descriptor_type, shape=None, strides=None):
        self.handle = handle
        self.type = type
        # The tensor's shape (i32) and strides (i64, in elements) as scalar tensors: kernel
        # parameters that follow a descriptor argument, or the values given to
        # tma.make_tensor_descriptor.
        self._shape, self._strides = shape, strides

    def _dims(self, what, values):
        if values is None:
            raise AttributeError(f"this tensor descriptor has no {what}")
        return list(values)

    @property
    def shape(self):
        """The global tensor's shape (int32 scalars), as the descriptor was made with."""
        return self._dims("shape", self._shape)

    @property
    def strides(self):
        """The global tensor's strides in elements (int64 scalars)."""
        return self._dims("strides", self._strides)

    @property
    def block_type(self):
        return block_type(self.type.element_ty, self.type.block_shape)

    @property
    def block_shape(self) -> List[constexpr]:
        return [constexpr(d) for d in self.type.block_shape]

    @property
    def nbytes_per_cta(self):
        """The bytes one CTA's copy of the block moves (Gluon's): the whole block outside a
        cluster; inside one, the part the layout's ``cga_layout`` gives each CTA, what its
        barrier must expect (a multicast load counts them on every receiving CTA's)."""
        return constexpr(self.type.nbytes_per_cta)

    @property
    def dtype(self):
        return self.type.element_ty

    @property
    def layout(self):
        return self.type.layout

    @property
    def rank(self):
        return len(self.type.block_shape)

    def __repr__(self):
        return f"tensor_descriptor({self.handle}, {self.type})"


@builtin
def allocate_shared_memory(element_ty, shape, layout, value=None, _semantic=None):
    """A new buffer of ``shape`` x ``element_ty`` in shared memory, laid out by the shared
    layout ``layout``, initialized from the tensor ``value`` when given."""
    return _semantic.allocate_shared_memory(_unwrap(element_ty), _unwrap(shape),
                                            _unwrap(layout), value)


@builtin
def to_tensor(x, _semantic=None):
    """``x`` (a Python or constexpr int, float or bool, or a tensor) as a scalar tensor of its
    default dtype (Triton's ``to_tensor``)."""
    return _semantic.as_tensor(x)


@builtin
def dot_fma(a, b, acc, _semantic=None):
    """``acc + a @ b`` with fused multiply-adds (no matrix cores): ``acc`` ([batch,] M x N) in a
    ``BlockedLayout`` P, ``a`` ([batch,] M x K) in ``DotOperandLayout(0, P, k_width)`` and ``b``
    ([batch,] K x N) in ``DotOperandLayout(1, P, k_width)``; every thread already holds the K
    elements of its products, so no data moves between threads (Gluon's ``dot_fma``)."""
    return _semantic.dot_fma(a, b, acc)


@builtin
def barrier(*, cluster=False, _semantic=None):
    """CTA-wide barrier: every thread waits here, and shared-memory writes before it are
    visible to reads after it (Gluon's ``gl.barrier()``). ``cluster=True`` asks for the whole
    cluster's CTAs to meet, as Gluon after Triton 3.6 (with one CTA a program, that is the CTA
    barrier): every thread of every CTA arrives, releasing its memory accesses, and waits for
    all the others (acquire)."""
    cluster = _unwrap(cluster)
    if not isinstance(cluster, bool):
        raise TypeError(f"barrier: cluster must be a constexpr bool, got {cluster!r}")
    if cluster and _semantic.num_ctas > 1:
        hook = target_hook(_semantic.target, "cluster_barrier")
        if hook is None:
            raise ValueError(f"barrier(cluster=True): {_semantic.target} has no cluster "
                             f"barrier")
        hook(_semantic)
        return
    _semantic.b.create("tile.barrier", [], [])


@builtin
def assume(cond, _semantic=None):
    """The promise that ``cond`` (a bool scalar or tensor) is true everywhere, passed to LLVM
    (``llvm.assume``) for its optimizations; a false promise is undefined behaviour."""
    c = _unwrap(cond)
    if isinstance(c, bool):
        if not c:
            raise ValueError("assume(False): the condition is known to be false")
        return None
    c = _semantic.as_tensor(c)
    if not c.dtype.is_bool():
        raise TypeError(f"assume expects a bool condition, got {c.dtype}")
    _semantic.b.create("tile.assume", [c], [])
    return None


@builtin
def multiple_of(input, values, _semantic=None):
    """``input`` with the promise that the first element of each contiguous group (every
    element of a scalar) is a multiple of ``values`` (one per dimension; an int for a scalar
    or a 1-D tensor), which lets loads and stores through it vectorize. A false promise is
    undefined behaviour."""
    return _semantic.hint(input, values, "divisibility", "multiple_of")


@builtin
def max_contiguous(input, values, _semantic=None):
    """``input`` with the promise that its elements come in runs of ``values`` consecutive
    integers (per dimension), aligned to the run length."""
    return _semantic.hint(input, values, "contiguity", "max_contiguous")


@builtin
def max_constancy(input, values, _semantic=None):
    """``input`` with the promise that its elements come in runs of ``values`` equal ones (per
    dimension), aligned to the run length."""
    return _semantic.hint(input, values, "constancy", "max_constancy")


@builtin
def thread_barrier(_semantic=None):
    """CTA-wide barrier (Gluon 3.6's ``thread_barrier``; the same as :func:`barrier`)."""
    _semantic.b.create("tile.barrier", [], [])


def _atomic(op, doc):
    @builtin
    def fn(pointer, val, mask=None, sem=None, scope=None, _semantic=None):
        return _semantic.atomic_rmw(op, pointer, val, mask, sem, scope)
    fn.__name__ = fn.__qualname__ = f"atomic_{op}"
    fn.__doc__ = (f"Atomically {doc} at ``pointer`` (a tensor of pointers, or one pointer) "
                  f"where ``mask`` holds, once per element however many threads hold it; "
                  f"returns the old values. ``sem``: 'relaxed', 'acquire', 'release' or "
                  f"'acq_rel' (default); ``scope``: 'cta', 'gpu' (default) or 'sys'.")
    return fn


atomic_add = _atomic("add", "adds ``val``")
atomic_and = _atomic("and", "ANDs ``val``")
atomic_or = _atomic("or", "ORs ``val``")
atomic_xor = _atomic("xor", "XORs ``val``")
atomic_max = _atomic("max", "takes the maximum with ``val``")
atomic_min = _atomic("min", "takes the minimum with ``val``")
atomic_xchg = _atomic("xchg", "stores ``val``")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None):
    """Atomically, where ``*pointer == cmp``, stores ``val`` (32- or 64-bit values, compared
    bitwise); returns the old values. ``cmp`` and ``val`` have the pointer's element type
    (tensors of it, or Python numbers of its kind: no implicit int/float conversion).
    ``sem`` and ``scope`` as for :func:`atomic_add`."""
    return _semantic.atomic_cas(pointer, cmp, val, sem, scope)


@builtin
def ravel(x, can_reorder=False, _semantic=None):
    """``x`` as a 1-D tensor (row-major; ``can_reorder`` is accepted, the order is kept)."""
    x = _semantic.as_tensor(_unwrap(x))
    n = 1
    for d in x.shape:
        n *= int(_unwrap(d))
    return _semantic.reshape(x, [n], None)


@builtin
def map_elementwise(scalar_fn, *args, pack=1, _semantic=None):
    """``scalar_fn`` over the elements of ``args`` (broadcast to one shape). Kiln applies it to
    the whole tensors at once: an ``if`` on a value runs both branches and selects each
    element's result; a ``while`` (or a ``for`` over a range of values) runs until every
    element's condition fails, updating only the elements still looping; loads in such a
    branch or loop read only for the elements that take it. Branches and loops on values may
    compute but not store, print or assert."""
    return _semantic.map_elementwise(scalar_fn, args, pack)


@builtin
def num_ctas(_semantic=None):
    """Number of CTAs of a program (the ``num_ctas`` launch option: a cluster; a constexpr)."""
    return constexpr(_semantic.num_ctas)


@builtin
def num_warps(_semantic=None):
    """Number of warps of the kernel (a constexpr)."""
    return constexpr(_semantic.num_warps)


class static_range:
    """``for i in kl.static_range(...)``: unrolled at compile time; bounds must be constexpr."""

    def __init__(self, arg1, arg2=None, step=None):
        self.args = (arg1, arg2, step)

    def __iter__(self):
        raise RuntimeError("kl.static_range can only be iterated inside a @kiln.jit function")


class range:
    """``for i in kl.range(...)``: a runtime loop (``scf.for``). ``num_stages`` requests
    software pipelining."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        self.args = (arg1, arg2, step)
        self.num_stages = num_stages

    def __iter__(self):
        raise RuntimeError("kl.range can only be iterated inside a @kiln.jit function")
