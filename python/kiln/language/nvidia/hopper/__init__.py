"""Hopper (sm_90a) builtins, as in Gluon's ``nvidia.hopper``.

* ``mbarrier`` (a submodule): shared-memory barriers (``MBarrierLayout``, ``init``,
  ``expect``, ``arrive``, ``wait``, ``invalidate``);
* ``tma`` (a submodule): bulk copies through tensor descriptors
  (``async_copy_global_to_shared``, ``async_copy_shared_to_global``, ``store_wait``);
* ``bulk`` (a submodule): ``async_load``, a copy of contiguous bytes into shared memory
  completing on an mbarrier (no tensor descriptor);
* ``fence_async_shared``: orders this thread's shared-memory writes before TMA stores and
  wgmma reads (the async proxy);
* ``async_store``: a tensor stored into shared memory by ``st.async``, its bytes counted on an
  mbarrier (a cluster of two CTAs or more);
* ``warpgroup_mma`` / ``warpgroup_mma_wait`` / ``warpgroup_mma_init``: wgmma on a
  shared-memory B and a shared-memory or register A (``DotOperandLayout(0, ...)``),
  accumulating in registers laid out by ``NVMMADistributedLayout(version=[3, 0], ...)``.
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .._layouts import DotOperandLayout
from . import bulk, cluster, mbarrier, tma
from .._mbarrier_word import check_barrier as _check_barrier
from ..ampere import async_copy, mma_v2  # noqa: F401  (Gluon's hopper re-exports them)
from .._cache_policy import CachePolicy, FractionalEvictionPolicy  # noqa: F401  (the same)

__all__ = ["CachePolicy", "FractionalEvictionPolicy", "async_copy", "async_store", "bulk", "cluster", "mbarrier", "mma_v2", "tma",
           "fence_async_shared", "warpgroup_mma",
           "warpgroup_mma_wait", "warpgroup_mma_init", "warpgroup_mma_accumulator",
           "warpgroup_mma_accumulator_type"]


@builtin
def fence_async_shared(cluster=False, _semantic=None):
    """``fence.proxy.async``: this thread's earlier shared-memory writes become visible to
    later TMA stores and wgmma reads."""
    cluster = _unwrap(cluster)
    if not isinstance(cluster, bool):
        raise TypeError(f"fence_async_shared: cluster must be a constexpr bool, got "
                        f"{cluster!r}")
    _semantic.b.create("tile_nv.fence_async_shared", [], [],
                       {"cluster": "true" if cluster else "false"})


@builtin
def async_store(dst, value, mbarrier, _semantic=None):
    """Store the tensor ``value`` into the shared buffer ``dst`` asynchronously (PTX
    ``st.async``), each store's bytes counted on ``mbarrier``'s current phase (arm it with
    ``mbarrier.expect(bar, dst.nbytes_per_cta)``; the data is there for the threads whose
    wait on that phase returns). Gluon's name after Triton 3.6; it needs a cluster of at
    least two CTAs (``num_ctas``). Each CTA stores its part into its own buffer: the tensor's
    and the buffer's ``cga_layout`` must split them alike (Gluon also routes elements to
    another CTA's buffer where they differ; Kiln refuses that)."""
    sem = _semantic
    what = "hopper.async_store"
    if not isinstance(dst, core.shared_memory_descriptor):
        raise TypeError(f"{what}: dst must be a shared memory descriptor, got {dst!r}")
    value = _unwrap(value)
    if not isinstance(value, tensor) or not value.type.is_block:
        raise TypeError(f"{what}: value must be a tensor, got {value!r}")
    bar = _check_barrier(mbarrier, what)
    if list(value.type.shape) != list(dst.type.shape) or value.dtype != dst.dtype:
        raise ValueError(f"{what}: value is {list(value.type.shape)} x {value.dtype}, dst "
                         f"{list(dst.type.shape)} x {dst.dtype}")
    if sem.num_ctas < 2:
        raise ValueError(f"{what}: st.async needs a cluster of at least two CTAs (launch with "
                         f"num_ctas >= 2), this kernel has num_ctas={sem.num_ctas}")
    sem.check_same_cta_part(value.type.layout, value.type.shape, dst.type, what)
    sem.b.create("tile_nv.async_shared_store", [value, dst, bar], [])


class warpgroup_mma_accumulator_type:
    """The type of an accumulator an asynchronous ``warpgroup_mma`` may still be writing: the
    tensor type it has once ``warpgroup_mma_wait`` returns it."""

    def __init__(self, tensor_type):
        self.tensor_type = tensor_type

    def __eq__(self, other):
        return isinstance(other, warpgroup_mma_accumulator_type) and \
            other.tensor_type == self.tensor_type

    def __hash__(self):
        return hash(("wgmma_acc", self.tensor_type))

    def __str__(self):
        return f"warpgroup_mma_accumulator<{self.tensor_type}>"

    __repr__ = __str__


class warpgroup_mma_accumulator:
    """An accumulator an asynchronous ``warpgroup_mma`` may still be writing (Gluon's
    ``warpgroup_mma_accumulator``): the ``acc`` of the next ``warpgroup_mma`` takes it, and
    ``warpgroup_mma_wait`` turns it back into a tensor. It is not a tensor itself, so reading
    it before the wait is a type error at the line that tries."""

    def __init__(self, handle: str, tensor_type):
        self.handle = handle
        self.type = warpgroup_mma_accumulator_type(tensor_type)

    def _kiln_parts(self):
        ty = self.type.tensor_type
        return ((warpgroup_mma_accumulator, ty), [tensor(self.handle, ty)],
                lambda parts: warpgroup_mma_accumulator(parts[0].handle, ty))

    def _kiln_adopt(self, other):
        """A tensor of the accumulator's type merged with it (an if, a loop) becomes one, as
        if passed through ``warpgroup_mma_init``."""
        return warpgroup_mma_accumulator._kiln_adopt_kind((None, self.type.tensor_type), other)

    @staticmethod
    def _kiln_adopt_kind(kind, other):
        if isinstance(other, tensor) and other.type == kind[1]:
            return warpgroup_mma_accumulator(other.handle, other.type)
        return None

    def _tensor(self):
        return tensor(self.handle, self.type.tensor_type)

    def _not_a_tensor(self, *args, **kwargs):
        raise TypeError("a warpgroup_mma_accumulator is not a tensor: an asynchronous "
                        "warpgroup_mma may still be writing it; read the tensor that "
                        "warpgroup_mma_wait returns for it")

    __neg__ = __pos__ = __invert__ = __abs__ = __getitem__ = _not_a_tensor
    __lt__ = __le__ = __gt__ = __ge__ = _not_a_tensor

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        self._not_a_tensor()

    def __repr__(self):
        return f"<{self.type}>"


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
            "lshift", "rshift", "matmul"):
    setattr(warpgroup_mma_accumulator, f"__{_op}__", warpgroup_mma_accumulator._not_a_tensor)
    setattr(warpgroup_mma_accumulator, f"__r{_op}__", warpgroup_mma_accumulator._not_a_tensor)
del _op


@builtin
def warpgroup_mma_init(value, _semantic=None):
    """The initial accumulator of a chain of asynchronous ``warpgroup_mma`` (Gluon's)."""
    if isinstance(value, warpgroup_mma_accumulator):
        return value
    if not isinstance(value, tensor) or not value.type.is_block:
        raise TypeError(f"warpgroup_mma_init: value must be a tensor, got {value!r}")
    return warpgroup_mma_accumulator(value.handle, value.type)


@builtin
def warpgroup_mma(a, b, acc, *, use_acc=True, precision=None, max_num_imprecise_acc=None,
                  is_async=False, cols=None, _semantic=None):
    """``acc + a @ b`` by wgmma: ``b`` (K x N) is a shared buffer in ``NVMMASharedLayout`` with
    K contiguous (an [N, K] buffer ``.permute((1, 0))``); ``a`` (M x K) is one too, or a bf16 /
    fp16 tensor in registers in ``DotOperandLayout(0, acc's layout, k_width=2)``; ``acc`` is an
    fp32 tensor in ``NVMMADistributedLayout(version=[3, 0], ...)``. ``use_acc`` False (a
    constexpr or a runtime bool) ignores ``acc``. With ``is_async`` the result may only be
    read after a ``warpgroup_mma_wait`` that covers it.

    ``cols`` (a Kiln extension; a constexpr multiple of 8 up to N) computes only the first
    ``cols`` columns of the result, by instructions of that N (wgmma's N is any multiple of 8
    up to 256): the other columns of the result are zero, and ``b``'s past ``cols`` are not
    read. A tile whose width is not a power of two (152 columns, say, to fit a matrix's
    columns in whole waves of tiles) lives in a power-of-two accumulator this way (the zeros
    are constants, which take no registers); every warpgroup must hold all of the
    accumulator's columns (warps along M)."""
    what = "warpgroup_mma"
    if isinstance(acc, warpgroup_mma_accumulator):
        acc = acc._tensor()
    if not isinstance(b, core.shared_memory_descriptor):
        raise TypeError(f"{what}: b must be a shared memory descriptor, got {b!r}")
    if not isinstance(acc, tensor) or not acc.type.is_block:
        raise TypeError(f"{what}: acc must be a tensor, got {acc!r}")
    if isinstance(a, tensor) and a.type.is_block:
        lay = a.type.layout
        kw = 4 if a.dtype.primitive_bitwidth == 8 else 2  # a register's worth of K
        if not isinstance(lay, DotOperandLayout) or lay.operand_index != 0 or \
                lay.parent != acc.type.layout:
            raise TypeError(f"{what}: a in registers must be in DotOperandLayout(0, acc's "
                            f"layout, k_width={kw}), got {lay!r}")
        if a.dtype not in (core.bfloat16, core.float16, core.float8e4nv, core.float8e5) or \
                a.dtype != b.dtype:
            raise TypeError(f"{what}: a in registers must be bfloat16, float16, float8e4nv or "
                            f"float8e5 like b, got {a.dtype} and {b.dtype}")
        if lay.k_width != kw:
            raise TypeError(f"{what}: a in registers must be in DotOperandLayout(0, acc's "
                            f"layout, k_width={kw}), got {lay!r}")
    elif not isinstance(a, core.shared_memory_descriptor):
        raise TypeError(f"{what}: a must be a shared memory descriptor or a tensor in "
                        f"DotOperandLayout(0, acc's layout, k_width=2), got {a!r}")
    if _unwrap(precision) not in (None, "ieee", "tf32"):
        raise ValueError(f"{what}: precision {precision!r} is not supported")
    imprecise = _unwrap(max_num_imprecise_acc)
    cols = _unwrap(cols)
    n = int(_unwrap(acc.type.shape[1]))
    if cols is not None and (isinstance(cols, bool) or not isinstance(cols, int) or cols < 8
                             or cols % 8 or cols > n):
        raise ValueError(f"{what}: cols must be a constexpr multiple of 8 from 8 to the "
                         f"accumulator's {n} columns, got {cols!r}")
    if cols is not None and imprecise is not None and b.dtype.is_fp8():
        raise ValueError(f"{what}: cols with max_num_imprecise_acc is not supported")
    if imprecise is not None and b.dtype.is_fp8():
        # Triton promotes fp8 sums to fp32 every max_num_imprecise_acc products of K (other
        # types ignore the option).
        k = int(_unwrap(b.shape[0]))
        if isinstance(imprecise, bool) or not isinstance(imprecise, int) or imprecise < 1:
            raise ValueError(f"{what}: max_num_imprecise_acc must be a positive int, got "
                             f"{imprecise!r}")
        # Given at all, it promotes (a value of at least K once, at the end: the incoming
        # accumulator is added in fp32, not fed to the hardware's sum); None leaves the whole
        # sum to the hardware.
        return _promoted_fp8_mma(a, b, acc, use_acc, imprecise, k, is_async, _semantic)
    operands = [a, b, acc]
    use_acc = _unwrap(use_acc)
    if use_acc is not True:
        flag = _semantic.cast(_semantic.as_tensor(use_acc), core.int1)
        if flag.type.is_block:
            raise TypeError(f"{what}: use_acc must be a scalar, got {flag.type}")
        operands.append(flag)
    attrs = {"isAsync": "unit"} if _unwrap(is_async) else {}
    if cols is not None and cols < n:
        attrs["cols"] = f"{cols} : i32"
    handle = _semantic.b.create("tile_nv.warpgroup_dot", operands, [acc.type], attrs)[0]
    if _unwrap(is_async):
        return warpgroup_mma_accumulator(handle, acc.type)
    return tensor(handle, acc.type)


def _promoted_fp8_mma(a, b, acc, use_acc, imprecise, k, is_async, sem):
    """fp8 ``acc + a @ b`` with the sums promoted to fp32 as Triton does: wgmma instructions
    step K by 32, and once ``imprecise`` products have been summed in the hardware's precision
    the partial sum is added to the fp32 accumulator -- chunks of ceil(imprecise / 32) * 32
    along K, each one wgmma from zero, waited for and added to acc in order. The call is
    synchronous (each add needs its chunk), as Triton's promotion waits too."""
    chunk = -(-imprecise // 32) * 32
    if k % 32:
        raise ValueError(f"warpgroup_mma: fp8 operands need K a multiple of 32, got K={k}")
    use = _unwrap(use_acc)
    if use is True:
        total = acc
    elif use is False:
        total = None
    else:  # a runtime flag: the chunks add to acc or to zero
        flag = sem.cast(sem.as_tensor(use), core.int1)
        total = sem.where(flag, acc, sem.as_tensor(0.0, acc.dtype))
    in_registers = not isinstance(a, core.shared_memory_descriptor)
    if in_registers and chunk < k:
        raise ValueError(
            f"warpgroup_mma: max_num_imprecise_acc={imprecise} below K={k} with a in registers "
            f"(Kiln splits K by slicing shared buffers only); pass a value of at least K, or a "
            f"in shared memory")
    for k0 in range(0, k, chunk):  # in order, as Triton adds its partial sums
        width = min(chunk, k - k0)
        whole = width == k
        a_c = a if whole else a.slice(k0, width, dim=1, _semantic=sem)
        b_c = b if whole else b.slice(k0, width, dim=0, _semantic=sem)
        part = warpgroup_mma(a_c, b_c, acc, use_acc=False, is_async=True, _semantic=sem)
        part = warpgroup_mma_wait(0, [part], _semantic=sem)
        total = part if total is None else sem.binary("add", total, part)
    if _unwrap(is_async):
        return warpgroup_mma_accumulator(total.handle, total.type)
    return total


@builtin
def warpgroup_mma_wait(num_outstanding=0, deps=None, _semantic=None):
    """Waits until at most ``num_outstanding`` of this warpgroup's ``warpgroup_mma`` are
    unfinished; returns ``deps`` (one value alone, several as a tuple), now safe to read."""
    n = _unwrap(num_outstanding)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TypeError(f"warpgroup_mma_wait: num_outstanding must be a constexpr int >= 0, "
                        f"got {n!r}")
    if deps is None:
        raise ValueError("warpgroup_mma_wait: deps must be given (the accumulators to wait "
                         "for), as in Gluon")
    deps = [d._tensor() if isinstance(d, warpgroup_mma_accumulator) else d
            for d in _unwrap(deps)]
    # Accumulators (fp32 / int32 / fp16 tensors) pass through the wait, and come back as
    # tensors; other deps (buffers, other tensors) come back as they are.
    def tied(d):
        return isinstance(d, tensor) and d.type.is_block and \
            d.type.element_ty in (core.float32, core.int32, core.float16)
    tensors = [d for d in deps if tied(d)]
    outs = _semantic.b.create("tile_nv.warpgroup_dot_wait", tensors,
                              [t.type for t in tensors], {"pendings": f"{n} : i32"})
    it = iter(tensor(h, t.type) for h, t in zip(outs, tensors))
    result = [next(it) if tied(d) else d for d in deps]
    return result[0] if len(result) == 1 else tuple(result)
