"""Kernels built from aggregates (``kl.aggregate``), tuples carried through loops, the
``warpgroup_mma_accumulator`` of asynchronous wgmma, a descriptor argument's ``shape`` and 1-D
TMA boxes -- written the way Gluon's own tutorials write them (07-persistence's ``WGMMA``
wrapper, its pipelined matmul). test_aggregate_dsl.py compiles them; test/gpu/test_aggregate.py
runs them against Python and torch."""

from __future__ import annotations

from typing import Union

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_accumulator, warpgroup_mma_wait)


@kl.aggregate
class Counter:
    """A ring position: the slot and the phase of its barrier."""
    index: kl.tensor
    phase: kl.tensor
    num_buffers: kl.constexpr

    @kl.constexpr_function
    def __init__(self, index, phase, num_buffers):
        self.index = index
        self.phase = phase
        self.num_buffers = kl.constexpr(num_buffers)

    @kiln.jit
    def create(num_buffers: kl.constexpr):
        return Counter(kl.to_tensor(0), kl.to_tensor(0), num_buffers)

    @kiln.jit
    def next(self):
        wrap = self.index == self.num_buffers - 1
        return Counter(kl.where(wrap, 0, self.index + 1),
                       kl.where(wrap, self.phase ^ 1, self.phase), self.num_buffers)


@kl.aggregate
class Pair:
    """An aggregate whose constructor is itself a @kiln.jit function."""
    total: kl.tensor
    count: kl.tensor

    @kiln.jit
    def __init__(self, total, count):
        self.total = total
        self.count = count + 0


@kiln.jit
def advance(c, steps):
    """Returns from inside a runtime if: the aggregate is merged like any value."""
    if steps > 2:
        return c.next().next()
    return c.next()


@kiln.jit
def counter_kernel(out, n, NUM_BUFFERS: kl.constexpr):
    """out[i] = index * 2 + phase after i + 1 steps, for i < n (a for loop); then out[n] the
    state after a while loop of n more steps and out[n + 1] after advance(c, n)."""
    c = Counter.create(NUM_BUFFERS)
    state = (c, 0)  # a tuple of an aggregate and a number carried by the loop
    for i in range(n):
        c = c.next()
        state = (c, state[1] + 1)
        kl.store(out + i, c.index * 2 + c.phase)
    c = state[0]
    j = 0
    while j < n:
        c = c.next()
        j += 1
    kl.store(out + n, c.index * 2 + c.phase + (state[1] - n) * 1000)
    c = advance(c, n)
    kl.store(out + n + 1, c.index * 2 + c.phase)


@kiln.jit
def pair_kernel(out, n):
    p = Pair(kl.to_tensor(0), kl.to_tensor(0))
    for i in range(n):
        if i % 3 == 0:
            p = Pair(p.total + i, p.count + 1)
    kl.store(out, p.total)
    kl.store(out + 1, p.count)


# --- the 07-persistence WGMMA wrapper and its pipelined matmul ------------------------------

@kl.constexpr_function
def pick_wgmma_layout(BLOCK_M, BLOCK_N, num_warps):
    return kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                     instr_shape=[16, BLOCK_N, 16])


@kl.aggregate
class WGMMA:
    acc: Union[warpgroup_mma_accumulator, kl.tensor]
    use_acc: kl.tensor

    @kl.constexpr_function
    def __init__(self, acc, use_acc):
        self.acc = acc
        self.use_acc = use_acc

    @kiln.jit
    def initialize(BLOCK_M: kl.constexpr, BLOCK_N: kl.constexpr, num_warps: kl.constexpr):
        mma_layout: kl.constexpr = pick_wgmma_layout(BLOCK_M, BLOCK_N, num_warps)
        acc = kl.zeros((BLOCK_M, BLOCK_N), dtype=kl.float32, layout=mma_layout)
        return WGMMA(acc, kl.to_tensor(False))

    @kiln.jit
    def issue_async_mma(self, a, b):
        acc = warpgroup_mma(a, b, self.acc, is_async=True, use_acc=self.use_acc)
        return WGMMA(acc, kl.to_tensor(True))

    @kiln.jit
    def wait_num_outstanding(self, num_outstanding: kl.constexpr):
        acc = warpgroup_mma_wait(num_outstanding, (self.acc, ))
        return WGMMA(acc, self.use_acc)

    @kiln.jit
    def take_result(self):
        return self.acc, WGMMA(self.acc, kl.to_tensor(False))


@kiln.jit
def issue_loads(producer, a_desc, b_desc, off_m, off_n, k, bars, a_bufs, b_bufs,
                num_buffers: kl.constexpr, pred=True):
    index = producer % num_buffers
    producer += 1
    bar = bars.index(index)
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes, pred)
    tma.async_copy_global_to_shared(a_desc, [off_m, k], bar, a_bufs.index(index), pred)
    tma.async_copy_global_to_shared(b_desc, [k, off_n], bar, b_bufs.index(index), pred)
    return producer


@kiln.jit
def issue_mma(consumer, mma, bars, a_bufs, b_bufs, num_buffers: kl.constexpr):
    index = consumer % num_buffers
    phase = consumer // num_buffers & 1
    consumer += 1
    mbarrier.wait(bars.index(index), phase)
    mma = mma.wait_num_outstanding(0)
    mma = mma.issue_async_mma(a_bufs.index(index), b_bufs.index(index))
    return consumer, mma


@kiln.jit
def matmul_pipelined_kernel(a_desc, b_desc, c_desc, MMAImpl: kl.constexpr,
                            num_buffers: kl.constexpr, num_warps: kl.constexpr):
    """C = A @ B with A [M, K] and B [K, N] row-major; K comes from a_desc.shape."""
    BLOCK_M: kl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: kl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: kl.constexpr = a_desc.block_type.shape[1]
    dtype: kl.constexpr = a_desc.dtype
    K = a_desc.shape[1]

    kl.static_assert(num_buffers >= 2, "expected at least 2 buffers")
    a_bufs = kl.allocate_shared_memory(dtype, [num_buffers] + a_desc.block_type.shape,
                                       a_desc.layout)
    b_bufs = kl.allocate_shared_memory(dtype, [num_buffers] + b_desc.block_type.shape,
                                       b_desc.layout)
    bars = kl.allocate_shared_memory(kl.int64, [num_buffers, 1], mbarrier.MBarrierLayout())
    for i in kl.static_range(num_buffers):
        mbarrier.init(bars.index(i), count=1)
    producer = 0
    consumer = 0

    pid_m = kl.program_id(axis=0)
    pid_n = kl.program_id(axis=1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N

    mma = MMAImpl.initialize(BLOCK_M, BLOCK_N, num_warps)

    for k in kl.static_range(0, BLOCK_K * (num_buffers - 2), BLOCK_K):
        producer = issue_loads(producer, a_desc, b_desc, off_m, off_n, k, bars, a_bufs, b_bufs,
                               num_buffers)

    for k in range(BLOCK_K * (num_buffers - 2), K, BLOCK_K):
        producer = issue_loads(producer, a_desc, b_desc, off_m, off_n, k, bars, a_bufs, b_bufs,
                               num_buffers)
        consumer, mma = issue_mma(consumer, mma, bars, a_bufs, b_bufs, num_buffers)

    for _ in kl.static_range(num_buffers - 2):
        consumer, mma = issue_mma(consumer, mma, bars, a_bufs, b_bufs, num_buffers)

    mma = mma.wait_num_outstanding(0)
    c_smem = kl.allocate_shared_memory(dtype, c_desc.block_type.shape, c_desc.layout)
    c, mma = mma.take_result()
    c_smem.store(c.to(dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


# --- 1-D TMA boxes ------------------------------------------------------------------------

ROW_1D = kl.BlockedLayout([2], [32], [4], [0])


@kiln.jit
def copy_1d_kernel(in_desc, out_desc, BLOCK: kl.constexpr):
    """out = 2 * in, one BLOCK-element 1-D box per program; the last box is ragged (elements
    past in_desc.shape[0] read as zero, and are not stored)."""
    layout: kl.constexpr = in_desc.layout
    smem = kl.allocate_shared_memory(in_desc.dtype, [BLOCK], layout)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    start = kl.program_id(0) * BLOCK
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [start], bar, smem)
    mbarrier.wait(bar, 0)
    v = smem.load(ROW_1D)
    out = kl.allocate_shared_memory(in_desc.dtype, [BLOCK], layout, v * 2)
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [start], out)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


@kl.aggregate
class ScaledBase:
    """Generated constructor (no __init__), a default."""
    x: kl.tensor
    scale: kl.constexpr = 2


@kl.aggregate
class Scaled(ScaledBase):
    y: kl.tensor

    @kiln.jit
    def total(self):
        return self.x * self.scale + self.y


@kiln.jit
def scaled_kernel(out):
    """out[i] = (2 i + i + 1) + (3 i + i) for i < 128."""
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    a = Scaled(offs, y=offs + 1)
    b = Scaled(offs, 3, offs)
    kl.store(out + offs, a.total() + b.total())


@kl.aggregate
class Methods:
    """No fields: a holder of methods that another aggregate keeps (as Gluon allows)."""

    @kiln.constexpr_function
    def __init__(self):
        pass

    @kiln.jit
    def twice(self, x):
        return x * 2


@kl.aggregate
class Program:
    base: Methods
    n: kl.constexpr

    @kiln.constexpr_function
    def __init__(self, n):
        self.n = kl.constexpr(n)
        self.base = Methods()


@kiln.jit
def methods_kernel(out):
    """out[i] = 2 i + 5 for i < 128."""
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    p = Program(5)
    kl.store(out + offs, p.base.twice(offs) + p.n)


def forwarding(cls):
    """A project's decorator: unknown attributes come from the aggregate's aggregate fields
    (told apart by Gluon's ``__triton_aggregate__`` marker)."""
    def __getattr__(self, name):
        if name in self.__dict__:
            return object.__getattribute__(self, name)
        for member in self.__dict__.values():
            if getattr(member, "__triton_aggregate__", False) and hasattr(member, name):
                return getattr(member, name)
        raise AttributeError(f"{type(self).__name__} object has no attribute '{name}'")
    cls.__getattr__ = __getattr__
    return cls


@kl.aggregate
class Config:
    """A tuple held as a constexpr, indexed and unpacked at compile time."""
    TILES: kl.constexpr
    TOTAL: kl.constexpr

    @kiln.constexpr_function
    def __init__(self, tiles):
        self.TILES = kl.constexpr(tiles)
        a, b = kl.constexpr(tiles)
        self.TOTAL = kl.constexpr(self.TILES[0] * 10 + b + a * 0)


@forwarding
@kl.aggregate
class Forwarding:
    base: Methods
    cfg: Config

    @kiln.constexpr_function
    def __init__(self, tiles):
        self.base = Methods()
        self.cfg = Config(tiles)


@kiln.jit
def forwarding_kernel(out, TILES: kl.constexpr):
    """out[i] = 2 i + TILES[0] * 10 + TILES[1] for i < 128."""
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    p = Forwarding(TILES)
    kl.store(out + offs, p.twice(offs) + p.cfg.TOTAL)
