"""tile-check-async-safety on paths through ifs that share a condition, and relaxed loads of
ring slots swapped through a loop, without a GPU.

A kernel that prefetches its second slot only ``if i + 1 < n`` and waits for the prefetch
under another ``if i + 1 < n`` (the pattern of tail-guarded double buffering, e.g. AMD's
Gluon attention kernels) is correct: on every path the wait that runs matches the copies that
were issued. The check follows the paths through a block's ifs apart, ifs on the same
condition (the same value, or the same pure computation of the same values) taking the same
side, so it compiles; before, the branches were joined after each if and the kernel was
refused with a read "no wait covering its commit group" and a refill of a slot "issued 1
iteration earlier". The same kernel with a real mistake -- a wait that leaves the first slot's
group in flight on the path that issued no prefetch -- is still an error at the user's line.
(Waiting for every group before the first slot's reads instead of the second's was taken for
a mistake here too, until the check split the loop at its guards: it is correct.)

A relaxed load (``load_shared_relaxed``: the user asserts no copy into its bytes is in flight)
of a ring slot swapped through the loop (``s0, s1 = s1, s0``, as tokenspeed's MoE GEMMs write
it) is not warned about where the check, on its copy of the kernel with the slots named, finds
the assertion holds; where the wait leaves that slot's copy in flight, the check reports the
read at the user's line."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp
from kiln.language.nvidia.ampere import async_copy as cp

import compiled
import located

pytestmark = compiled.needs_compiler


def make_kernel(vendor, else_wait, wait_slot):
    """Two slots (K and V buffers each), the second prefetched only while a chunk has two
    blocks; ``else_wait``: the wait_group count on the path without the prefetch (0 is
    right); ``wait_slot``: the slot before whose reads the remaining groups are waited for
    (1 is right)."""
    AMD = kl.constexpr(vendor == "amd")
    WARP = kl.constexpr(64 if vendor == "amd" else 32)
    ELSE_WAIT = kl.constexpr(else_wait)
    WAIT_SLOT = kl.constexpr(wait_slot)

    @kiln.jit
    def k(x, y, num):
        blk: kl.constexpr = kl.BlockedLayout([1, 4], [WARP // 4, 4], [4, 1], [1, 0])
        sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
        ks = kl.allocate_shared_memory(kl.float32, [2, 64, 16], sh)
        vs = kl.allocate_shared_memory(kl.float32, [2, 64, 16], sh)
        r = kl.arange(0, 64, kl.SliceLayout(1, blk))
        c = kl.arange(0, 16, kl.SliceLayout(0, blk))
        offs = r[:, None] * 16 + c[None, :]
        acc = kl.zeros([64, 16], kl.float32, blk)
        for chunk in range(0, num, 2):
            for slot in kl.static_range(2):
                i = chunk + slot
                if i < num:
                    if AMD:
                        acp.buffer_load_to_shared(ks.index(slot), x, offs + i * 1024)
                        acp.commit_group()
                        acp.buffer_load_to_shared(vs.index(slot), x, offs + i * 1024 + 512)
                        acp.commit_group()
                    else:
                        cp.async_copy_global_to_shared(ks.index(slot), x + offs + i * 1024)
                        cp.commit_group()
                        cp.async_copy_global_to_shared(vs.index(slot),
                                                       x + offs + i * 1024 + 512)
                        cp.commit_group()
            if chunk + 1 < num:
                if AMD:
                    acp.wait_group(2)
                else:
                    cp.wait_group(2)
            else:
                if AMD:
                    acp.wait_group(ELSE_WAIT)
                else:
                    cp.wait_group(ELSE_WAIT)
            for slot in kl.static_range(2):
                i = chunk + slot
                if i < num:
                    if slot == WAIT_SLOT:
                        if AMD:
                            acp.wait_group(0)
                        else:
                            cp.wait_group(0)
                    acc += ks.index(slot).load(blk) * vs.index(slot).load(blk)  # E:read
        kl.store(y + offs, acc)
    return k


TARGETS = [("amd", "hip:gfx950"), ("nvidia", "cuda:sm_80")]


def _compile(vendor, target, else_wait=0, wait_slot=1):
    return kiln.compile(make_kernel(vendor, else_wait, wait_slot),
                        {"x": "*fp32:16", "y": "*fp32:16", "num": "i32"}, {}, target=target,
                        num_warps=4, cache=False)


@pytest.mark.parametrize("vendor,target", TARGETS)
def test_prefetch_and_wait_under_the_same_condition_compile(vendor, target):
    _compile(vendor, target)


@pytest.mark.parametrize("vendor,target", TARGETS)
@pytest.mark.parametrize("else_wait", [0, 2])
def test_waiting_for_everything_before_the_first_slot_compiles(vendor, target, else_wait):
    """wait_group(0) before the first slot's reads (instead of the second's) retires every
    group before any read, whatever the wait before it left: correct, if slower. Refused
    while the check walked the loop whole; its guard segments (chunk + 1 < num holds, then
    fails for the last chunk, never again) show no path reads a slot in flight."""
    _compile(vendor, target, else_wait=else_wait, wait_slot=0)


@pytest.mark.parametrize("vendor,target", TARGETS)
@pytest.mark.parametrize("else_wait,wait_slot", [(2, 1)])
def test_a_wait_that_leaves_a_slot_in_flight_is_still_an_error(vendor, target, else_wait,
                                                                 wait_slot):
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(vendor, target, else_wait, wait_slot)
    located.assert_located(
        ei.value, __file__, "E:read", "ks.index(slot).load",
        r"smem.load reads shared memory that the async copy of buffer_load_to_shared may still "
        r"be writing: no wait covering its commit group comes between them on some path .*"
        if vendor == "amd" else
        r"smem.load reads shared memory that the async copy of async_copy.async_copy_global_to_shared "
        r"may still be writing: no wait covering its commit group comes between them on some "
        r"path .*", kiln.CompilationError)


def make_swapping_kernel(waits_in_loop):
    """A ring of two slots swapped through the loop (``s0, s1 = s1, s0``), read with
    load_shared_relaxed after ``wait_group(waits_in_loop)``: 1 retires the group of the slot
    read (the copy in flight writes the other slot), 2 leaves it in flight."""
    WAIT = kl.constexpr(waits_in_loop)

    @kiln.jit
    def k(x, y, num):
        blk: kl.constexpr = kl.BlockedLayout([1, 4], [16, 4], [4, 1], [1, 0])
        sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
        ring = kl.allocate_shared_memory(kl.float32, [2, 64, 16], sh)
        r = kl.arange(0, 64, kl.SliceLayout(1, blk))
        c = kl.arange(0, 16, kl.SliceLayout(0, blk))
        offs = r[:, None] * 16 + c[None, :]
        s0 = ring.index(0)
        s1 = ring.index(1)
        acp.buffer_load_to_shared(s0, x, offs)
        acp.commit_group()
        acc = kl.zeros([64, 16], kl.float32, blk)
        for i in range(1, num):
            acp.buffer_load_to_shared(s1, x, offs + i * 1024)
            acp.commit_group()
            acp.wait_group(WAIT)
            acc += acp.load_shared_relaxed(s0, blk)  # W:relaxed
            s0, s1 = s1, s0
        acp.wait_group(0)
        acc += acp.load_shared_relaxed(s0, blk)
        kl.store(y + offs, acc)
    return k


def _relaxed_warnings(waits_in_loop):
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        kiln.compile(make_swapping_kernel(waits_in_loop),
                     {"x": "*fp32:16", "y": "*fp32:16", "num": "i32"}, {},
                     target="hip:gfx950", num_warps=4, cache=False)
    return [str(w.message) for w in seen if "relaxed shared-memory load" in str(w.message)]


def test_relaxed_reads_of_swapped_slots_are_not_warned_about():
    """The barrier pass cannot name a slot carried through the loop; the async-safety check,
    on its copy of the kernel with those slots named, finds no copy into the slot read in
    flight, and the relaxed load is not warned about. With a wait that leaves that copy in
    flight the check reports the read, at the user's line."""
    assert _relaxed_warnings(1) == []
    with pytest.raises(kiln.CompilationError) as ei:
        _relaxed_warnings(2)
    located.assert_located(
        ei.value, __file__, "W:relaxed", "acp.load_shared_relaxed",
        r"smem.load reads shared memory that the async copy of buffer_load_to_shared may still "
        r"be writing: .*", kiln.CompilationError)
