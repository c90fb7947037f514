"""Host-side NVIDIA objects, under Gluon's module names
(``triton.experimental.gluon.nvidia``):

* :mod:`kiln.nvidia.hopper`: ``TensorDescriptor``, the host half of a TMA tensor descriptor
  (encoded into a 128-byte ``CUtensorMap`` and passed to the kernel by value).

The device-side builtins are in :mod:`kiln.language.nvidia`.
"""

from . import hopper  # noqa: F401

__all__ = ["hopper"]
