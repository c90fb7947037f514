"""Gluon's generic ``CachePolicy`` (after Triton 3.8; Triton's ``tl.core._CachePolicy``): a
cache modifier and an eviction priority that ``load``, ``store`` and the asynchronous copies
take as one ``cache_policy=`` value, or as the older ``cache_modifier=`` / ``eviction_policy=``
arguments (not both). A target's richer policy (a vendor package's ``CachePolicy``) is accepted
where this one is.

What Kiln does with a policy: the cache modifier of an asynchronous copy (as its
``cache_modifier=``), and an eviction priority of evict_first or evict_last on a TMA copy (an L2
policy, the copy's cache hint). Elsewhere a policy is a hint Kiln checks and does not apply."""

from __future__ import annotations

from dataclasses import dataclass

from ._constexpr import _unwrap

__all__ = ["CachePolicy"]

CACHE_MODIFIERS = ("none", "ca", "cg", "wb", "cs", "wt", "cv")
EVICTION_POLICIES = ("evict_normal", "evict_first", "evict_last")


@dataclass(frozen=True)
class CachePolicy:
    """``cache_modifier``: "none" (the default), "ca", "cg", "wb", "cs", "wt" or "cv" (a
    leading "." is dropped); ``eviction_policy``: "evict_normal" (the default),
    "evict_first" or "evict_last"."""

    cache_modifier: str = "none"
    eviction_policy: str = "evict_normal"

    def __post_init__(self):
        cm, ev = _unwrap(self.cache_modifier), _unwrap(self.eviction_policy)
        if not isinstance(cm, str):
            raise TypeError(f"cache_modifier must be a string, got {cm!r}")
        if not isinstance(ev, str):
            raise TypeError(f"eviction_policy must be a string, got {ev!r}")
        cm = cm.removeprefix(".")
        if cm not in CACHE_MODIFIERS:
            raise ValueError(f"Unsupported cache modifier {cm!r} (one of "
                             f"{', '.join(CACHE_MODIFIERS)})")
        if ev not in EVICTION_POLICIES:
            raise ValueError(f"Unsupported eviction policy {ev!r} (one of "
                             f"{', '.join(EVICTION_POLICIES)})")
        object.__setattr__(self, "cache_modifier", cm)
        object.__setattr__(self, "eviction_policy", ev)


def normalize(what, cache_policy, cache_modifier, eviction_policy):
    """The policy of a call, ``cache_policy``; None when the call has none (it may have the
    older arguments). Both at once is an error, as in Gluon."""
    policy = _unwrap(cache_policy)
    cm, ev = _unwrap(cache_modifier), _unwrap(eviction_policy)
    if policy is not None:
        if cm:
            raise ValueError(f"{what}: cache_policy and cache_modifier are mutually exclusive")
        if ev:
            raise ValueError(f"{what}: cache_policy and eviction_policy are mutually "
                             f"exclusive")
        if not hasattr(policy, "cache_modifier"):
            raise TypeError(f"{what}: cache_policy must be a CachePolicy, got {policy!r}")
        if getattr(policy, "l1", None) and policy.cache_modifier:
            raise ValueError(f"{what}: cache modifier cannot be combined with an L1 eviction "
                             f"priority")
        return policy
    return None  # the older arguments, which the caller checks as before


def cache_modifier_of(policy) -> str:
    """The policy's cache modifier as the copy ops spell it (".cg"), "" for none."""
    cm = getattr(policy, "cache_modifier", None) if policy is not None else None
    return "" if cm in (None, "none") else "." + cm
