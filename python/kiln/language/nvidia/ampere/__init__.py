"""Ampere (sm_80+) builtins, as in Gluon's ``nvidia.ampere``. Nothing is implemented yet.

What will land here:

* ``async_copy`` (a submodule): ``cp.async`` global -> shared copies with commit/wait groups
  (``async_copy_global_to_shared``, ``commit_group``, ``wait_group``);
* ``mma_v2``: the ``mma.sync`` tensor-core matrix multiply with its ``NVMMADistributedLayout``
  operands.
"""

__all__ = []
