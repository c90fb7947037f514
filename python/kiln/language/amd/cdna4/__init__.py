"""CDNA4 (gfx950) builtins, as in Gluon's ``amd.cdna4``: everything of
:mod:`kiln.language.amd.cdna3` (``buffer_load``, ``buffer_store``, ``mfma``) plus :mod:`.async_copy`:
``global_load_to_shared`` and ``buffer_load_to_shared`` (direct-to-LDS copies),
``commit_group`` and ``wait_group`` (groups and exact ``s_waitcnt vmcnt(N)`` waits) and
``load_shared_relaxed`` (an LDS read a wait already ordered)."""

from ..cdna3 import buffer_load, buffer_store, mfma
from . import async_copy

__all__ = ["buffer_load", "buffer_store", "mfma", "async_copy"]
