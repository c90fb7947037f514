"""Kernels for the loop shapes and memory dependences of automatic pipelining: compiled
without a GPU by test/Python/test_pipeline_loops.py, run against numpy by
test/gpu/test_pipeline_loops.py. Lines tagged ``# P:`` are where remarks must point."""

import kiln
import kiln.language as kl

L = kl.BlockedLayout([4], [32], [4], [0])
@kiln.jit
def two_loops(x, y, out, n, NS: kl.constexpr):
    offs = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in kl.range(0, n, 512, num_stages=NS):
        acc += kl.load(x + i + offs)
    for i in kl.range(0, n, 512, num_stages=NS):
        acc += kl.load(y + i + offs) * 2.0
    kl.store(out + offs, acc)


@kiln.jit
def nested(x, y, out, n, m, NS: kl.constexpr):
    offs = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in kl.range(0, n, 1, num_stages=NS):
        acc += kl.load(y + i * 512 + offs)
        for j in kl.range(0, m, 512, num_stages=NS):
            acc += kl.load(x + j + offs)
    kl.store(out + offs, acc)


@kiln.jit
def under_if(x, out, n, flag, NS: kl.constexpr):
    offs = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in kl.range(0, n, 512, num_stages=NS):
        v = kl.load(x + i + offs)
        if flag > i:
            acc += v
    kl.store(out + offs, acc)


@kiln.jit
def chain(x, n, D: kl.constexpr, NS: kl.constexpr):
    o = kl.arange(0, 512, L)
    for i in kl.range(0, n, num_stages=NS):
        v = kl.load(x + i * 512 + o)  # P:chain-load
        kl.store(x + (i + D) * 512 + o, v + 1.0)  # P:chain-store


@kiln.jit
def two_args(x, y, n, NS: kl.constexpr):
    o = kl.arange(0, 512, L)
    for i in kl.range(0, n, num_stages=NS):
        kl.store(y + (i + 1) * 512 + o, kl.load(x + i * 512 + o) + 1.0)


@kiln.jit
def runtime_distance(x, n, s, NS: kl.constexpr):
    o = kl.arange(0, 512, L)
    for i in kl.range(0, n, num_stages=NS):
        v = kl.load(x + i * 512 + o)  # P:runtime-load
        kl.store(x + s + i * 512 + o, v + 1.0)


@kiln.jit
def wide_range(x, out, LO: kl.constexpr, HI: kl.constexpr, STEP: kl.constexpr,
               NS: kl.constexpr):
    o = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in kl.range(LO, HI, STEP, num_stages=NS):
        acc += kl.load(x + o)
    kl.store(out + o, acc)


@kiln.jit
def volatile_sum(x, out, n, NS: kl.constexpr):
    o = kl.arange(0, 512, L)
    acc = kl.zeros([512], kl.float32, L)
    for i in kl.range(0, n, 512, num_stages=NS):
        acc += kl.load(x + i + o, volatile=True)  # P:volatile
    kl.store(out + o, acc)


@kiln.jit
def small_store(x):
    o = kl.arange(0, 16, L)
    kl.store(x + o, kl.load(x + o) + 1.0)
