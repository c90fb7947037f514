"""kl.amd.warp_pipeline_stage (Gluon's, after Triton 3.6): ``with`` blocks that become stage
borders (s_sched_barrier 0) and wave priorities (s_setprio) in the AMDGCN; misuse is an error
at the user's line."""

from __future__ import annotations

import os
import re

import pytest

import kiln

import compiled
import located
import warp_pipeline_kernels as K

pytestmark = compiled.needs_compiler
KERNELS = os.path.abspath(K.__file__)


def test_stages_in_the_assembly():
    k = kiln.compile(K.staged_copy, {"x": "*fp32", "y": "*fp32", "n": "i32"}, {"BLOCK": 256},
                     target="hip:gfx950", cache=False)
    asm = k.asm["amdgcn"]
    body = asm[asm.index("staged_copy:"):]
    # The load stage raises the wave's priority and lowers it after; the compute stage,
    # without a priority, sets none.
    assert re.findall(r"s_setprio (\d)", body) == ["3", "0"], body
    # A border ends each stage, and the stage with a priority starts with one too: three;
    # the scheduling barrier itself leaves no instruction in the assembly.
    llir = k.asm["llir"]
    assert llir.count("llvm.amdgcn.sched.barrier(i32 0)") == 3, llir


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_gluon_frontend_loop(target):
    """Gluon's own case (test_frontend.py::test_amd_warp_pipeline, 8 warps): one border at the
    end of each stage in the loop, no priority set."""
    k = kiln.compile(K.gluon_frontend_stages, {"out": "*i32"}, {}, target=target,
                     num_warps=8, cache=False)
    tile = k.asm["tile"]
    loop = tile[tile.index("scf.for"):]
    loop = loop[:loop.index("scf.yield")]
    assert loop.count("tile_amd.warp_pipeline_border") == 2, loop
    assert "s_setprio" not in k.asm["amdgcn"]
    # LLVM unrolls the ten iterations, borders included.
    assert k.asm["llir"].count("llvm.amdgcn.sched.barrier(i32 0)") == 20


@pytest.mark.parametrize("kernel, marker, anchor, message", [
    (K.not_a_stage, "E:not-a-stage", "x",
     r"with takes Kiln's context managers in a kernel \(such as warp_pipeline_stage\), not "
     r"\w+"),
    (K.return_in_stage, "E:return-in-stage", "return",
     r"return inside a with block is not supported in kernels \(the block must end where it "
     r"is written\)"),
    (K.break_in_stage, "E:break-in-stage", "break",
     r"break inside a with block is not supported in kernels \(the block must end where it "
     r"is written\)"),
    (K.bad_priority, "E:bad-priority", "amd.warp_pipeline_stage",
     r"warp_pipeline_stage: priority must be 0 to 3 \(s_setprio\), got 5"),
])
def test_misuse_is_located(kernel, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(kernel, {"x": "*fp32", "n": "i32"} if kernel is K.break_in_stage
                     else {"x": "*fp32"}, {}, target="hip:gfx950", cache=False)
    located.assert_located(ei.value, KERNELS, marker, anchor, message, kiln.CompilationError)


def test_nvidia_refuses_it():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(K.on_nvidia, {"x": "*fp32"}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, KERNELS, "E:on-nvidia", "amd.warp_pipeline_stage",
                           r"amd.warp_pipeline_stage is AMD's: the kernel is compiled for "
                           r"cuda:sm_90a", kiln.CompilationError)


def test_hint_sched_barrier():
    """amd.hint.sched_barrier (Gluon's, after Triton 3.8): one scheduling barrier that lets
    nothing cross, and no priority change."""
    k = kiln.compile(K.hinted_copy, {"x": "*fp32", "y": "*fp32", "n": "i32"}, {"BLOCK": 256},
                     target="hip:gfx942", cache=False)
    assert k.asm["llir"].count("llvm.amdgcn.sched.barrier(i32 0)") == 1, k.asm["llir"]
    assert "s_setprio" not in k.asm["amdgcn"]


SIG4 = {"x": "*fp32", "y": "*fp32", "n": "i32"}


def test_hint_misuse_is_located():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(K.hint_with_classes, SIG4, {"BLOCK": 256}, target="hip:gfx942",
                     cache=False)
    located.assert_located(ei.value, KERNELS, "E:hint-allow", "amd.hint.sched_barrier",
                           r"amd.hint.sched_barrier: allow=1: instruction classes that may "
                           r"cross are not supported \(as in Gluon\); leave allow=None",
                           kiln.CompilationError)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(K.hint_on_nvidia, SIG4, {"BLOCK": 256}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, KERNELS, "E:hint-nvidia", "amd.hint.sched_barrier",
                           r".*AMD.*", kiln.CompilationError)
