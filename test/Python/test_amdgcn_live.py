"""scripts/amdgcn-live.py on a hand-written loop whose liveness is known."""

from __future__ import annotations

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "amdgcn_live", os.path.join(ROOT, "scripts", "amdgcn-live.py"))
live = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(live)

ASM = """\
k:
.LBB0_0:
\tv_accvgpr_write_b32 a0, v1
\tv_accvgpr_write_b32 a1, v2
\tv_accvgpr_write_b32 a2, v2
.LBB0_1:                ; a loop
\tv_add_u32_e32 v3, v4, v5
\tv_mul_f32_e32 v6, v3, v7 ; v3 dies here
\tv_cmp_gt_f32_e32 vcc, 0, v6
\tv_accvgpr_read_b32 v11, a2
\tglobal_store_dwordx2 v[8:9], v[6:7], off
\ts_cbranch_scc1 .LBB0_1
\tv_accvgpr_read_b32 v10, a0
\tv_accvgpr_read_b32 v12, a2
\ts_endpgm
\t.vgpr_count:     13
"""


def test_a_known_loop():
    lines = ASM.split("\n")
    [(label, first, last)] = live.loops(lines)
    assert (label, lines[first].startswith(".LBB0_1"), lines[last].strip()) == \
        (".LBB0_1", True, "s_cbranch_scc1 .LBB0_1")
    insts = live.parse(lines[first:last + 1])
    # Backwards: the store reads v8, v9, v6, v7; the read of a2 adds a2 (v11 is not read);
    # the compare reads v6; the multiply writes v6 and reads v3, v7; the add writes v3 and
    # reads v4, v5: {v4, v5, v7, v8, v9, a2} at the top, the peak.
    top, peak, at = live.pressure(insts)
    assert (top, peak) == (6, 6)
    assert insts[at][0].startswith("v_add_u32")
    # a0 is held across the loop (written before, read after, untouched inside); a1 is never
    # read again, a2 is read inside.
    assert live.held_across(lines, first, last) == ["a0"]


def test_writes_and_reads():
    [(text, writes, reads)] = live.parse(["\tv_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], a[6:7], v[0:3]"])
    assert writes == ["v0", "v1", "v2", "v3"]
    assert reads == ["v4", "v5", "a6", "a7", "v0", "v1", "v2", "v3"]
    [(_, writes, reads)] = live.parse(["\tds_write_b128 v1, v[2:5] offset:16"])
    assert writes == [] and reads == ["v1", "v2", "v3", "v4", "v5"]
