"""Tests of amdgcn_waits (third_party/amd/tools), the independent vmcnt checker of AMDGCN assembly.

Hand-written gfx9 snippets exercise each part of the model; the last tests run it on
assembly that kiln-opt | kiln-translate produce (skipped without a build)."""

import os
import re
import subprocess

import pytest

import amdgcn_waits as aw

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
BIN = os.path.join(ROOT, "build", "bin")

# 4 waves (the default); v1 = 4 * work-item id; s2 = the wave's first byte (256 * wave).
HEAD = """
k:
  s_load_dwordx2 s[0:1], s[4:5], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  v_readfirstlane_b32 s2, v1
  s_waitcnt lgkmcnt(0)
"""


def check(body, **kw):
    (r,) = aw.check(HEAD + body, **kw)
    return r


def messages(r):
    return [m for m, _ in r.violations.values()]


def wait_at(r, text):
    (s,) = [s for s in r.waits.values() if s.inst.text == text]
    return s


def test_dma_wait_read_safe():
    r = check("""
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  s_waitcnt vmcnt(0)
  ds_read_b32 v3, v1
  s_endpgm
""")
    assert r.summary() == "vmcnt-check: kernel k: 1 waits, 0 violations, max slack 0"
    assert r.waves == 4 and r.paths == 1
    assert wait_at(r, "s_waitcnt vmcnt(0)").visits == 4  # one per wave


TWO_GROUPS = """
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  s_add_u32 m0, s2, 0x400
  global_load_lds_dword v1, s[0:1]
  s_waitcnt {wait}
  ds_read_b32 v3, v1
  s_endpgm
"""


def test_exact_wait_has_no_slack():
    r = check(TWO_GROUPS.format(wait="vmcnt(1)"))
    assert not r.violations and r.max_slack == 0
    assert wait_at(r, "s_waitcnt vmcnt(1)").nstar == 1


def test_too_weak_wait_is_a_violation():
    r = check(TWO_GROUPS.format(wait="vmcnt(2)"))
    assert r.summary().startswith("vmcnt-check: kernel k: 1 waits, 1 violations")
    (msg,) = messages(r)
    # the read's line, the copy's line, the bytes (wave 0's) and the vmcnt in force
    assert msg.startswith("line 13: `ds_read_b32 v3, v1` accesses LDS bytes [0x0, 0x100) "
                          "written by line 9 `global_load_lds_dword v1, s[0:1]`"), msg
    assert "vmcnt(2) in force (line 12), 2 VMEM ops in flight" in msg
    assert list(r.violations.values())[0][1] == 4  # in every wave


def test_stricter_wait_reports_slack():
    r = check(TWO_GROUPS.format(wait="vmcnt(0)"))
    assert not r.violations and r.max_slack == 1
    assert "vmcnt(1) would still be safe" in r.render()


def test_raw_immediate_waits():
    assert [aw.decode_waitcnt(x) for x in (
        "0xf74", "3956", "0", "0x4000", "0xc07f", "vmcnt(0) lgkmcnt(0)", "lgkmcnt(0)",
        "vmcnt(63)", "vmcnt(3) expcnt(0) lgkmcnt(1)", "vmcnt(2) & lgkmcnt(0)")] == [
        4, 4, 0, 16, None, 0, None, None, 3, 2]
    assert not check(TWO_GROUPS.format(wait="0xf71")).violations  # vmcnt(1)
    assert check(TWO_GROUPS.format(wait="0xf72")).violations  # vmcnt(2)
    assert check(TWO_GROUPS.format(wait="0")).max_slack == 1  # everything: vmcnt(0)
    # no vmcnt field: not a vmcnt wait at all
    r = check(TWO_GROUPS.format(wait="lgkmcnt(0)"))
    assert not r.waits and r.violations


def test_stores_count():
    body = """
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  {store}
  s_waitcnt vmcnt({n})
  ds_read_b32 v3, v1
  s_endpgm
"""
    for store in ("global_store_dword v1, v5, s[0:1]",
                  "buffer_store_dword v5, v1, s[8:11], 0 offen"):
        assert not check(body.format(store=store, n=1)).violations  # the store is youngest
        assert check(body.format(store=store, n=2)).violations
        assert check(body.format(store=store, n=0)).max_slack == 1


def test_loaded_vgpr_use():
    body = """
  global_load_dwordx2 v[4:5], v1, s[0:1]
  global_load_dword v6, v1, s[0:1]
  {wait}
  v_add_u32_e32 v7, v5, v1
  global_load_dword v6, v1, s[0:1] offset:4
  s_endpgm
"""
    r = check(body.format(wait=""))
    (msg,) = messages(r)
    assert "`v_add_u32_e32 v7, v5, v1` uses v5, loaded by line 8" in msg, msg
    assert "no vmcnt wait before it" in msg
    r = check(body.format(wait="s_waitcnt vmcnt(1)"))
    assert not r.violations and r.max_slack == 0
    # the second load writing v6 again is in order: no hazard, and nothing needs vmcnt(0)
    assert check(body.format(wait="s_waitcnt vmcnt(0)")).max_slack == 1


def loads(n, first=10):
    """n loads of one dword each into v<first>, v<first + 1>, ..."""
    return "".join(f"  global_load_dword v{first + i}, v1, s[0:1] offset:{4 * i}\n"
                   for i in range(n))


@pytest.mark.parametrize("n,in_flight", [(62, 62), (63, 63), (64, None), (68, None)])
def test_issue_stall_retires_the_oldest_load(n, in_flight):
    """The vmcnt counter is 6 bits: a wave issuing a load with 63 in flight stalls until the
    oldest retires. With 64 or more loads issued, the first has retired before the last
    issues, and its register needs no wait; with 63 or fewer it may still be in flight."""
    r = check(loads(n) + "  v_add_u32_e32 v7, v10, v1\n  s_endpgm\n")
    if in_flight is None:
        assert not r.violations, r.render()
    else:
        (msg,) = messages(r)
        assert "`v_add_u32_e32 v7, v10, v1` uses v10, loaded by line 7" in msg, msg
        assert f"no vmcnt wait before it, {in_flight} VMEM ops in flight" in msg, msg


def test_issue_stall_caps_the_count_in_flight():
    # 68 loads: the first 5 retire at the stall; the 6th has 62 younger ones, 63 in flight
    r = check(loads(68) + "  v_add_u32_e32 v7, v15, v1\n  s_endpgm\n")
    (msg,) = messages(r)
    assert "uses v15, loaded by line 12" in msg and "63 VMEM ops in flight" in msg, msg
    # a wait before the use: vmcnt(62) is the largest that retires the 6th load (the slack
    # never claims a count the counter cannot hold)
    r = check(loads(68) + "  s_waitcnt vmcnt(0)\n  v_add_u32_e32 v7, v15, v1\n  s_endpgm\n")
    assert not r.violations and r.max_slack == 62
    assert wait_at(r, "s_waitcnt vmcnt(0)").nstar == 62
    # a wait before the use of the first load: the stall retired it already
    r = check(loads(68) + "  s_waitcnt vmcnt(0)\n  v_add_u32_e32 v7, v10, v1\n  s_endpgm\n")
    assert not r.violations and r.summary().endswith("max slack 0, 1 guard nothing")


def test_issue_stall_counts_only_sure_loads():
    """Loads in a region that s_cbranch_execz may skip may not have issued: they do not
    count towards the 63 that make the wave stall."""
    body = """
  s_load_dword s3, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc, s3, v0
  global_load_dword v10, v1, s[0:1]
  s_and_saveexec_b64 s[6:7], vcc
  s_cbranch_execz .LBB0_2
  global_load_dword v9, v1, s[0:1]
.LBB0_2:
  s_or_b64 exec, exec, s[6:7]
{rest}  v_add_u32_e32 v7, v10, v1
  s_endpgm
"""
    assert check(body.format(rest=loads(62, first=11))).violations  # 62 sure, 1 maybe
    assert not check(body.format(rest=loads(63, first=11))).violations


@pytest.mark.parametrize("n", [63, 64])
def test_issue_stall_retires_the_oldest_copy(n):
    """The same for a direct-to-LDS copy: the first copy writes the wave's bytes, the n - 1
    after it elsewhere; reading the first one's bytes with no wait is safe once 63 copies
    have issued after it."""
    r = check("""
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  s_add_u32 m0, s2, 0x4000
""" + "  global_load_lds_dword v1, s[0:1]\n" * (n - 1) + """  ds_read_b32 v3, v1
  s_endpgm
""")
    if n > aw.VMCNT_MAX:
        assert not r.violations, r.render()
    else:
        (msg,) = messages(r)
        assert msg.startswith(f"line {n + 10}: `ds_read_b32 v3, v1` accesses LDS bytes "
                              "[0x0, 0x100) written by line 9"), msg
        assert "63 VMEM ops in flight" in msg, msg


def test_issue_stall_in_a_loop():
    """Each trip loads v10, then n more, then uses v10 with no wait: safe on every trip
    with 63 after it (the stall retires it), not with 62."""
    body = """
  s_load_dword s7, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s6, 0
.LBB0_1:
  global_load_dword v10, v1, s[0:1]
{more}  v_add_u32_e32 v7, v10, v1
  s_add_i32 s6, s6, 1
  s_cmp_lg_u32 s6, s7
  s_cbranch_scc1 .LBB0_1
  s_endpgm
"""
    assert not check(body.format(more=loads(63, first=11))).violations
    r = check(body.format(more=loads(62, first=11)))
    (msg,) = messages(r)
    assert "uses v10" in msg and "no vmcnt wait before it, 63 VMEM ops in flight" in msg, msg


def test_paths_differing_only_in_retired_loads_join():
    """Two sides of a branch load v10 from different instructions; after 63 more loads the
    stall has retired both, so the states at the next label are equal and the second path
    joins the first. With 62 more, the loads are still in flight: both paths run to the end
    and the use is reported for each."""
    body = """
  s_load_dword s7, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  s_cmp_lg_u32 s7, 0
  s_cbranch_scc1 .LBB0_1
  global_load_dword v10, v1, s[0:1]
  s_branch .LBB0_2
.LBB0_1:
  global_load_dword v10, v1, s[0:1] offset:4
.LBB0_2:
{more}.LBB0_3:
  v_add_u32_e32 v7, v10, v1
  s_endpgm
"""
    r = check(body.format(more=loads(63, first=11)))
    assert not r.violations and r.paths == 2 and r.merged == 1, r.render()
    r = check(body.format(more=loads(62, first=11)))
    assert r.paths == 2 and not r.merged and len(r.violations) == 2, r.render()


def test_buffer_load_lds():
    body = """
  s_load_dwordx4 s[8:11], s[4:5], 0x10
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, s2
  buffer_load_dword v1, s[8:11], 0 offen offset:16 lds
  {wait}
  ds_read_b32 v3, v1 offset:{off}
  s_endpgm
"""
    r = check(body.format(wait="", off=16))
    (msg,) = messages(r)
    assert "LDS bytes [0x10, 0x110) written by line 11 `buffer_load_dword v1, s[8:11], 0 " \
           "offen offset:16 lds`" in msg, msg
    assert not check(body.format(wait="s_waitcnt vmcnt(0)", off=16)).violations
    # the DMA bytes of wave w are [256*w + 16, 256*w + 272): reading past them needs no wait
    assert not check(body.format(wait="", off=4096)).violations


def test_dma_footprints():
    w = aw.Wave({"exec_lo": aw.M32, "exec_hi": aw.M32, "m0": 0x100}, {})
    inst = aw.Inst(1, "global_load_lds_dwordx4 v1, s[0:1] offset:16")
    assert aw.footprints(w, inst) == (((0x110, 0x110 + 1024),), None)
    inst = aw.Inst(1, "global_load_lds_dword v1, s[0:1]")
    w.s["exec_hi"] = 0  # lanes 32..63 off
    assert aw.footprints(w, inst)[0] == ((0x100, 0x180),)
    ds = aw.Inst(1, "ds_read2st64_b32 v[2:3], v1 offset0:1 offset1:4")
    w.v["v1"] = [4 * l for l in range(64)]
    assert aw.footprints(w, ds)[1] == ((256, 384), (1024, 1152))


def test_alu_semantics():
    """The scalar/vector arithmetic LLVM uses for ring slots and LDS addresses."""
    w = aw.Wave({"exec_lo": aw.M32, "exec_hi": aw.M32, "s0": 7, "s9": aw.M32}, {
        "v0": list(range(64))})
    for text in (
            "s_add_i32 s1, s0, 2",                    # 9
            "s_mul_hi_i32 s3, s1, 0x55555556",        # 9 / 3 = 3 (magic number)
            "s_lshr_b32 s4, s3, 31",
            "s_add_i32 s3, s3, s4",
            "s_mul_i32 s3, s3, 3",
            "s_sub_i32 s1, s1, s3",                   # 9 % 3 = 0
            "s_mul_hi_u32 s5, s0, 0xaaaaaaab",
            "s_lshr_b32 s5, s5, 1",                   # 7 / 3 = 2
            "s_mulk_i32 s5, 0xf400",                  # 2 * -3072
            "s_cmp_lg_u32 s9, -1",                    # SCC = 0
            "s_cselect_b32 s6, 4, 5",
            "v_lshlrev_b32_e32 v1, 2, v0",
            "v_lshl_add_u32 v2, s0, 10, v1",
            "v_mbcnt_lo_u32_b32 v3, -1, 0",
            "v_mbcnt_hi_u32_b32 v3, -1, v3",          # lane id
            "v_cmp_gt_u32_e32 vcc, 10, v0",
            "v_cndmask_b32_e32 v4, 0, v1, vcc",
            "v_readfirstlane_b32 s7, v2",
            "s_mov_b32 m0, s7"):
        inst = aw.Inst(1, text)
        inst.handler(w, inst)
    assert (w.s["s1"], w.s["s5"], w.s["s6"], w.s["scc"]) == (0, (-6144) & aw.M32, 5, 0)
    assert w.v["v3"] == list(range(64)) and w.s["m0"] == 7 << 10
    assert w.v["v4"][:12] == [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 0, 0]
    assert w.s["vcc_lo"] == 0x3FF and w.s["vcc_hi"] == 0
    # gfx950's v_bitop3: bit i of D is bit (a_i b_i c_i) of the table; 0x36 is (a | c) ^ b,
    # 0x80 a & b & c, 0xfe a | b | c, 0x96 a ^ b ^ c (checked against Python's operators).
    w.v["v5"] = [l * 0x1357 & aw.M32 for l in range(64)]
    w.v["v6"] = [(l << 7 | 0x2A) & aw.M32 for l in range(64)]
    for table, want in ((0x36, lambda a, b, c: (a | c) ^ b), (0x80, lambda a, b, c: a & b & c),
                        (0xfe, lambda a, b, c: a | b | c), (0x96, lambda a, b, c: a ^ b ^ c)):
        inst = aw.Inst(1, f"v_bitop3_b32 v7, v0, v5, v6 bitop3:{table:#x}")
        inst.handler(w, inst)
        assert w.v["v7"] == [want(a, b, c) & aw.M32 for a, b, c in
                             zip(w.v["v0"], w.v["v5"], w.v["v6"])], hex(table)
    # unmodeled: its destination becomes UNKNOWN
    inst = aw.Inst(1, "v_cvt_f32_u32_e32 v1, v0")
    inst.handler(w, inst)
    assert "v1" not in w.v


def test_ds_write_and_read2():
    body = """
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  {wait}
  {access}
  s_endpgm
"""
    # writing bytes a copy may still write is a hazard too (WAW)
    assert check(body.format(wait="", access="ds_write_b32 v1, v1 offset:128")).violations
    assert not check(body.format(wait="", access="ds_write_b32 v1, v1 offset:1024")).violations
    # ds_read2st64_b32 reads vaddr + 256*offset0 and vaddr + 256*offset1
    r = check(body.format(wait="", access="ds_read2st64_b32 v[2:3], v1 offset0:4 offset1:16"))
    assert not r.violations  # 1024 and 4096 bytes up: past every wave's copy
    r = check(body.format(wait="", access="ds_read2st64_b32 v[2:3], v1 offset0:4 offset1:0"))
    assert r.violations


def test_unknown_m0_is_conservative():
    body = """
  s_load_dword s3, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, s3
  global_load_lds_dword v1, s[0:1]
  {wait}
  ds_read_b32 v3, v1 offset:0x8000
  s_endpgm
"""
    assert check(body.format(wait="")).violations  # any byte may have been written
    # ... by any wave: the other waves' reads need a barrier after the wait too
    assert "with no barrier between" in messages(check(body.format(wait="s_waitcnt vmcnt(0)")))[0]
    assert not check(body.format(wait="s_waitcnt vmcnt(0)\n  s_barrier")).violations
    # an unknown read address against a known copy: also a violation
    r = check("""
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  global_load_dword v2, v1, s[0:1]
  s_waitcnt vmcnt(0)
  s_barrier
  ds_read_b32 v3, v2
  s_endpgm
""")
    assert not r.violations  # the wait covers both, the barrier the other waves' copies
    r = check("""
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  v_mov_b32_e32 v2, s9
  ds_read_b32 v3, v2
  s_endpgm
""")
    # the copy's own bytes are named; the read races with this wave's copy and the others'
    assert {k[0] for k in r.violations} == {"same", "cross"}
    assert all("LDS bytes [0x" in m for m in messages(r))


CROSS = """
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  v_add_u32_e32 v2, 0x100, v1
  v_and_b32_e32 v2, 0x3ff, v2
  {sync}
  ds_read_b32 v3, v2
  s_endpgm
"""


def test_cross_wave_needs_wait_then_barrier():
    # wave w reads what wave w+1 copied
    r = check(CROSS.format(sync="s_waitcnt vmcnt(0)"))
    ((msg, count),) = r.violations.values()  # reported once, counted for each wave
    assert "(wave 3) accesses LDS bytes [0x0, 0x100)" in msg and "of wave 0" in msg, msg
    assert "retired at line 12 with no barrier between" in msg and count == 4
    r = check(CROSS.format(sync="s_waitcnt vmcnt(0)\n  s_barrier"))
    assert not r.violations and r.max_slack == 0
    assert wait_at(r, "s_waitcnt vmcnt(0)").guarding == 4
    # a barrier before the wait does not order the copy
    assert check(CROSS.format(sync="s_barrier\n  s_waitcnt vmcnt(0)")).violations
    # each wave reading only its own bytes needs no barrier
    own = CROSS.replace("0x100, v1", "0, v1")
    assert not check(own.format(sync="s_waitcnt vmcnt(0)")).violations


RING = """
  s_load_dword s7, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  s_add_u32 m0, s2, 0x400
  global_load_lds_dword v1, s[0:1]
  s_mov_b32 s6, 0
  s_mov_b32 s9, 0x800
  s_mov_b32 s10, 0
.LBB0_1:
  s_add_u32 m0, s2, s9
  global_load_lds_dword v1, s[0:1]
  s_waitcnt vmcnt({n})
  v_add_u32_e32 v2, s10, v1
  ds_read_b32 v3, v2
  s_add_u32 s9, s9, 0x400
  s_cmp_eq_u32 s9, 0xc00
  s_cselect_b32 s9, 0, s9
  s_add_u32 s10, s10, {step}
  s_cmp_eq_u32 s10, 0xc00
  s_cselect_b32 s10, 0, s10
  s_add_i32 s6, s6, 1
  s_cmp_lg_u32 s6, s7
  s_cbranch_scc1 .LBB0_1
  s_waitcnt vmcnt(0)
  s_endpgm
"""


def test_ring_loop():
    """3 slots of 1 KiB per wave group: iteration i copies into slot (i+2)%3 and reads
    slot i%3 (trip count unknown: 1, 2 or 3 trips are explored)."""
    r = check(RING.format(n=2, step="0x400"))
    assert not r.violations and r.max_slack == 0
    assert r.paths == 3 and wait_at(r, "s_waitcnt vmcnt(2)").visits == 4 * (1 + 2 + 3)
    assert r.summary().endswith("max slack 0, 1 guard nothing")  # the final vmcnt(0)
    r = check(RING.format(n=3, step="0x400"))
    # the read of slot i%3 with its copy still in flight, for each copy that fills it
    assert len(r.violations) == 3 and all("`ds_read_b32 v3, v2`" in m and "vmcnt(3) in force"
                                          in m for m in messages(r))
    assert check(RING.format(n=1, step="0x400")).max_slack == 1


def test_ring_bug_on_second_trip():
    # reading slot 0, then slot 2 (in flight on trip 2), ...: only the second trip fails
    body = RING.format(n=2, step="0x800")
    r = check(body)
    assert len(r.violations) == 1 and "LDS bytes [0x800, 0x900)" in messages(r)[0]
    assert not check(body, back_edges=0).violations  # one trip only: not found


def test_known_trip_count_is_followed():
    body = RING.format(n=2, step="0x400").replace("s_load_dword s7, s[4:5], 0x8",
                                                  "s_mov_b32 s7, 5")
    r = check(body)
    assert r.paths == 1 and wait_at(r, "s_waitcnt vmcnt(2)").visits == 4 * 5
    assert not r.violations


def test_masked_region_is_not_forked():
    """A region skipped by s_cbranch_execz runs once with its loads maybe issued: they
    count for nothing that retires older loads."""
    body = """
  s_load_dword s3, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc, s3, v0
  {first}
  s_and_saveexec_b64 s[6:7], vcc
  s_cbranch_execz .LBB0_2
  global_load_dword v5, v1, s[0:1]
.LBB0_2:
  s_or_b64 exec, exec, s[6:7]
  {second}
  s_waitcnt vmcnt(1)
  v_mov_b32_e32 v7, {use}
  s_and_saveexec_b64 s[6:7], vcc
  s_cbranch_execnz .LBB0_3
  s_endpgm
.LBB0_3:
  global_store_dword v1, v7, s[0:1]
  s_endpgm
"""
    load6 = "global_load_dword v6, v1, s[0:1]"
    # masked load then a sure one: vmcnt(1) retires the masked load if it ran
    r = check(body.format(first="", second=load6, use="v5"))
    assert not r.violations
    # the same mask decides the later branch the same way: 2 paths, not 4
    assert r.paths == 2
    # sure load then a masked one: if the region was skipped, vmcnt(1) keeps v6 in flight
    r = check(body.format(first=load6, second="", use="v6"))
    assert len(r.violations) == 1 and "uses v6" in messages(r)[0]


# --- symbolic lane masks -------------------------------------------------------------------


def run_insts(w, *texts):
    for text in texts:
        inst = aw.Inst(1, text)
        inst.handler(w, inst)
    return w


def full_wave():
    return aw.Wave({"exec_lo": aw.M32, "exec_hi": aw.M32}, {"v0": list(range(64))})


def test_mask_functions_restore_exec():
    """EXEC from an unknown compare is a function of one symbol per lane; the structurizer's
    else/join sequences give back the full mask, exactly."""
    for flip in (["s_andn2_saveexec_b64 s[0:1], s[0:1]"],
                 ["s_or_saveexec_b64 s[0:1], s[0:1]", "s_xor_b64 exec, exec, s[0:1]"]):
        w = run_insts(full_wave(), "v_cmp_le_i32_e32 vcc, s2, v0",  # s2 unknown
                      "s_and_saveexec_b64 s[0:1], vcc", "s_xor_b64 s[0:1], exec, s[0:1]")
        then = aw.rmask(w, aw.EXEC)
        assert isinstance(then, aw.Mask) and len(then.vars) == 1 and set(then.act) == {None}
        assert (w.s["s0"], w.s["s1"]) != (aw.M32, aw.M32) and aw.rs(w, ("r", "s", ("s0",))) is None
        run_insts(w, *flip)
        other = aw.rmask(w, aw.EXEC)  # the lanes of the other side: not-c
        assert aw._mop(aw._AND, then, other) == 0 and aw._mop(aw._OR, then, other) == aw.M64
        # integer reads of a mask half that is not constant are UNKNOWN
        run_insts(w, "s_mov_b32 s9, exec_lo", "v_add_u32_e32 v1, 1, v0")
        assert "s9" not in w.s and "v1" not in w.v  # each lane: v0 + 1 or UNKNOWN
        run_insts(w, "s_or_b64 exec, exec, s[0:1]", "s_mov_b32 s9, exec_lo",
                  "v_add_u32_e32 v1, 1, v0", "v_readfirstlane_b32 s10, v1")
        assert (w.s["exec_lo"], w.s["exec_hi"], w.s["s9"]) == (aw.M32, aw.M32, aw.M32)
        assert w.v["v1"] == list(range(1, 65)) and w.s["s10"] == 1


def test_mask_lanes_and_branches():
    w = run_insts(full_wave(), "v_cmp_gt_u32_e32 vcc, 40, v0",  # lanes 0..39: known
                  "s_and_saveexec_b64 s[0:1], vcc",
                  "v_cmp_gt_u32_e32 vcc, s2, v0",  # unknown, under EXEC = lanes 0..39
                  "v_mov_b32_e32 v1, 7")
    vcc = aw.rmask(w, aw.VCC)
    assert vcc.act == (None,) * 40 + (0,) * 24  # inactive lanes compare to 0
    assert w.v["v1"] == [7] * 40 + [None] * 24  # lanes 40..63 were UNKNOWN, stay so
    assert aw._cond(w, "s_cbranch_execz") is False  # constant: lanes 0..39 are active
    run_insts(w, "s_and_saveexec_b64 s[4:5], vcc", "v_mov_b32_e32 v1, 9")
    assert "v1" not in w.v  # lanes 0..39 maybe active: 7 or 9
    mask, zero_taken = aw._cond(w, "s_cbranch_execz")
    assert mask == vcc and zero_taken  # undecided: decided once per path by function
    assert aw._cond(w, "s_cbranch_scc1") == (vcc, False)  # SCC = "EXEC != 0"
    assert aw._cond(w, "s_cbranch_vccnz") == (vcc, False)
    # v_readfirstlane: lane 0 may be inactive, so lanes 0..39 (and lane 0) must agree
    run_insts(w, "v_mov_b32_e32 v2, 5", "v_readfirstlane_b32 s6, v2")
    assert "s6" not in w.s  # v2 of lanes 0..39 is 5 or UNKNOWN
    run_insts(w, "s_mov_b64 exec, s[0:1]", "v_mov_b32_e32 v2, 5", "s_and_saveexec_b64 s[4:5], vcc",
              "v_readfirstlane_b32 s6, v2")
    assert w.s["s6"] == 5
    # an UNKNOWN mask register reads as a fresh symbol, the same each time
    m1 = aw.rmask(w, ("r", "s", ("s20", "s21")), True)
    assert isinstance(m1, aw.Mask) and aw.rmask(w, ("r", "s", ("s20", "s21"))) == m1
    run_insts(w, "s_xor_b64 s[22:23], s[20:21], s[20:21]", "s_andn2_b64 s[24:25], s[20:21], s[20:21]")
    assert (w.s["s22"], w.s["s23"], w.s["s24"], w.s["s25"], w.s["scc"]) == (0, 0, 0, 0, 0)


def test_mask_algebra_is_sound():
    """Random lane-mask expressions, symbolic against concrete evaluation, including past
    the symbol cap (where fresh symbols stand for the lanes no constant fixes)."""
    import random

    def value(m, vals):
        if isinstance(m, int):
            return m
        return sum((t >> sum((vals[v] >> l & 1) << j for j, v in enumerate(m.vars)) & 1) << l
                   for l, t in enumerate(m.tts))

    rng, ops, wide = random.Random(7), list(aw._LOGIC.values()), 0
    for _ in range(60):
        vals, regs = {}, []
        for _ in range(rng.randint(4, 12)):
            m = aw._fresh([rng.choice([0, 1, None, None, None, None]) for _ in range(64)])
            if isinstance(m, aw.Mask):
                vals[m.vars[0]] = rng.getrandbits(64)
            regs.append((m, value(m, vals)))
        for _ in range(25):
            f, (a, ca), (b, cb) = rng.choice(ops), rng.choice(regs), rng.choice(regs)
            r, cr = aw._mop(f, a, b), f(ca, cb, aw.M64) & aw.M64
            for v in getattr(r, "vars", ()):
                if v not in vals:  # a fallback symbol: lane l stands for the true bit
                    wide += 1
                    vals[v] = cr
            assert len(getattr(r, "vars", ())) <= aw.CAP
            assert all(c is None or c == cr >> l & 1 for l, c in enumerate(aw._act(r)))
            assert value(r, vals) == cr
            regs.append((r, cr))
    assert wide > 10  # the fallback was exercised


MASKED = """
  s_load_dword s3, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  v_cmp_le_i32_e32 vcc, s3, v0
  s_and_saveexec_b64 s[6:7], vcc
  s_xor_b64 s[6:7], exec, s[6:7]
  v_mov_b32_e32 v4, 2.0
  ds_write_b32 v1, v4
  {flip}
  s_cbranch_execz .LBB0_2
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
  {extra}
.LBB0_2:
  s_or_b64 exec, exec, s[6:7]
  v_add_u32_e32 v2, 0x400, v1
  v_readfirstlane_b32 s8, v2
  s_and_saveexec_b64 s[6:7], vcc
  s_xor_b64 s[6:7], exec, s[6:7]
  v_mov_b32_e32 v4, 2.0
  ds_write_b32 v2, v4
  s_andn2_saveexec_b64 s[6:7], s[6:7]
  s_cbranch_execz .LBB0_4
  s_mov_b32 m0, s8
  global_load_lds_dword v1, s[0:1]
.LBB0_4:
  s_or_b64 exec, exec, s[6:7]
  v_xor_b32_e32 v5, 0x100, v1
  s_waitcnt {wait}
  {barrier}
  ds_read_b32 v3, v5
  s_waitcnt vmcnt(0)
  s_barrier
  ds_read_b32 v6, v5 offset:1024
  s_endpgm
"""
ANDN2 = "s_andn2_saveexec_b64 s[6:7], s[6:7]"
OR_XOR = "s_or_saveexec_b64 s[6:7], s[6:7]\n  s_xor_b64 exec, exec, s[6:7]"


def masked(flip=ANDN2, extra="", wait="vmcnt(0)", barrier="s_barrier"):
    return check(MASKED.format(flip=flip, extra=extra, wait=wait, barrier=barrier))


def test_masked_copy_with_fill():
    """Lanes with n <= id store a fill at their slot, the others copy into it (a branch),
    twice; the second block's M0 and addresses are exact only if EXEC is restored. The
    read crosses waves (w ^ 1): a wait, then a barrier."""
    for flip in (ANDN2, OR_XOR):
        r = masked(flip)
        assert r.summary() == "vmcnt-check: kernel k: 2 waits, 0 violations, max slack 0, " \
                              "1 guard nothing", r.render()
        assert r.paths == 1
        (first, second) = sorted(r.waits.values(), key=lambda s: s.inst.line)
        assert first.slack == 0 and first.guarding == 4 and not second.guarding


def test_masked_copy_negative_controls():
    # no barrier after the wait: wave 1 reads wave 0's copied bytes
    r = masked(barrier="")
    (msg,) = messages(r)
    assert "`ds_read_b32 v3, v5` (wave 1) accesses LDS bytes [0x0, 0x100) written by " \
           "line 18 `global_load_lds_dword v1, s[0:1]` of wave 0" in msg, msg
    # vmcnt(1): a wave whose lanes all fill skips the second copy, leaving the first in flight
    r = masked(wait="vmcnt(1)")
    assert r.violations and all("line 18 `global_load_lds_dword" in m for m in messages(r))
    # the copying lanes writing the bytes they copy into, the copy in flight
    r = masked(extra="ds_write_b32 v1, v4")
    (msg,) = messages(r)
    assert msg.startswith("line 19: `ds_write_b32 v1, v4` accesses LDS bytes [0x0, 0x100) "
                          "written by line 18"), msg


REVERSED = """
  s_load_dword s3, s[4:5], 0x8
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_i32_e32 vcc, s3, v0
  s_and_saveexec_b64 s[6:7], vcc
  s_xor_b64 s[6:7], exec, s[6:7]
  s_cbranch_execz .LBB0_2
  s_mov_b32 m0, s2
  global_load_lds_dword v1, s[0:1]
.LBB0_2:
  {flip}
  s_cbranch_execz .LBB0_4
  v_mov_b32_e32 v4, 2.0
  ds_write_b32 v1, v4 offset:{off}
.LBB0_4:
  s_or_b64 exec, exec, s[6:7]
  s_waitcnt vmcnt(0)
  s_barrier
  ds_read_b32 v3, v1
  s_endpgm
"""


def test_copy_then_fill_by_the_other_lanes():
    """The copy first, the fill (still in flight for the copying lanes) by the other lanes
    at their own slots: no lane both copies and fills."""
    for flip in (ANDN2, OR_XOR):
        r = check(REVERSED.format(flip=flip, off=0))
        assert not r.violations and r.max_slack == 0, r.render()
    same = "line 20: `ds_write_b32 v1, v4 offset:{}` accesses LDS bytes [0x{}, 0x100) written " \
           "by line 15 `global_load_lds_dword v1, s[0:1]`, still in flight (wave 0)"
    # the fill of lane l hits lane l+1's copy: a conflict
    r = check(REVERSED.format(flip=ANDN2, off=4))
    assert any(m.startswith(same.format(4, 4)) for m in messages(r)), r.render()
    # the fill under the copy's own EXEC (no flip): a conflict
    r = check(REVERSED.format(flip="s_mov_b64 exec, vcc", off=0))
    assert any(m.startswith(same.format(0, 0)) for m in messages(r)), r.render()


def test_waves_from_metadata_and_flag():
    meta = """
  .amdgpu_metadata
---
amdhsa.kernels:
  - .max_flat_workgroup_size: 96
    .name:           k
...
  .end_amdgpu_metadata
"""
    text = HEAD + CROSS.format(sync="s_waitcnt vmcnt(0)\n  s_barrier") + meta
    (r,) = aw.check(text)
    assert r.waves == 2 and r.size == 96
    (r,) = aw.check(text, waves=8)
    assert r.waves == 8


def test_cli(tmp_path, capsys):
    f = tmp_path / "k.s"
    f.write_text(HEAD + TWO_GROUPS.format(wait="vmcnt(2)"))
    assert aw.main([str(f)]) == 1
    out = capsys.readouterr().out
    # the wait retires nothing: it also guards nothing
    assert out.splitlines()[-1] == ("vmcnt-check: kernel k: 1 waits, 1 violations, max slack 0, "
                                    "1 guard nothing")
    assert "error: line 13" in out
    f.write_text(HEAD + TWO_GROUPS.format(wait="vmcnt(0)"))
    assert aw.main([str(f), "-v"]) == 0
    assert "slack 1: vmcnt(1) would still be safe" in capsys.readouterr().out


# --- real assembly ------------------------------------------------------------------------


def compile_amdgcn(mlir, target="hip:gfx942"):
    if not os.access(os.path.join(BIN, "kiln-opt"), os.X_OK):
        pytest.skip("build/bin/kiln-opt is not built")
    llvm = subprocess.run([os.path.join(BIN, "kiln-opt"), mlir, f"--kiln-to-llvm=target={target}"],
                          check=True, capture_output=True, text=True).stdout
    return subprocess.run([os.path.join(BIN, "kiln-translate"), f"--target={target}",
                           "--emit=amdgcn", "-"], input=llvm, check=True,
                          capture_output=True, text=True).stdout


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_real_two_groups(target):
    asm = compile_amdgcn(os.path.join(ROOT, "third_party", "amd", "test", "Conversion",
                                      "async-copy-vmcnt.mlir"), target)
    (r,) = aw.check(asm)
    assert r.waves == 4 and not r.violations and len(r.waits) == 2
    # Kiln's wait_group(1) -> vmcnt(4) is exact
    assert wait_at(r, "s_waitcnt vmcnt(4)").slack == 0
    # one copy more in flight: the ds_read of the first group is caught
    (bad,) = aw.check(re.sub(r"vmcnt\(4\)", "vmcnt(5)", asm))
    assert any("ds_read_b32" in m and "global_load_lds_dword" in m and "vmcnt(5) in force" in m
               for m in messages(bad))


def test_real_ring():
    """The lit test's ring (3 slots, copies into slot (i+2)%3, wait_group(2), reads of slot
    i%3 in an scf.for with an unknown trip count)."""
    asm = compile_amdgcn(os.path.join(ROOT, "third_party", "amd", "test", "Target",
                                      "vmcnt-check.mlir"))
    (r,) = aw.check(asm, kernel="ring")
    assert not r.violations and r.paths == 4  # 0, 1, 2 or 3 trips
    (bad,) = aw.check(re.sub(r"vmcnt\(\d+\)", "vmcnt(3)", asm), kernel="ring")
    assert bad.violations and all("vmcnt(3) in force" in m for m in messages(bad))
