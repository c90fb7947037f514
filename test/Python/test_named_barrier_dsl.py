"""kiln.language.nvidia.named_barrier: sync and arrive compile to barrier.sync / barrier.arrive
with the hardware barrier 15 - id and the thread count, inside warp_specialize partitions too;
a bad id or count is an error at the user's line. test/gpu/test_named_barrier.py runs the
ping-pong kernel."""

from __future__ import annotations

import os
import re

import pytest

import kiln

import compiled
import located
import named_barrier_kernels as K

pytestmark = compiled.needs_compiler
KERNELS = os.path.abspath(K.__file__)


def test_ping_pong_ptx():
    k = kiln.compile(K.ping_pong, {"log": "*i32", "n": "i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    ptx = k.asm["ptx"]
    # Each group: sync at its own barrier (15 - g), arrive at the other's.
    assert len(re.findall(r"bar\.sync\s+15, 256;", ptx)) == 1, ptx
    assert len(re.findall(r"bar\.sync\s+14, 256;", ptx)) == 1, ptx
    assert len(re.findall(r"bar\.arrive\s+15, 256;", ptx)) == 2, ptx
    assert len(re.findall(r"bar\.arrive\s+14, 256;", ptx)) == 1, ptx


@pytest.mark.parametrize("kernel, marker, anchor, message", [
    (K.bad_id, "E:bad-id", "named_barrier.sync",
     r"named_barrier.sync: barrier id 14 is out of range: ids 0 to 13 are the "
     r"kernel's \(the other hardware barriers are Kiln's\)"),
    (K.bad_count, "E:bad-count", "named_barrier.arrive",
     r"named_barrier.arrive: counts 100 threads: a named barrier counts whole "
     r"warps, 32 to 1024 threads"),
])
def test_bad_arguments_are_located(kernel, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(kernel, {"x": "*i32"}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, KERNELS, marker, anchor, message, kiln.CompilationError)


def test_runtime_id_is_refused():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(K.runtime_id, {"x": "*i32", "i": "i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, KERNELS, "E:runtime-id", "named_barrier.sync",
                           r"named_barrier.sync: id must be a constexpr int, got .*",
                           kiln.CompilationError)


def test_amd_refuses_named_barriers():
    with pytest.raises(kiln.CompilationError, match="NVIDIA"):
        kiln.compile(K.bad_count, {"x": "*i32"}, {}, target="hip:gfx942", cache=False)
