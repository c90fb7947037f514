"""examples/amd_gemm.py: the direct-to-LDS mfma GEMM, by hand (a Gluon-style ring) and by the
pipeliner (plain loads in a num_stages loop), for gfx942 and gfx950. On the final assembly:
the main loop's v_mfma and direct-to-LDS copy counts, one exact vmcnt wait and no vmcnt(0) in
the loop, and the independent vmcnt checker (conftest runs it on every AMD compile; here its
slack is asserted too). No AMD GPU was available: correctness of the arithmetic rests on the mfma
layout tests (test_amd_mfma_dsl.py)."""

from __future__ import annotations

import os
import sys

import pytest

import compiled

pytestmark = compiled.needs_compiler

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "third_party", "amd", "tools"))

import amd_gemm  # noqa: E402
import amdgcn_stats  # noqa: E402
import amdgcn_waits  # noqa: E402

# BM = BN = 128, BK = 32, 4 waves of 64 x 64: 2 x 2 blocks of 32 x 32, K 8 (gfx942) or 16
# (gfx950) per instruction; A and B tiles are 8 KiB each, copied 4 (16) bytes per lane.
EXPECT = {"hip:gfx942": dict(v_mfma=16, lds_copies=16),
          "hip:gfx950": dict(v_mfma=8, lds_copies=4)}


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_gemm_loop_has_exact_waits(target):
    stats = {}
    for form in ("hand", "auto"):
        k = amd_gemm.compile_gemm(form, target, stages=3)
        asm = k.asm["amdgcn"]
        st = stats[form] = amdgcn_stats.loop_stats(asm)
        for key, want in EXPECT[target].items():
            assert st[key] == want, (form, key, st)
        # The hand ring issues tile t+2 and then waits for tile t: two groups stay in
        # flight, and it needs two barriers (before the refill, after the wait). The
        # pipeliner waits first (one group, tile t+1, in flight), so the barrier before
        # the refill also publishes tile t: one barrier.
        ahead = 2 if form == "hand" else 1
        assert st["vmcnt"] == [ahead * st["lds_copies"]], (form, st)
        assert st["barriers"] == ahead, (form, st)
        assert st["other_vmem"] == 0, (form, st)
        # conftest ran the checker on this compile (a violation would have failed it).
        (r,) = getattr(k, "vmcnt_reports", None) or amdgcn_waits.check(asm)
        assert not r.violations and "max slack 0" in r.summary(), r.summary()
    # The pipeliner's loop issues what the hand-written ring does.
    for key in ("v_mfma", "lds_copies", "lds_reads"):
        assert stats["hand"][key] == stats["auto"][key], (key, stats)
