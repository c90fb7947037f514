"""DSL checks at the user's line, compile-only (kiln.compile with explicit targets, no GPU):

* a constant ring slot out of range (``ring.index(5)`` on 2 slots, ``ring.index(-1)``) is a
  CompilationError naming the index and the number of slots; a runtime index is not checked;
* a vendor builtin (kiln.language.nvidia.*, kiln.language.amd.*) in a kernel compiled for the
  other vendor's target is a CompilationError naming the builtin, its vendor and the target,
  while the vendor-neutral builtins compile for every target."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3, cdna4
from kiln.language.amd.cdna4 import async_copy as acp
from kiln.language.nvidia import ampere
from kiln.language.nvidia.ampere import async_copy as cp
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_init, warpgroup_mma_wait)

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
NVIDIA = ["cuda:sm_80", "cuda:sm_90a"]
AMD = ["hip:gfx942", "hip:gfx950"]
SH = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
SH1 = kl.SwizzledSharedLayout(1, 1, 1, [0])
SIG = {"x": "*fp32:16", "n": "i32"}


def layout_2d(target):
    """A 32x32 blocked layout over 4 warps for the target's warp size."""
    lanes = 32 if target.startswith("cuda:") else 64
    return kl.BlockedLayout([1, 1], [lanes // 32, 32], [4, 1], [1, 0])


def layout_1d(target):
    lanes = 32 if target.startswith("cuda:") else 64
    return kl.BlockedLayout([1], [lanes], [4], [0])


def compile_(fn, target, **constexprs):
    return kiln.compile(fn, SIG, constexprs, target=target, num_warps=4, cache=False)


def error_of(fn, target, **constexprs) -> kiln.CompilationError:
    with pytest.raises(kiln.CompilationError) as ei:
        compile_(fn, target, **constexprs)
    return ei.value


# --- 3. constant ring slots ---------------------------------------------------------------------

@kiln.jit
def slot_past_the_end(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    buf = ring.index(5)  # E:past
    buf.store(kl.zeros([32, 32], kl.float32, L))


@kiln.jit
def slot_minus_one(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    ring.index(-1).store(kl.zeros([32, 32], kl.float32, L))  # E:minus


@kiln.jit
def slot_constexpr(x, n, L: kl.constexpr, SLOT: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    ring.index(SLOT).store(kl.zeros([32, 32], kl.float32, L))  # E:constexpr


@kiln.jit
def slot_static_range(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [3, 32, 32], SH)
    for i in kl.static_range(4):
        ring.index(i).store(kl.zeros([32, 32], kl.float32, L))  # E:unrolled


@kiln.jit
def slot_nested(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [4, 2, 32, 32], SH)
    ring.index(3).index(2).store(kl.zeros([32, 32], kl.float32, L))  # E:nested


@kiln.jit
def slot_single(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [1, 32, 32], SH)
    ring.index(1).store(kl.zeros([32, 32], kl.float32, L))  # E:single


SLOT_ERRORS = [
    (slot_past_the_end, {}, "E:past", "ring.index(5)",
     r"index: slot 5 is out of range for a ring of 2 slots \(valid: 0 to 1\)"),
    (slot_minus_one, {}, "E:minus", "ring.index(-1)",
     r"index: slot -1 is out of range for a ring of 2 slots \(valid: 0 to 1\); -1 is not a "
     r"slot counted from the end as in Python: it addresses memory before the buffer"),
    (slot_constexpr, {"SLOT": 2}, "E:constexpr", "ring.index(SLOT)",
     r"index: slot 2 is out of range for a ring of 2 slots \(valid: 0 to 1\)"),
    (slot_static_range, {}, "E:unrolled", "ring.index(i)",
     r"index: slot 3 is out of range for a ring of 3 slots \(valid: 0 to 2\)"),
    (slot_nested, {}, "E:nested", "ring.index(3).index(2)",
     r"index: slot 2 is out of range for a ring of 2 slots \(valid: 0 to 1\)"),
    (slot_single, {}, "E:single", "ring.index(1)",
     r"index: slot 1 is out of range for a ring of 1 slot \(valid: 0 to 0\)"),
]


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("fn,cx,marker,anchor,message", SLOT_ERRORS,
                         ids=[e[2] for e in SLOT_ERRORS])
def test_constant_slot_out_of_range(fn, cx, marker, anchor, message, target):
    err = error_of(fn, target, L=layout_2d(target), **cx)
    located.assert_located(err, HERE, marker, anchor, message, kiln.CompilationError)


def test_slot_error_is_raised_before_any_ir():
    """The DSL refuses the slot itself (the message starts with 'index:'), rather than leaving
    it to the tile.memdesc_index verifier."""
    err = error_of(slot_minus_one, "cuda:sm_90a", L=layout_2d("cuda:sm_90a"))
    assert err.message.startswith("index: slot -1 "), err.message


@kiln.jit
def slots_in_range(x, n, L: kl.constexpr, LAST: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    ring.index(0).store(kl.load(x + offs))
    ring.index(LAST).store(kl.load(x + offs) + 1.0)
    ring.index(n).store(kl.load(x + offs) + 2.0)  # runtime: not checked
    kl.store(x + offs, ring.index(0).load(L) + ring.index(n % 2).load(L))


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
def test_in_range_and_runtime_slots_compile(target):
    k = compile_(slots_in_range, target, L=layout_2d(target), LAST=1)
    assert k.asm["tile"].count("tile.memdesc_index") == 5


def test_runtime_slot_is_not_checked_at_compile_time():
    """A runtime index stays the kernel's business, even one written from a constant
    expression on a runtime value."""
    @kiln.jit
    def runtime_slot(x, n, L: kl.constexpr):
        ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
        ring.index(n + 5).store(kl.zeros([32, 32], kl.float32, L))
    compile_(runtime_slot, "cuda:sm_90a", L=layout_2d("cuda:sm_90a"))


# --- 4. vendor builtins on the other vendor's target -------------------------------------------

@kiln.jit
def nvidia_builtin(x, n, WHICH: kl.constexpr, L: kl.constexpr, L2: kl.constexpr):
    offs = kl.arange(0, 256, L)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH1)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    acc = kl.zeros([32, 32], kl.float32, L2)
    if WHICH == "copy":
        cp.async_copy_global_to_shared(buf, x + offs)  # E:copy
    if WHICH == "async_load":
        cp.async_load(buf, x + offs)  # E:async_load
    if WHICH == "commit":
        cp.commit_group()  # E:commit
    if WHICH == "wait":
        cp.wait_group(0)  # E:wait
    if WHICH == "wait_for":
        cp.wait_for()  # E:wait_for
    if WHICH == "mma_v2":
        ampere.mma_v2(acc, acc, acc)  # E:mma_v2
    if WHICH == "mbarrier_init":
        mbarrier.init(bar, count=1)  # E:mbarrier_init
    if WHICH == "mbarrier_wait":
        mbarrier.wait(bar, 0)  # E:mbarrier_wait
    if WHICH == "tma_load":
        tma.async_copy_global_to_shared(x, [0], bar, buf)  # E:tma_load
    if WHICH == "tma_store_wait":
        tma.store_wait(0)  # E:tma_store_wait
    if WHICH == "fence":
        fence_async_shared()  # E:fence
    if WHICH == "wgmma":
        warpgroup_mma(buf, buf, acc)  # E:wgmma
    if WHICH == "wgmma_init":
        warpgroup_mma_init(acc)  # E:wgmma_init
    if WHICH == "wgmma_wait":
        warpgroup_mma_wait(0, deps=[acc])  # E:wgmma_wait


NV_CASES = [  # (WHICH, anchor, name in the message, module)
    ("copy", "cp.async_copy_global_to_shared", "async_copy_global_to_shared",
     "kiln.language.nvidia.ampere.async_copy"),
    ("async_load", "cp.async_load", "async_copy_global_to_shared",
     "kiln.language.nvidia.ampere.async_copy"),
    ("commit", "cp.commit_group", "commit_group", "kiln.language.nvidia.ampere.async_copy"),
    ("wait", "cp.wait_group", "wait_group", "kiln.language.nvidia.ampere.async_copy"),
    ("wait_for", "cp.wait_for", "wait_for", "kiln.language.nvidia.ampere.async_copy"),
    ("mma_v2", "ampere.mma_v2", "mma_v2", "kiln.language.nvidia.ampere"),
    ("mbarrier_init", "mbarrier.init", "init", "kiln.language.nvidia.hopper.mbarrier"),
    ("mbarrier_wait", "mbarrier.wait", "wait", "kiln.language.nvidia.hopper.mbarrier"),
    ("tma_load", "tma.async_copy_global_to_shared", "async_copy_global_to_shared",
     "kiln.language.nvidia.hopper.tma"),
    ("tma_store_wait", "tma.store_wait", "store_wait", "kiln.language.nvidia.hopper.tma"),
    ("fence", "fence_async_shared", "fence_async_shared", "kiln.language.nvidia.hopper"),
    ("wgmma", "warpgroup_mma", "warpgroup_mma", "kiln.language.nvidia.hopper"),
    ("wgmma_init", "warpgroup_mma_init", "warpgroup_mma_init", "kiln.language.nvidia.hopper"),
    ("wgmma_wait", "warpgroup_mma_wait", "warpgroup_mma_wait", "kiln.language.nvidia.hopper"),
]


@pytest.mark.parametrize("target", AMD)
@pytest.mark.parametrize("which,anchor,name,module", NV_CASES, ids=[c[0] for c in NV_CASES])
def test_nvidia_builtin_on_amd_target(which, anchor, name, module, target):
    err = error_of(nvidia_builtin, target, WHICH=which, L=layout_1d(target),
                   L2=layout_2d(target))
    located.assert_located(
        err, HERE, f"E:{which}", anchor,
        re.escape(f"{name} is an NVIDIA builtin ({module}); the kernel is compiled for "
                  f"{target}, an AMD target"), kiln.CompilationError)


@kiln.jit
def amd_builtin(x, n, WHICH: kl.constexpr, L: kl.constexpr):
    offs = kl.arange(0, 256, L)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH1)
    if WHICH == "buffer_load":
        cdna3.buffer_load(x, offs)  # E:buffer_load
    if WHICH == "buffer_store":
        cdna3.buffer_store(1.0, x, offs)  # E:buffer_store
    if WHICH == "cdna4_buffer_load":
        cdna4.buffer_load(x, offs)  # E:cdna4_buffer_load
    if WHICH == "buffer_load_to_shared":
        acp.buffer_load_to_shared(buf, x, offs)  # E:buffer_load_to_shared
    if WHICH == "global_load_to_shared":
        acp.global_load_to_shared(buf, x + offs)  # E:global_load_to_shared
    if WHICH == "commit":
        acp.commit_group()  # E:amd_commit
    if WHICH == "wait":
        acp.wait_group(0)  # E:amd_wait
    if WHICH == "relaxed":
        acp.load_shared_relaxed(buf, L)  # E:relaxed


AMD_CASES = [  # (WHICH, marker, anchor, name in the message, module)
    ("buffer_load", "E:buffer_load", "cdna3.buffer_load", "buffer_load",
     "kiln.language.amd.cdna3"),
    ("buffer_store", "E:buffer_store", "cdna3.buffer_store", "buffer_store",
     "kiln.language.amd.cdna3"),
    # cdna4 re-exports cdna3's buffer ops: the message names where the builtin is defined
    ("cdna4_buffer_load", "E:cdna4_buffer_load", "cdna4.buffer_load", "buffer_load",
     "kiln.language.amd.cdna3"),
    ("buffer_load_to_shared", "E:buffer_load_to_shared", "acp.buffer_load_to_shared",
     "buffer_load_to_shared", "kiln.language.amd.cdna4.async_copy"),
    ("global_load_to_shared", "E:global_load_to_shared", "acp.global_load_to_shared",
     "global_load_to_shared", "kiln.language.amd.cdna4.async_copy"),
    ("commit", "E:amd_commit", "acp.commit_group", "commit_group",
     "kiln.language.amd.cdna4.async_copy"),
    ("wait", "E:amd_wait", "acp.wait_group", "wait_group", "kiln.language.amd.cdna4.async_copy"),
    ("relaxed", "E:relaxed", "acp.load_shared_relaxed", "load_shared_relaxed",
     "kiln.language.amd.cdna4.async_copy"),
]


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("which,marker,anchor,name,module", AMD_CASES,
                         ids=[c[0] for c in AMD_CASES])
def test_amd_builtin_on_nvidia_target(which, marker, anchor, name, module, target):
    err = error_of(amd_builtin, target, WHICH=which, L=layout_1d(target))
    located.assert_located(
        err, HERE, marker, anchor,
        re.escape(f"{name} is an AMD builtin ({module}); the kernel is compiled for "
                  f"{target}, an NVIDIA target"), kiln.CompilationError)


def test_vendor_error_comes_before_argument_checks():
    """The vendor is checked first: a wrong-vendor call with bad arguments names the vendor,
    not the argument."""
    @kiln.jit
    def bad_args(x, n):
        cp.wait_group(-3)  # E:first
    err = error_of(bad_args, "hip:gfx942")
    assert err.message.startswith("wait_group is an NVIDIA builtin"), err.message


def test_vendor_error_inside_a_called_function_points_at_the_builtin():
    @kiln.jit
    def helper(x):
        acp.commit_group()  # E:helper

    @kiln.jit
    def caller(x, n):
        helper(x)
    err = error_of(caller, "cuda:sm_80")
    located.assert_located(
        err, HERE, "E:helper", "acp.commit_group",
        re.escape("commit_group is an AMD builtin (kiln.language.amd.cdna4.async_copy); the "
                  "kernel is compiled for cuda:sm_80, an NVIDIA target"), kiln.CompilationError)
    assert any("in call to 'helper'" in note[0] for note in err.notes), err.notes


# --- vendor builtins on their own targets, and the shared ones everywhere ----------------------

@kiln.jit
def shared_builtins(x, n, L: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    m = offs < n
    ring.index(1).store(kl.load(x + offs, mask=m, other=0.0))
    kl.barrier()
    v = ring.index(1).load(L)
    v = kl.maximum(v, kl.full([32, 32], 0.0, kl.float32, L))
    kl.store(x + offs, v + kl.sum(v, axis=1)[:, None], mask=m)


@pytest.mark.parametrize("target", NVIDIA + AMD)
def test_shared_builtins_compile_for_every_target(target):
    k = compile_(shared_builtins, target, L=layout_2d(target))
    assert k.metadata["target"] == target
    assert ("ptx" if target.startswith("cuda:") else "amdgcn") in k.asm


@kiln.jit
def nvidia_copy(x, n, L: kl.constexpr):
    offs = kl.arange(0, 256, L)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH1)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    cp.wait_group(0)
    kl.store(x + offs, buf.load(L) + 1.0)


@kiln.jit
def amd_copy(x, n, L: kl.constexpr):
    offs = kl.arange(0, 256, L)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH1)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    acp.wait_group(0)
    cdna3.buffer_store(acp.load_shared_relaxed(buf, L) + 1.0, x, offs)


@pytest.mark.parametrize("fn,target", [(nvidia_copy, t) for t in NVIDIA] +
                         [(amd_copy, t) for t in AMD])
def test_vendor_builtins_compile_for_their_vendor(fn, target):
    k = compile_(fn, target, L=layout_1d(target))
    asm = k.asm["ptx"] if target.startswith("cuda:") else k.asm["amdgcn"]
    assert ("cp.async" in asm) if target.startswith("cuda:") else ("lds" in asm), asm[:2000]
