"""A warp_specialize whose default partition returns values (Gluon returns them to the caller):
compiled by test_warp_specialize_dsl.py, run by test/gpu/test_ws_returns.py."""

import kiln
import kiln.language as kl


@kiln.jit
def _default_returns(X, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, N, layout)
    x = kl.load(X + offs)
    return x * 2.0, (offs, 7)


@kiln.jit
def _worker_stores(Y, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [1], [0])
    offs = kl.arange(0, N, layout)
    kl.store(Y + offs, kl.load(Y + offs) + 1.0)


@kiln.jit
def ws_default_returns(X, Y, Out, N: kl.constexpr):
    doubled, (offs, seven) = kl.warp_specialize(
        [(_default_returns, (X, N)), (_worker_stores, (Y, N))], [1], [24])
    kl.static_assert(seven == 7)  # a compile-time value comes back as it was
    kl.store(Out + offs, doubled)

