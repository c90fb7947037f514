"""What each vendor's driver reports and which Kiln target that is: one module per backend
(``cuda``, ``hip``), so the vendor-neutral driver code names no chip."""

import importlib

# Backends in order of preference.
BACKENDS = ("cuda", "hip")


def vendor(backend):
    """The chip module of ``backend``: LIBRARY, TARGETS and target_for(info)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
    return importlib.import_module(f"{__name__}.{backend}")


def all_targets():
    """Every target a supported GPU maps to, sorted."""
    return sorted(t for b in BACKENDS for t in vendor(b).TARGETS)
