"""Reshaped and permuted views of a PaddedSharedLayout buffer (Gluon's rule: the padding
follows the element offset, so a reshape keeps the intervals and paddings and moves the
offset bases), checked element by element with other arithmetic: each layout's map offset ->
coordinates is enumerated (XOR of the bases of the offset's bits), inverted, and the padded
byte position of every element of the final view must equal that of the element of the
original buffer it names (row-major reshapes and the permutation done on index tuples).
Also the DSL path the fused MoE of a third-party project takes: a slot of a padded ring
reshaped, permuted and reshaped back compiles (run on the GPU machine by
test/gpu/test_shared_views.py)."""

from __future__ import annotations

import itertools
import math

import pytest

import kiln
import kiln.language as kl

import compiled


def positions(layout, shape):
    """{coordinates: padded element position} of a PaddedSharedLayout over ``shape``."""
    out = {}
    bases = layout.offset_bases
    for off in range(math.prod(shape)):
        c = [0] * len(shape)
        for bit, b in enumerate(bases):
            if off >> bit & 1:
                c = [x ^ y for x, y in zip(c, b)]
        pos = off + sum((off // i) * p for i, p in layout.interval_padding_pairs)
        out[tuple(c)] = pos
    assert len(out) == math.prod(shape)
    return out


def unflat(i, shape):
    out = []
    for d in reversed(shape):
        out.append(i % d)
        i //= d
    return tuple(out[::-1])


def flat(c, shape):
    i = 0
    for x, d in zip(c, shape):
        i = i * d + x
    return i


@pytest.mark.parametrize("pairs", [[[64, 4]], [[256, 8], [512, 16]], [[32, 1]]])
@pytest.mark.parametrize("order", [[1, 0], [0, 1]])
def test_reshape_permute_reshape_keeps_every_element_at_its_bytes(pairs, order):
    M, K = 32, 64
    base = kl.PaddedSharedLayout.with_identity_for(pairs, [M, K], order)
    a = base.reshaped([M, K], [M // 4, 4, K])
    b = a.permuted([1, 0, 2])
    c = b.reshaped([4, M // 4, K], [M, K])
    assert c.interval_padding_pairs == base.interval_padding_pairs
    orig, final = positions(base, [M, K]), positions(c, [M, K])
    for r, k in itertools.product(range(M), range(K)):
        # final view row r: (i, j) of the permuted (4, M // 4) shape, i.e. source (j, i).
        i, j = unflat(r, [4, M // 4])
        src = unflat(flat((j, i, k), [M // 4, 4, K]), [M, K])
        assert final[(r, k)] == orig[src], (r, k)


def test_a_padded_layout_with_a_split_cga_does_not_reshape():
    lay = kl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0])
    assert lay.reshaped([32, 64], [32, 48]) is None  # not a power of two
    assert lay.reshaped([16, 64], [16, 4, 16]) is None  # not its shape


@kiln.jit
def regroup(x, y, BM: kl.constexpr, BK: kl.constexpr, L: kl.constexpr, SH: kl.constexpr):
    r = kl.arange(0, BM, kl.SliceLayout(1, L))
    c = kl.arange(0, BK, kl.SliceLayout(0, L))
    ring = kl.allocate_shared_memory(kl.float32, [2, BM, BK], SH)
    slot = ring.index(1)
    slot.store(kl.load(x + r[:, None] * BK + c[None, :]))
    view = slot.reshape((BM // 4, 4, BK)).permute((1, 0, 2)).reshape((BM, BK))
    kl.store(y + r[:, None] * BK + c[None, :], view.load(L))


@compiled.needs_compiler
@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx950"])
def test_a_padded_ring_slot_reshapes_in_a_kernel(target):
    w = 32 if target.startswith("cuda") else 64
    L = kl.BlockedLayout([1, 4], [w // 16, 16], [4, 1], [1, 0])
    SH = kl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0])
    kiln.compile(regroup, {"x": "*fp32:16", "y": "*fp32:16"}, dict(BM=32, BK=64, L=L, SH=SH),
                 target=target, num_warps=4, cache=False)


@kiln.jit
def reinterpret_other_padding(x, L: kl.constexpr, SH: kl.constexpr, OTHER: kl.constexpr):
    ring = kl.allocate_shared_memory(kl.float32, [2, 32, 64], SH)
    view = ring.index(0)._reinterpret(kl.float32, [32, 64], OTHER)  # E:reinterpret
    kl.store(x + kl.arange(0, 64, kl.SliceLayout(0, L)), view.load(L).sum(0))


@compiled.needs_compiler
def test_reinterpreting_a_padded_slot_under_other_paddings_is_an_error_at_the_call():
    import located
    L = kl.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
    SH = kl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0])
    OTHER = kl.PaddedSharedLayout.with_identity_for([[64, 8]], [32, 64], [1, 0])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(reinterpret_other_padding, {"x": "*fp32:16"}, dict(L=L, SH=SH, OTHER=OTHER),
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, __file__, "E:reinterpret", "ring.index(0)._reinterpret",
                           r"smem\._reinterpret: reinterprets a padded buffer .* only as one slot "
                           r"under the same paddings and element size, got .*",
                           kiln.CompilationError)
