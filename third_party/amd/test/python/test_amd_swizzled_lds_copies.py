"""Direct-to-LDS copies into swizzled buffers. The hardware writes lane i of a wave at one LDS
base (M0) + i x width, so where a ``SwizzledSharedLayout`` puts a wave's elements in its
window of slots in another order, each lane must load the element whose slot it writes: Kiln
exchanges the source offsets (and masks) between lanes before the copy.

Judged without Kiln's arithmetic: the independent wait checker
(third_party/amd/tools/amdgcn_waits.py) runs the final assembly lane by lane (``ds_bpermute``
included) and logs every LDS-DMA write with the lane's source offset; a model of the swizzle
written here from Gluon's definition (phase = row // per_phase % max_phase, the column's
vector index XOR the phase) says where each element of the source belongs. Every element
must land exactly there, exactly once."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp

import amdgcn_waits
import compiled

pytestmark = compiled.needs_compiler

ELEM = {"u8": (kl.uint8, 1), "bf16": (kl.bfloat16, 2), "fp32": (kl.float32, 4),
        "fp16": (kl.float16, 2)}
OUT_OF_RANGE = None  # the offset a masked lane gets: whatever it is, not a valid one


@kiln.jit
def tile_copy(X, out, off0, R: kl.constexpr, C: kl.constexpr, K: kl.constexpr,
              DT: kl.constexpr, L: kl.constexpr, S: kl.constexpr, ROWS: kl.constexpr,
              FORM: kl.constexpr):
    r = kl.arange(0, R, kl.SliceLayout(1, L))
    c = kl.arange(0, C, kl.SliceLayout(0, L))
    offs = r[:, None] * K + c[None, :]
    if FORM == "ring":
        ring = kl.allocate_shared_memory(DT, (2, R, C), S)
        smem = ring.index(1)
    else:
        smem = kl.allocate_shared_memory(DT, (R, C), S)
    mask = (r[:, None] < ROWS) & (c[None, :] < C)
    if FORM == "global":
        acp.global_load_to_shared(smem, X + offs)
    elif FORM == "masked":
        acp.buffer_load_to_shared(smem, X, offs, mask=mask)
    elif FORM == "other":
        acp.buffer_load_to_shared(smem, X, offs, mask=mask, other=1)
    else:
        acp.buffer_load_to_shared(smem, X, offs)
    acp.commit_group()
    acp.wait_group(0)
    v = smem.load(L)
    kl.store(out + r[:, None] * C + c[None, :], v)


def swizzled_offset(r, c, C, vec, per_phase, max_phase):
    """Gluon's SwizzledSharedLayout, row-major: the column's vector index XOR the phase."""
    phase = (r // per_phase) % max_phase
    return r * C + ((c // vec) ^ phase) * vec + c % vec


# (target, dtype, shape, blocked layout (size, threads, warps), swizzle (vec, per, max), warps)
CASES = {
    # an MXFP4 MoE's byte weights, 16 bytes a lane (gfx950)
    "u8_16B": ("hip:gfx950", "u8", (32, 128), ([1, 16], [8, 8], [4, 1]), (16, 1, 8), 4),
    # an MLA decode's bf16 rows, two rows a phase
    "bf16_16B": ("hip:gfx950", "bf16", (64, 64), ([1, 8], [8, 8], [4, 1]), (8, 2, 8), 4),
    # a wave holds two rows: the warps' rows move the phase (the exchange depends on the warp)
    "fp32_16B_warps": ("hip:gfx950", "fp32", (8, 128), ([1, 4], [2, 32], [4, 1]), (4, 1, 8), 4),
    # a wave holds one row per register: the registers' rows move the phase (gfx942, 4 bytes)
    "fp32_4B_registers": ("hip:gfx942", "fp32", (16, 64), ([1, 1], [1, 64], [4, 1]), (1, 1, 8), 4),
    # two halves a lane (gfx942)
    "fp16_4B": ("hip:gfx942", "fp16", (16, 128), ([1, 2], [1, 64], [4, 1]), (2, 1, 4), 4),
    # one wave
    "bf16_one_wave": ("hip:gfx950", "bf16", (16, 64), ([1, 8], [8, 8], [1, 1]), (8, 1, 8), 1),
}
K = 3072  # the source's row stride (elements)


def compile_case(name, form="plain", rows=None):
    target, dt, (R, C), (spt, tpw, wpc), (vec, per, mx), warps = CASES[name]
    dtype, eb = ELEM[dt]
    layout = kl.BlockedLayout(spt, tpw, wpc, [1, 0])
    shared = kl.SwizzledSharedLayout(vec, per, mx, [1, 0])
    k = kiln.compile(tile_copy, {"X": f"*{dt}:16", "out": f"*{dt}:16", "off0": "i32"},
                     dict(R=R, C=C, K=K, DT=dtype, L=layout, S=shared,
                          ROWS=R if rows is None else rows, FORM=form),
                     target=target, num_warps=warps, cache=False)
    return k, (R, C, eb, vec, per, mx)


def landed(asm):
    """{LDS byte: (source element offset or None for out of range, bytes)} of every DMA
    write, checking each byte is written once and the waits are safe."""
    (rep,) = amdgcn_waits.check(asm)
    assert not rep.violations, rep.summary()
    writes = {}
    for pc, wave, lane, lds, size, regs, soff in sorted(rep.dma_writes):
        assert lds is not None, f"M0 unresolved at wave {wave} lane {lane}"
        assert lds not in writes, f"LDS byte {lds} written twice"
        writes[lds] = (regs, soff, size)
    return writes


def check_placement(writes, geom, rows=None, base=None, voff=lambda regs, soff: regs[0]):
    R, C, eb, vec, per, mx = geom
    rows = R if rows is None else rows
    lo = min(writes) if base is None else base
    seen = set()
    for lds, (regs, soff, size) in writes.items():
        src = voff(regs, soff)
        assert src is not None, f"source offset unknown at LDS {lds}"
        slot = (lds - lo) // eb
        if src >= K * R * eb:  # masked by address: its slot must hold a masked element
            for i in range(size // eb):
                r = (slot + i) // C
                assert r >= rows, f"slot {slot + i} (row {r}) read out of range"
                seen.add(slot + i)
            continue
        assert src % eb == 0
        r, c = divmod(src // eb, K)
        for i in range(size // eb):
            want = swizzled_offset(r, c + i, C, vec, per, mx)
            assert want == slot + i, (
                f"element ({r}, {c + i}) landed at slot {slot + i}, belongs at {want}")
            assert r < rows, f"masked row {r} copied"
            seen.add(want)
    return seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_element_lands_in_its_swizzled_slot(name):
    k, geom = compile_case(name)
    asm = k.asm["amdgcn"]
    assert "ds_bpermute_b32" in asm  # the lanes exchange offsets
    seen = check_placement(landed(asm), geom)
    R, C = geom[:2]
    assert seen == set(range(R * C))


def test_ring_slot():
    """A slot of a two-slot ring: the window sits one slot further; every element still lands
    in its place."""
    k, geom = compile_case("u8_16B", form="ring")
    writes = landed(k.asm["amdgcn"])
    R, C = geom[:2]
    assert min(writes) % (R * C) == 0 and min(writes) >= R * C
    assert check_placement(writes, geom) == set(range(R * C))


def test_masked_by_address():
    """Rows past 20 masked: their lanes' offsets are out of range (the hardware writes zeros)
    and exchanged with the rest, so each masked element's slot gets the out-of-range read."""
    k, geom = compile_case("u8_16B", form="masked", rows=20)
    seen = check_placement(landed(k.asm["amdgcn"]), geom, rows=20)
    assert seen == set(range(32 * 128))


def test_masked_with_other_branches_by_the_slots_element():
    """A non-zero ``other``: lanes copy where their slot's element is in range and store
    ``other`` at their own element's slot otherwise (ds_write, not logged): the copies land
    exactly on the unmasked elements' slots."""
    k, geom = compile_case("bf16_16B", form="other", rows=40)
    writes = landed(k.asm["amdgcn"])
    R, C = geom[:2]
    seen = check_placement(writes, geom, rows=40, base=0)
    assert seen == set(range(40 * C))


def test_pointer_copies():
    """global_load_to_shared (pointers, not a buffer): the pointers are exchanged."""
    k, geom = compile_case("u8_16B", form="global")
    asm = k.asm["amdgcn"]
    assert "global_load_lds_dwordx4" in asm and "ds_bpermute_b32" in asm
    (rep,) = amdgcn_waits.check(asm)
    assert not rep.violations, rep.summary()
    assert all(w[3] is not None for w in rep.dma_writes)
    assert len({w[3] for w in rep.dma_writes}) == 32 * 128 // 16


def test_unswizzled_copies_exchange_nothing():
    """The same copy into an unswizzled buffer: lanes already write their own slots."""
    target, dt, shape, lay, _, warps = CASES["u8_16B"]
    CASES["_plain"] = (target, dt, shape, lay, (1, 1, 1), warps)
    try:
        k, geom = compile_case("_plain")
    finally:
        del CASES["_plain"]
    asm = k.asm["amdgcn"]
    assert "ds_bpermute" not in asm
    assert check_placement(landed(asm), geom) == set(range(32 * 128))
