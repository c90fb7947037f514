"""Gluon's ``amd.warp_pipeline_stage`` (after Triton 3.6): ``with
amd.warp_pipeline_stage("load", priority=3):`` marks a stage of a loop body. A border ends
each stage, as in Gluon (the code generator's scheduler moves no instruction across one:
``s_sched_barrier 0``), and ``priority`` (0 to 3) is the wave's issue priority while the stage
runs (``s_setprio`` at a border where the stage begins; 0 again at its end). A hint for the
hardware's scheduling: the program computes the same with or without it.

Kiln differs from Gluon here: it marks each stage for the scheduler and sets its
priority. Gluon's warp-pipeline pass also staggers the warps of a block by a stage, with
barriers between them; Kiln does not."""

from __future__ import annotations

__all__ = ["warp_pipeline_stage"]


class warp_pipeline_stage:
    """A warp-pipeline stage: ``with warp_pipeline_stage(label=None, *, priority=None):``
    in a kernel compiled for an AMD target; ``label`` names the stage (no effect on the
    code), ``priority`` is None or 0 to 3."""

    __slots__ = ("label", "priority")

    def __init__(self, label=None, *, priority=None):
        label = getattr(label, "value", label)
        priority = getattr(priority, "value", priority)
        if label is not None and not isinstance(label, str):
            raise TypeError(f"warp_pipeline_stage: label must be a string, got {label!r}")
        if priority is not None and (not isinstance(priority, int) or
                                     isinstance(priority, bool) or not 0 <= priority <= 3):
            raise ValueError(f"warp_pipeline_stage: priority must be 0 to 3 (s_setprio), "
                             f"got {priority!r}")
        self.label = label
        self.priority = priority

    def _border(self, priority, _semantic):
        _semantic.b.create("tile_amd.warp_pipeline_border", [], [],
                           {"priority": f"{priority} : i32"})

    def __kiln_enter__(self, _semantic=None):
        # As Gluon: a border ends each stage. A stage with a priority also starts with one,
        # which sets the priority where the stage begins.
        if not str(getattr(_semantic, "target", "")).startswith("hip:"):
            raise ValueError(f"amd.warp_pipeline_stage is AMD's: the kernel is compiled for "
                             f"{_semantic.target}")
        if self.priority is not None:
            self._border(self.priority, _semantic)
        return self

    def __kiln_exit__(self, _semantic=None):
        self._border(-1 if self.priority is None else 0, _semantic)

    def __repr__(self):
        return f"warp_pipeline_stage({self.label!r}, priority={self.priority!r})"
