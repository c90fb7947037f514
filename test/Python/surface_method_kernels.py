"""Kernels using the tensor methods Gluon 3.6 has and Kiln added for the surface check
(argmax, argmin, flip, sort, item, max/min with return_indices): compiled by
test_gluon_surface.py, run against torch by test/gpu/test_surface_methods.py."""

import kiln
import kiln.language as kl


@kiln.jit
def arg_reductions(X, Out, R: kl.constexpr, C: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, R, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    x = kl.load(X + rows[:, None] * C + cols[None, :])
    # Out: argmax over columns (R), argmin over columns (R), argmax over rows (C),
    # argmin over rows (C), then max's indices with keep_dims (R).
    kl.store(Out + rows, x.argmax(1))
    kl.store(Out + R + rows, x.argmin(1))
    kl.store(Out + 2 * R + cols, x.argmax(0))
    kl.store(Out + 2 * R + C + cols, x.argmin(axis=0))
    _, idx = kl.max(x, 1, return_indices=True, keep_dims=True)
    kl.store(Out + 2 * R + 2 * C + rows[:, None], idx)


@kiln.jit
def flip_sort(X, Out, R: kl.constexpr, C: kl.constexpr, DESCENDING: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, R, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    offs = rows[:, None] * C + cols[None, :]
    x = kl.load(X + offs)
    kl.store(Out + offs, x.flip())
    kl.store(Out + R * C + offs, x.flip(0))
    kl.store(Out + 2 * R * C + offs, x.sort(descending=DESCENDING))


@kiln.jit
def item_of_one(X, Out):
    layout: kl.constexpr = kl.BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0])
    x = kl.load(X + kl.arange(0, 1, kl.SliceLayout(1, layout))[:, None]
                + kl.arange(0, 1, kl.SliceLayout(0, layout))[None, :])
    kl.store(Out, x.item() * 2)
