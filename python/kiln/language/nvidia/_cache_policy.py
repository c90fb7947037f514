"""Gluon's NVIDIA cache policies (``nvidia.ampere.CachePolicy`` and
``FractionalEvictionPolicy``, after Triton 3.8; ``hopper`` re-exports them): a cache modifier,
an L1 eviction priority, a fractional L2 eviction policy and an L2 prefetch size, checked as
Gluon checks them.

What Kiln does with them: on a TMA copy the L2 policy becomes one ``createpolicy.fractional``
and the copy's ``.L2::cache_hint`` (TMA takes no L1 priority, cache modifier or prefetch size:
an error, as in Gluon); on ``cp.async`` copies the cache modifier. On plain loads and stores
the policy is a hint Kiln checks and does not apply."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .._constexpr import _unwrap
from .. import _cache_policy as generic

__all__ = ["CachePolicy", "FractionalEvictionPolicy"]

EVICTION_PRIORITIES = ("evict_normal", "evict_unchanged", "evict_first", "evict_last")
L1_EVICTION_PRIORITIES = EVICTION_PRIORITIES + ("no_allocate",)
L2_SECONDARY_PRIORITIES = ("evict_unchanged", "evict_first")
CACHE_MODIFIERS = ("ca", "cg", "wb", "cs", "wt", "cv")


@dataclass(frozen=True)
class FractionalEvictionPolicy:
    """``fraction`` (in (0, 1]) of the lines an access touches get the L2 eviction priority
    ``primary``, the rest ``secondary`` ("evict_unchanged", the default, or "evict_first")."""

    primary: str
    fraction: float
    secondary: str = "evict_unchanged"

    def __post_init__(self):
        primary, fraction = _unwrap(self.primary), _unwrap(self.fraction)
        secondary = _unwrap(self.secondary)
        if primary not in EVICTION_PRIORITIES:
            raise ValueError(f"Unsupported L2 primary eviction priority {primary!r}")
        if secondary not in L2_SECONDARY_PRIORITIES:
            raise ValueError(f"Unsupported L2 secondary eviction priority {secondary!r}")
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or \
                not math.isfinite(fraction):
            raise ValueError("L2 eviction fraction must be finite")
        if not 0 < fraction <= 1:
            raise ValueError("L2 eviction fraction must be in (0, 1]")
        object.__setattr__(self, "primary", primary)
        object.__setattr__(self, "fraction", float(fraction))
        object.__setattr__(self, "secondary", secondary)


@dataclass(frozen=True)
class CachePolicy:
    """``cache_modifier`` ("ca", "cg", "wb", "cs", "wt" or "cv"; a leading "." is dropped),
    ``l1`` (an eviction priority or "no_allocate"), ``l2`` (a FractionalEvictionPolicy) and
    ``l2_prefetch_size`` (64, 128 or 256 bytes); at least one of them."""

    cache_modifier: Optional[str] = None
    l1: Optional[str] = None
    l2: Optional[FractionalEvictionPolicy] = None
    l2_prefetch_size: Optional[int] = None

    def __post_init__(self):
        cm, l1 = _unwrap(self.cache_modifier), _unwrap(self.l1)
        l2, size = _unwrap(self.l2), _unwrap(self.l2_prefetch_size)
        if cm is not None:
            if not isinstance(cm, str) or cm.removeprefix(".") not in CACHE_MODIFIERS:
                raise ValueError(f"Unsupported cache modifier {cm!r}")
            cm = cm.removeprefix(".")
        if l1 is not None and l1 not in L1_EVICTION_PRIORITIES:
            raise ValueError(f"Unsupported L1 eviction priority {l1!r}")
        if l2 is not None and not isinstance(l2, FractionalEvictionPolicy):
            raise TypeError("l2 must be a FractionalEvictionPolicy")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int)
                                 or size not in (64, 128, 256)):
            raise ValueError("L2 prefetch size must be 64, 128, or 256")
        if cm is None and l1 is None and l2 is None and size is None:
            raise ValueError("CachePolicy requires a cache modifier, L1 policy, L2 policy, or "
                             "L2 prefetch size")
        object.__setattr__(self, "cache_modifier", cm)
        object.__setattr__(self, "l1", l1)
        object.__setattr__(self, "l2", l2)
        object.__setattr__(self, "l2_prefetch_size", size)


def tma_attrs(what, sem, policy):
    """The L2 policy attributes of a TMA copy (none for no policy or evict_normal), after
    Gluon's checks: TMA takes an L2 policy only."""
    policy = _unwrap(policy)
    if policy is None:
        return {}
    if isinstance(policy, generic.CachePolicy):
        if policy.cache_modifier != "none":
            raise ValueError(f"{what}: TMA operations do not support cache modifiers")
        if policy.eviction_policy == "evict_normal":
            return {}
        return {"l2_primary": sem.b.str_attr(policy.eviction_policy)}
    if not isinstance(policy, CachePolicy):
        raise TypeError(f"{what}: TMA cache_policy must be a CachePolicy, got {policy!r}")
    if policy.l1 is not None:
        raise ValueError(f"{what}: TMA operations do not support L1 eviction priorities")
    if policy.cache_modifier is not None:
        raise ValueError(f"{what}: TMA operations do not support cache modifiers")
    if policy.l2_prefetch_size is not None:
        raise ValueError(f"{what}: TMA operations do not support L2 prefetch size")
    if policy.l2 is None:
        return {}
    l2 = policy.l2
    return {"l2_primary": sem.b.str_attr(l2.primary),
            "l2_secondary": sem.b.str_attr(l2.secondary),
            "l2_fraction": f"{l2.fraction:.9e} : f32"}
