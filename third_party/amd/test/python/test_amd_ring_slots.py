"""Plain ``.load()`` s of a direct-to-LDS ring, written as Gluon users write them: the loop from
NBUF - 1 copies into ``ring.index(t % NBUF)``, ``wait_group(NBUF - 1)``, and reads slot
``(t - (NBUF - 1)) % NBUF``, ``(t + 1) % NBUF`` or a loop-carried counter. Kiln proves the
wait covers every copy into the slot read, marks the load as ``load_shared_relaxed`` is, and
LLVM adds no ``vmcnt(0)``: one exact wait in the loop, which the independent checker finds
safe with slack 0. A slot Kiln cannot name keeps LLVM's wait and gets a remark at the load."""

from __future__ import annotations

import os

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp

import amdgcn_stats
import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)


@kiln.jit
def ring_plain(a, c, n_tiles, BLOCK: kl.constexpr, NBUF: kl.constexpr,
               L: kl.constexpr, FORM: kl.constexpr):
    bufs = kl.allocate_shared_memory(a.dtype.element_ty, [NBUF, BLOCK],
                                     kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, BLOCK, L)
    first = kl.program_id(0) * n_tiles
    acc = kl.zeros([BLOCK], a.dtype.element_ty, L)
    for t in kl.static_range(NBUF - 1):
        acp.buffer_load_to_shared(bufs.index(t % NBUF), a, (first + t) * BLOCK + offs,
                                  mask=offs < (n_tiles - t) * BLOCK)
        acp.commit_group()
    slot = 0
    for t in range(NBUF - 1, n_tiles + NBUF - 1):
        acp.buffer_load_to_shared(bufs.index(t % NBUF), a, (first + t) * BLOCK + offs,
                                  mask=offs < (n_tiles - t) * BLOCK)
        acp.commit_group()
        acp.wait_group(NBUF - 1)
        if FORM == "minus":
            x = bufs.index((t - (NBUF - 1)) % NBUF).load(L)
        elif FORM == "plus":
            x = bufs.index((t + 1) % NBUF).load(L)
        elif FORM == "counter":
            x = bufs.index(slot).load(L)
            slot = (slot + 1) % NBUF
        else:
            # The same slot as "plus", through arithmetic the analysis does not follow.
            x = bufs.index(((t + 1) % NBUF + NBUF) % NBUF).load(L)  # E:unknown
        acc += x
    kl.store(c + kl.program_id(0) * BLOCK + offs, acc)


SIG = {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"}


def compile_ring(form, target):
    spt = 4 if target == "hip:gfx950" else 1
    return kiln.compile(ring_plain, SIG, dict(BLOCK=1024, NBUF=3, FORM=form,
                                              L=kl.BlockedLayout([spt], [64], [4], [0])),
                        target=target, cache=False)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
@pytest.mark.parametrize("form", ["minus", "plus", "counter"])
def test_plain_loads_of_provable_slots_need_no_vmcnt0(target, form):
    k = compile_ring(form, target)
    assert "tile.synced_via_wait" in k.asm["llvm_dialect"] or \
        "alias_scopes" in k.asm["llvm_dialect"]
    st = amdgcn_stats.loop_stats(k.asm["amdgcn"])
    # Two groups of copies (tiles t-1, t) stay in flight while tile t-2 is read.
    assert st["vmcnt"] == [2 * st["lds_copies"]], st
    (r,) = k.vmcnt_reports  # conftest's run of the independent checker
    assert not r.violations and "max slack 0" in r.summary(), r.summary()


def test_unknown_slot_keeps_the_wait_with_a_remark():
    with pytest.warns(kiln.CompilationWarning, match="the ring slot it reads is not a "
                      "constant") as rec:
        k = compile_ring("unknown", "hip:gfx942")
    w = next(w.message for w in rec if "ring slot" in str(w.message))
    line, _ = located.where(HERE, "E:unknown", "bufs.index")
    assert f"{HERE}:{line}:" in str(w), str(w)
    assert 0 in amdgcn_stats.loop_stats(k.asm["amdgcn"])["vmcnt"]  # LLVM's vmcnt(0) stays
    (r,) = k.vmcnt_reports
    assert not r.violations, r.summary()


@kiln.jit
def ring_unrolled(a, c, n, L: kl.constexpr):
    # A 3-slot ring unrolled three times, so every slot index is a constant (a third-party
    # warp-pipelined CDNA4 GEMM's form): the prologue's constant slots enter the loop as
    # (t + k) % 3 and the body's stay literals; each read follows a wait that leaves only the
    # other slots' copies in flight.
    bufs = kl.allocate_shared_memory(kl.float32, [3, 1024], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, 1024, L)
    for s in kl.static_range(3):
        acp.buffer_load_to_shared(bufs.index(s), a, s * 1024 + offs)
        acp.commit_group()
    acp.wait_group(2)
    x = acp.load_shared_relaxed(bufs.index(0), L)
    acc = kl.zeros([1024], kl.float32, L)
    for t in range(n):
        acp.wait_group(1)
        acc += x
        x = acp.load_shared_relaxed(bufs.index(1), L)
        acp.buffer_load_to_shared(bufs.index(0), a, (3 * t + 3) * 1024 + offs)
        acp.commit_group()
        acp.wait_group(1)
        acc += x
        x = acp.load_shared_relaxed(bufs.index(2), L)
        acp.buffer_load_to_shared(bufs.index(1), a, (3 * t + 4) * 1024 + offs)
        acp.commit_group()
        acp.wait_group(1)
        acc += x
        x = acp.load_shared_relaxed(bufs.index(0), L)
        acp.buffer_load_to_shared(bufs.index(2), a, (3 * t + 5) * 1024 + offs)
        acp.commit_group()
    acp.wait_group(0)
    kl.store(c + offs, acc + x)


def test_unrolled_ring_of_constant_slots_compiles_silently():
    """No 'may still be writing' warning for the reads of the unrolled ring (there was one on
    the first read of the loop: the prologue's slot 2, re-expressed on entering the loop, was
    not told apart from the literal slot 1), and the waits pass the independent checker."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(ring_unrolled, {"a": "*fp32:16", "c": "*fp32:16", "n": "i32"},
                         dict(L=kl.BlockedLayout([4], [64], [4], [0])), target="hip:gfx950",
                         cache=False)
    (r,) = k.vmcnt_reports
    assert not r.violations, r.summary()


@kiln.jit
def scales_ring(a, s, c, n, BLOCK: kl.constexpr, SCALES: kl.constexpr):
    # A block's scales (SCALES fp32, fewer than the CTA's threads: the last warps repeat the
    # first ones, as a block-scaled GEMM loads them) ring beside its data, both direct to LDS.
    L: kl.constexpr = kl.BlockedLayout([1], [64], [4], [0])
    LS: kl.constexpr = kl.BlockedLayout([1], [64], [4], [0])
    sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [0])
    data = kl.allocate_shared_memory(kl.float32, [2, BLOCK], sh)
    scl = kl.allocate_shared_memory(kl.float32, [2, SCALES], sh)
    offs = kl.arange(0, BLOCK, L)
    so = kl.arange(0, SCALES, LS)
    acc = kl.zeros([BLOCK], kl.float32, L)
    acp.buffer_load_to_shared(data.index(0), a, offs)
    acp.buffer_load_to_shared(scl.index(0), s, so)
    acp.commit_group()
    for t in range(n):
        acp.buffer_load_to_shared(data.index((t + 1) % 2), a, (t + 1) * BLOCK + offs)
        acp.buffer_load_to_shared(scl.index((t + 1) % 2), s, (t + 1) * SCALES + so)
        acp.commit_group()
        acp.wait_group(1)
        kl.barrier()
        x = data.index(t % 2).load(L)
        w = kl.sum(scl.index(t % 2).load(LS), axis=0)
        acc += x * w
        kl.barrier()
    acp.wait_group(0)
    kl.store(c + offs, acc)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_scales_with_repeating_warps_copy_in_every_warp(target):
    """128 scales on 4 x 64 threads: warps 2 and 3 repeat 0 and 1. Every wave issues the
    copy (the same bytes to the same slots), so the waits count the same instructions in
    each: the independent checker over the final assembly finds no wave that reads a copy
    still in flight. Was refused ('with broadcast threads'); a third-party block-scaled
    GEMM's scale loads took this form."""
    k = kiln.compile(scales_ring, {"a": "*fp32:16", "s": "*fp32:16", "c": "*fp32:16",
                                   "n": "i32"}, dict(BLOCK=1024, SCALES=128), target=target,
                     cache=False)
    (r,) = k.vmcnt_reports
    assert not r.violations, r.summary()
    assert "buffer_load_dword" in k.asm["amdgcn"] and " lds" in k.asm["amdgcn"]


@kiln.jit
def ring_epilogue(x, out, n, L: kl.constexpr):
    # A ping-pong ring whose epilogue goes on from the slot the loop's counter ends at (aiter's
    # and tokenspeed's MLA decode): refill (buf + 1) % 2, wait for all but that copy, read buf.
    bufs = kl.allocate_shared_memory(kl.float32, [2, 1024], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, 1024, L)
    acc = kl.zeros([1024], kl.float32, L)
    buf = 0
    acp.buffer_load_to_shared(bufs.index(0), x, offs)
    acp.commit_group()
    for i in range(n):
        acp.buffer_load_to_shared(bufs.index((buf + 1) % 2), x, (i + 1) * 1024 + offs)
        acp.commit_group()
        acp.wait_group(1)
        acc += bufs.index(buf).load(L)
        buf = (buf + 1) % 2
    acp.buffer_load_to_shared(bufs.index((buf + 1) % 2), x, (n + 1) * 1024 + offs)
    acp.commit_group()
    acp.wait_group(1)
    acc += bufs.index(buf).load(L)
    acp.wait_group(0)
    acc += bufs.index((buf + 1) % 2).load(L)
    kl.store(out + offs, acc)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_epilogue_slots_from_the_counter_a_loop_returns(target):
    """After the loop, slots (buf + 1) % 2 and buf of the counter's final value are different
    slots: the epilogue's first read waits only for the copy it needs (no remark, no LLVM
    vmcnt(0) before it), and the independent checker finds the waits exact."""
    import warnings
    spt = 4 if target == "hip:gfx950" else 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(ring_epilogue, {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"},
                         dict(L=kl.BlockedLayout([spt], [64], [4], [0])), target=target,
                         cache=False)
    asm = k.asm["amdgcn"]
    assert asm.count("vmcnt(0)") == 1, asm  # only the final wait_group(0)
    (r,) = k.vmcnt_reports
    assert not r.violations and "max slack 0" in r.summary(), r.summary()


@kiln.jit
def two_counter_ring(x, out, N: kl.constexpr, L: kl.constexpr):
    # A 3-slot ring driven by two counters (copies at `load`, reads at `use`, two apart), a
    # tail copy after the loop and a drain (a fused MoE decode's schedule): after the loop,
    # both counters' values and the last trip's slots are named from one of them.
    bufs = kl.allocate_shared_memory(kl.float32, [3, 1024], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    offs = kl.arange(0, 1024, L)
    acc = kl.zeros([1024], kl.float32, L)
    load = 0
    use = 0
    for _ in kl.static_range(2):
        acp.buffer_load_to_shared(bufs.index(load % 3), x, load * 1024 + offs)
        acp.commit_group()
        load += 1
    for _ in range(0, N):
        acp.buffer_load_to_shared(bufs.index(load % 3), x, load * 1024 + offs)
        acp.commit_group()
        load += 1
        acp.wait_group(2)
        acc += acp.load_shared_relaxed(bufs.index(use % 3), L)
        use += 1
    acp.buffer_load_to_shared(bufs.index(load % 3), x, load * 1024 + offs)
    acp.commit_group()
    acp.wait_group(2)
    acc += acp.load_shared_relaxed(bufs.index(use % 3), L)
    use += 1
    acp.wait_group(1)
    acc += acp.load_shared_relaxed(bufs.index(use % 3), L)
    acp.wait_group(0)
    acc += acp.load_shared_relaxed(bufs.index((use + 1) % 3), L)
    kl.store(out + offs, acc)


def test_relaxed_reads_after_a_two_counter_loop_need_no_warning():
    """The tail's and the drain's relaxed reads name their slots from the counters the loop
    returns (use, load = use + 2) and the copies in flight from the last trip: each read's
    slot is none of theirs, so no warning; the independent checker finds the waits safe (the
    trip count a constant here: with a runtime one the checker cannot tell the reads' slots)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(two_counter_ring, {"x": "*fp32:16", "out": "*fp32:16"},
                         dict(N=5, L=kl.BlockedLayout([4], [64], [4], [0])),
                         target="hip:gfx950", cache=False)
    (r,) = k.vmcnt_reports
    assert not r.violations, r.summary()
