"""A kernel with two warp_specialize calls, one after the other (the worker warps serve both):
compiled by test_warp_specialize_dsl.py, run by test/gpu/test_ws_several.py.

Phase 1: a 1-warp loader fills a shared-memory ring from global memory, the kernel's warps
sum the ring's blocks and return the sum (the hand-off goes through "ready" and "empty"
mbarriers). Phase 2: a 2-warp and a 4-warp worker write -x and x + 1 while the kernel's
warps return 3x; the two calls ask for different register counts."""

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier

ONE_WARP = kl.BlockedLayout([1], [32], [1], [0])
FOUR_WARPS = kl.BlockedLayout([1], [32], [4], [0])


@kiln.jit
def _ring_loader(X, bufs, ready, empty, n, BLOCK: kl.constexpr):
    depth: kl.constexpr = bufs.type.shape[0]
    offs = kl.arange(0, BLOCK, ONE_WARP)
    for i in range(n):
        slot = i % depth
        mbarrier.wait(empty.index(slot), (i // depth & 1) ^ 1)
        bufs.index(slot).store(kl.load(X + i * BLOCK + offs))
        mbarrier.arrive(ready.index(slot), count=1)


@kiln.jit
def _ring_sum(bufs, ready, empty, n, BLOCK: kl.constexpr):
    depth: kl.constexpr = bufs.type.shape[0]
    total = kl.zeros([BLOCK], kl.float32, FOUR_WARPS)
    for i in range(n):
        slot = i % depth
        mbarrier.wait(ready.index(slot), i // depth & 1)
        total += bufs.index(slot).load(FOUR_WARPS)
        mbarrier.arrive(empty.index(slot), count=1)
    return total


@kiln.jit
def _triple(X, N: kl.constexpr):
    offs = kl.arange(0, N, FOUR_WARPS)
    return kl.load(X + offs) * 3.0


@kiln.jit
def _negate(X, Y, N: kl.constexpr):
    offs = kl.arange(0, N, kl.BlockedLayout([1], [32], [2], [0]))
    kl.store(Y + offs, -kl.load(X + offs))


@kiln.jit
def _add_one(X, Z, N: kl.constexpr):
    offs = kl.arange(0, N, FOUR_WARPS)
    kl.store(Z + offs, kl.load(X + offs) + 1.0)


@kiln.jit
def ws_two_phases(X, Sum, Y, Z, W, n, BLOCK: kl.constexpr, DEPTH: kl.constexpr,
                  N: kl.constexpr):
    bufs = kl.allocate_shared_memory(kl.float32, [DEPTH, BLOCK],
                                     kl.SwizzledSharedLayout(1, 1, 1, [0]))
    ready = kl.allocate_shared_memory(kl.int64, [DEPTH, 1], mbarrier.MBarrierLayout())
    empty = kl.allocate_shared_memory(kl.int64, [DEPTH, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(DEPTH):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    total = kl.warp_specialize([(_ring_sum, (bufs, ready, empty, n, BLOCK)),
                                (_ring_loader, (X, bufs, ready, empty, n, BLOCK))], [1], [24])
    kl.store(Sum + kl.arange(0, BLOCK, FOUR_WARPS), total)
    tripled = kl.warp_specialize([(_triple, (X, N)), (_negate, (X, Y, N)),
                                  (_add_one, (X, Z, N))], [2, 4], [40, 80])
    kl.store(W + kl.arange(0, N, FOUR_WARPS), tripled)


@kiln.jit
def _idle():
    pass


@kiln.jit
def _fill_shared(buf, X, N: kl.constexpr):
    buf.store(kl.load(X + kl.arange(0, N, ONE_WARP)))


@kiln.jit
def _shared_to_global(buf, Y, N: kl.constexpr):
    kl.store(Y + kl.arange(0, N, FOUR_WARPS), buf.load(FOUR_WARPS))


@kiln.jit
def ws_shared_across_calls(X, Y, Z, N: kl.constexpr):
    """Shared memory handed from one call to the code between and on to the next, ordered
    only by the all-warps barriers around each call (no mbarrier): a 1-warp worker fills
    `buf`; the kernel's warps read it and write it back doubled; a 4-warp worker of the
    second call copies it out."""
    buf = kl.allocate_shared_memory(kl.float32, [N], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    kl.warp_specialize([(_idle, ()), (_fill_shared, (buf, X, N))], [1], [24])
    v = buf.load(FOUR_WARPS)
    buf.store(v * 2.0)
    kl.warp_specialize([(_idle, ()), (_shared_to_global, (buf, Y, N))], [4], [80])
    kl.store(Z + kl.arange(0, N, FOUR_WARPS), v)
