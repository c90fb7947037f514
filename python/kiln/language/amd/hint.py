"""Gluon's ``amd.hint`` (after Triton 3.8): hints for the code generator's scheduler, which
change nothing the program computes.

``sched_barrier()`` keeps the AMDGPU instruction scheduler from moving any instruction
across this point (``llvm.amdgcn.sched.barrier(0)``, the ``s_sched_barrier 0`` of
``warp_pipeline_stage``'s borders). It does not synchronize threads: use ``thread_barrier``
for that."""

from __future__ import annotations

from .._core import _unwrap, builtin

__all__ = ["sched_barrier"]


@builtin
def sched_barrier(allow=None, _semantic=None):
    """A scheduling barrier: no instruction moves across it. ``allow`` names instruction
    classes that may cross; Gluon supports none yet (``None``, mask 0), nor does Kiln."""
    allow = _unwrap(allow)
    if allow is not None:
        raise ValueError(f"amd.hint.sched_barrier: allow={allow!r}: instruction "
                                  f"classes that may cross are not supported (as in Gluon); "
                                  f"leave allow=None")
    _semantic.b.create("tile_amd.warp_pipeline_border", [], [], {"priority": "-1 : i32"})
