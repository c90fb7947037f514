"""Async misuse from the DSL, without a GPU: a corpus of small kernels, one mistake each, that
``tile-check-async-safety`` (CheckAsyncSafety.cpp, CheckBarrierLifecycle.cpp) or the DSL
rejects at the user's line, each message pinned; and correct kernels at the edges of the same
machinery that must compile with no error and no warning.

Mistakes, each a kiln.CompilationError at the line tagged ``# E:<name>``:
* cp.async (kiln.language.nvidia.ampere.async_copy; cuda:sm_80 and cuda:sm_90a): a read of the
  destination with no commit_group before the wait, with no wait, after a wait_group(N) that
  leaves its group in flight (alone and in a ring), after a wait on one branch of an ``if``,
  after a wait in a loop that may run no iteration, after ``wait_for`` on an older group's
  token; a ``.store`` over a copy in flight; a copy issued in a warp_specialize worker and
  read in the default partition (sm_90a);
* the AMD direct-to-LDS copies (kiln.language.amd.cdna4.async_copy; hip:gfx942, hip:gfx950):
  the same mistakes with buffer_load_to_shared / global_load_to_shared;
* mbarrier (sm_90a): a barrier never initialized, a first wait at parity 1, init count 2 with
  one arrival a phase, a wait or an arrival after invalidate;
* TMA and wgmma (sm_90a): a read of a TMA destination before the mbarrier wait (or after a
  wait on another barrier), a TMA store of a buffer the threads stored with no
  fence_async_shared, a kernel ending with a TMA store in flight, a TMA store's source
  rewritten (by the threads or by a TMA load) before store_wait, a warpgroup_mma on operands
  stored with no fence, an operand rewritten while an asynchronous warpgroup_mma reads it;
* constant ring slots out of range (``ring.index(5)`` on 2 slots, ``ring.index(-1)``) and
  vendor builtins on the other vendor's target.

A wait_group count larger than the groups that can be in flight compiles with a
kiln.CompilationWarning ("... it waits for nothing") at the wait.

The correct kernels come from test/gpu/async_edge_kernels.py, which
test/gpu/test_async_edge_cases.py runs on the GPU against torch, and from examples/hopper.py
and examples/hopper_ws.py."""

from __future__ import annotations

import os
import re
import sys
import warnings

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as acp
from kiln.language.nvidia.ampere import async_copy as cp
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_wait)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compiled  # noqa: E402  (skips the module when the compiler is not built)
import located  # noqa: E402

HERE = os.path.abspath(__file__)
_ROOT = os.path.join(os.path.dirname(HERE), "..", "..")
sys.path.insert(0, os.path.join(_ROOT, "test", "gpu"))
import async_edge_kernels as ek  # noqa: E402  (test/gpu's kernels, shared with the GPU test)

pytestmark = compiled.needs_compiler

NVIDIA = ["cuda:sm_80", "cuda:sm_90a"]
HOPPER = ["cuda:sm_90a"]
AMD = ["hip:gfx942", "hip:gfx950"]

SH = kl.SwizzledSharedLayout(1, 1, 1, [0])
L = kl.BlockedLayout([4], [32], [4], [0])      # 512 fp32, 16-byte cp.async per thread
LW = kl.BlockedLayout([4], [32], [1], [0])     # the same in a 1-warp worker partition
LA = kl.BlockedLayout([1], [64], [4], [0])     # 256 fp32, 4 bytes a lane (AMD wave64)
L2 = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
NV = kl.NVMMASharedLayout.get_default_for([64, 64], kl.bfloat16)
ACC = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
DESC = kl.tensor_descriptor_type(kl.bfloat16, [64, 64], NV)

SIG = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32"}
TSIG = {"d": DESC, "x": "*bf16:16", "y": "*fp32:16", "n": "i32"}


# --- the pinned messages ------------------------------------------------------------------------

def _e(text):
    return re.escape(text)


def not_committed(copy="async_copy.async_copy_global_to_shared"):
    return _e(f"smem.load reads shared memory that the async copy of {copy} may still "
              f"be writing: its group is not committed (no commit_group after it) on some "
              f"path, so no wait covers it")


def not_covered(after=0, access="smem.load reads",
                copy="async_copy.async_copy_global_to_shared"):
    groups = "1 group is" if after == 1 else f"{after} groups are"
    return _e(f"{access} shared memory that the async copy of {copy} may still be writing: "
              f"no wait covering its commit group comes between them on some path (at least "
              f"{groups} committed after it, and a wait must leave at most that many in "
              f"flight)")


OTHER_PARTITION = _e(
    "smem.load reads shared memory that the async copy of "
    "async_copy.async_copy_global_to_shared may still be writing: the copy is issued by another "
    "warp_specialize partition, and a wait covers only the copies of its own threads")
AMD_BUFFER = "buffer_load_to_shared"
STORE = "smem.store writes"


def uninitialized(op):
    return _e(f"{op} uses a barrier that nothing in this function initializes (no mbarrier "
              f"init on it): its word holds no phase or arrival count, and waits on it hang "
              f"or return at random")


FIRST_PARITY_ONE = _e(
    "mbarrier.wait is the first wait on this barrier after its init and waits for "
    "parity 1: on a fresh barrier phase 0 is in progress and a wait for parity 1 returns at "
    "once; the first phase has parity 0")
ARRIVALS_SHORT = _e(
    "mbarrier.init sets the barrier up for 2 arrivals per phase, but the arrivals on "
    "it in this function bring at most 1 per phase: no phase completes and every wait on it "
    "hangs")


def after_invalidate(op):
    return _e(f"{op} uses a barrier after its invalidate, with no init between: its word is "
              f"ordinary shared memory again")


TMA_READ_BEFORE_WAIT = _e(
    "smem.load reads shared memory that the barrier-completed write of "
    "tma.async_copy_global_to_shared may still be writing: no wait on the barrier it "
    "completes on comes between them")


def no_fence(reader):
    return _e(f"{reader} reads shared memory asynchronously (async proxy) that "
              f"smem.store wrote with no fence_async_shared between them: the "
              f"asynchronous read may not see those writes")


def rewritten_while_read(writer, reader, counter):
    return _e(f"{writer} writes a shared buffer that the asynchronous read of {reader} may "
              f"still be reading: no wait on the '{counter}' counter with at most 0 pending "
              f"comes between them")


SLOT_5 = _e("index: slot 5 is out of range for a ring of 2 slots (valid: 0 to 1)")
SLOT_MINUS_1 = _e("index: slot -1 is out of range for a ring of 2 slots (valid: 0 to 1); -1 is "
                  "not a slot counted from the end as in Python: it addresses memory before "
                  "the buffer")


def nvidia_builtin(name, module, target):
    return _e(f"{name} is an NVIDIA builtin ({module}); the kernel is compiled for {target}, "
              f"an AMD target")


def amd_builtin(name, module, target):
    return _e(f"{name} is an AMD builtin ({module}); the kernel is compiled for {target}, an "
              f"NVIDIA target")


IDLE_WAIT = _e("waits until at most 3 commit groups are in flight, but at most 1 can be here: "
               "it waits for nothing")


# --- cp.async (NVIDIA) --------------------------------------------------------------------------

@kiln.jit
def cp_no_commit(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.wait_group(0)  # waits only for committed groups
    kl.store(y + offs, buf.load(L))  # E:cp_no_commit


@kiln.jit
def cp_no_wait(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)  # N:cp_no_wait
    cp.commit_group()
    kl.store(y + offs, buf.load(L))  # E:cp_no_wait
    cp.wait_group(0)


@kiln.jit
def cp_wait_leaves_group(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    cp.wait_group(1)  # the only group may stay in flight
    kl.store(y + offs, buf.load(L))  # E:cp_wait_leaves_group
    cp.wait_group(0)


@kiln.jit
def cp_ring_wait_too_loose(x, y, n):
    # A 3-slot ring two groups ahead: the read of slot k % 3 needs wait_group(1), not 2.
    offs = kl.arange(0, 512, L)
    ring = kl.allocate_shared_memory(kl.float32, [3, 512], SH)
    for s in kl.static_range(2):
        cp.async_copy_global_to_shared(ring.index(s), x + s * 512 + offs)
        cp.commit_group()
    for k in range(n):
        cp.wait_group(2)
        v = ring.index(k % 3).load(L)  # E:cp_ring_loose
        kl.store(y + k * 512 + offs, v)
        cp.async_copy_global_to_shared(ring.index((k + 2) % 3), x + (k + 2) * 512 + offs)
        cp.commit_group()
    cp.wait_group(0)


@kiln.jit
def cp_ring_reads_the_next_slot(x, y, n):
    # The same ring with the right wait, reading slot (k + 1) % 3, whose group is in flight.
    offs = kl.arange(0, 512, L)
    ring = kl.allocate_shared_memory(kl.float32, [3, 512], SH)
    for s in kl.static_range(2):
        cp.async_copy_global_to_shared(ring.index(s), x + s * 512 + offs)
        cp.commit_group()
    for k in range(n):
        cp.wait_group(1)
        v = ring.index((k + 1) % 3).load(L)  # E:cp_ring_next
        kl.store(y + k * 512 + offs, v)
        cp.async_copy_global_to_shared(ring.index((k + 2) % 3), x + (k + 2) * 512 + offs)
        cp.commit_group()
    cp.wait_group(0)


@kiln.jit
def cp_wait_on_one_branch(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    if n > 0:
        cp.wait_group(0)
    kl.store(y + offs, buf.load(L))  # E:cp_one_branch
    cp.wait_group(0)


@kiln.jit
def cp_wait_in_a_loop(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    for i in range(n):  # may run no iteration
        cp.wait_group(0)
    kl.store(y + offs, buf.load(L))  # E:cp_loop_wait
    cp.wait_group(0)


@kiln.jit
def cp_wait_for_the_older_token(x, y, n):
    offs = kl.arange(0, 512, L)
    a = kl.allocate_shared_memory(kl.float32, [512], SH)
    b = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(a, x + offs)
    first = cp.commit_group()
    cp.async_copy_global_to_shared(b, x + 512 + offs)
    cp.commit_group()
    cp.wait_for(first)  # leaves b's group in flight
    kl.store(y + offs, b.load(L))  # E:cp_token
    cp.wait_group(0)


@kiln.jit
def cp_ping_pong_reads_the_prefetch(x, y, n):
    # Ping-pong buffers swapped each iteration: the read takes nxt, the buffer the copy just
    # issued is still writing (cur is the one whose copy the wait covers).
    offs = kl.arange(0, 512, L)
    cur = kl.allocate_shared_memory(kl.float32, [512], SH)
    nxt = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(cur, x + offs)
    cp.commit_group()
    for k in range(n):
        cp.async_copy_global_to_shared(nxt, x + (k + 1) * 512 + offs)
        cp.commit_group()
        cp.wait_group(1)
        kl.store(y + k * 512 + offs, nxt.load(L))  # E:cp_ping_pong
        cur, nxt = nxt, cur
    cp.wait_group(0)


@kiln.jit
def cp_ping_pong(x, y, n):
    # The right form of the kernel above: it compiles without a word.
    offs = kl.arange(0, 512, L)
    cur = kl.allocate_shared_memory(kl.float32, [512], SH)
    nxt = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(cur, x + offs)
    cp.commit_group()
    for k in range(n):
        cp.async_copy_global_to_shared(nxt, x + (k + 1) * 512 + offs)
        cp.commit_group()
        cp.wait_group(1)
        kl.store(y + k * 512 + offs, cur.load(L))
        cur, nxt = nxt, cur
    cp.wait_group(0)


@kiln.jit
def cp_buffer_chosen_by_if(x, y, n):
    offs = kl.arange(0, 512, L)
    a = kl.allocate_shared_memory(kl.float32, [512], SH)
    b = kl.allocate_shared_memory(kl.float32, [512], SH)
    if n > 0:
        buf = a
    else:
        buf = b
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    kl.store(y + offs, buf.load(L))  # E:cp_chosen_if
    cp.wait_group(0)


@kiln.jit
def cp_store_over_copy(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    buf.store(kl.zeros([512], kl.float32, L))  # E:cp_store_over
    cp.wait_group(0)
    kl.store(y + offs, buf.load(L))


@kiln.jit
def _ws_reader(buf, y):
    offs = kl.arange(0, 512, L)
    cp.wait_group(0)  # covers only this partition's copies
    kl.store(y + offs, buf.load(L))  # E:cp_ws


@kiln.jit
def _ws_copier(buf, x):
    cp.async_copy_global_to_shared(buf, x + kl.arange(0, 512, LW))
    cp.commit_group()


@kiln.jit
def cp_copy_in_worker_read_in_default(x, y, n):
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    kl.warp_specialize([(_ws_reader, (buf, y)), (_ws_copier, (buf, x))], [1], [24])


@kiln.jit
def _ws_reader_unsynced(buf, y):
    offs = kl.arange(0, 512, L)
    kl.store(y + offs, buf.load(L))  # E:cp_ws_unsynced


@kiln.jit
def _ws_copier_waits(buf, x):
    cp.async_copy_global_to_shared(buf, x + kl.arange(0, 512, LW))
    cp.commit_group()
    cp.wait_group(0)  # the worker's own copies land; nothing tells the default partition


NV64 = kl.NVMMASharedLayout.get_default_for([64, 64], kl.float16)
BL64 = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])


@kiln.jit
def _tma_once(d, buf, bar):
    # the producer's one load of the buffer, completing on the barrier the consumer waits on
    mbarrier.expect(bar, 64 * 64 * 2)
    tma.async_copy_global_to_shared(d, [0, 0], bar, buf)


@kiln.jit
def _tma_every_step(d, buf, bar, n):
    for i in range(n):
        mbarrier.expect(bar, 64 * 64 * 2)
        tma.async_copy_global_to_shared(d, [i * 64, 0], bar, buf)  # the refill


@kiln.jit
def _read_landed(buf, bar, out):
    mbarrier.wait(bar, 0)
    r = kl.arange(0, 64, layout=kl.SliceLayout(1, BL64))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, BL64))
    kl.store(out + r[:, None] * 64 + c[None, :], buf.load(BL64))


@kiln.jit
def tma_handoff_once(d, out):
    """A producer warp loads the buffer once, with no wait before it; the consumer reads it
    after waiting on the barrier the load completes on: the load happens before the read."""
    buf = kl.allocate_shared_memory(kl.float16, [64, 64], NV64)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_read_landed, (buf, bar, out)), (_tma_once, (d, buf, bar))], [1], [24])


@kiln.jit
def tma_refill_without_wait(d, out, n):
    """The same load in a loop, with no wait for the consumer to be done: the second load may
    overwrite the buffer while the consumer reads the first."""
    buf = kl.allocate_shared_memory(kl.float16, [64, 64], NV64)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_read_landed, (buf, bar, out)), (_tma_every_step, (d, buf, bar, n))],
                       [1], [24])


@kiln.jit
def _tma_two_halves(d, bufs, bar, SPLIT: kl.constexpr):
    # two loads completing on one barrier: under one expect of both (one phase), or each
    # under its own (SPLIT: the first landing may complete a phase the consumer takes)
    if SPLIT:
        mbarrier.expect(bar, 64 * 64 * 2)
        tma.async_copy_global_to_shared(d, [0, 0], bar, bufs.index(0))
        mbarrier.expect(bar, 64 * 64 * 2)
        tma.async_copy_global_to_shared(d, [64, 0], bar, bufs.index(1))  # the second half
    else:
        mbarrier.expect(bar, 2 * 64 * 64 * 2)
        for h in kl.static_range(2):
            tma.async_copy_global_to_shared(d, [h * 64, 0], bar, bufs.index(h))


@kiln.jit
def _read_both_halves(bufs, bar, out):
    mbarrier.wait(bar, 0)
    r = kl.arange(0, 64, layout=kl.SliceLayout(1, BL64))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, BL64))
    for h in kl.static_range(2):
        kl.store(out + (h * 64 + r[:, None]) * 64 + c[None, :], bufs.index(h).load(BL64))


@kiln.jit
def tma_two_halves(d, out, SPLIT: kl.constexpr):
    """A producer warp loads two buffers once, both completing on one barrier; the consumer
    reads both after one wait."""
    bufs = kl.allocate_shared_memory(kl.float16, [2, 64, 64], NV64)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_read_both_halves, (bufs, bar, out)),
                        (_tma_two_halves, (d, bufs, bar, SPLIT))], [1], [24])


@kiln.jit
def cp_worker_waits_no_handoff(x, y, n):
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    kl.warp_specialize([(_ws_reader_unsynced, (buf, y)), (_ws_copier_waits, (buf, x))], [1],
                       [24])


# --- the AMD direct-to-LDS copies ---------------------------------------------------------------

@kiln.jit
def amd_no_wait(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    kl.store(y + offs, buf.load(LA))  # E:amd_no_wait
    acp.wait_group(0)


@kiln.jit
def amd_no_commit(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.global_load_to_shared(buf, x + offs)
    acp.wait_group(0)
    kl.store(y + offs, buf.load(LA))  # E:amd_no_commit


@kiln.jit
def amd_wait_leaves_group(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    acp.wait_group(1)
    kl.store(y + offs, buf.load(LA))  # E:amd_wait_leaves_group
    acp.wait_group(0)


@kiln.jit
def amd_wait_on_one_branch(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    if n > 0:
        acp.wait_group(0)
    kl.store(y + offs, buf.load(LA))  # E:amd_one_branch
    acp.wait_group(0)


@kiln.jit
def amd_relaxed_read_in_flight(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    kl.store(y + offs, acp.load_shared_relaxed(buf, LA))  # E:amd_relaxed
    acp.wait_group(0)


@kiln.jit
def amd_store_over_copy(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.global_load_to_shared(buf, x + offs)
    acp.commit_group()
    buf.store(kl.zeros([256], kl.float32, LA))  # E:amd_store_over
    acp.wait_group(0)
    kl.store(y + offs, buf.load(LA))


# --- mbarrier -----------------------------------------------------------------------------------

@kiln.jit
def mb_never_initialized(x, y, n):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.arrive(bar)
    mbarrier.wait(bar, 0)  # E:mb_uninit


@kiln.jit
def mb_first_wait_parity_one(x, y, n):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar)
    mbarrier.wait(bar, 1)  # E:mb_parity
    mbarrier.invalidate(bar)


@kiln.jit
def mb_count_two_one_arrival(x, y, n):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=2)  # E:mb_count
    for i in range(n):
        mbarrier.arrive(bar)
        mbarrier.wait(bar, i & 1)
    mbarrier.invalidate(bar)


@kiln.jit
def mb_wait_after_invalidate(x, y, n):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar)
    mbarrier.invalidate(bar)
    mbarrier.wait(bar, 0)  # E:mb_wait_invalid


@kiln.jit
def mb_arrive_after_invalidate(x, y, n):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    mbarrier.arrive(bar)  # E:mb_arrive_invalid


@kiln.jit
def mb_second_phase_waited_at_parity_zero(d, x, y, n):
    # The barrier is reused for a second TMA load, and the second wait asks for parity 0 again:
    # phase 0 has completed, so it returns at once and the read races the second load.
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [0, 0], bar, buf)
    mbarrier.wait(bar, 0)
    v = buf.load(L2)
    mbarrier.expect(bar, d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [64, 0], bar, buf)
    mbarrier.wait(bar, 0)  # E:mb_parity_reuse
    w = buf.load(L2)
    mbarrier.invalidate(bar)
    kl.store(x + r[:, None] * 64 + c[None, :], v + w)


# --- TMA and wgmma ------------------------------------------------------------------------------

@kiln.jit
def tma_read_before_wait(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [0, 0], bar, buf)
    v = buf.load(L2)  # E:tma_read_early
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    kl.store(x + r[:, None] * 64 + c[None, :], v)


@kiln.jit
def tma_read_after_another_barrier(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    bars = kl.allocate_shared_memory(kl.int64, [2, 1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    mbarrier.init(bars.index(0), count=1)
    mbarrier.init(bars.index(1), count=1)
    mbarrier.expect(bars.index(0), d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [0, 0], bars.index(0), buf)
    mbarrier.arrive(bars.index(1))
    mbarrier.wait(bars.index(1), 0)  # the copy completes on bars.index(0)
    v = buf.load(L2)  # E:tma_other_barrier
    mbarrier.wait(bars.index(0), 0)
    kl.store(x + r[:, None] * 64 + c[None, :], v)


@kiln.jit
def tma_store_without_fence(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    tma.async_copy_shared_to_global(d, [0, 0], buf)
    tma.store_wait(0)


@kiln.jit
def tma_store_in_flight_at_exit(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [0, 0], buf)  # no store_wait: the kernel's end waits


@kiln.jit
def tma_store_then_wait(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [0, 0], buf)
    tma.store_wait(0)


@kiln.jit
def tma_stores_in_a_loop(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    for i in range(n):
        tma.store_wait(0)  # the previous tile's store has read buf
        buf.store(kl.load(x + i * 4096 + r[:, None] * 64 + c[None, :]))
        fence_async_shared()
        tma.async_copy_shared_to_global(d, [i * 64, 0], buf)


@kiln.jit
def _ws_idle(y):
    pass


@kiln.jit
def _ws_storer(d, x):
    r = kl.arange(0, 64, kl.SliceLayout(1, kl.BlockedLayout([1, 8], [4, 8], [1, 1], [1, 0])))
    c = kl.arange(0, 64, kl.SliceLayout(0, kl.BlockedLayout([1, 8], [4, 8], [1, 1], [1, 0])))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [0, 0], buf)  # E:ws_store_exit


@kiln.jit
def tma_store_in_a_worker_at_exit(d, x, y, n):
    kl.warp_specialize([(_ws_idle, (y,)), (_ws_storer, (d, x))], [1], [24])


@kiln.jit
def tma_store_source_rewritten(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    t = kl.load(x + r[:, None] * 64 + c[None, :])
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    buf.store(t)
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [0, 0], buf)
    buf.store(t + 1.0)  # E:tma_src_rewritten
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [64, 0], buf)
    tma.store_wait(0)


@kiln.jit
def tma_load_over_store_source(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    fence_async_shared()
    tma.async_copy_shared_to_global(d, [0, 0], buf)
    mbarrier.expect(bar, d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [64, 0], bar, buf)  # E:tma_load_over_store
    mbarrier.wait(bar, 0)
    tma.store_wait(0)
    kl.store(x + r[:, None] * 64 + c[None, :], buf.load(L2))


@kiln.jit
def wgmma_without_fence(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    t = kl.load(x + r[:, None] * 64 + c[None, :])
    a = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    b = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    a.store(t)
    b.store(t)
    zero = kl.zeros([64, 64], kl.float32, ACC)
    acc = warpgroup_mma(a, b.permute((1, 0)), zero)
    ra = kl.arange(0, 64, kl.SliceLayout(1, ACC))
    ca = kl.arange(0, 64, kl.SliceLayout(0, ACC))
    kl.store(y + ra[:, None] * 64 + ca[None, :], acc)


@kiln.jit
def wgmma_operand_rewritten_in_flight(d, x, y, n):
    r = kl.arange(0, 64, kl.SliceLayout(1, L2))
    c = kl.arange(0, 64, kl.SliceLayout(0, L2))
    t = kl.load(x + r[:, None] * 64 + c[None, :])
    a = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    b = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    a.store(t)
    b.store(t)
    fence_async_shared()
    acc = warpgroup_mma(a, b.permute((1, 0)), kl.zeros([64, 64], kl.float32, ACC),
                        is_async=True)
    a.store(t + 1.0)  # E:wgmma_operand_rewritten
    acc = warpgroup_mma_wait(0, deps=(acc,))
    ra = kl.arange(0, 64, kl.SliceLayout(1, ACC))
    ca = kl.arange(0, 64, kl.SliceLayout(0, ACC))
    kl.store(y + ra[:, None] * 64 + ca[None, :], acc)


# --- ring slots and vendors ---------------------------------------------------------------------

@kiln.jit
def slot_past_the_end(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 512, CL)
    ring = kl.allocate_shared_memory(kl.float32, [2, 512], SH)
    cp.async_copy_global_to_shared(ring.index(5), x + offs)  # E:slot_5
    cp.commit_group()
    cp.wait_group(0)


@kiln.jit
def slot_minus_one(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 512, CL)
    ring = kl.allocate_shared_memory(kl.float32, [2, 512], SH)
    cp.async_copy_global_to_shared(ring.index(-1), x + offs)  # E:slot_minus_1
    cp.commit_group()
    cp.wait_group(0)


@kiln.jit
def amd_slot_past_the_end(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 256, CL)
    ring = kl.allocate_shared_memory(kl.float32, [2, 256], SH)
    acp.buffer_load_to_shared(ring.index(5), x, offs)  # E:amd_slot_5
    acp.commit_group()
    acp.wait_group(0)


@kiln.jit
def nvidia_copy_on_amd(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 256, CL)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    cp.async_copy_global_to_shared(buf, x + offs)  # E:nv_on_amd
    cp.commit_group()
    cp.wait_group(0)


@kiln.jit
def nvidia_wait_for_on_amd(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 256, CL)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.global_load_to_shared(buf, x + offs)
    token = acp.commit_group()
    cp.wait_for(token)  # E:nv_wait_for_on_amd


@kiln.jit
def amd_copy_on_nvidia(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 512, CL)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    acp.buffer_load_to_shared(buf, x, offs)  # E:amd_on_nv
    acp.commit_group()
    acp.wait_group(0)


@kiln.jit
def amd_wait_on_nvidia(x, y, n, CL: kl.constexpr):
    offs = kl.arange(0, 512, CL)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    acp.wait_group(0)  # E:amd_wait_on_nv


# --- the corpus ---------------------------------------------------------------------------------

CP = "cp.async_copy_global_to_shared"
AMD_COPIES = "kiln.language.amd.cdna4.async_copy"
NV_COPIES = "kiln.language.nvidia.ampere.async_copy"

# (id, kernel, targets, signature, marker, anchor, message: a regex, or a function of the
# target giving one). Kernels with a CL parameter get the target's copy layout.
MISTAKES = [
    # cp.async
    ("cp_no_commit", cp_no_commit, NVIDIA, SIG, "E:cp_no_commit", "buf.load", not_committed()),
    ("cp_no_wait", cp_no_wait, NVIDIA, SIG, "E:cp_no_wait", "buf.load", not_covered(0)),
    ("cp_wait_leaves_group", cp_wait_leaves_group, NVIDIA, SIG, "E:cp_wait_leaves_group",
     "buf.load", not_covered(0)),
    ("cp_ring_wait_too_loose", cp_ring_wait_too_loose, NVIDIA, SIG, "E:cp_ring_loose",
     "ring.index", not_covered(1)),
    ("cp_ring_reads_the_next_slot", cp_ring_reads_the_next_slot, NVIDIA, SIG, "E:cp_ring_next",
     "ring.index", not_covered(0)),
    ("cp_wait_on_one_branch", cp_wait_on_one_branch, NVIDIA, SIG, "E:cp_one_branch",
     "buf.load", not_covered(0)),
    ("cp_wait_in_a_loop", cp_wait_in_a_loop, NVIDIA, SIG, "E:cp_loop_wait", "buf.load",
     not_covered(0)),
    ("cp_wait_for_the_older_token", cp_wait_for_the_older_token, NVIDIA, SIG, "E:cp_token",
     "b.load", not_covered(0)),
    ("cp_ping_pong_reads_the_prefetch", cp_ping_pong_reads_the_prefetch, NVIDIA, SIG,
     "E:cp_ping_pong", "nxt.load", not_covered(0)),
    ("cp_buffer_chosen_by_if", cp_buffer_chosen_by_if, NVIDIA, SIG, "E:cp_chosen_if",
     "buf.load", not_covered(0)),
    ("cp_store_over_copy", cp_store_over_copy, NVIDIA, SIG, "E:cp_store_over", "buf.store",
     not_covered(0, access=STORE)),
    ("cp_copy_in_worker_read_in_default", cp_copy_in_worker_read_in_default, HOPPER, SIG,
     "E:cp_ws", "buf.load", OTHER_PARTITION),
    # the AMD direct-to-LDS copies
    ("amd_no_wait", amd_no_wait, AMD, SIG, "E:amd_no_wait", "buf.load",
     not_covered(0, copy=AMD_BUFFER)),
    ("amd_no_commit", amd_no_commit, AMD, SIG, "E:amd_no_commit", "buf.load", not_committed()),
    ("amd_wait_leaves_group", amd_wait_leaves_group, AMD, SIG, "E:amd_wait_leaves_group",
     "buf.load", not_covered(0, copy=AMD_BUFFER)),
    ("amd_wait_on_one_branch", amd_wait_on_one_branch, AMD, SIG, "E:amd_one_branch",
     "buf.load", not_covered(0, copy=AMD_BUFFER)),
    ("amd_relaxed_read_in_flight", amd_relaxed_read_in_flight, AMD, SIG, "E:amd_relaxed",
     "acp.load_shared_relaxed", not_covered(0, copy=AMD_BUFFER)),
    ("amd_store_over_copy", amd_store_over_copy, AMD, SIG, "E:amd_store_over", "buf.store",
     not_covered(0, access=STORE)),
    # mbarrier
    ("mb_never_initialized", mb_never_initialized, HOPPER, SIG, "E:mb_uninit", "mbarrier.wait",
     uninitialized("mbarrier.wait")),
    ("mb_first_wait_parity_one", mb_first_wait_parity_one, HOPPER, SIG, "E:mb_parity",
     "mbarrier.wait", FIRST_PARITY_ONE),
    ("mb_count_two_one_arrival", mb_count_two_one_arrival, HOPPER, SIG, "E:mb_count",
     "mbarrier.init", ARRIVALS_SHORT),
    ("mb_wait_after_invalidate", mb_wait_after_invalidate, HOPPER, SIG, "E:mb_wait_invalid",
     "mbarrier.wait", after_invalidate("mbarrier.wait")),
    ("mb_arrive_after_invalidate", mb_arrive_after_invalidate, HOPPER, SIG,
     "E:mb_arrive_invalid", "mbarrier.arrive", after_invalidate("mbarrier.arrive")),
    # TMA and wgmma
    ("tma_read_before_wait", tma_read_before_wait, HOPPER, TSIG, "E:tma_read_early",
     "buf.load", TMA_READ_BEFORE_WAIT),
    ("tma_read_after_another_barrier", tma_read_after_another_barrier, HOPPER, TSIG,
     "E:tma_other_barrier", "buf.load", TMA_READ_BEFORE_WAIT),
    # A worker's stores are its own threads' bulk groups: the kernel's end (the default
    # warps) cannot wait for them.
    ("tma_store_in_a_worker_at_exit", tma_store_in_a_worker_at_exit, HOPPER, TSIG,
     "E:ws_store_exit", "tma.async_copy_shared_to_global", _e(
         "the kernel can end while this asynchronous read of shared memory is still in "
         "flight: no wait on the 'cp.async.bulk' counter leaves it done before the end (add "
         "a TMA store_wait(0) before the kernel returns)")),
    ("tma_store_source_rewritten", tma_store_source_rewritten, HOPPER, TSIG,
     "E:tma_src_rewritten", "buf.store",
     rewritten_while_read("smem.store", "tma.async_copy_shared_to_global",
                          "cp.async.bulk")),
    ("tma_load_over_store_source", tma_load_over_store_source, HOPPER, TSIG,
     "E:tma_load_over_store", "tma.async_copy_global_to_shared",
     rewritten_while_read("tma.async_copy_global_to_shared",
                          "tma.async_copy_shared_to_global", "cp.async.bulk")),
    ("wgmma_operand_rewritten_in_flight", wgmma_operand_rewritten_in_flight, HOPPER, TSIG,
     "E:wgmma_operand_rewritten", "a.store",
     rewritten_while_read("smem.store", "warpgroup_mma", "wgmma")),
    # ring slots
    ("slot_past_the_end", slot_past_the_end, NVIDIA, SIG, "E:slot_5", "ring.index(5)", SLOT_5),
    ("slot_minus_one", slot_minus_one, NVIDIA, SIG, "E:slot_minus_1", "ring.index(-1)",
     SLOT_MINUS_1),
    ("amd_slot_past_the_end", amd_slot_past_the_end, AMD, SIG, "E:amd_slot_5",
     "ring.index(5)", SLOT_5),
    # vendors
    ("nvidia_copy_on_amd", nvidia_copy_on_amd, AMD, SIG, "E:nv_on_amd", CP,
     lambda t: nvidia_builtin("async_copy_global_to_shared", NV_COPIES, t)),
    ("nvidia_wait_for_on_amd", nvidia_wait_for_on_amd, AMD, SIG, "E:nv_wait_for_on_amd",
     "cp.wait_for", lambda t: nvidia_builtin("wait_for", NV_COPIES, t)),
    ("amd_copy_on_nvidia", amd_copy_on_nvidia, NVIDIA, SIG, "E:amd_on_nv",
     "acp.buffer_load_to_shared", lambda t: amd_builtin("buffer_load_to_shared", AMD_COPIES, t)),
    ("amd_wait_on_nvidia", amd_wait_on_nvidia, NVIDIA, SIG, "E:amd_wait_on_nv",
     "acp.wait_group", lambda t: amd_builtin("wait_group", AMD_COPIES, t)),
    ("mb_second_phase_waited_at_parity_zero", mb_second_phase_waited_at_parity_zero, HOPPER,
     TSIG, "E:mb_parity_reuse", "mbarrier.wait",
     _e("mbarrier.wait waits for parity 0 again right after a wait for it on this "
        "barrier: that phase is complete, so the wait returns at once; the next phase has "
        "parity 1")),
    ("cp_worker_waits_no_handoff", cp_worker_waits_no_handoff, HOPPER, SIG, "E:cp_ws_unsynced",
     "buf.load",
     _e("smem.load reads shared memory that another warp_specialize partition writes, "
        "with no barrier wait before it in this partition: the partitions run concurrently, "
        "and nothing orders the two (hand the buffer over with an mbarrier)")),
]

def _layout(target):
    return LA if target.startswith("hip:") else L


def _cases(table):
    return [pytest.param(fn, target, *row[3:7], id=f"{name}-{target}")
            for row in table for name, fn, targets in [row[:3]] for target in targets]


def _error(fn, sig, target):
    cx = {"CL": _layout(target)} if "CL" in fn.arg_names else {}
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, cx, target=target, num_warps=4, cache=False)
    return ei.value


@pytest.mark.parametrize("fn,target,sig,marker,anchor,message",
                         _cases(MISTAKES))
def test_mistake_is_an_error_at_the_line(fn, target, sig, marker, anchor, message):
    err = _error(fn, sig, target)
    if callable(message):
        message = message(target)
    located.assert_located(err, HERE, marker, anchor, message, kiln.CompilationError)


@pytest.mark.parametrize("fn,reader", [
    (tma_store_without_fence, "cp.async.bulk.tensor"),
    (wgmma_without_fence, "wgmma.mma_async"),
])
def test_missing_proxy_fence_is_inserted(fn, reader):
    """Stores into shared memory read by the async proxy with no fence_async_shared: as
    Triton does for Gluon kernels, Kiln inserts the fence (tile-nv-insert-proxy-fences)
    before the read, ahead of the barrier; tile-check-async-safety, which reports the
    missing fence when that pass does not run (lit), passes the result."""
    k = kiln.compile(fn, TSIG, {}, target=HOPPER[0], num_warps=4)
    ptx = k.asm["ptx"]
    fence = ptx.index("fence.proxy.async")
    assert ptx.count("fence.proxy.async") == 1
    assert ptx.rindex("st.shared", 0, fence) < fence < ptx.index(reader, fence)
    assert "bar.sync" in ptx[fence:ptx.index(reader, fence)]


def test_every_marker_has_one_case():
    """Every ``# E:`` marker of this file belongs to exactly one case."""
    markers = re.findall(r"# (E:\w+)$", open(HERE).read(), re.M)
    cases = [row[4] for row in MISTAKES]
    assert sorted(markers) == sorted(cases)
    assert len(set(cases)) == len(cases)


def test_checker_errors_carry_a_note_at_the_async_op():
    """The error names the op it races with, and a note points at that op's line."""
    err = _error(cp_no_wait, SIG, "cuda:sm_90a")
    line, col = located.where(HERE, "N:cp_no_wait", "cp.async_copy_global_to_shared")
    assert ("the async copy", HERE, line, col) in err.notes, err.notes


# --- a wait that waits for nothing: a warning ---------------------------------------------------

@kiln.jit
def cp_idle_wait(x, y, n):
    offs = kl.arange(0, 512, L)
    buf = kl.allocate_shared_memory(kl.float32, [512], SH)
    cp.async_copy_global_to_shared(buf, x + offs)
    cp.commit_group()
    cp.wait_group(3)  # W:cp_idle
    cp.wait_group(0)
    kl.store(y + offs, buf.load(L))


@kiln.jit
def amd_idle_wait(x, y, n):
    offs = kl.arange(0, 256, LA)
    buf = kl.allocate_shared_memory(kl.float32, [256], SH)
    acp.buffer_load_to_shared(buf, x, offs)
    acp.commit_group()
    acp.wait_group(3)  # W:amd_idle
    acp.wait_group(0)
    kl.store(y + offs, buf.load(LA))


@pytest.mark.parametrize("fn,target,marker,anchor", [
    *[(cp_idle_wait, t, "W:cp_idle", "cp.wait_group") for t in NVIDIA],
    *[(amd_idle_wait, t, "W:amd_idle", "acp.wait_group") for t in AMD],
])
def test_wait_for_more_groups_than_in_flight_warns(fn, target, marker, anchor):
    with pytest.warns(kiln.CompilationWarning, match=IDLE_WAIT) as record:
        k = kiln.compile(fn, SIG, {}, target=target, num_warps=4, cache=False)
    ours = [r for r in record if issubclass(r.category, kiln.CompilationWarning)]
    assert len(ours) == 1, [str(r.message) for r in ours]
    w = ours[0].message
    assert not isinstance(w, kiln.CompilationRemark)
    line, col = located.where(HERE, marker, anchor)
    assert (w.file, w.line, w.col) == (HERE, line, col), str(w)
    assert re.fullmatch(IDLE_WAIT, w.message), w.message
    assert (ours[0].filename, ours[0].lineno) == (HERE, line)
    text = str(w).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: warning: {w.message}"
    assert [x.message for x in k.warnings] == [w.message]


# --- correct kernels at the edges: no error, no warning -----------------------------------------

def compile_silently(fn, signature, constexprs, target, num_warps=ek.NUM_WARPS):
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(fn, signature, constexprs, target=target, num_warps=num_warps,
                         cache=False)
    assert k.warnings == [], [str(w) for w in k.warnings]
    return k


def cp_waits(ptx):
    return [int(n) for n in re.findall(r"cp\.async\.wait_group\s+(\d+)\s*;", ptx)]


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("read", ["same", "reversed"])
@pytest.mark.parametrize("nbuf", [1, 2])
def test_one_slot_ring_wraps(nbuf, read, target):
    k = compile_silently(ek.one_slot_ring, ek.RING_SIG, ek.ring_constexprs(nbuf, read), target)
    ptx = k.asm["ptx"]
    assert cp_waits(ptx) == [0]
    assert re.search(r"cp\.async\.cg\.shared\.global\s*\[[^\]]*\],\s*\[[^\]]*\],\s*16;", ptx)
    assert k.metadata["shared"] >= nbuf * ek.BLOCK * 4
    if read == "reversed":
        # threads read other threads' copies: a CTA barrier between the wait and the read
        wait = re.search(r"cp\.async\.wait_group\s+0\s*;", ptx)
        load = re.compile(r"ld\.shared").search(ptx, wait.end())
        assert load and re.search(r"\bbar\.sync\b", ptx[wait.end():load.start()]), \
            ptx[wait.start():load.end() if load else None]


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("via", ["async", "store"])
def test_one_element_buffer(via, target):
    k = compile_silently(ek.one_element, ek.ONE_SIG, ek.one_element_constexprs(via), target)
    ptx = k.asm["ptx"]
    if via == "async":
        assert re.search(r"cp\.async\.ca\.shared\.global\s*\[[^\]]*\],\s*\[[^\]]*\],\s*4;", ptx)
        assert cp_waits(ptx) == [0]
    else:
        assert "cp.async" not in ptx


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("read", ["same", "reversed"])
@pytest.mark.parametrize("flag", ["runtime", 1])
def test_token_wait_chosen_by_a_branch(flag, read, target):
    """A runtime flag: either token may be the one waited for, and the count must be right
    for the second, so wait_for becomes wait_group(0). The flag specialized to 1 (what the
    JIT does with the value 1): the branch folds to the first token, wait_group(1)."""
    sig, cx = dict(ek.TOKEN_SIG), ek.token_constexprs(read)
    if flag != "runtime":
        del sig["flag"]
        cx["flag"] = flag
    k = compile_silently(ek.token_branch, sig, cx, target)
    assert cp_waits(k.asm["ptx"]) == ([0, 0] if flag == "runtime" else [1, 0])
    assert re.search(r"tile.async_wait tokens|\"tile.async_wait\"\(%", k.asm["tile"]), \
        "the wait should reach the tile IR as a token wait"


@pytest.mark.parametrize("block,dtype", ek.TMA_BLOCKS,
                         ids=[f"{b[0]}x{b[1]}-{d}" for b, d in ek.TMA_BLOCKS])
def test_tma_small_boxes(block, dtype):
    """tma_scale with a one-row [1, 64] block (the default layout gives it swizzle 0) and
    with [8, 64] blocks: a TMA load per box, the TMA store of the scaled copy after the
    fence, and store_wait(0)."""
    k = compile_silently(ek.tma_scale, ek.tma_signature(block, dtype),
                         ek.tma_constexprs(block), "cuda:sm_90a", num_warps=ek.TMA_NUM_WARPS)
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")
    loads = ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global")
    stores = ptx.count("cp.async.bulk.tensor.2d.global.shared::cta")
    assert loads == stores >= 1, (loads, stores)
    assert re.search(r"fence\.proxy\.async", ptx)
    assert re.search(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx)
    if block[0] == 1:
        assert ek.tma_layout(block, dtype).swizzle_byte_width == 0


@pytest.mark.parametrize("BM,BN,BK", ek.WGMMA_SHAPES)
def test_wgmma_n8(BM, BN, BK):
    k = compile_silently(ek.wgmma_small_n, ek.WGMMA_SIG, ek.wgmma_constexprs(BM, BN, BK),
                         "cuda:sm_90a")
    ptx = k.asm["ptx"]
    instrs = re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)\.f32\.bf16\.bf16", ptx)
    assert set(instrs) == {"m64n8k16"}, instrs
    assert len(instrs) == (BM // 64) * (BK // 16), instrs
    assert "wgmma.wait_group.sync.aligned 0;" in ptx
    assert re.search(r"fence\.proxy\.async", ptx)


# --- the example GEMMs ----------------------------------------------------------------------------

def _examples():
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    from examples import hopper, hopper_ws
    return hopper, hopper_ws


def _gemm_descriptors(BN, EN=None):
    """A, B and C descriptor types of a 128 x BN tile; C's block EN columns wide (BN)."""
    t = kl.tensor_descriptor_type
    EN = EN or BN
    return (t(kl.bfloat16, [128, 64], kl.NVMMASharedLayout.get_default_for([128, 64],
                                                                           kl.bfloat16)),
            t(kl.bfloat16, [BN, 64], kl.NVMMASharedLayout.get_default_for([BN, 64],
                                                                          kl.bfloat16)),
            t(kl.bfloat16, [128, EN], kl.NVMMASharedLayout.get_default_for([128, EN],
                                                                           kl.bfloat16)))


def _warmup_silently(kernel, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kernel.warmup(*args, grid=(1,), target="cuda:sm_90a", **kwargs)
    assert k.warnings == [], [str(w) for w in k.warnings]
    assert k.asm.get("cubin")
    return k


# BN = 256: the examples' default tile; BN = 8: wgmma m64n8 with an [8, 64] B tile and a
# [128, 8] C tile (16-byte rows, swizzle 0).
@pytest.mark.parametrize("BN", [256, 8])
@pytest.mark.parametrize("name", ["gemm_kernel", "persistent_gemm_kernel"])
def test_hopper_gemm_compiles_silently(name, BN):
    hopper, _ = _examples()
    k = _warmup_silently(getattr(hopper, name), *_gemm_descriptors(BN), 4096, BN, 4096,
                         STAGES=3, GROUP_M=8, num_warps=8)
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", k.asm["ptx"])) \
        == {f"m64n{BN}k16"}


# EN: the epilogue's block (C's descriptor) -- the whole tile, or 64-column blocks (two at
# BN = 128, four at 256), each its own TMA store, as the launchers make them.
@pytest.mark.parametrize("BN,EN", [(256, 256), (8, 8), (256, 64), (128, 64)])
@pytest.mark.parametrize("persistent", [False, True])
def test_hopper_ws_gemm_compiles_silently(persistent, BN, EN):
    _, hopper_ws = _examples()
    k = _warmup_silently(hopper_ws.ws_gemm_kernel, *_gemm_descriptors(BN, EN), 4096, BN, 4096,
                         STAGES=3, GROUP_M=8, PERSISTENT=persistent, num_warps=8)
    assert k.metadata["total_num_warps"] == 12
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", k.asm["ptx"])) \
        == {f"m64n{BN}k16"}
    # One TMA store a block (a box is at most 64 bf16 columns: 128-byte swizzle), and the
    # blocks' register split moves no data (no shuffles beyond the kernel's own three).
    stores = re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta", k.asm["ptx"])
    assert len(stores) == max(1, BN // 64)
    assert k.asm["ptx"].count("shfl") <= 3


@pytest.mark.parametrize("target", NVIDIA)
def test_ping_pong_buffers_compile_silently(target):
    """The check follows buffers a loop swaps: the right ping-pong form gives no error and no
    warning (its wrong form, reading the prefetch, is a located error above)."""
    compile_silently(cp_ping_pong, SIG, {}, target)


def test_one_load_handed_over_by_its_barrier_compiles_silently():
    """The producer's single load needs no wait before it: the consumer's wait on the barrier
    the load completes on orders the load before the read (no 'nothing orders the two')."""
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    k = _warmup_silently(tma_handoff_once, d, "*fp16", num_warps=4)
    assert "cp.async.bulk.tensor" in k.asm["ptx"]


def test_loads_under_one_expect_are_handed_over_together():
    """Two loads completing on one barrier under one expect of both their bytes land in one
    phase: the consumer's wait orders both before its reads (a third-party FA3 backward's K/V
    hand-off was refused). Each under its own expect, the first landing may complete a phase
    that the consumer's wait takes: the second load is still an error."""
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    k = _warmup_silently(tma_two_halves, d, "*fp16", False, num_warps=4)
    assert k.asm["ptx"].count("cp.async.bulk.tensor") == 2
    with pytest.raises(kiln.CompilationError) as e:
        tma_two_halves.warmup(d, "*fp16", True, num_warps=4, grid=(1,), target="cuda:sm_90a")
    assert "# the second half" in str(e.value) and "nothing orders the two" in str(e.value), \
        str(e.value)


@kiln.jit
def tma_prologue_in_a_persistent_loop(d, out, K, n_tiles, GUARD: kl.constexpr):
    """A hand-pipelined ring (prologue of 2 loads, a loop over K's blocks waiting each and
    refilling ahead) inside a persistent loop over tiles. With the prologue's loads guarded by
    `i * 64 < K` every load is waited for by the K loop; unguarded, K <= 0 leaves the prologue's
    loads in flight into the next tile's prologue (a real race)."""
    ring = kl.allocate_shared_memory(kl.float16, [2, 64, 64], NV64)
    acc = kl.zeros([64, 64], kl.float32, BL64)
    for t in range(n_tiles):
        bars = kl.allocate_shared_memory(kl.int64, [2, 1], mbarrier.MBarrierLayout())
        for i in kl.static_range(2):
            mbarrier.init(bars.index(i), count=1)
        ws = 0
        for i in kl.static_range(2):
            if (i * 64 < K) if GUARD else True:
                mbarrier.expect(bars.index(ws), 64 * 64 * 2)
                tma.async_copy_global_to_shared(d, [t * 64, i * 64], bars.index(ws),
                                                ring.index(ws))
                ws = (ws + 1) % 2
        rs = 0
        ph = 0
        for kk in range(kl.cdiv(K, 64)):
            mbarrier.wait(bars.index(rs), ph)
            acc += ring.index(rs).load(BL64).to(kl.float32)
            kl.barrier()
            if (kk + 2) * 64 < K:
                mbarrier.expect(bars.index(ws), 64 * 64 * 2)
                tma.async_copy_global_to_shared(d, [t * 64, (kk + 2) * 64], bars.index(ws),
                                                ring.index(ws))
                ws = (ws + 1) % 2
            rs = (rs + 1) % 2
            if rs == 0:
                ph ^= 1
    r = kl.arange(0, 64, layout=kl.SliceLayout(1, BL64))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, BL64))
    kl.store(out + r[:, None] * 64 + c[None, :], acc)


def test_an_unguarded_prologue_in_a_persistent_loop_is_an_error():
    """K <= 0: the K loop waits for nothing, and the next tile's prologue refills the slots
    the last tile's prologue loads may still be writing."""
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    with pytest.raises(kiln.CompilationError) as e:
        tma_prologue_in_a_persistent_loop.warmup(d, "*fp32", "i32", "i32", False, num_warps=4,
                                                 grid=(1,), target="cuda:sm_90a")
    assert "[t * 64, i * 64]" in str(e.value) and "may still be writing" in str(e.value)


def test_a_prologue_guarded_by_the_trip_count_in_a_persistent_loop_compiles():
    """The prologue's guards (`i * 64 < K`) make the K loop (`range(cdiv(K, 64))`) run at
    least i + 1 trips, so each prologue load is waited for (impliedMinTrips; before, the check
    took a path where the guard held and the loop ran no trip, a false race that a
    third-party persistent GEMM hit)."""
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    _warmup_silently(tma_prologue_in_a_persistent_loop, d, "*fp32", "i32", "i32", True,
                     num_warps=4)


def test_a_refill_in_a_loop_without_a_wait_is_still_an_error():
    """Only a load that runs once a call is ordered by the consumer's wait: refilled in a loop,
    the next load may land on the consumer's read (here the dataflow check reports it first:
    the earlier iteration's load may still be writing)."""
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    with pytest.raises(kiln.CompilationError) as e:
        tma_refill_without_wait.warmup(d, "*fp16", 4, num_warps=4, grid=(1,),
                                       target="cuda:sm_90a")
    assert "# the refill" in str(e.value) and "may still be writing" in str(e.value), \
        str(e.value)


def test_hopper_tma_copy_compiles_silently():
    hopper, _ = _examples()
    t = kl.tensor_descriptor_type
    d = t(kl.bfloat16, [64, 128], kl.NVMMASharedLayout.get_default_for([64, 128], kl.bfloat16))
    _warmup_silently(hopper.tma_copy_kernel, d, d)


def test_tma_store_in_flight_at_exit_is_waited_for():
    """A kernel that ends with its TMA store in flight (Gluon's tutorials do) gets the wait
    before it returns: its shared memory may be the next CTA's once it ends. The IR-level
    check still refuses such a kernel written as IR (tile-check-async-safety.mlir)."""
    k = kiln.compile(tma_store_in_flight_at_exit, TSIG, {}, target=HOPPER[0], cache=False)
    body = k.asm["ptx"].split("cp.async.bulk.tensor")[-1]
    assert re.search(r"cp\.async\.bulk\.commit_group;.*cp\.async\.bulk\.wait_group\.read\s+0;"
                     r"\s*\}?\s*ret;", body, re.S), body


def _bulk_waits(ptx):
    return len(re.findall(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx))


def test_kernel_end_waits_only_where_a_store_may_be_in_flight():
    """No second wait after the kernel's own store_wait(0); after a loop whose last store is
    not waited for, one at the end (besides the loop's own)."""
    k = kiln.compile(tma_store_then_wait, TSIG, {}, target=HOPPER[0], cache=False)
    assert _bulk_waits(k.asm["ptx"]) == 1
    k = kiln.compile(tma_stores_in_a_loop, TSIG, {}, target=HOPPER[0], cache=False)
    ptx = k.asm["ptx"]
    assert _bulk_waits(ptx) == 2
    assert re.search(r"cp\.async\.bulk\.wait_group\.read\s+0;\s*\}?\s*ret;", ptx), ptx[-800:]


@kiln.jit
def cp_ring_of_unknown_slot(a, c, begin, end):
    L: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, L)
    bufs = kl.allocate_shared_memory(kl.float32, [2, 512], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    for s in kl.static_range(2):
        cp.async_copy_global_to_shared(bufs.index(s), a + (begin + s) * 512 + offs)
        cp.commit_group()
    acc = kl.zeros([512], kl.float32, L)
    for t in range(begin, end):
        cp.wait_group(1)  # the next slot's copy stays in flight during the read
        cur = bufs.index((t - begin) % 2)  # a slot the analysis cannot name (runtime begin)
        acc += cur.load(L)
        kl.barrier()
        cp.async_copy_global_to_shared(cur, a + (t + 2) * 512 + offs)
        cp.commit_group()
    cp.wait_group(0)
    kl.store(c + offs, acc)


def test_no_conservative_wait_remark_on_nvidia():
    """The remark that a shared-memory load keeps the code generator's conservative wait is
    about targets whose waits count instructions (AMD's vmcnt): on NVIDIA (cp.async groups)
    there is no such wait, and no remark (a third-party MLA prefill kernel got one)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        k = cp_ring_of_unknown_slot.warmup("*fp32:16", "*fp32:16", "i32", "i32", grid=(1,),
                                           target="cuda:sm_90a")
    assert not any("conservative wait" in str(w.message) for w in rec), \
        [str(w.message) for w in rec]
    assert "cp.async.wait_group" in k.asm["ptx"]


@kiln.jit
def tma_refill_under_an_unwaited_wgmma(a_desc, b_desc, out, K, COUNTER: kl.constexpr):
    """Slot (j + 2) % 3 refilled by TMA at step j while the async wgmma issued at step j - 1
    still reads it (no warpgroup_mma_wait in the loop): a race, with the slots taken from the
    loop index or from counters the loop carries (a third-party persistent GEMM's form)."""
    abufs = kl.allocate_shared_memory(kl.float16, [3, 64, 64], a_desc.layout)
    bbufs = kl.allocate_shared_memory(kl.float16, [3, 64, 64], b_desc.layout)
    ready = kl.allocate_shared_memory(kl.int64, [3, 1], mbarrier.MBarrierLayout())
    for i in kl.static_range(3):
        mbarrier.init(ready.index(i), count=1)
    for i in kl.static_range(2):
        mbarrier.expect(ready.index(i), 2 * 64 * 64 * 2)
        tma.async_copy_global_to_shared(a_desc, [0, i * 64], ready.index(i), abufs.index(i))
        tma.async_copy_global_to_shared(b_desc, [i * 64, 0], ready.index(i), bbufs.index(i))
    acc = kl.zeros((64, 64), kl.float32, layout=ACC64)
    producer = 2
    consumer = 0
    for j in range(0, K // 64 - 2):
        if COUNTER:
            p = producer % 3
            c = consumer % 3
            ph = (consumer // 3) & 1
        else:
            p = (j + 2) % 3
            c = j % 3
            ph = (j // 3) & 1
        mbarrier.expect(ready.index(p), 2 * 64 * 64 * 2)
        tma.async_copy_global_to_shared(a_desc, [0, (j + 2) * 64], ready.index(p),
                                        abufs.index(p))  # the refill
        tma.async_copy_global_to_shared(b_desc, [(j + 2) * 64, 0], ready.index(p),
                                        bbufs.index(p))
        producer += 1
        mbarrier.wait(ready.index(c), ph)
        acc = warpgroup_mma(abufs.index(c), bbufs.index(c), acc, is_async=True)
        consumer += 1
    acc = warpgroup_mma_wait(0, (acc,))
    r = kl.arange(0, 64, kl.SliceLayout(1, ACC64))
    cc = kl.arange(0, 64, kl.SliceLayout(0, ACC64))
    kl.store(out + r[:, None] * 64 + cc[None, :], acc)


ACC64 = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])


@pytest.mark.parametrize("counter", [False, True])
def test_a_refill_under_an_unwaited_wgmma_is_an_error(counter):
    d = kl.tensor_descriptor_type(kl.float16, [64, 64], NV64)
    with pytest.raises(kiln.CompilationError) as e:
        tma_refill_under_an_unwaited_wgmma.warmup(d, d, "*fp32:16", "i32", counter, num_warps=4,
                                                  grid=(1,), target="cuda:sm_90a")
    assert "[0, (j + 2) * 64]" in str(e.value), str(e.value)
