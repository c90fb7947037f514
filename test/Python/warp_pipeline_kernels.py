"""Gluon's amd.warp_pipeline_stage in a loop (test_warp_pipeline_dsl.py compiles these)."""

import kiln
import kiln.language as kl
from kiln.language import amd


@kiln.jit
def staged_copy(x, y, n, BLOCK: kl.constexpr):
    """y[i] = 2 x[i] + 1, in two stages a block: the load at priority 3, the math and store
    at the default."""
    layout: kl.constexpr = kl.BlockedLayout([1], [64], [4], [0])
    for start in range(0, n, BLOCK):
        offs = start + kl.arange(0, BLOCK, layout)
        with amd.warp_pipeline_stage("load", priority=3):
            v = kl.load(x + offs, mask=offs < n)
        with amd.warp_pipeline_stage("compute"):
            kl.store(y + offs, v * 2.0 + 1.0, mask=offs < n)


@kiln.jit
def gluon_frontend_stages(out):
    """The loop of Gluon's test_frontend.py::test_amd_warp_pipeline (a scalar computed in one
    stage, read and reassigned in the next), with its result stored so that it stays."""
    c0: kl.constexpr = 0
    one: kl.constexpr = 1
    x = 0
    for i in range(c0, 10, one):
        with amd.warp_pipeline_stage("stage0"):
            x = i + one
        with amd.warp_pipeline_stage("stage1"):
            y = x * one
            x = y + one
    kl.store(out, x)


@kiln.jit
def not_a_stage(x):
    with x:  # E:not-a-stage
        pass


@kiln.jit
def return_in_stage(x):
    with amd.warp_pipeline_stage():
        return  # E:return-in-stage


@kiln.jit
def break_in_stage(x, n):
    for i in range(n):
        with amd.warp_pipeline_stage():
            break  # E:break-in-stage


@kiln.jit
def bad_priority(x):
    with amd.warp_pipeline_stage("a", priority=5):  # E:bad-priority
        pass


@kiln.jit
def on_nvidia(x):
    with amd.warp_pipeline_stage("a"):  # E:on-nvidia
        pass


@kiln.jit
def hinted_copy(x, y, n, BLOCK: kl.constexpr):
    """amd.hint.sched_barrier (Gluon's, after Triton 3.8) between the load and the math."""
    layout: kl.constexpr = kl.BlockedLayout([1], [64], [4], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    v = kl.load(x + offs, mask=offs < n)
    amd.hint.sched_barrier()
    kl.store(y + offs, v * 2.0 + 1.0, mask=offs < n)


@kiln.jit
def hint_with_classes(x, y, n, BLOCK: kl.constexpr):
    amd.hint.sched_barrier(allow=1)  # E:hint-allow


@kiln.jit
def hint_on_nvidia(x, y, n, BLOCK: kl.constexpr):
    amd.hint.sched_barrier()  # E:hint-nvidia
