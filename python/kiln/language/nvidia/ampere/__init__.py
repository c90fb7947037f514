"""Ampere (sm_80+) builtins, as in Gluon's ``nvidia.ampere``.

* :mod:`.async_copy`: ``cp.async`` global -> shared copies with commit/wait groups
  (``async_copy_global_to_shared``, ``commit_group``, ``wait_group``).

Still to come: ``mma_v2``, the ``mma.sync`` tensor-core multiply with its
``NVMMADistributedLayout`` operands.
"""

from . import async_copy  # noqa: F401

__all__ = ["async_copy"]
