"""Helpers on kernel values (compile-time Python objects or runtime
:class:`~kiln.language.tensor`) shared by the code generator (:mod:`.codegen`) and the
control-flow lowering (:mod:`.control`), which both import this module."""

from __future__ import annotations

from ..language._core import _unwrap, shared_memory_descriptor_type, tensor

# Most iterations a compile-time loop (kl.static_range, a tuple) may unroll.
MAX_STATIC_UNROLL = 65536


def _has_tensor(v) -> bool:
    v = _unwrap(v)
    if isinstance(v, tensor):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_tensor(x) for x in v)
    return False


def _same(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, tensor) or isinstance(b, tensor):
        return False
    try:
        return type(_unwrap(a)) is type(_unwrap(b)) and bool(_unwrap(a) == _unwrap(b))
    except Exception:
        return False


def _type_str(v) -> str:
    if isinstance(v, tensor):
        return str(v.type)
    v = _unwrap(v)
    if isinstance(getattr(v, "type", None), shared_memory_descriptor_type):
        return f"shared memory buffer {v.type}"  # its IR value name means nothing to users
    return f"constexpr[{v!r}]"


def _site_str(site) -> str:
    return f"{site[0]}:{site[1]}:{site[2]}" if site else "<unknown>"
