"""Compiler-made AMD rings wait exactly: examples/pipelined.py's row_sum_kernel, pipelined by
the tile-pipeline-* passes into a direct-to-LDS buffer-copy ring, over tiles, warps and stages
on gfx942 and gfx950. The independent checker (third_party/amd/tools/amdgcn_waits.py, which
simulates the vmcnt counter over the final assembly) finds every wait safe and none stricter
than needed (slack 0), and the loop holds no vmcnt(0). (With 8 waves the LDS address of the
read goes through v_xad_u32; before the checker simulated it, the unknown address made it
report races with every copy in flight.)"""

from __future__ import annotations

import itertools
import os
import re
import sys

import pytest

import kiln

import amdgcn_waits
import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import pipelined  # noqa: E402

SIG = {"x_ptr": "*fp32:16:range32", "out_ptr": "*fp32:16:range32", "R": "i32", "C": "i32",
       "stride_r": "i32"}
CASES = [(t, br, bc, w, s) for t, (br, bc), w, s in itertools.product(
    ["hip:gfx942", "hip:gfx950"], [(16, 128), (8, 256)], [4, 8], [3, 4])]


@pytest.mark.parametrize("target,br,bc,warps,stages", CASES)
def test_row_sum_ring_waits_exactly(target, br, bc, warps, stages):
    vec = 4 if target == "hip:gfx950" else 1
    k = kiln.compile(pipelined.row_sum_kernel, SIG,
                     dict(BR=br, BC=bc, STAGES=stages, num_warps=warps, WARP=64, VEC=vec),
                     target=target, num_warps=warps)
    asm = k.asm["amdgcn"]
    (report,) = amdgcn_waits.check(asm)
    assert not report.violations, report.render()
    assert report.max_slack == 0, report.render()
    waits = [int(n) for n in re.findall(r"s_waitcnt vmcnt\((\d+)\)", asm)]
    assert waits[0] > 0 and waits[-1] == 0, waits  # the loop's wait, then the drain


def test_the_checker_simulates_v_xad():
    # (a ^ b) + c: 6 ^ 3 = 5, + 10 = 15, << 6: a read at LDS byte 0x3c0, past the bytes
    # [0, 0x100) the copy writes: no conflict, but only if the address is known (an
    # unknown one may be any byte).
    r = amdgcn_waits.check("""
    .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
    .text
    .globl k
    .type k,@function
k:
    v_mov_b32_e32 v1, 6
    v_mov_b32_e32 v2, 3
    v_xad_u32 v3, v1, v2, 10
    v_lshlrev_b32_e32 v3, 6, v3
    s_mov_b32 m0, 0
    buffer_load_dword v0, s[4:7], 0 offen lds
    ds_read_b32 v4, v3
    s_waitcnt vmcnt(0)
    s_endpgm
""")
    assert r and not r[0].violations, r[0].render()
