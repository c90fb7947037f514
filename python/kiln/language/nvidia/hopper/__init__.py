"""Hopper (sm_90a) builtins, as in Gluon's ``nvidia.hopper``. Nothing is implemented yet.

What will land here:

* ``mbarrier`` (a submodule): shared-memory barriers (``allocate_mbarrier``, ``init``,
  ``expect``, ``arrive``, ``wait``, ``invalidate``);
* ``tma`` (a submodule): tensor-memory-accelerator bulk copies through tensor descriptors
  (``async_copy_global_to_shared``, ``async_copy_shared_to_global``, ``store_wait``);
* ``fence_async_shared``: orders generic-proxy shared-memory writes before async-proxy reads;
* ``warpgroup_mma`` (with ``warpgroup_mma_wait``): asynchronous ``wgmma`` on shared-memory
  operands.
"""

__all__ = []
