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
