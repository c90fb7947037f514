"""The AMD DSL (Gluon's ``amd.cdna3`` / ``amd.cdna4``) without a GPU: the tile_amd ops it
emits, the assembly (buffer instructions, direct-to-LDS copies, exact vmcnt waits), argument
errors at the user's line, and the NBUF=3 ring checked by the independent vmcnt simulator
(third_party/amd/tools/amdgcn_waits.py) for every variant."""

from __future__ import annotations

import os
import re
import struct

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3, cdna4
from kiln.language.amd.cdna4 import async_copy as acp
import amdgcn_waits

import compiled  # examples/ on sys.path
import located

from kernels import amd_stream_ring  # noqa: E402  (examples/kernels.py)

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
L1 = kl.BlockedLayout([1], [64], [4], [0])
L4 = kl.BlockedLayout([4], [64], [4], [0])
SH = kl.SwizzledSharedLayout(1, 1, 1, [0])
SIG = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32"}


@kiln.jit
def buffer_copy(x, y, n, BLOCK: kl.constexpr, L: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    v = cdna3.buffer_load(x, offs, mask=offs < n, other=2.0, cache=".cg")
    cdna3.buffer_store(v * 3.0, y, offs, mask=offs < n)


def test_buffer_load_store_ops_and_assembly():
    k = kiln.compile(buffer_copy, SIG, dict(BLOCK=1024, L=L4), target="hip:gfx942",
                     cache=False)
    assert "tile_amd.buffer_load " in k.asm["tile"] and "tile_amd.buffer_store " in \
        k.asm["tile"]
    asm = k.asm["amdgcn"]
    assert len(re.findall(r"buffer_load_dword\b.* offen sc0", asm)) == 4, asm
    assert len(re.findall(r"buffer_store_dword\b.* offen", asm)) == 4, asm
    # The mask is an out-of-range offset: no branch around the accesses.
    assert "s_cbranch_execz" not in asm


def test_buffer_ops_vectorize_without_mask():
    @kiln.jit
    def unmasked(x, y, n, L: kl.constexpr):
        offs = kl.program_id(0) * 1024 + kl.arange(0, 1024, L)
        cdna3.buffer_store(cdna3.buffer_load(x, offs), y, offs)

    asm = kiln.compile(unmasked, SIG, dict(L=L4), target="hip:gfx942", cache=False).asm["amdgcn"]
    assert "buffer_load_dwordx4" in asm and "buffer_store_dwordx4" in asm, asm


def test_buffer_load_reads_other_where_masked():
    k = kiln.compile(buffer_copy, SIG, dict(BLOCK=256, L=L1), target="hip:gfx950", cache=False)
    llvm = k.asm["llvm_dialect"]
    assert "rocdl.make.buffer.rsrc" in llvm and "-2147483648" in llvm  # the out-of-range offset
    assert re.search(r"llvm.select .*: i1, f32", llvm), "other selected where masked"


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("buffer_copy_", [True, False])
@pytest.mark.parametrize("relaxed", [True, False])
@pytest.mark.parametrize("store", [False, True])
def test_ring_variants_pass_the_vmcnt_check(target, buffer_copy_, relaxed, store):
    """NBUF=3 ring: the steady-state loop has no vmcnt(0), Kiln's wait is the only vmcnt
    wait before the LDS reads, and the simulator finds no read of an in-flight copy."""
    spt = 4 if target.endswith("gfx950") else 1
    k = kiln.compile(amd_stream_ring, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                     dict(BLOCK=1024, NBUF=3, L=kl.BlockedLayout([spt], [64], [4], [0]), SH=SH,
                          BUFFER_COPY=buffer_copy_, RELAXED=relaxed, STORE=store),
                     target=target, cache=False)
    tile = k.asm["tile"]
    assert ("tile_amd.buffer_load_to_local" in tile) == buffer_copy_
    asm = k.asm["amdgcn"]
    copy = {("hip:gfx942", True): r"buffer_load_dword \S+, s\[\d+:\d+\], 0 offen lds",
            ("hip:gfx942", False): r"global_load_lds_dword\b",
            ("hip:gfx950", True): r"buffer_load_dwordx4 \S+, s\[\d+:\d+\], 0 offen lds",
            ("hip:gfx950", False): r"global_load_lds_dwordx4\b"}[(target, buffer_copy_)]
    assert re.search(copy, asm), asm
    loop = _loop_body(asm)
    waits = [l for l in loop if "vmcnt(" in l]
    assert waits and not any("vmcnt(0)" in w for w in waits), waits
    ok, summary = vmcnt_check(asm)
    assert ok and "max slack 0" in summary, summary
    # Raising the loop's wait by one must be caught (the check can fail).
    bad = asm.replace(waits[0], re.sub(r"vmcnt\((\d+)\)",
                                       lambda m: f"vmcnt({int(m.group(1)) + 1})", waits[0]), 1)
    assert not vmcnt_check(bad)[0]


@kiln.jit
def global_copy_cached(x, y, CACHE: kl.constexpr, L: kl.constexpr):
    offs = kl.arange(0, 1024, L)
    buf = kl.allocate_shared_memory(kl.float32, [1024], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    acp.global_load_to_shared(buf, x + offs, cache_modifier=CACHE)
    acp.commit_group()
    acp.wait_group(0)
    kl.store(y + offs, buf.load(L))


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("cache,bits", [("", ""), (".ca", ""), (".cg", " sc0"),
                                        (".cv", " sc0 sc1")])
def test_global_load_to_shared_cache_policy(target, cache, bits):
    """cache_modifier on global_load_lds sets the instruction's cache bits, as on a buffer
    load: ".cg" (skip the CU's cache) is sc0, ".cv" (skip every cache) sc0 sc1, at any copy
    width."""
    spt = 4 if target.endswith("gfx950") else 1
    k = kiln.compile(global_copy_cached, {"x": "*fp32:16", "y": "*fp32:16"},
                     dict(CACHE=cache, L=kl.BlockedLayout([spt], [64], [4], [0])),
                     target=target, cache=False)
    copies = re.findall(r"global_load_lds_dword\w*[^\n]*", k.asm["amdgcn"])
    assert copies and all(c.endswith(bits) if bits else " sc" not in c for c in copies), \
        copies


def vmcnt_check(asm):
    """(no violation, summary lines) from the independent simulator."""
    reports = amdgcn_waits.check(asm)
    assert reports, "no kernel in the assembly"
    return (not any(r.violations for r in reports),
            "; ".join(r.summary() for r in reports))


_WIDE_RINGS = [(t, *ring) for t in ("hip:gfx942", "hip:gfx950")
               for ring in [(2048, False, 3), (2048, True, 3), (4096, False, 3),
                            (4096, True, 3), (2048, False, 4), (4096, False, 4),
                            (4096, True, 2)]]
# 96 KiB of LDS (gfx950 only): 128 copies a group, whose LDS bases the register allocator
# spills to VGPR lanes (v_writelane/v_readlane), which the simulator follows.
_WIDE_RINGS.append(("hip:gfx950", 8192, False, 3))


@pytest.mark.parametrize("target,block,store,nbuf", _WIDE_RINGS)
def test_wide_ring_waits_stay_encodable(target, block, store, nbuf):
    """One wave, one float per lane: each group is block / 64 copy instructions, so the loop's
    wait lets 32, 64 or 128 instructions (the next group, and with STORE the last
    iteration's stores) stay in flight.
    gfx9's vmcnt is 6 bits and vmcnt(63) waits for nothing: past 62 the wait is capped at
    62 (stricter). The independent simulator over the final assembly finds no read of an
    in-flight copy. With 63 or more in flight a wave stalls at issue until the oldest
    retires, so the group read has retired before the capped wait, and vmcnt(63) in its
    place is safe too; with the loop cut to 62 copies in flight, the capped wait is what
    retires the group, and vmcnt(63) in its place is caught."""
    k = kiln.compile(amd_stream_ring, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                     dict(BLOCK=block, NBUF=nbuf, L=kl.BlockedLayout([1], [64], [1], [0]),
                          SH=SH, BUFFER_COPY=True, RELAXED=False, STORE=store),
                     target=target, num_warps=1, cache=False)
    asm = k.asm["amdgcn"]
    counts = [int(c) for c in re.findall(r"vmcnt\((\d+)\)", asm)]
    assert counts and max(counts) <= 62, counts
    ok, summary = vmcnt_check(asm)
    assert ok, summary
    # The next group's copies (the pass counts stores at their fewest instructions).
    in_flight = (nbuf - 2) * block // 64
    waits = [l for l in _loop_body(asm) if "vmcnt(" in l]
    if in_flight > 62:
        capped = [w for w in waits if "vmcnt(62)" in w]
        assert capped, waits
        _check_capped_wait(asm, capped[0], 62 // (nbuf - 2))


def _check_capped_wait(asm, capped, keep):
    """A loop whose wait is capped at vmcnt(62) with 63 or more VMEM instructions issued
    after the group it reads: the issue stall retires the group first, so vmcnt(63) (no
    wait) in its place is safe. Cut to `keep` copies a trip (62 in flight at the wait), the
    capped wait is needed, and vmcnt(63) in its place must be caught."""
    def no_wait(text):
        return text.replace(capped, capped.replace("vmcnt(62)", "vmcnt(63)"), 1)
    ok, summary = vmcnt_check(no_wait(asm))
    assert ok, summary
    thin = _loop_copies_only(asm, keep)
    (r,) = amdgcn_waits.check(thin)
    assert not r.violations and any(s.guarding for s in r.waits.values()
                                    if s.inst.text == " ".join(capped.split())), r.render()
    assert not vmcnt_check(no_wait(thin))[0], \
        "a vmcnt(63) with 62 copies in flight waits for nothing and must be caught"
    # one copy more a trip (63 or more in flight): the stall retires the group first
    assert vmcnt_check(no_wait(_loop_copies_only(asm, keep + 1)))[0]


def _loop_copies_only(asm, keep):
    """asm with the loop's VMEM instructions cut to its first `keep` direct-to-LDS copies
    (its stores and later copies dropped)."""
    body, lines, out, copies = _loop_body(asm), asm.splitlines(), [], 0
    stripped = [l.strip() for l in lines]
    start = next(i for i in range(len(lines)) if stripped[i:i + len(body)] == body)
    for i, line in enumerate(lines):
        if start <= i < start + len(body) and re.match(r"(buffer|global)_", stripped[i]):
            copy = re.match(r"global_load_lds_|buffer_load_\S+ .* lds$", stripped[i])
            copies += bool(copy)
            if not copy or copies > keep:
                continue
        out.append(line)
    return "\n".join(out) + "\n"


W1 = kl.BlockedLayout([1], [64], [1], [0])  # one wave, one float per lane


@kiln.jit
def _ring_copy(ring, a, base, slot, BLOCK: kl.constexpr):
    acp.buffer_load_to_shared(ring.index(slot), a, base + kl.arange(0, BLOCK, W1))


@kiln.jit
def _ring_read(ring, c, base, slot, BLOCK: kl.constexpr):
    kl.store(c + base + kl.arange(0, BLOCK, W1), ring.index(slot).load(W1))


@kiln.jit
def ring_of_63(a, c, n_tiles):
    """A 3-stage ring whose every group is six copies of 2048, 1024, 512, 256, 128 and 64
    floats: 32 + 16 + 8 + 4 + 2 + 1 = 63 copy instructions per group per wave."""
    r0 = kl.allocate_shared_memory(kl.float32, [3, 2048], SH)
    r1 = kl.allocate_shared_memory(kl.float32, [3, 1024], SH)
    r2 = kl.allocate_shared_memory(kl.float32, [3, 512], SH)
    r3 = kl.allocate_shared_memory(kl.float32, [3, 256], SH)
    r4 = kl.allocate_shared_memory(kl.float32, [3, 128], SH)
    r5 = kl.allocate_shared_memory(kl.float32, [3, 64], SH)
    for s in kl.static_range(2):
        _ring_copy(r0, a, s * 4032, s, 2048)
        _ring_copy(r1, a, s * 4032 + 2048, s, 1024)
        _ring_copy(r2, a, s * 4032 + 3072, s, 512)
        _ring_copy(r3, a, s * 4032 + 3584, s, 256)
        _ring_copy(r4, a, s * 4032 + 3840, s, 128)
        _ring_copy(r5, a, s * 4032 + 3968, s, 64)
        acp.commit_group()
    for k in range(n_tiles):
        acp.wait_group(1)
        cur = k % 3
        _ring_read(r0, c, k * 4032, cur, 2048)
        _ring_read(r1, c, k * 4032 + 2048, cur, 1024)
        _ring_read(r2, c, k * 4032 + 3072, cur, 512)
        _ring_read(r3, c, k * 4032 + 3584, cur, 256)
        _ring_read(r4, c, k * 4032 + 3840, cur, 128)
        _ring_read(r5, c, k * 4032 + 3968, cur, 64)
        nxt = (k + 2) % 3
        _ring_copy(r0, a, (k + 2) * 4032, nxt, 2048)
        _ring_copy(r1, a, (k + 2) * 4032 + 2048, nxt, 1024)
        _ring_copy(r2, a, (k + 2) * 4032 + 3072, nxt, 512)
        _ring_copy(r3, a, (k + 2) * 4032 + 3584, nxt, 256)
        _ring_copy(r4, a, (k + 2) * 4032 + 3840, nxt, 128)
        _ring_copy(r5, a, (k + 2) * 4032 + 3968, nxt, 64)
        acp.commit_group()
    acp.wait_group(0)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_ring_of_63_copies_per_group(target):
    """63 copy instructions may stay in flight: one more than the largest vmcnt that waits
    (62), so the wait is capped at 62; the simulator finds no read of an in-flight copy.
    63 in flight is also where the issue stall retires the group read before the wait."""
    k = kiln.compile(ring_of_63, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"}, {},
                     target=target, num_warps=1, cache=False)
    asm = k.asm["amdgcn"]
    assert len(re.findall(r"buffer_load_dword\b.* offen lds", asm)) >= 63 * 3
    waits = [l for l in _loop_body(asm) if "vmcnt(" in l]
    assert any("vmcnt(62)" in w for w in waits), waits
    ok, summary = vmcnt_check(asm)
    assert ok, summary
    _check_capped_wait(asm, next(w for w in waits if "vmcnt(62)" in w), 62)


def _loop_body(asm):
    lines = [l.strip() for l in asm.splitlines()]
    labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\.LBB\w+:$", l)}
    for i, l in enumerate(lines):
        m = re.match(r"^s_cbranch\w*\s+(\.LBB\w+)", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            return lines[labels[m.group(1)]:i + 1]
    raise AssertionError("no loop in the assembly")


def test_plain_load_gets_alias_scopes_like_relaxed():
    """A plain .load() after the wait is marked as the relaxed one is (Kiln proves the wait
    covers it), so both compile to the same waits."""
    def waits(relaxed):
        k = kiln.compile(amd_stream_ring, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                         dict(BLOCK=1024, NBUF=3, L=L1, SH=SH, BUFFER_COPY=True,
                              RELAXED=relaxed, STORE=True), target="hip:gfx942", cache=False)
        return [l for l in _loop_body(k.asm["amdgcn"]) if l.startswith("s_waitcnt")]
    assert waits(True) == waits(False)


@kiln.jit
def masked_fill(x, y, n, BUFFER_COPY: kl.constexpr, OTHER: kl.constexpr, L: kl.constexpr,
                R: kl.constexpr):
    offs = kl.arange(0, 256, L)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    if BUFFER_COPY:
        acp.buffer_load_to_shared(buf, x, offs, mask=offs < n, other=OTHER)
    else:
        acp.global_load_to_shared(buf, x + offs, mask=offs < n, other=OTHER)
    acp.commit_group()
    acp.wait_group(0)
    v = buf.load(R)
    kl.store(y + kl.arange(0, 256, R), v)


# Waves 1 and 2 swapped: the read-back crosses waves (a barrier after the wait).
_SWAP = kl.DistributedLinearLayout(reg_bases=[], lane_bases=[[1], [2], [4], [8], [16], [32]],
                                   warp_bases=[[128], [64]], block_bases=[], shape=[256])


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("buffer_copy_,other", [(False, None), (False, -1.5), (True, 0.0),
                                                 (True, 3.0)])
def test_masked_copies_write_other(target, buffer_copy_, other):
    """Masked lanes of a global_load_lds (and of a buffer copy with a non-zero other) branch
    around the copy and store `other` themselves; a zero other on a buffer copy stays the
    out-of-range offset, with no branch. The simulator checks each kernel's waits."""
    k = kiln.compile(masked_fill, SIG, dict(BUFFER_COPY=buffer_copy_, OTHER=other, L=L1, R=_SWAP),
                     target=target, cache=False)
    asm = k.asm["amdgcn"]
    branched = not (buffer_copy_ and not other)
    assert ("s_cbranch_execz" in asm) == branched, asm
    assert ("ds_write_b32" in asm) == branched, asm
    if other:  # the fill value, as a literal (not an inline constant)
        bits = hex(struct.unpack("<I", struct.pack("<f", other))[0])
        assert re.search(rf"v_mov_b32_e32 v\d+, {bits}\b", asm), asm
    ok, summary = vmcnt_check(asm)
    assert ok, summary
    # The read crosses waves: dropping the barrier after the wait must be caught.
    bad = re.sub(r"(s_waitcnt vmcnt\(0\)[^\n]*\n)\s*s_barrier\n", r"\1", asm, count=1)
    assert bad != asm and not vmcnt_check(bad)[0]


# -- errors at the user's line and column, with the caret ----------------------------------------

_L = kl.BlockedLayout([1], [64], [4], [0])
_SH1 = kl.SwizzledSharedLayout(1, 1, 1, [0])


@kiln.jit
def e_offsets(x, y, n):
    offs = kl.arange(0, 256, _L).to(kl.int64)
    cdna3.buffer_load(x, offs)  # E:offsets


@kiln.jit
def e_scalar(x, y, n):
    offs = kl.arange(0, 256, _L)
    cdna3.buffer_store(1.0, x + offs, offs)  # E:scalar


@kiln.jit
def e_cache(x, y, n):
    offs = kl.arange(0, 256, _L)
    cdna3.buffer_load(x, offs, cache=".wt")  # E:cache


@kiln.jit
def e_other_no_mask(x, y, n):
    offs = kl.arange(0, 256, _L)
    cdna3.buffer_load(x, offs, other=1.0)  # E:othermask


@kiln.jit
def e_mask_shape(x, y, n):
    L2: kl.constexpr = kl.BlockedLayout([1, 1], [1, 64], [4, 1], [1, 0])
    r = kl.arange(0, 4, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    cdna3.buffer_load(x, c[None, :], mask=(r[:, None] + c[None, :]) < n)  # E:maskshape


@kiln.jit
def e_store_ptrs(x, y, n):
    offs = kl.arange(0, 256, _L)
    cdna3.buffer_store(x + offs, y, offs)  # E:storeptrs


@kiln.jit
def e_store_shape(x, y, n):
    offs = kl.arange(0, 256, _L)
    v = kl.zeros([256, 2], kl.float32, kl.BlockedLayout([1, 2], [64, 1], [4, 1], [1, 0]))
    cdna3.buffer_store(v, y, offs)  # E:storeshape


@kiln.jit
def e_dest(x, y, n):
    offs = kl.arange(0, 256, _L)
    acp.buffer_load_to_shared(y, x, offs)  # E:dest


@kiln.jit
def e_dest_shape(x, y, n):
    offs = kl.arange(0, 256, _L)
    buf = kl.allocate_shared_memory(kl.float32, [512], _SH1)
    acp.buffer_load_to_shared(buf, x, offs)  # E:destshape


@kiln.jit
def e_dest_dtype(x, y, n):
    offs = kl.arange(0, 256, _L)
    buf = kl.allocate_shared_memory(kl.float16, [256], _SH1)
    acp.buffer_load_to_shared(buf, x, offs)  # E:destdtype


@kiln.jit
def e_other(x, y, n):
    offs = kl.arange(0, 256, _L)
    buf = kl.allocate_shared_memory(kl.float32, [256], _SH1)
    acp.global_load_to_shared(buf, x + offs, other=1.0)  # E:other


@kiln.jit
def e_global_cache(x, y, n):
    offs = kl.arange(0, 256, _L)
    buf = kl.allocate_shared_memory(kl.float32, [256], _SH1)
    acp.global_load_to_shared(buf, x + offs, cache_modifier=".cs")  # E:gcache


@kiln.jit
def e_width(x, y, n):
    offs = kl.arange(0, 1024, kl.BlockedLayout([4], [64], [4], [0]))
    buf = kl.allocate_shared_memory(kl.float32, [1024], _SH1)
    acp.global_load_to_shared(buf, x + offs)  # E:width


ERRORS = [
    (e_offsets, "E:offsets", "cdna3.buffer_load",
     r"buffer_load: offsets must be a tensor of int32 element offsets .*"),
    (e_scalar, "E:scalar", "cdna3.buffer_store",
     r"buffer_store: ptr must be a scalar pointer .*"),
    (e_cache, "E:cache", "cdna3.buffer_load",
     r"buffer_load: cache modifier must be one of '', '\.ca', '\.cg', '\.cv', got '\.wt'"),
    (e_other_no_mask, "E:othermask", "cdna3.buffer_load",
     r"buffer_load: `other` cannot be given without `mask`"),
    (e_mask_shape, "E:maskshape", "cdna3.buffer_load",
     r"buffer_load: mask/other broadcast the offsets to \(4, 64\); they must have the "
     r"offsets' shape \(1, 64\)"),
    (e_store_ptrs, "E:storeptrs", "cdna3.buffer_store",
     r"buffer_store: storing pointers is not supported"),
    (e_store_shape, "E:storeshape", "cdna3.buffer_store",
     r"shape mismatch in buffer_store: \(256,\) vs \(256, 2\)"),
    (e_dest, "E:dest", "acp.buffer_load_to_shared",
     r"buffer_load_to_shared: dest must be a shared memory descriptor .*"),
    (e_dest_shape, "E:destshape", "acp.buffer_load_to_shared",
     r"buffer_load_to_shared: the offsets' shape \(256,\) must equal dest's \(512,\)"),
    (e_dest_dtype, "E:destdtype", "acp.buffer_load_to_shared",
     r"buffer_load_to_shared: ptr points to fp32 but dest holds fp16"),
    (e_other, "E:other", "acp.global_load_to_shared",
     r"global_load_to_shared: `other` cannot be given without `mask`"),
    (e_global_cache, "E:gcache", "acp.global_load_to_shared",
     r"global_load_to_shared: cache modifier must be one of '', '\.ca', '\.cg', '\.cv', "
     r"got '\.cs'"),
    (e_width, "E:width", "acp.global_load_to_shared",
     r".*async copy rule 'width': direct-to-LDS load on hip:gfx942 moves 4 bytes per lane, "
     r"but each thread .* holds 16 consecutive bytes \(4 x 'f32'\).*size_per_thread 1\)"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS,
                         ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, SIG, {}, target="hip:gfx942", cache=False)
    err = ei.value
    located.assert_located(err, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def e_other_vendor(x, y, n):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    cdna3.buffer_store(1.0, y, offs)  # E:vendor


def test_amd_op_on_an_nvidia_target_is_an_error_at_the_call():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_other_vendor, SIG, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(
        ei.value, HERE, "E:vendor", "cdna3.buffer_store",
        r"buffer_store is an AMD builtin \(kiln\.language\.amd\.cdna3\); the kernel is "
        r"compiled for cuda:sm_90a, an NVIDIA target", kiln.CompilationError)


def test_every_amd_compile_is_checked():
    """conftest.py runs the vmcnt simulator on every AMD kernel compiled in the test suite."""
    from kiln.compiler import compiler as compiler_mod
    checked = getattr(compiler_mod.CompiledKernel.__init__, "checked", None)
    assert checked is not None, "the conftest hook is not installed"
    before = len(checked)
    kiln.compile(buffer_copy, SIG, dict(BLOCK=256, L=L1), target="hip:gfx942", cache=False)
    assert len(checked) == before + 1


def test_amd_wmma_layout_is_built_and_refused_where_used():
    # Gluon code (Triton's test_lowerings.py) builds these at import time; mfma lowers
    # (test_amd_mfma_dsl.py), wmma (RDNA) not yet.
    wmma = kl.amd.AMDWMMALayout(version=2, transposed=True, warps_per_cta=[1, 4])
    assert wmma.rank == 2 and wmma == kl.amd.AMDWMMALayout(
        version=2, transposed=True, warps_per_cta=[1, 4])
    with pytest.raises(ValueError, match="Kiln does not lower AMD wmma layouts yet"):
        wmma.to_ir()


@kiln.jit
def batomic_kernel(p, v, out, OP: kl.constexpr, N: kl.constexpr, SEM: kl.constexpr):
    """out = buffer_atomic_OP(p, offs, v[offs]) for N elements over 256 threads (N < 256:
    warps repeat elements), the last 3 masked off."""
    L: kl.constexpr = kl.BlockedLayout([1], [64], [4], [0])
    offs = kl.arange(0, N, L)
    val = kl.load(v + offs)
    m = offs < N - 3
    if OP == "add":
        old = cdna3.buffer_atomic_add(p, offs, val, mask=m, sem=SEM)
    elif OP == "and":
        old = cdna3.buffer_atomic_and(p, offs, val, mask=m, sem=SEM)
    elif OP == "or":
        old = cdna4.buffer_atomic_or(p, offs, val, mask=m, sem=SEM)
    elif OP == "xor":
        old = cdna3.buffer_atomic_xor(p, offs, val, mask=m, sem=SEM)
    elif OP == "max":
        old = cdna3.buffer_atomic_max(p, offs, val, mask=m, sem=SEM, scope="cta")
    elif OP == "min":
        old = cdna3.buffer_atomic_min(p, offs, val, mask=m, sem=SEM)
    else:
        old = cdna4.buffer_atomic_xchg(p, offs, val, mask=m, sem=SEM)
    kl.store(out + offs, old)


# (op, pointee) -> the buffer atomics it issues (one each per element of a thread).
BUFFER_ATOMICS = {
    ("add", "i32"): ["buffer_atomic_add"], ("add", "i64"): ["buffer_atomic_add_x2"],
    ("add", "fp32"): ["buffer_atomic_add_f32"], ("add", "fp64"): ["buffer_atomic_add_f64"],
    ("and", "i32"): ["buffer_atomic_and"], ("or", "i64"): ["buffer_atomic_or_x2"],
    ("xor", "u32"): ["buffer_atomic_xor"], ("max", "i32"): ["buffer_atomic_smax"],
    ("max", "u32"): ["buffer_atomic_umax"], ("min", "i64"): ["buffer_atomic_smin_x2"],
    ("xchg", "i32"): ["buffer_atomic_swap"], ("xchg", "fp32"): ["buffer_atomic_swap"],
    # float max/min: integer atomics on the bits, as atomic_max / atomic_min
    ("max", "fp32"): ["buffer_atomic_smax", "buffer_atomic_umin"],
    ("min", "fp64"): ["buffer_atomic_smin_x2", "buffer_atomic_umax_x2"],
}


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("n", [256, 64])
def test_buffer_atomics_are_buffer_instructions(target, n):
    """Gluon's buffer_atomic_* are buffer_atomic_<op> instructions on the base's resource: no
    global atomics, and no branch around them (masked lanes, and lanes repeating another
    thread's element when n < 256, address past the resource's end: the offset select)."""
    for (op, dt), want in BUFFER_ATOMICS.items():
        k = kiln.compile(batomic_kernel, {"p": f"*{dt}", "v": f"*{dt}", "out": f"*{dt}"},
                         {"OP": op, "N": n, "SEM": "relaxed"}, target=target, num_warps=4,
                         cache=False)
        asm = k.asm["amdgcn"]
        got = re.findall(r"\b(?:buffer|global|flat)_atomic_\w+", asm)
        assert sorted(set(got)) == sorted(want), (op, dt, got)
        assert len(got) == len(want), (op, dt, got)
        ll = k.asm["llir"]
        assert ll.count("2147483648") >= len(want), (op, dt)  # the out-of-range offset
        if n == 256:  # every element held once, old values not broadcast: no branch at all
            assert "s_cbranch_execz" not in asm, (op, dt)


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
def test_buffer_atomic_sem_is_fences_around_it(sem):
    """The instruction has no memory order: release writes L2 back before it, acquire
    invalidates after it (agent scope)."""
    k = kiln.compile(batomic_kernel, {"p": "*i32", "v": "*i32", "out": "*i32"},
                     {"OP": "add", "N": 256, "SEM": sem}, target="hip:gfx942", num_warps=4,
                     cache=False)
    asm = k.asm["amdgcn"]
    seq = re.findall(r"buffer_wbl2|buffer_atomic_add|buffer_inv", asm)
    want = (["buffer_wbl2"] if sem in ("release", "acq_rel") else []) + ["buffer_atomic_add"] + \
        (["buffer_inv"] if sem in ("acquire", "acq_rel") else [])
    assert seq == want, seq


def test_buffer_atomics_without_a_buffer_form_are_global():
    """16-bit float adds and f64 exchanges have no buffer atomic: global atomics."""
    for op, dt in (("add", "fp16"), ("xchg", "fp64")):
        k = kiln.compile(batomic_kernel, {"p": f"*{dt}", "v": f"*{dt}", "out": f"*{dt}"},
                         {"OP": op, "N": 256, "SEM": "relaxed"}, target="hip:gfx942",
                         num_warps=4, cache=False)
        asm = k.asm["amdgcn"]
        assert "buffer_atomic" not in asm and re.search(r"global_atomic", asm), (op, dt)


@kiln.jit
def _rows_below(a_ptr, out_ptr, stride_am):
    L: kl.constexpr = kl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0])
    S: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    rows = kl.arange(0, 32, kl.SliceLayout(1, L))
    cols = kl.arange(0, 64, kl.SliceLayout(0, L))
    # the bottom half of a 256-row block: 256 * stride // 2, a multiple of 2048 elements
    offs = rows[:, None] * stride_am + cols[None, :] + 256 * stride_am // 2
    smem = kl.allocate_shared_memory(kl.bfloat16, [32, 64], S)
    kl.amd.cdna4.async_copy.buffer_load_to_shared(smem, a_ptr, offs)
    kl.amd.cdna4.async_copy.commit_group()
    kl.amd.cdna4.async_copy.wait_group(0)
    kl.amd.cdna3.buffer_store(smem.load(L), out_ptr, rows[:, None] * 64 + cols[None, :])


def test_a_halved_multiple_keeps_its_alignment():
    """256 * s // 2 of a stride s divisible by 16 is a multiple of 2048 whatever its sign (an
    exact division): the direct-to-LDS copy moves 16 bytes a lane (a third-party CDNA4 GEMM
    adds it to its offsets; it was refused, 'can move only 2 bytes')."""
    k = kiln.compile(_rows_below, {"a_ptr": "*bf16:16", "out_ptr": "*bf16:16",
                                   "stride_am": "i32:16"}, {}, target="hip:gfx950",
                     num_warps=4, cache=False)
    assert "buffer_load_dwordx4" in k.asm["amdgcn"] and " lds" in k.asm["amdgcn"]
