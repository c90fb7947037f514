"""The methods of Gluon's ``tensor`` (Triton's ``tl.tensor``) that are functions of the language
with the tensor first: ``x.exp()``, ``x.permute(1, 0)``, ``p.atomic_add(v)``, ``x.cumsum(0)``...
Most are kiln.language's own functions, attached as methods; the few Triton writes in Python
(``sigmoid``, ``softmax``, ``cumsum``, ``cumprod``, ``trans``, ``logical_and``/``or``, ``argmax``,
``argmin``, ``flip``, ``sort``, ``item``) are here, with Triton's arguments and results. ``x.T``
is the code generator's (a property cannot reach the kernel being built); the property here
only says so when read outside a kernel."""

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
    for name, fn in (("argmax", argmax), ("argmin", argmin), ("flip", flip), ("item", item),
                     ("sort", sort), ("advance", _advance), ("_flatten_ir", _flatten_ir)):
        setattr(tensor, name, fn)
    tensor.T = property(_transpose_outside_kernel,
                        doc="The transpose of a 2-D tensor (Triton's ``x.T``).")


# -- argmax/argmin, flip, sort, item ------------------------------------------------------------

@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    """Index (int32) of the maximum along ``axis``; of tied maxima, the smallest (Triton's
    ``argmax``; Kiln breaks ties to the left whatever ``tie_break_left``)."""
    from ._standard import max
    return max(input, axis, True, tie_break_left, keep_dims, _semantic=_semantic)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    """Index (int32) of the minimum along ``axis``; of tied minima, the smallest (Triton's
    ``argmin``)."""
    from ._standard import min
    return min(input, axis, True, tie_break_left, keep_dims, _semantic=_semantic)[1]


def _block(sem, x, what):
    x = sem.as_tensor(_unwrap(x))
    if not x.type.is_block:
        raise TypeError(f"{what} needs a tensor, got a scalar")
    return x


def _as_int_bits(sem, x):
    """``x`` as the signed integer of its width (bits unchanged) and the way back."""
    from ._core import int8, int16, int32, int64
    dt = x.dtype
    if dt.is_int():
        return x, lambda y: y
    if dt.is_ptr():
        raise TypeError("this reordering of pointer tensors is not supported; reorder the "
                        "offsets instead")
    it = {8: int8, 16: int16, 32: int32, 64: int64}[dt.primitive_bitwidth]
    return sem.cast(x, it, bitcast=True), lambda y: sem.cast(y, dt, bitcast=True)


def _xor_partner(sem, y, axis):
    """Each element of ``y`` swapped with its partner along the size-2 ``axis``."""
    pair = sem.reduce(y, axis, lambda a, b: sem.binary("xor", a, b), True)
    return sem.binary("xor", y, pair)


def _back(sem, y, x):
    """``y`` reshaped to ``x``'s shape, in ``x``'s layout (a relabelling: the reshapes here
    keep every element in its register)."""
    from ._layouts import is_inferred
    out = sem.reshape(y, list(x.type.shape))
    if not is_inferred(x.type.layout) and out.type.layout != x.type.layout:
        out = sem.convert_layout(out, x.type.layout)
    return out


def _log2(n):
    return n.bit_length() - 1


@builtin
def flip(x, dim=None, _semantic=None):
    """``x`` reversed along ``dim`` (the last by default), as Triton's ``flip``: the dimension
    is seen as a hypercube of 2s and each pair swapped (warp shuffles where a pair spans
    lanes)."""
    sem = _semantic
    x = _block(sem, x, "flip")
    shape = list(x.type.shape)
    rank = len(shape)
    dim = sem.require_constexpr(dim, "flip dim")
    dim = rank - 1 if dim is None else dim
    if not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"flip dim {dim!r} is out of range for rank {rank}")
    dim %= rank
    steps = _log2(shape[dim])
    if steps == 0:
        return x
    y, restore = _as_int_bits(sem, x)
    y = sem.reshape(y, shape[:dim] + [2] * steps + shape[dim + 1:])
    for i in range(steps):
        y = _xor_partner(sem, y, dim + i)
    return restore(_back(sem, y, x))


@builtin
def sort(x, dim=None, descending=False, _semantic=None):
    """``x`` sorted along its last dimension (Triton's ``sort``: a bitonic network over the
    tensor seen as a hypercube of 2s; ``dim`` must be the last one)."""
    from ._shape_ops import _position
    sem = _semantic
    x = _block(sem, x, "sort")
    shape = list(x.type.shape)
    rank = len(shape)
    dim = sem.require_constexpr(dim, "sort dim")
    descending = int(bool(sem.require_constexpr(descending, "descending")))
    if dim is not None and dim % rank != rank - 1:
        raise ValueError(f"sort along dimension {dim} of a rank-{rank} tensor: only the last "
                         f"dimension is supported (as in Triton)")
    if x.dtype.is_ptr():
        raise TypeError("sort of pointers is not supported")
    log_n, n_dims = _log2(shape[-1]), _log2(x.type.numel)
    if log_n == 0:
        return x
    h = sem.reshape(x, [2] * n_dims)
    cube = [2] * n_dims

    def indicator(j):  # 0/1: the position along hypercube axis n_dims-1-j
        return _position(sem, h.type.layout, cube, n_dims - 1 - j)

    def compare_and_swap(h, flip, i):
        bits, restore = _as_int_bits(sem, h)
        other = restore(_xor_partner(sem, bits, n_dims - 1 - i))
        right = indicator(i)
        want = sem.binary("xor", right, flip)  # 1 where the smaller goes right
        greater = sem.cast(sem.compare("gt", h, other), want.dtype)
        return sem.where(sem.compare("ne", greater, want), other, h)

    for stage in range(1, log_n + 1):
        flip_ = indicator(stage) if stage < log_n else descending
        for i in range(stage):
            h = compare_and_swap(h, flip_, stage - 1 - i)
    return _back(sem, h, x)


@builtin
def item(input, _semantic=None):
    """The one element of a 1-element tensor, as a scalar (Triton's ``item``); a scalar is
    returned as it is."""
    sem = _semantic
    x = sem.as_tensor(_unwrap(input))
    if not x.type.is_block:
        return x
    if x.type.numel != 1:
        raise ValueError(f"item() needs a tensor of one element, got shape "
                         f"{list(x.type.shape)}")
    if len(x.type.shape) > 1:
        x = sem.reshape(x, [1])
    return sem.reduce(x, 0, lambda a, b: a)


@builtin
def _advance(self, offsets, _semantic=None):
    raise TypeError("advance() moves a block pointer (tl.make_block_ptr), and Kiln has no "
                    "block pointers: add the offsets to a tensor of pointers, or copy tiles "
                    "with a tensor descriptor")


_advance.__name__ = _advance.__qualname__ = "advance"


@builtin
def _flatten_ir(self, handles, _semantic=None):
    raise NotImplementedError("tensor._flatten_ir is Triton's internal hook between its Python "
                              "values and its C++ IR builder; Kiln builds its IR differently, "
                              "so it has no _flatten_ir: pass the tensor itself")


def _transpose_outside_kernel(self):
    raise TypeError("x.T transposes a 2-D tensor inside a @kiln.jit kernel (the code generator "
                    "builds it); outside one, a tensor has no transpose")
