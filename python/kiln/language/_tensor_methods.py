"""The methods of Gluon's ``tensor`` (Triton's ``tl.tensor``) that are functions of the language
with the tensor first: ``x.exp()``, ``x.permute(1, 0)``, ``p.atomic_add(v)``, ``x.cumsum(0)``...
Most are kiln.language's own functions, attached as methods; the few Triton writes in Python
(``sigmoid``, ``softmax``, ``cumsum``, ``cumprod``, ``trans``, ``logical_and``/``or``) are here,
with Triton's arguments and results. ``x.T`` is the code generator's (a property cannot reach
the kernel being built)."""

from __future__ import annotations

from ._constexpr import _unwrap
from ._core import builtin, tensor

# tl.tensor's methods that are the function of the same name with the tensor first.
_SAME_AS_FUNCTION = (
    "permute", "split", "cast", "store", "ravel", "reduce", "associative_scan", "gather",
    "histogram", "cdiv", "xor_sum", "reduce_or",
    "atomic_cas", "atomic_xchg", "atomic_add", "atomic_max", "atomic_min", "atomic_and",
    "atomic_or", "atomic_xor",
    "exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt", "abs", "floor",
    "ceil", "erf",
)


@builtin
def trans(input, *dims, _semantic=None):
    """``input`` with its dimensions permuted by ``dims``; a 2-D tensor transposed when none
    are given (Triton's ``trans``)."""
    from ._shape_ops import permute
    dims = tuple(_unwrap(d) for d in dims)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    if not dims:
        rank = len(input.type.shape) if input.type.is_block else 0
        if rank != 2:
            raise ValueError(f"trans() without dims transposes a 2-D tensor; this one has "
                             f"rank {rank}: give the permutation")
        dims = (1, 0)
    return permute(input, dims, _semantic=_semantic)


@builtin
def sigmoid(x, _semantic=None):
    """``1 / (1 + exp(-x))`` elementwise (Triton's ``sigmoid``)."""
    from ._math import exp
    sem = _semantic
    e = exp(sem.unary("neg", sem.as_tensor(x)), _semantic=sem)
    return sem.binary("truediv", 1.0, sem.binary("add", 1.0, e))


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False, _semantic=None):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (default 0), Triton's ``softmax``."""
    from ._math import exp, fdiv
    sem = _semantic
    x = sem.as_tensor(x)
    axis = 0 if _unwrap(dim) is None else _unwrap(dim)
    z = sem.binary("sub", x, sem.reduce_builtin("max", x, axis, True))
    num = exp(z, _semantic=sem)
    den = sem.reduce_builtin("sum", num, axis, _unwrap(keep_dims))
    if not _unwrap(keep_dims):
        from ._core import expand_dims
        den = expand_dims(den, axis, _semantic=sem)
    return fdiv(num, den, _unwrap(ieee_rounding), _semantic=sem)


def _scan_with(sem, x, axis, reverse, op, dtype):
    from ._core import int32, uint32
    from ._scan import scan
    x = sem.as_tensor(x)
    dtype = _unwrap(dtype)
    if dtype is not None:
        x = sem.cast(x, dtype)
    elif x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:  # as Triton's cumsum/cumprod
        x = sem.cast(x, uint32 if x.dtype.is_int_unsigned() else int32)
    combine = _Combine(lambda a, b: sem.binary(op, a, b))
    return scan(sem, x, sem.require_constexpr(axis, "scan axis"), combine,
                bool(sem.require_constexpr(reverse, "reverse")))


class _Combine:
    """A combine function the language builds itself (not a user's @kiln.jit function)."""

    __kiln_combine__ = True

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, a, b):
        return self.fn(a, b)


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None, _semantic=None):
    """Inclusive prefix sum along ``axis`` (Triton's ``cumsum``; integers narrower than 32 bits
    are summed in 32)."""
    return _scan_with(_semantic, input, axis, reverse, "add", dtype)


@builtin
def cumprod(input, axis=0, reverse=False, dtype=None, _semantic=None):
    """Inclusive prefix product along ``axis`` (Triton's ``cumprod``)."""
    return _scan_with(_semantic, input, axis, reverse, "mul", dtype)


@builtin
def _logical_and(self, other, _semantic=None):
    return _semantic.logical("and", self, other)


@builtin
def _logical_or(self, other, _semantic=None):
    return _semantic.logical("or", self, other)


@builtin
def _view(self, *shape, _semantic=None):
    from ._core import reshape
    return reshape(self, *shape, can_reorder=True, _semantic=_semantic)


def install(namespace: dict) -> None:
    """Attach the methods (called once kiln.language's functions all exist)."""
    for name in _SAME_AS_FUNCTION:
        setattr(tensor, name, namespace[name])
    for name, fn in (("trans", trans), ("sigmoid", sigmoid), ("softmax", softmax),
                     ("cumsum", cumsum), ("cumprod", cumprod), ("logical_and", _logical_and),
                     ("logical_or", _logical_or), ("view", _view)):
        setattr(tensor, name, fn)
    _install_type_predicates(namespace["dtype"], namespace["pointer_type"])


# -- dtype and pointer_type predicates of Triton's dtype (answered from the type's name, as
# Triton does: a pointer to fp8 answers is_fp8() True, every other is_<name>() False) --------

_SCALAR_NAMES = ("fp8e4nv", "fp8e4b8", "fp8e4b15", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                 "fp64", "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64")
_STANDARD_FLOATING = ("fp16", "bf16", "fp32", "fp64")


def _install_type_predicates(dtype, pointer_type):
    for n in _SCALAR_NAMES:
        if not hasattr(dtype, "is_" + n):
            setattr(dtype, "is_" + n, lambda self, n=n: self.name == n)
        if not hasattr(pointer_type, "is_" + n):
            setattr(pointer_type, "is_" + n, lambda self: False)
    dtype.is_fp8 = lambda self: "fp8" in self.name
    pointer_type.is_fp8 = lambda self: "fp8" in self.element_ty.name
    dtype.is_standard_floating = lambda self: self.name in _STANDARD_FLOATING
    pointer_type.is_standard_floating = lambda self: False
    for cls in (dtype, pointer_type):
        cls.is_void = lambda self: self.name == "void"
        cls.is_const = lambda self: False
        cls.is_dtype = staticmethod(lambda type_str: type_str in _SCALAR_NAMES)
        cls.cache_key_part = lambda self: self.name
    dtype.with_element_ty = lambda self, element_ty: element_ty
    pointer_type.with_element_ty = lambda self, element_ty: pointer_type(element_ty,
                                                                         self.address_space)
    dtype.codegen_name = lambda self: ("float" + self.name[2:] if self.name.startswith("fp")
                                       else "bfloat" + self.name[2:] if self.name == "bf16"
                                       else self.name)

    def int_max(self):
        if not self.is_int():
            raise TypeError(f"{self.name} is not an integer type")
        bits = self.primitive_bitwidth
        return 2**(bits - 1) - 1 if self.is_int_signed() else 2**bits - 1

    def int_min(self):
        if not self.is_int():
            raise TypeError(f"{self.name} is not an integer type")
        return -2**(self.primitive_bitwidth - 1) if self.is_int_signed() else 0
    dtype.get_int_max_value = int_max
    dtype.get_int_min_value = int_min
