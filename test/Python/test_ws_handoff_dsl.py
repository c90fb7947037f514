"""The warp-specialized producer/consumer hand-off of Gluon's tutorial 08, in Kiln's names: a
loader partition refills a ring slot after waiting on the slot's "empty" barrier, which the
consumer arrives on only after waiting on the slot's "ready" barrier (the one the TMA
completes) and reading the slot. The async-safety check accepts it for every ring depth, and
still refuses the consumer that arrives before it waits."""

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = __file__
SM90 = "cuda:sm_90a"
ROWS = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])


@kiln.jit
def loader(desc, bufs, ready, empty, n, BLOCK: kl.constexpr):
    depth: kl.constexpr = bufs.type.shape[0]
    for i in range(n):
        slot = i % depth
        mbarrier.wait(empty.index(slot), (i // depth & 1) ^ 1)
        mbarrier.expect(ready.index(slot), desc.block_type.nbytes)
        tma.async_copy_global_to_shared(desc, [0, i * BLOCK], ready.index(slot),  # E:refill
                                        bufs.index(slot))


@kiln.jit
def consumer(out, bufs, ready, empty, n, EARLY: kl.constexpr):
    depth: kl.constexpr = bufs.type.shape[0]
    total = kl.zeros([32, 64], kl.float32, ROWS)
    for i in range(n):
        slot = i % depth
        if EARLY:  # the mistake: the slot is released before its data is waited for
            mbarrier.arrive(empty.index(slot), count=1)
        mbarrier.wait(ready.index(slot), i // depth & 1)
        total += bufs.index(slot).load(ROWS)
        fence_async_shared()
        if not EARLY:
            mbarrier.arrive(empty.index(slot), count=1)
    offs = kl.arange(0, 32)[:, None] * 64 + kl.arange(0, 64)[None, :]
    kl.store(kl.set_auto_layout(out + offs, ROWS), total)


@kiln.jit
def handoff_kernel(desc, out, n, DEPTH: kl.constexpr, EARLY: kl.constexpr):
    bufs = kl.allocate_shared_memory(kl.float32, [DEPTH, 32, 64], desc.layout)
    ready = kl.allocate_shared_memory(kl.int64, [DEPTH, 1], mbarrier.MBarrierLayout())
    empty = kl.allocate_shared_memory(kl.int64, [DEPTH, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(DEPTH):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    kl.warp_specialize([(consumer, (out, bufs, ready, empty, n, EARLY)),
                        (loader, (desc, bufs, ready, empty, n, 64))], [1], [24])


def _desc():
    lay = kl.NVMMASharedLayout.get_default_for([32, 64], kl.float32)
    return kl.tensor_descriptor_type(kl.float32, [32, 64], lay)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_handoff_through_the_empty_barrier_compiles(depth):
    k = handoff_kernel.warmup(_desc(), "*fp32", "i32", depth, False, grid=(1,), target=SM90)
    assert "cp.async.bulk.tensor.2d" in k.asm["ptx"]


@pytest.mark.parametrize("depth", [1, 2])
def test_release_before_the_wait_is_a_race(depth):
    with pytest.raises(CompilationError) as ei:
        handoff_kernel.warmup(_desc(), "*fp32", "i32", depth, True, grid=(1,), target=SM90)
    gen = "1 iteration" if depth == 1 else f"{depth} iterations"
    located.assert_located(
        ei.value, HERE, "E:refill", "tma.async_copy_global_to_shared",
        r"tma\.async_copy_global_to_shared writes shared memory that the "
        r"barrier-completed write of tma\.async_copy_global_to_shared may still be "
        rf"writing: no wait on the barrier it completes on comes between them \(it was issued "
        rf"{gen} earlier\)", CompilationError)
