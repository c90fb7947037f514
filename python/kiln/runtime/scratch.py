"""Global scratch memory for kernels that need it (device-side TMA descriptors: 128 bytes per
descriptor per CTA). As in Triton, the launch asks an allocator for it: the function given to
:func:`set_allocator` (``fn(size, alignment, stream)`` returning an object with
``data_ptr()``, e.g. a torch tensor), else torch on the current CUDA device."""

from __future__ import annotations

_allocator = None


def set_allocator(allocator) -> None:
    """``allocator(size: int, alignment: int, stream: int)`` returns device memory of ``size``
    bytes as an object with ``data_ptr()`` that stays valid while the launch that asked for it
    runs (Triton's ``triton.set_allocator``). ``None`` restores the default (torch)."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator: expected a callable or None, got {allocator!r}")
    _allocator = allocator


def allocate(size: int, alignment: int, stream: int):
    """Device memory for one launch's scratch: the set allocator's, else torch's."""
    if _allocator is not None:
        return _allocator(size, alignment, stream)
    try:
        import torch
    except ImportError:
        raise RuntimeError(
            "this kernel needs global scratch memory (device-side TMA descriptors) and torch "
            "is not installed to allocate it: call kiln.set_allocator(fn) with a function "
            "(size, alignment, stream) -> object with data_ptr()") from None
    return torch.empty(size, dtype=torch.int8, device="cuda")
