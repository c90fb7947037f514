"""Kernels that use tl.tensor's methods on Kiln tensors (x.exp(), x.T, x.cumsum(0), ...):
compiled by test_tensor_methods_dsl.py, run against torch by test/gpu/test_tensor_methods.py."""

import kiln
import kiln.language as kl


@kiln.jit
def unary_methods(X, Out, R: kl.constexpr, C: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, R, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    offs = rows[:, None] * C + cols[None, :]
    x = kl.load(X + offs)
    # Out[k] holds the k-th method's result, each [R, C] row-major.
    kl.store(Out + 0 * R * C + offs, x.exp())
    kl.store(Out + 1 * R * C + offs, x.abs().sqrt())
    kl.store(Out + 2 * R * C + offs, x.floor())
    kl.store(Out + 3 * R * C + offs, x.ceil())
    kl.store(Out + 4 * R * C + offs, x.sigmoid())
    kl.store(Out + 5 * R * C + offs, x.softmax(1, keep_dims=True))
    kl.store(Out + 6 * R * C + offs, x.cumsum(1))
    kl.store(Out + 7 * R * C + offs, x.cumprod(1, reverse=True))
    kl.store(Out + 8 * R * C + offs, x.erf())
    both = (x > 0).logical_and(x < 1).logical_or(x < -1)
    kl.store(Out + 9 * R * C + offs, both.to(kl.float32))
    kl.store(Out + 10 * R * C + offs, x.exp2().log2())
    kl.store(Out + 11 * R * C + offs, x.cast(kl.int32).to(kl.float32))


@kiln.jit
def transpose_methods(X, OutT, OutP, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, N, kl.SliceLayout(1, layout))
    cols = kl.arange(0, N, kl.SliceLayout(0, layout))
    offs = rows[:, None] * N + cols[None, :]
    x = kl.load(X + offs)
    kl.store(OutT + offs, kl.convert_layout(x.T, layout))
    kl.store(OutP + offs, kl.convert_layout(x.trans(1, 0).permute(1, 0), layout))


@kiln.jit
def atomic_methods(Acc, X, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, N, layout)
    p = Acc + offs % 8
    p.atomic_add(kl.load(X + offs))
    (Acc + 8 + offs % 4).atomic_max(kl.load(X + offs))
