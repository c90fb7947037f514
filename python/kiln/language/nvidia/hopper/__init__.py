"""Hopper (sm_90a) builtins, as in Gluon's ``nvidia.hopper``.

* ``mbarrier`` (a submodule): shared-memory barriers (``MBarrierLayout``, ``init``,
  ``expect``, ``arrive``, ``wait``, ``invalidate``);
* ``tma`` (a submodule): bulk copies through tensor descriptors
  (``async_copy_global_to_shared``, ``async_copy_shared_to_global``, ``store_wait``);
* ``fence_async_shared``: orders this thread's shared-memory writes before TMA stores and
  wgmma reads (the async proxy);
* ``warpgroup_mma`` / ``warpgroup_mma_wait`` / ``warpgroup_mma_init``: wgmma on a
  shared-memory B and a shared-memory or register A (``DotOperandLayout(0, ...)``),
  accumulating in registers laid out by ``NVMMADistributedLayout(version=[3, 0], ...)``.
"""

from __future__ import annotations

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .._layouts import DotOperandLayout
from . import mbarrier, tma

__all__ = ["mbarrier", "tma", "fence_async_shared", "warpgroup_mma", "warpgroup_mma_wait",
           "warpgroup_mma_init"]


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
def warpgroup_mma_init(value, _semantic=None):
    """The initial accumulator of a chain of ``warpgroup_mma`` (the value itself)."""
    return value


@builtin
def warpgroup_mma(a, b, acc, *, use_acc=True, precision=None, max_num_imprecise_acc=None,
                  is_async=False, _semantic=None):
    """``acc + a @ b`` by wgmma: ``b`` (K x N) is a shared buffer in ``NVMMASharedLayout`` with
    K contiguous (an [N, K] buffer ``.permute((1, 0))``); ``a`` (M x K) is one too, or a bf16 /
    fp16 tensor in registers in ``DotOperandLayout(0, acc's layout, k_width=2)``; ``acc`` is an
    fp32 tensor in ``NVMMADistributedLayout(version=[3, 0], ...)``. ``use_acc`` False (a
    constexpr or a runtime bool) ignores ``acc``. With ``is_async`` the result may only be
    read after a ``warpgroup_mma_wait`` that covers it."""
    what = "warpgroup_mma"
    if not isinstance(b, core.shared_memory_descriptor):
        raise TypeError(f"{what}: b must be a shared memory descriptor, got {b!r}")
    if not isinstance(acc, tensor) or not acc.type.is_block:
        raise TypeError(f"{what}: acc must be a tensor, got {acc!r}")
    if isinstance(a, tensor) and a.type.is_block:
        lay = a.type.layout
        if not isinstance(lay, DotOperandLayout) or lay.operand_index != 0 or \
                lay.parent != acc.type.layout or lay.k_width != 2:
            raise TypeError(f"{what}: a in registers must be in DotOperandLayout(0, acc's "
                            f"layout, k_width=2), got {lay!r}")
        if a.dtype not in (core.bfloat16, core.float16) or a.dtype != b.dtype:
            raise TypeError(f"{what}: a in registers must be bfloat16 or float16 like b, got "
                            f"{a.dtype} and {b.dtype}")
    elif not isinstance(a, core.shared_memory_descriptor):
        raise TypeError(f"{what}: a must be a shared memory descriptor or a tensor in "
                        f"DotOperandLayout(0, acc's layout, k_width=2), got {a!r}")
    if _unwrap(precision) not in (None, "ieee", "tf32"):
        raise ValueError(f"{what}: precision {precision!r} is not supported")
    if _unwrap(max_num_imprecise_acc) is not None:
        raise ValueError(f"{what}: max_num_imprecise_acc applies to fp8 operands, which are "
                         f"not supported yet")
    operands = [a, b, acc]
    use_acc = _unwrap(use_acc)
    if use_acc is not True:
        flag = _semantic.cast(_semantic.as_tensor(use_acc), core.int1)
        if flag.type.is_block:
            raise TypeError(f"{what}: use_acc must be a scalar, got {flag.type}")
        operands.append(flag)
    attrs = {"isAsync": "unit"} if _unwrap(is_async) else {}
    handle = _semantic.b.create("tile_nv.warpgroup_dot", operands, [acc.type], attrs)[0]
    return tensor(handle, acc.type)


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
    deps = list(_unwrap(deps))
    # Accumulators (fp32 / int32 tensors) pass through the wait; other deps (buffers, other
    # tensors) come back as they are.
    def tied(d):
        return isinstance(d, tensor) and d.type.is_block and \
            d.type.element_ty in (core.float32, core.int32)
    tensors = [d for d in deps if tied(d)]
    outs = _semantic.b.create("tile_nv.warpgroup_dot_wait", tensors,
                              [t.type for t in tensors], {"pendings": f"{n} : i32"})
    it = iter(tensor(h, t.type) for h, t in zip(outs, tensors))
    result = [next(it) if tied(d) else d for d in deps]
    return result[0] if len(result) == 1 else tuple(result)
