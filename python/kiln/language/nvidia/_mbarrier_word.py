"""The check every mbarrier builtin makes of its barrier operand (shared by hopper.mbarrier,
hopper.tma and ampere.async_copy, so that neither package imports the other for it)."""

from __future__ import annotations

from .. import _core as core


def check_barrier(mbarrier, what):
    """``mbarrier`` if it is one int64 word of shared memory, else a TypeError naming ``what``."""
    if not isinstance(mbarrier, core.shared_memory_descriptor):
        raise TypeError(f"{what}: mbarrier must be a shared memory descriptor (from "
                        f"allocate_shared_memory(int64, [1], MBarrierLayout())), got {mbarrier!r}")
    n = 1
    for d in mbarrier.type.shape:
        n *= d
    if mbarrier.dtype != core.int64 or n != 1:
        raise TypeError(f"{what}: mbarrier must be one int64 word of shared memory, got "
                        f"{mbarrier.dtype} of shape {list(mbarrier.type.shape)}")
    return mbarrier
