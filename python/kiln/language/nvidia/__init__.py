"""NVIDIA-only builtins, by architecture, under Gluon's module names
(``triton.experimental.gluon.language.nvidia``):

* :mod:`kiln.language.nvidia.ampere` (sm_80 and later): ``async_copy``, ``mma_v2``;
* :mod:`kiln.language.nvidia.hopper` (sm_90a): ``mbarrier``, ``tma``, ``fence_async_shared``,
  ``warpgroup_mma``;
* :mod:`kiln.language.nvidia.named_barrier` (every NVIDIA GPU; Kiln's, not Gluon's):
  ``sync`` and ``arrive`` of a barrier of some of the CTA's warps;
* :mod:`kiln.language.nvidia.blackwell`: only the tensor-memory layout classes, so that a
  kernel with a Hopper and a Blackwell path compiles its Hopper path.

Like the rest of kiln.language, nothing here may
import kiln.compiler or kiln.runtime (see test/Python/test_layering.py).
"""

from .._core import register_vendor_builtins

# Builtins defined below this package are NVIDIA's (an error on other vendors' targets);
# registered before the submodules define them.
register_vendor_builtins(__name__, "cuda:", "NVIDIA")

from . import ampere, blackwell, hopper, named_barrier  # noqa: E402,F401
from .._core import register_target_hook  # noqa: E402


def _kernel_end(sem):
    """Before the kernel returns: wait until its TMA stores have read their shared memory,
    which the next CTA on the SM may be given once this one ends (Gluon kernels may end
    without ``tma.store_wait(0)``; CUTLASS epilogues end with it). One instruction, which
    returns at once where the kernel waited already. Where the kernel read other CTAs'
    shared memory, a cluster barrier, so that none ends while another still reads it."""
    if getattr(sem, "tma_stores_issued", False):
        sem.b.create("tile_nv.async_tma_store_wait", [], [], {"pendings": "0 : i32"})
    # A CTA whose shared memory other CTAs of its cluster read (a gather from a split buffer)
    # stays until they are done: a cluster barrier before any of them ends.
    if getattr(sem, "cluster_shared_reads", False):
        _cluster_barrier(sem)


register_target_hook("cuda:", "kernel_end", _kernel_end)

from ._split_access import (split_atomic, split_gather, split_load, split_scatter,  # noqa: E402
                            split_store)

register_target_hook("cuda:", "split_gather", split_gather)
register_target_hook("cuda:", "split_scatter", split_scatter)
register_target_hook("cuda:", "split_load", split_load)
register_target_hook("cuda:", "split_store", split_store)
# PTX statements may open a scope: inline_asm_elementwise's repeated statements each get one.
register_target_hook("cuda:", "asm_scope", lambda text: "{\n" + text + "\n}")
register_target_hook("cuda:", "split_atomic", split_atomic)


def _cluster_barrier(sem):
    """gl.barrier(cluster=True) across CTAs: barrier.cluster.arrive (release) then .wait."""
    sem.b.create("tile_nv.cluster_arrive", [], [], {"relaxed": "false"})
    sem.b.create("tile_nv.cluster_wait", [], [])


register_target_hook("cuda:", "cluster_barrier", _cluster_barrier)

__all__ = ["ampere", "hopper", "named_barrier"]
