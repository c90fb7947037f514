"""Ampere (sm_80+) builtins, as in Gluon's ``nvidia.ampere``.

* :mod:`.async_copy`: ``cp.async`` global -> shared copies with commit/wait groups
  (``async_copy_global_to_shared``, ``commit_group``, ``wait_group``).
* ``mma_v2``: the ``mma.sync`` tensor-core multiply (m16n8k16; m16n8k8 for tf32, m16n8k32
  for int8) with both operands in
  registers, in ``DotOperandLayout`` s of an ``NVMMADistributedLayout(version=[2, 0], ...)``
  accumulator.
* ``CachePolicy`` / ``FractionalEvictionPolicy``: cache policies of loads, stores and copies
  (Gluon's, after Triton 3.8).
"""

from ..._core import _unwrap, builtin, tensor
from ... import _core as core
from .._layouts import NVMMADistributedLayout
from . import async_copy  # noqa: F401
from .._cache_policy import CachePolicy, FractionalEvictionPolicy  # noqa: F401

__all__ = ["CachePolicy", "FractionalEvictionPolicy", "async_copy", "mbarrier", "mma_v2"]


def __getattr__(name):
    # ampere.mbarrier re-exports hopper's builtins; imported on first use, so that importing
    # ampere does not import hopper (which imports ampere).
    if name == "mbarrier":
        import importlib
        return importlib.import_module(__name__ + ".mbarrier")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@builtin
def mma_v2(a, b, acc, input_precision=None, _semantic=None):
    """``acc + a @ b`` by ``mma.sync``: ``a`` (M x K) and ``b`` (K x N), bf16, fp16, fp32
    (read as tf32) or int8 tensors in ``DotOperandLayout(0, acc_layout, k_width)`` and
    ``DotOperandLayout(1, acc_layout, k_width)`` (the same k_width: it orders K inside each
    instruction), ``acc`` an fp32 tensor (fp16 with fp16 operands, int32 with int8 ones: the
    sums saturate at int32's range) in ``acc_layout = NVMMADistributedLayout(version=[2, 0],
    ...)``. M must be a multiple of 16, N of 8, K of 16 (8 for tf32, 32 for int8)."""
    what = "mma_v2"
    _semantic.check_matrix_operands(
        what, a, b, acc,
        lambda lay: isinstance(lay, NVMMADistributedLayout) and lay.version[0] == 2,
        "NVMMADistributedLayout(version=[2, 0], ...)",
        " (it orders K inside each instruction)")
    if a.dtype != b.dtype or a.dtype not in (core.bfloat16, core.float16, core.float32,
                                             core.int8):
        raise TypeError(f"{what}: a and b must both be bfloat16, float16, float32 (read as "
                        f"tf32) or int8, got {a.dtype} and {b.dtype}")
    if a.dtype == core.int8:
        if acc.dtype != core.int32:
            raise TypeError(f"{what}: acc must be int32 with int8 operands, got {acc.dtype}")
    elif not (acc.dtype == core.float32 or (acc.dtype == core.float16 and
                                            a.dtype == core.float16)):
        raise TypeError(f"{what}: acc must be float32 (or float16 with float16 operands), got "
                        f"{acc.dtype}")
    if _unwrap(input_precision) not in (None, "ieee", "tf32"):
        raise ValueError(f"{what}: input_precision {input_precision!r} is not supported")
    handle = _semantic.b.create("tile_nv.mma_v2", [a, b, acc], [acc.type], {})[0]
    return tensor(handle, acc.type)
