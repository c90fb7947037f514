"""Waits that count stores (gfx9's vmcnt counts outstanding stores too): a ring whose loop
stores the previous tile's result between every awaited copy and its wait, with 0, 1 and 3
stores per iteration, masked and unmasked, for gfx942 and gfx950. tile-insert-wait-counts
counts the stores each wave must issue (unmasked: the instructions the lowering issues when
their addresses show LLVM can merge none of them, else one per 16 bytes; masked ones may be
made buffer stores, which every wave issues, and are counted by the same rule), and the
independent checker (amdgcn_waits) finds every wait safe (slack 0, the weakest safe wait,
except gfx950's masked stores: slack 3 a store); raising a wait by one past what the count
allows is caught."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp

import amdgcn_stats
import amdgcn_waits
import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def ring_store_prev(a, c, n_tiles, BLOCK: kl.constexpr, NBUF: kl.constexpr, L: kl.constexpr,
                    NSTORES: kl.constexpr, MASKED: kl.constexpr):
    """Each iteration issues the next copy, stores the previous tile's result NSTORES times,
    then waits for its own tile: the stores sit between every awaited copy and its wait."""
    bufs = kl.allocate_shared_memory(a.dtype.element_ty, [NBUF, BLOCK],
                                     kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, BLOCK, L)
    first = kl.program_id(0) * n_tiles
    for s in kl.static_range(NBUF - 2):
        acp.buffer_load_to_shared(bufs.index(s), a, (first + s) * BLOCK + offs,
                                  mask=offs < (n_tiles - s) * BLOCK)
        acp.commit_group()
    prev = kl.zeros([BLOCK], a.dtype.element_ty, L)
    for k in range(n_tiles):
        nxt = k + NBUF - 2
        acp.buffer_load_to_shared(bufs.index(nxt % NBUF), a, (first + nxt) * BLOCK + offs,
                                  mask=offs < (n_tiles - nxt) * BLOCK)
        acp.commit_group()
        for j in kl.static_range(NSTORES):
            dst = c + ((first + k) * NSTORES + j) * BLOCK + offs
            if MASKED:
                kl.store(dst, prev + j, mask=offs < n_tiles * 7)
            else:
                kl.store(dst, prev + j)
        acp.wait_group(NBUF - 2)
        prev = acp.load_shared_relaxed(bufs.index(k % NBUF), L)
    kl.store(c + offs, prev)


# (target, elements per thread per vector): 1024 fp32 over 256 threads.
CASES = [(t, ns, masked) for t in ("hip:gfx942", "hip:gfx950") for ns in (0, 1, 3)
         for masked in ((False, True) if ns else (False,))]


@pytest.mark.parametrize("target,nstores,masked", CASES)
def test_stores_between_copy_and_wait_are_counted(target, nstores, masked):
    spt = 4 if target == "hip:gfx950" else 1
    k = kiln.compile(ring_store_prev, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                     dict(BLOCK=1024, NBUF=3, L=kl.BlockedLayout([spt], [64], [4], [0]),
                          NSTORES=nstores, MASKED=masked), target=target, cache=False)
    asm = k.asm["amdgcn"]
    st = amdgcn_stats.loop_stats(asm)
    copies = st["lds_copies"]  # one group: the copy issued after the awaited one
    assert st["other_vmem"] >= nstores  # the stores are in the loop
    # A thread writes 16 bytes per store: gfx950 in one instruction, gfx942 in four of 4
    # bytes, 1 KiB apart, and the stores are 4 KiB apart: their addresses show LLVM cannot
    # merge any two (and the loop is not unrolled), so each counts as issued. Masked, they
    # become buffer stores (masked lanes write past the resource's end; every wave issues
    # them): on gfx942 four dword stores 1 KiB apart, counted as issued too; on gfx950 the
    # mask (not constant over 4 elements) splits the 16 bytes into 4 adjacent dword stores,
    # which LLVM might merge, so they count as one: slack 3 a store.
    counted = nstores * (1 if spt == 4 else 4)
    assert st["vmcnt"] == [copies + counted], st
    (r,) = amdgcn_waits.check(asm)
    assert not r.violations, r.render()
    slack = 3 * nstores if masked and spt == 4 else 0
    assert f"max slack {slack}" in r.summary(), r.summary()
    # Negative control: one more than every instruction issued after the awaited copy (the
    # copy group and all stores) lets the awaited copy be in flight: caught.
    wait = next(l for l in amdgcn_stats.loop_body(amdgcn_stats.kernels(asm)[
        "ring_store_prev"]) if "vmcnt(" in l)
    issued_after = copies + st["other_vmem"]
    bad = asm.replace(wait, re.sub(r"vmcnt\(\d+\)", f"vmcnt({issued_after + 1})", wait), 1)
    (rb,) = amdgcn_waits.check(bad)
    assert rb.violations, rb.summary()


@kiln.jit
def ring_interleave(a, c, n_tiles, BLOCK: kl.constexpr, NBUF: kl.constexpr, L: kl.constexpr,
                    NS: kl.constexpr):
    """NS stores of one float a thread at c + NS i + j, j = 0 .. NS-1, between each copy and
    its wait: LLVM merges them into one NS x 4-byte store, so each op's own count (one
    instruction) must not be summed."""
    bufs = kl.allocate_shared_memory(a.dtype.element_ty, [NBUF, BLOCK],
                                     kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, BLOCK, L)
    first = kl.program_id(0) * n_tiles
    for s in kl.static_range(NBUF - 2):
        acp.buffer_load_to_shared(bufs.index(s), a, (first + s) * BLOCK + offs,
                                  mask=offs < (n_tiles - s) * BLOCK)
        acp.commit_group()
    prev = kl.zeros([BLOCK], a.dtype.element_ty, L)
    for k in range(n_tiles):
        nxt = k + NBUF - 2
        acp.buffer_load_to_shared(bufs.index(nxt % NBUF), a, (first + nxt) * BLOCK + offs,
                                  mask=offs < (n_tiles - nxt) * BLOCK)
        acp.commit_group()
        for j in kl.static_range(NS):
            kl.store(c + (first + k) * (NS * BLOCK) + NS * offs + j, prev + j)
        acp.wait_group(NBUF - 2)
        prev = acp.load_shared_relaxed(bufs.index(k % NBUF), L)
    kl.store(c + offs, prev)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_stores_llvm_merges_are_not_overcounted(target):
    """Four 4-byte stores through one argument at adjacent addresses become one
    global_store_dwordx4: counting one instruction per op (4) let vmcnt(5) leave the awaited
    copy in flight (the checker found 2 violations). Ops that may merge count only whole
    16-byte chunks; the checker (run on every AMD compile by conftest) finds the wait safe."""
    k = kiln.compile(ring_interleave, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                     dict(BLOCK=256, NBUF=3, L=kl.BlockedLayout([1], [64], [4], [0]), NS=4),
                     target=target, cache=False)
    asm = k.asm["amdgcn"]
    body = amdgcn_stats.loop_body(amdgcn_stats.kernels(asm)["ring_interleave"])
    stores = [l for l in body if "global_store" in l]
    assert len(stores) == 1 and "dwordx4" in stores[0], stores  # LLVM merged the four
    st = amdgcn_stats.loop_stats(asm)
    assert st["vmcnt"] == [st["lds_copies"]], st  # the stores count 0
    (r,) = k.vmcnt_reports
    assert not r.violations, r.render()


@pytest.mark.parametrize("target,nstores", [(t, ns) for t in ("hip:gfx942", "hip:gfx950")
                                            for ns in (1, 3)])
def test_masked_stores_through_a_buffer_resource_are_counted(target, nstores):
    """A masked global store may be branched around by a wave whose lanes are all off, so a
    wait could count none of it. With the destination under 2 GiB (':range32', as a launch
    specializes it), tile-amd-pipeline-buffer-copies makes the masked stores of a loop with
    counted waits buffer stores: masked lanes write past the resource's end (dropped), every
    wave issues them, and the wait counts them (at their fewest instructions); the checker
    finds every wait safe, and one past what was issued caught.""" 
    spt = 4 if target == "hip:gfx950" else 1
    k = kiln.compile(ring_store_prev, {"a": "*fp32:16", "c": "*fp32:16:range32",
                                       "n_tiles": "i32"},
                     dict(BLOCK=1024, NBUF=3, L=kl.BlockedLayout([spt], [64], [4], [0]),
                          NSTORES=nstores, MASKED=True), target=target, cache=False)
    asm = k.asm["amdgcn"]
    body = amdgcn_stats.loop_body(amdgcn_stats.kernels(asm)["ring_store_prev"])
    assert any("buffer_store" in l for l in body) and not any("global_store" in l
                                                             for l in body), body
    st = amdgcn_stats.loop_stats(asm)
    # Each store is 4 dword buffer stores (the mask is not constant over 4 elements): 1 KiB
    # apart on gfx942, counted exactly; adjacent on gfx950, which LLVM might merge, counted
    # as one 16-byte instruction (slack 3 a store).
    assert st["other_vmem"] == 4 * nstores, st
    assert st["vmcnt"] == [st["lds_copies"] + nstores * (1 if spt == 4 else 4)], st
    (r,) = amdgcn_waits.check(asm)
    assert not r.violations, r.render()
    assert f"max slack {3 * nstores if spt == 4 else 0}" in r.summary(), r.summary()
    wait = next(l for l in body if "vmcnt(" in l)
    issued_after = st["lds_copies"] + st["other_vmem"]
    bad = asm.replace(wait, re.sub(r"vmcnt\(\d+\)", f"vmcnt({issued_after + 1})", wait), 1)
    (rb,) = amdgcn_waits.check(bad)
    assert rb.violations, rb.summary()
