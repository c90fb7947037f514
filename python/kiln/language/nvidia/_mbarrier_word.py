"""The check every mbarrier builtin makes of its barrier operand (shared by hopper.mbarrier,
hopper.tma and ampere.async_copy, so that neither package imports the other for it)."""

from __future__ import annotations

from .. import _core as core


def check_barrier(mbarrier, what):
    """``mbarrier`` if it is one int64 word of shared memory, else a TypeError naming ``what``."""
    if not isinstance(mbarrier, core.shared_memory_descriptor):
        raise TypeError(f"{what}: mbarrier must be a shared memory descriptor (from "
                        f"allocate_shared_memory(int64, [1], MBarrierLayout())), got {mbarrier!r}")
    layout = mbarrier.type.layout
    bases = tuple(getattr(layout, "cga_layout", ()) or ())
    if any(not any(b) for b in bases):
        # Gluon's barriers that CTAs share live in one CTA and take the others' arrivals.
        raise TypeError(f"{what}: a barrier that several CTAs of the cluster share (a zero "
                        f"basis in its cga_layout {[list(b) for b in bases]}) is not "
                        f"supported yet: give each CTA its own (allocate_mbarrier(), or "
                        f"MBarrierLayout.multicta(num_ctas))")
    n = 1
    for d in layout.per_cta_shape(mbarrier.type.shape):
        n *= d
    if mbarrier.dtype != core.int64 or n != 1:
        raise TypeError(f"{what}: mbarrier must be one int64 word of shared memory (in each "
                        f"CTA), got {mbarrier.dtype} of shape {list(mbarrier.type.shape)}")
    return mbarrier
