"""mbarriers on sm_80 (Gluon's ``nvidia.ampere.mbarrier``): ``MBarrierLayout``, ``init``,
``invalidate``, ``arrive`` and ``wait``, the same builtins as :mod:`..hopper.mbarrier` (which
adds ``expect`` for TMA transaction bytes). On sm_80 one thread is lane 0 of warp 0 (elect.sync
is sm_90's), an arrival is ``mbarrier.arrive.shared.b64`` and a wait spins on
``mbarrier.test_wait.parity``."""

from __future__ import annotations

from ..hopper.mbarrier import (  # noqa: F401
    MBarrierLayout, allocate_mbarrier, arrive, init, invalidate, wait)

__all__ = ["MBarrierLayout", "allocate_mbarrier", "arrive", "init", "invalidate", "wait"]
