"""mbarrier.arrive(from_cta=) (Gluon's, after Triton 3.8) without a GPU: the group's leader
(its rank's bits outside the mask clear) arrives once on every barrier of its group through
shared::cluster addresses, the others not at all; from_cta = num_ctas - 1 (or none) is the
local arrival; errors at the user's line. third_party/nvidia/test/gpu/test_arrive_from_cta.py
runs it in clusters."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)


@kiln.jit
def arrive_kernel(out, FROM_CTA: kl.constexpr):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar, from_cta=FROM_CTA)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    kl.store(out, 1)


# group: the CTAs whose ranks differ only in the bits outside from_cta.
@pytest.mark.parametrize("num_ctas,from_cta,group", [(2, 0, 2), (8, 5, 2), (8, 0, 8),
                                                     (4, 3, 1)])
def test_the_leader_arrives_on_its_group(num_ctas, from_cta, group):
    k = kiln.compile(arrive_kernel, {"out": "*i32"}, {"FROM_CTA": from_cta},
                     target="cuda:sm_90a", num_warps=4, num_ctas=num_ctas, cache=False)
    ptx = k.asm["ptx"]
    remote = re.findall(r"mbarrier\.arrive\.shared::cluster\.b64", ptx)
    # One arrival on each barrier of the group, predicated (the leader's); none remote when
    # the group is the CTA itself.
    assert len(remote) == (group if group > 1 else 0), ptx
    assert k.asm.get("cubin")


@kiln.jit
def e_range(out):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar, from_cta=4)  # E:range


@kiln.jit
def e_both(out):
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar, cta_mask=1, from_cta=0)  # E:both


@pytest.mark.parametrize("fn,marker,message", [
    (e_range, "E:range", r"mbarrier.arrive: from_cta must be a constexpr int in \[0, "
                         r"num_ctas - 1 = 1\] \(bits of a CTA's rank\), got 4"),
    (e_both, "E:both", r"mbarrier.arrive: give cta_mask or from_cta, not both")],
    ids=["range", "both"])
def test_errors_point_at_the_call(fn, marker, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"out": "*i32"}, {}, target="cuda:sm_90a", num_ctas=2, cache=False)
    located.assert_located(ei.value, HERE, marker, "mbarrier.arrive", message,
                           kiln.CompilationError)
