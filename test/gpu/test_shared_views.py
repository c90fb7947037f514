"""Views of shared buffers through kernel[grid] (Gluon's ``.slice``, ``.permute``,
``.reshape``), checked exactly against torch on fresh random tiles: a tile written whole and
read back through a view, and written through views and read back whole, for several
swizzles (the views' offsets compose with the swizzle by XOR). Kiln places the barriers.
Skips cleanly without a GPU."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

BM, BN = 32, 64
SWIZZLES = [(1, 1, 1), (4, 1, 8), (2, 2, 4), (8, 1, 8)]


def layouts(target):
    w = 32 if target.startswith("cuda:") else 64
    rows = kl.BlockedLayout([1, 4], [w // 16, 16], [4, 1], [1, 0])
    cols = kl.BlockedLayout([4, 1], [16, w // 16], [1, 4], [0, 1])
    return rows, cols


@kiln.jit
def read_slices(x, y, DIM: kl.constexpr, LEN: kl.constexpr, L: kl.constexpr,
                LS: kl.constexpr, SH: kl.constexpr):
    """Writes the BM x BN tile x whole, then copies each slice of LEN along DIM (read through
    .slice in layout LS) to the same place of y."""
    r = kl.arange(0, 32, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [32, 64], SH)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    for k in kl.static_range((32 if DIM == 0 else 64) // LEN):
        part = buf.slice(k * LEN, LEN, dim=DIM)
        if DIM == 0:
            rs = k * LEN + kl.arange(0, LEN, kl.SliceLayout(1, LS))
            cs = kl.arange(0, 64, kl.SliceLayout(0, LS))
        else:
            rs = kl.arange(0, 32, kl.SliceLayout(1, LS))
            cs = k * LEN + kl.arange(0, LEN, kl.SliceLayout(0, LS))
        kl.store(y + rs[:, None] * 64 + cs[None, :], part.load(LS))


@pytest.mark.parametrize("swizzle", SWIZZLES)
@pytest.mark.parametrize("dim,length", [(0, 16), (0, 8), (1, 32), (1, 16)])
def test_read_through_slices(target, swizzle, dim, length):
    w = 32 if target.startswith("cuda:") else 64
    L, _ = layouts(target)
    shape = (length, 64) if dim == 0 else (32, length)
    # A layout for the slice: 4 warps along rows, lanes along columns.
    tpw_c = min(shape[1] // 4, w)
    LS = kl.BlockedLayout([1, 4], [w // tpw_c, tpw_c], [4, 1], [1, 0])
    x = torch.randn((BM, BN), device="cuda")
    y = torch.full_like(x, float("nan"))
    read_slices[(1,)](x, y, DIM=dim, LEN=length, L=L, LS=LS,
                      SH=kl.SwizzledSharedLayout(*swizzle, [1, 0]), num_warps=4)
    torch.testing.assert_close(y, x, rtol=0, atol=0)


@kiln.jit
def write_slices(x, y, L: kl.constexpr, LH: kl.constexpr, SH: kl.constexpr):
    """Writes the two column halves of x through .slice(…, 32, dim=1), reads the tile whole."""
    buf = kl.allocate_shared_memory(kl.float32, [32, 64], SH)
    rh = kl.arange(0, 32, kl.SliceLayout(1, LH))
    for k in kl.static_range(2):
        ch = k * 32 + kl.arange(0, 32, kl.SliceLayout(0, LH))
        buf.slice(k * 32, 32, dim=1).store(kl.load(x + rh[:, None] * 64 + ch[None, :]))
    r = kl.arange(0, 32, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    kl.store(y + r[:, None] * 64 + c[None, :], buf.load(L))


@pytest.mark.parametrize("swizzle", SWIZZLES)
def test_write_through_slices(target, swizzle):
    w = 32 if target.startswith("cuda:") else 64
    L, _ = layouts(target)
    LH = kl.BlockedLayout([1, 4], [w // 8, 8], [4, 1], [1, 0])
    x = torch.randn((BM, BN), device="cuda")
    y = torch.full_like(x, float("nan"))
    write_slices[(1,)](x, y, L=L, LH=LH, SH=kl.SwizzledSharedLayout(*swizzle, [1, 0]),
                       num_warps=4)
    torch.testing.assert_close(y, x, rtol=0, atol=0)


@kiln.jit
def transpose_by_permute(x, y, M, N, L: kl.constexpr, LT: kl.constexpr, SH: kl.constexpr):
    """y = x^T for a 32 x 64 tile: stored in L, read back through .permute([1, 0]) (a 64 x 32
    view) in LT, and stored row-major into y (64 x 32)."""
    r = kl.arange(0, 32, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    m = (r[:, None] < M) & (c[None, :] < N)
    buf = kl.allocate_shared_memory(kl.float32, [32, 64], SH)
    buf.store(kl.load(x + r[:, None] * N + c[None, :], mask=m, other=0.0))
    t = buf.permute([1, 0]).load(LT)
    rt = kl.arange(0, 64, kl.SliceLayout(1, LT))
    ct = kl.arange(0, 32, kl.SliceLayout(0, LT))
    mt = (rt[:, None] < N) & (ct[None, :] < M)
    kl.store(y + rt[:, None] * M + ct[None, :], t, mask=mt)


@pytest.mark.parametrize("swizzle", SWIZZLES)
@pytest.mark.parametrize("M,N", [(32, 64), (17, 50), (1, 1)])
def test_transpose_through_permute(target, swizzle, M, N):
    w = 32 if target.startswith("cuda:") else 64
    L, _ = layouts(target)
    LT = kl.BlockedLayout([1, 4], [w // 8, 8], [4, 1], [1, 0])
    x = torch.randn((M, N), device="cuda")
    y = torch.full((N, M), float("nan"), device="cuda")
    transpose_by_permute[(1,)](x, y, M, N, L=L, LT=LT,
                               SH=kl.SwizzledSharedLayout(*swizzle, [1, 0]), num_warps=4)
    torch.testing.assert_close(y, x.t(), rtol=0, atol=0)


@kiln.jit
def flatten_by_reshape(x, y, L: kl.constexpr, L1: kl.constexpr, SH: kl.constexpr):
    """A 4 x 64 unswizzled buffer read back through .reshape([256]) is x flattened."""
    r = kl.arange(0, 4, kl.SliceLayout(1, L))
    c = kl.arange(0, 64, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [4, 64], SH)
    buf.store(kl.load(x + r[:, None] * 64 + c[None, :]))
    i = kl.arange(0, 256, L1)
    kl.store(y + i, buf.reshape([256]).load(L1))


def test_flatten_through_reshape(target):
    w = 32 if target.startswith("cuda:") else 64
    L = kl.BlockedLayout([1, 2], [w // 16, 16], [2, 2], [1, 0])
    L1 = kl.BlockedLayout([2], [w], [4], [0])
    x = torch.randn((4, 64), device="cuda")
    y = torch.full((256,), float("nan"), device="cuda")
    flatten_by_reshape[(1,)](x, y, L=L, L1=L1, SH=kl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
                             num_warps=4)
    torch.testing.assert_close(y, x.flatten(), rtol=0, atol=0)


@pytest.mark.parametrize("pairs", [[[64, 4]], [[32, 1]]])
@pytest.mark.parametrize("M,N", [(32, 64), (17, 50)])
def test_transpose_through_permuted_padded_layout(target, pairs, M, N):
    """.permute([1, 0]) of a PaddedSharedLayout buffer: the bases are renamed, the padding
    stays."""
    w = 32 if target.startswith("cuda:") else 64
    L, _ = layouts(target)
    LT = kl.BlockedLayout([1, 4], [w // 8, 8], [4, 1], [1, 0])
    x = torch.randn((M, N), device="cuda")
    y = torch.full((N, M), float("nan"), device="cuda")
    SH = kl.PaddedSharedLayout.with_identity_for(pairs, [32, 64], [1, 0])
    transpose_by_permute[(1,)](x, y, M, N, L=L, LT=LT, SH=SH, num_warps=4)
    torch.testing.assert_close(y, x.t(), rtol=0, atol=0)


@pytest.mark.parametrize("swizzle", ["nvmma", "swizzled"])
def test_rows_permuted_view_of_a_swizzled_buffer(target, swizzle):
    # test/Python/test_shared_dsl.py's rows_permuted_view: the view's row a*8 + c*4 + b is the
    # buffer's row a*8 + b*2 + c.
    if swizzle == "nvmma" and not target.startswith("cuda"):
        pytest.skip(f"NVMMA layouts are NVIDIA's; the device is {target}")
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "Python"))
    import test_shared_dsl as m
    smem = (kl.NVMMASharedLayout.get_default_for([128, 64], kl.float32) if swizzle == "nvmma"
            else kl.SwizzledSharedLayout(4, 2, 8, [1, 0]))
    inp = torch.randn(128, 64, device="cuda")
    out = torch.full_like(inp, float("nan"))
    m.rows_permuted_view[(1,)](inp, out, smem, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(out, inp.view(16, 4, 2, 64).permute(0, 2, 1, 3).reshape(128, 64))


@kiln.jit
def rows_regrouped_padded(x, y, BM: kl.constexpr, BK: kl.constexpr, RING: kl.constexpr,
                          L: kl.constexpr, SH: kl.constexpr):
    """Stores x whole into the last slot of a padded ring, reads it back through
    reshape((BM // 4, 4, BK)).permute((1, 0, 2)).reshape((BM, BK)) (a fused MoE's row
    regrouping of an LDS tile)."""
    r = kl.arange(0, BM, kl.SliceLayout(1, L))
    c = kl.arange(0, BK, kl.SliceLayout(0, L))
    ring = kl.allocate_shared_memory(kl.float32, [RING, BM, BK], SH)
    slot = ring.index(RING - 1)
    slot.store(kl.load(x + r[:, None] * BK + c[None, :]))
    view = slot.reshape((BM // 4, 4, BK)).permute((1, 0, 2)).reshape((BM, BK))
    kl.store(y + r[:, None] * BK + c[None, :], view.load(L))


@pytest.mark.parametrize("pairs", [[[64, 4]], [[256, 8], [512, 16]]])
@pytest.mark.parametrize("ring", [1, 2])
def test_rows_regrouped_through_a_padded_slot(target, pairs, ring):
    """A slot of a PaddedSharedLayout ring reshaped, permuted and reshaped back: the padding
    follows the element offset, so the reshaped layouts keep it (Gluon's rule)."""
    L, _ = layouts(target)
    BM, BK = 32, 64
    x = torch.randn((BM, BK), device="cuda")
    y = torch.full((BM, BK), float("nan"), device="cuda")
    SH = kl.PaddedSharedLayout.with_identity_for(pairs, [BM, BK], [1, 0])
    rows_regrouped_padded[(1,)](x, y, BM=BM, BK=BK, RING=ring, L=L, SH=SH, num_warps=4)
    want = x.view(BM // 4, 4, BK).permute(1, 0, 2).reshape(BM, BK)
    torch.testing.assert_close(y, want, rtol=0, atol=0)
