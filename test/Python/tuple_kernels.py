"""Tuples as Gluon kernels use them: a tuple of tensors as a kernel argument, ``kl.reduce``
over a tuple (the argmax pattern), a tuple grown in a ``static_range`` and carried through a
loop. Compiled by test_tuples_dsl.py, run against torch by test/gpu/test_tuples.py."""

import kiln
import kiln.language as kl


@kiln.jit
def copy_pair(ptrs, n, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.program_id(0) * N + kl.arange(0, N, layout)
    src, (dst, scale) = ptrs[0], ptrs[1]
    kl.store(dst + offs, kl.load(src + offs, mask=offs < n) * scale, mask=offs < n)


@kiln.jit
def _argmax_combine(a, ia, b, ib):
    take_b = (b > a) | ((b == a) & (ib < ia))
    return kl.where(take_b, b, a), kl.where(take_b, ib, ia)


@kiln.jit
def row_argmax(X, Vals, Idx, C: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.program_id(0) * 16 + kl.arange(0, 16, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    x = kl.load(X + rows[:, None] * C + cols[None, :])
    idx = kl.broadcast_to(cols[None, :], [16, C])
    v, i = kl.reduce((x, idx), 1, _argmax_combine)
    kl.store(Vals + rows, v)
    kl.store(Idx + rows, i)


@kiln.jit
def grown_tuple(X, Out, n, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, N, layout)
    parts = ()
    for k in kl.static_range(3):
        parts = parts + (kl.zeros([N], kl.float32, layout) + k,)
    for i in range(n):  # the tuple is carried through a runtime loop
        x = kl.load(X + i * N + offs)
        parts = (parts[0] + x, parts[1] * 1.0, parts[2] + x * x)
    kl.store(Out + offs, parts[0] + parts[1] + parts[2])


@kiln.jit
def _welford_combine(m0, s0, n0, m1, s1, n1):
    # Chan et al.'s parallel update of (mean, sum of squared deviations, count).
    n = n0 + n1
    delta = m1 - m0
    w = kl.where(n == 0.0, 0.0, n1 / kl.where(n == 0.0, 1.0, n))
    return m0 + delta * w, s0 + s1 + delta * delta * n0 * w, n


@kiln.jit
def welford_rows(X, Mean, M2, R: kl.constexpr, C: kl.constexpr, WARPS_C: kl.constexpr,
                 W: kl.constexpr = 32):
    """Mean and sum of squared deviations of each row of an R x C block, by a reduce over
    three fp32 tensors (96 bits an element); WARPS_C warps split each row."""
    layout: kl.constexpr = kl.BlockedLayout([1, 2], [W // 8, 8], [4 // WARPS_C, WARPS_C], [1, 0])
    rows = kl.arange(0, R, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    x = kl.load(X + rows[:, None] * C + cols[None, :])
    m, s, n = kl.reduce((x, kl.zeros_like(x), kl.full_like(x, 1.0)), 1, _welford_combine)
    kl.store(Mean + rows, m)
    kl.store(M2 + rows, s)


@kiln.jit
def _argmax64_combine(v0, i0, v1, i1):
    take = (v1 > v0) | ((v1 == v0) & (i1 < i0))
    return kl.where(take, v1, v0), kl.where(take, i1, i0)


@kiln.jit
def argmax64(X, Vals, Idx, N: kl.constexpr, W: kl.constexpr = 32):
    """The maximum of N fp64 values and its int64 index (128 bits an element), over 4 warps."""
    layout: kl.constexpr = kl.BlockedLayout([2], [W], [4], [0])
    offs = kl.arange(0, N, layout)
    x = kl.load(X + offs)
    v, i = kl.reduce((x, offs.to(kl.int64)), 0, _argmax64_combine)
    kl.store(Vals, v)
    kl.store(Idx, i)


@kiln.jit
def _sum_min_max(a0, a1, a2, b0, b1, b2):
    return a0 + b0, kl.minimum(a1, b1), kl.maximum(a2, b2)


@kiln.jit
def scan3(X, S, Lo, Hi, N: kl.constexpr, REVERSE: kl.constexpr, W: kl.constexpr = 32):
    """Running sum, minimum and maximum of N fp32 values in one scan of three tensors, across
    4 warps."""
    layout: kl.constexpr = kl.BlockedLayout([2], [W], [4], [0])
    offs = kl.arange(0, N, layout)
    x = kl.load(X + offs)
    s, lo, hi = kl.associative_scan((x, x, x), 0, _sum_min_max, reverse=REVERSE)
    kl.store(S + offs, s)
    kl.store(Lo + offs, lo)
    kl.store(Hi + offs, hi)
