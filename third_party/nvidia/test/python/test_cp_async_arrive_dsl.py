"""async_copy.mbarrier_arrive(bar, increment_count=False) (PTX cp.async.mbarrier.arrive.noinc):
each thread's arrival counts toward the barrier's init count once its earlier cp.async copies
land, so a barrier initialized for one arrival per thread completes with no other arrive (a
third-party warp-specialized attention for sm_89 waits that way). Kiln counts those arrivals:
the wait is accepted, an init count above the threads that arrive is the usual error, and the
default (incrementing) form alone still arrives on nothing."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy as cp, mbarrier

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def copy_then_wait(x, out, COUNT: kl.constexpr, NOINC: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([8], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, 256 * kl.num_warps(), layout=L)
    smem = kl.allocate_shared_memory(kl.float16, [256 * kl.num_warps()],
                                     kl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=COUNT)
    kl.barrier()
    cp.async_copy_global_to_shared(smem, x + offs)
    cp.mbarrier_arrive(bar, increment_count=not NOINC)
    mbarrier.wait(bar, 0)
    kl.store(out + offs, smem.load(L))


def build(count, noinc, warps):
    return kiln.compile(copy_then_wait, {"x": "*fp16:16", "out": "*fp16:16"},
                        {"COUNT": count, "NOINC": noinc}, target="cuda:sm_80",
                        num_warps=warps, cache=False)


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_noinc_arrivals_complete_a_barrier_set_up_for_every_thread(warps):
    k = build(32 * warps, True, warps)
    assert "cp.async.mbarrier.arrive.noinc" in k.asm["ptx"]


def test_an_init_count_above_the_arriving_threads_is_an_error():
    with pytest.raises(kiln.CompilationError) as e:
        build(129, True, 4)
    assert ("sets the barrier up for 129 arrivals per phase, but the arrivals on it in this "
            "function bring at most 128 per phase") in str(e.value), str(e.value)


def test_the_incrementing_form_alone_arrives_on_nothing():
    with pytest.raises(kiln.CompilationError) as e:
        build(128, False, 4)
    assert "nothing in this function arrives on" in str(e.value), str(e.value)
