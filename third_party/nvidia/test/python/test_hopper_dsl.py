"""kiln.language.nvidia.hopper.mbarrier (Gluon's names): the PTX each builtin becomes, the
barriers Kiln adds around them, and argument errors at the user's line."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy
from kiln.language.nvidia.ampere import mbarrier as ampere_mbarrier
from kiln.language.nvidia.hopper import mbarrier

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
L = kl.BlockedLayout([1], [32], [4], [0])
SIG = {"x": "*fp32:16", "y": "*fp32:16"}


@kiln.jit
def phases(x, y, ROUNDS: kl.constexpr):
    offs = kl.arange(0, 128, L)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    buf = kl.allocate_shared_memory(kl.float32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    acc = kl.zeros([128], kl.float32, L)
    for i in range(ROUNDS):
        buf.store(kl.load(x + offs) + i)
        mbarrier.arrive(bar)
        mbarrier.wait(bar, i % 2)
        acc += buf.load(L)
    mbarrier.expect(bar, 16, pred=offs.dtype == kl.int32)
    mbarrier.invalidate(bar)
    kl.store(y + offs, acc)


def test_mbarrier_ptx():
    ptx = kiln.compile(phases, SIG, dict(ROUNDS=2), target="cuda:sm_90a", cache=False).asm["ptx"]
    lines = [l.strip() for l in ptx.splitlines() if l.strip() and not l.strip().startswith("//")]
    init = [i for i, l in enumerate(lines) if "mbarrier.init.shared.b64" in l]
    assert len(init) == 1 and lines[init[0]].startswith("@%p"), "thread 0 initializes"
    assert lines[init[0] + 1].startswith("bar.sync"), "a CTA barrier after the init"
    assert len([l for l in lines if "mbarrier.try_wait.parity.shared.b64" in l]) == 2
    # A single arrival is a predicated arrive.expect_tx of 0 bytes (no branch around it);
    # the expect arms the barrier with its byte count.
    arrives = [i for i, l in enumerate(lines)
               if re.match(r"@%p\d+ mbarrier\.arrive\.expect_tx\.shared\.b64 _, \[%r\d+\], 0;", l)]
    assert len(arrives) == 2
    assert any(re.search(r"mbarrier\.arrive\.expect_tx\.shared\.b64 _, \[%r\d+\], 16;", l)
               for l in lines)
    assert not any(re.match(r"mbarrier\.arrive\.shared\.b64", l) for l in lines)
    assert any("mbarrier.inval.shared.b64" in l for l in lines)
    # Each arrival by thread 0 follows a CTA barrier (the CTA's writes are released with it).
    for i in arrives:
        assert any(l.startswith("bar.sync") for l in lines[max(0, i - 8):i]), lines[i - 8:i + 1]


def test_mbarrier_expect_on_sm80_is_an_error():
    with pytest.raises(kiln.CompilationError, match=r"mbarrier.arrive.expect_tx needs sm_90"):
        kiln.compile(phases, SIG, dict(ROUNDS=1), target="cuda:sm_80", cache=False)


@kiln.jit
def ampere_phases(x, y, ROUNDS: kl.constexpr):
    """phases with Gluon's ampere.mbarrier (no expect, which is TMA's)."""
    offs = kl.arange(0, 128, L)
    bar = kl.allocate_shared_memory(kl.int64, [1], ampere_mbarrier.MBarrierLayout())
    ampere_mbarrier.init(bar, count=1)
    buf = kl.allocate_shared_memory(kl.float32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    acc = kl.zeros([128], kl.float32, L)
    for i in range(ROUNDS):
        buf.store(kl.load(x + offs) + i)
        ampere_mbarrier.arrive(bar)
        ampere_mbarrier.wait(bar, i % 2)
        acc += buf.load(L)
    ampere_mbarrier.invalidate(bar)
    kl.store(y + offs, acc)


def test_ampere_mbarrier_on_sm80():
    """sm_80 has mbarriers without try_wait, elect.sync and arrive counts: waits spin on
    test_wait.parity, lane 0 of warp 0 arrives (ptxas for sm_80 accepts it)."""
    ptx = kiln.compile(ampere_phases, SIG, dict(ROUNDS=2), target="cuda:sm_80",
                       cache=False).asm["ptx"]
    assert "mbarrier.test_wait.parity.shared.b64" in ptx and "try_wait" not in ptx
    assert "elect.sync" not in ptx and "mbarrier.arrive.shared.b64" in ptx


@kiln.jit
def e_not_word(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [2], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)  # E:word


@kiln.jit
def e_count(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=0)  # E:count


@kiln.jit
def e_dtype(x, y):
    bar = kl.allocate_shared_memory(kl.int32, [1], mbarrier.MBarrierLayout())
    mbarrier.wait(bar, 0)  # E:dtype


@kiln.jit
def e_bytes(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.expect(bar, 1 << 21)  # E:bytes


@kiln.jit
def e_arrive_count(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.arrive(bar, count=0)  # E:arrive


@kiln.jit
def e_phase_tensor(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.wait(bar, kl.arange(0, 128, L))  # E:phase


@kiln.jit
def e_pred_tensor(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.arrive(bar, pred=kl.arange(0, 128, L) < 4)  # E:pred


@kiln.jit
def e_deps(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.wait(bar, 0, deps=[x])  # E:deps


@kiln.jit
def e_not_smem(x, y):
    mbarrier.invalidate(x)  # E:smem


@kiln.jit
def e_count_runtime(x, y):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=kl.program_id(0))  # E:countrt


ERRORS = [
    (e_arrive_count, "E:arrive", "mbarrier.arrive",
     r"mbarrier.arrive: count must be in \[1, 1048575\], got 0"),
    (e_phase_tensor, "E:phase", "mbarrier.wait",
     r"mbarrier.wait: phase must be a scalar, got .*"),
    (e_pred_tensor, "E:pred", "mbarrier.arrive",
     r"mbarrier.arrive: pred must be a scalar, got .*"),
    (e_deps, "E:deps", "mbarrier.wait",
     r"mbarrier.wait: deps must be shared memory descriptors, got .*"),
    (e_not_smem, "E:smem", "mbarrier.invalidate",
     r"mbarrier.invalidate: mbarrier must be a shared memory descriptor .*"),
    (e_count_runtime, "E:countrt", "mbarrier.init",
     r"mbarrier.init: count must be a constexpr int, got .*"),
    (e_not_word, "E:word", "mbarrier.init",
     r"mbarrier.init: mbarrier must be one int64 word of shared memory \(in each CTA\), got "
     r"int64 of shape \[2\]"),
    (e_count, "E:count", "mbarrier.init", r"mbarrier.init: count must be in \[1, 1048575\], got 0"),
    (e_dtype, "E:dtype", "mbarrier.wait",
     r"mbarrier.wait: mbarrier must be one int64 word of shared memory \(in each CTA\), got "
     r"int32 of shape \[1\]"),
    (e_bytes, "E:bytes", "mbarrier.expect",
     r"mbarrier.expect: bytes must be in \[0, 1048575\], got 2097152"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, SIG, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def copy_through_mbarrier(out, inp, n, WAIT: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.float32, [32, 32], kl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    block: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    xi = kl.arange(0, 32, kl.SliceLayout(1, block))[:, None]
    yi = kl.arange(0, 32, kl.SliceLayout(0, block))[None, :]
    async_copy.async_copy_global_to_shared(smem, inp + xi * 32 + yi, xi < n)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    async_copy.mbarrier_arrive(bar)
    mbarrier.arrive(bar)
    if WAIT:
        mbarrier.wait(bar, 0)
    kl.store(out + xi * 32 + yi, smem.load(block))  # E:nowait


def test_async_copy_mbarrier_arrive():
    """Gluon's async_copy.mbarrier_arrive: every thread's cp.async.mbarrier.arrive; the copies
    land at the mbarrier wait (no commit/wait_group), and a read before that wait is an
    error at the user's line."""
    sig = {"out": "*fp32", "inp": "*fp32", "n": "i32"}
    k = kiln.compile(copy_through_mbarrier, sig, dict(WAIT=True), target="cuda:sm_90a",
                     cache=False)
    assert k.asm["ptx"].count("cp.async.mbarrier.arrive.shared.b64") == 1
    assert "cp.async.wait_group" not in k.asm["ptx"]
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(copy_through_mbarrier, sig, dict(WAIT=False), target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:nowait", "smem.load",
                           r"smem\.load reads shared memory that the barrier-completed "
                           r"write of async_copy\.async_copy_global_to_shared may still be writing: "
                           r"no wait on the barrier it completes on comes between them",
                           kiln.CompilationError)


# A batched (rank-3) accumulator layout, as Triton's test_lowerings.py builds them: a layout
# for loads, stores and conversions (no instruction takes one yet).
BATCHED = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1, 1],
                                    instr_shape=[16, 32, 16])


@kiln.jit
def uses_batched(x, L: kl.constexpr):
    kl.store(x + kl.full([2, 64, 32], 0, kl.int32, L), 1.0)


def test_batched_accumulator_layout_is_a_layout():
    assert BATCHED.rank == 3
    k = kiln.compile(uses_batched, {"x": "*fp32"}, {"L": BATCHED}, target="cuda:sm_90a",
                     cache=False)
    assert "st.global" in k.asm["ptx"]
    # Every element of the tensor is held by exactly one (register, lane, warp).
    ll = kl.to_linear_layout(BATCHED, [2, 64, 32])
    bases = [list(b) for b in ll.reg_bases + ll.lane_bases + ll.warp_bases]
    nonzero = [b for b in bases if any(b)]
    seen = set()
    for i in range(1 << len(nonzero)):
        c = [0, 0, 0]
        for j, b in enumerate(nonzero):
            if i >> j & 1:
                c = [x ^ y for x, y in zip(c, b)]
        seen.add(tuple(c))
    assert len(seen) == 1 << len(nonzero) == 2 * 64 * 32


@kiln.jit
def barrier_chosen_at_run_time(y, flag, PARITY: kl.constexpr):
    b0 = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    b1 = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(b0, count=1)
    mbarrier.init(b1, count=1)
    if flag > 0:
        b = b0
    else:
        b = b1
    mbarrier.arrive(b)
    mbarrier.wait(b, PARITY)  # E:bar-pick


def test_an_mbarrier_chosen_at_run_time_compiles():
    """A barrier an if chooses lowers like any buffer chosen at run time (its address)."""
    k = kiln.compile(barrier_chosen_at_run_time, {"y": "*fp32", "flag": "i32"}, {"PARITY": 0},
                     target="cuda:sm_90a", cache=False)
    assert "mbarrier.try_wait.parity" in k.asm["ptx"]


def test_an_mbarrier_chosen_at_run_time_is_checked():
    """The barrier checks follow the choice (each branch's barrier, named): a first wait for
    parity 1 on either fresh barrier is the error it is on a named one, at the wait."""
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(barrier_chosen_at_run_time, {"y": "*fp32", "flag": "i32"}, {"PARITY": 1},
                     target="cuda:sm_90a", cache=False)
    located.assert_located(
        ei.value, HERE, "E:bar-pick", "mbarrier.wait",
        r"mbarrier\.wait is the first wait on this barrier after its init and waits for "
        r"parity 1: on a fresh barrier phase 0 is in progress and a wait for parity 1 returns "
        r"at once; the first phase has parity 0", kiln.CompilationError)
