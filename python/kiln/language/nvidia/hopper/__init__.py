"""Hopper (sm_90a) builtins, as in Gluon's ``nvidia.hopper``.

* ``mbarrier`` (a submodule): shared-memory barriers (``MBarrierLayout``, ``init``,
  ``expect``, ``arrive``, ``wait``, ``invalidate``).

What will land here next:

* ``tma`` (a submodule): tensor-memory-accelerator bulk copies through tensor descriptors
  (``async_copy_global_to_shared``, ``async_copy_shared_to_global``, ``store_wait``);
* ``fence_async_shared``: orders generic-proxy shared-memory writes before async-proxy reads;
* ``warpgroup_mma`` (with ``warpgroup_mma_wait``): asynchronous ``wgmma`` on shared-memory
  operands.
"""

from . import mbarrier

__all__ = ["mbarrier"]
