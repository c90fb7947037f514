"""Shared memory through kernel[grid]: a tile written to a swizzled buffer in one register
layout and read back in another (other threads' elements), for several swizzles, element
types and ragged shapes, checked against torch. Skips cleanly without a GPU."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

DTYPES = {"fp32": (torch.float32, kl.float32), "fp16": (torch.float16, kl.float16),
          "bf16": (torch.bfloat16, kl.bfloat16)}


@kiln.jit
def through_shared(x, y, M, N, DT: kl.constexpr, BM: kl.constexpr, BN: kl.constexpr,
                   L: kl.constexpr, LT: kl.constexpr, SH: kl.constexpr):
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, L))
    cols = kl.program_id(1) * BN + kl.arange(0, BN, kl.SliceLayout(0, L))
    m = (rows[:, None] < M) & (cols[None, :] < N)
    v = kl.load(x + rows[:, None] * N + cols[None, :], mask=m, other=0.0)
    buf = kl.allocate_shared_memory(DT, [BM, BN], SH)
    buf.store(v)
    w = buf.load(LT)
    init = kl.allocate_shared_memory(DT, [BM, BN], SH, w)  # initialized from a tensor
    u = init.load(L)
    rows_t = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, LT))
    cols_t = kl.program_id(1) * BN + kl.arange(0, BN, kl.SliceLayout(0, LT))
    mt = (rows_t[:, None] < M) & (cols_t[None, :] < N)
    kl.store(y + rows_t[:, None] * N + cols_t[None, :], w, mask=mt)
    kl.store(y + M * N + rows[:, None] * N + cols[None, :], u, mask=m)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("swizzle", [(1, 1, 1), (4, 1, 8), (8, 2, 4), (2, 1, 16)])
@pytest.mark.parametrize("M,N", [(32, 32), (100, 37), (1, 1), (257, 513)])
def test_store_then_load_in_another_layout(target, dtype, swizzle, M, N):
    w = 32 if target.startswith("cuda:") else 64
    tdt, kdt = DTYPES[dtype]
    x = torch.randn((M, N), device="cuda").to(tdt)
    y = torch.full((2 * M * N,), float("nan"), device="cuda", dtype=tdt)
    BM, BN = 32, 64
    L = kl.BlockedLayout([1, 4], [w // 16, 16], [4, 1], [1, 0])
    LT = kl.BlockedLayout([4, 1], [16, w // 16], [1, 4], [0, 1])
    through_shared[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](
        x, y, M, N, DT=kdt, BM=BM, BN=BN, L=L, LT=LT,
        SH=kl.SwizzledSharedLayout(*swizzle, [1, 0]), num_warps=4)
    torch.testing.assert_close(y[:M * N].view(M, N), x, rtol=0, atol=0)
    torch.testing.assert_close(y[M * N:].view(M, N), x, rtol=0, atol=0)


@kiln.jit
def ring(x, y, M, N, NBUF: kl.constexpr, BM: kl.constexpr, BN: kl.constexpr,
         L: kl.constexpr, LT: kl.constexpr, SH: kl.constexpr):
    """Slot k of an NBUF-deep ring holds rows [k*BM, (k+1)*BM) of x; the slots are read back
    in reverse order, in another layout, and written to the same rows of y."""
    bufs = kl.allocate_shared_memory(kl.float32, [NBUF, BM, BN], SH)
    cols = kl.arange(0, BN, kl.SliceLayout(0, L))
    for k in kl.static_range(NBUF):
        rows = k * BM + kl.arange(0, BM, kl.SliceLayout(1, L))
        m = (rows[:, None] < M) & (cols[None, :] < N)
        bufs.index(k).store(kl.load(x + rows[:, None] * N + cols[None, :], mask=m, other=0.0))
    cols_t = kl.arange(0, BN, kl.SliceLayout(0, LT))
    for j in range(NBUF):
        k = NBUF - 1 - j  # a runtime slot index
        rows_t = k * BM + kl.arange(0, BM, kl.SliceLayout(1, LT))
        mt = (rows_t[:, None] < M) & (cols_t[None, :] < N)
        kl.store(y + rows_t[:, None] * N + cols_t[None, :], bufs.index(k).load(LT), mask=mt)


@pytest.mark.parametrize("nbuf", [1, 2, 3, 5])
@pytest.mark.parametrize("M,N", [(70, 40), (96, 64), (5, 3)])
def test_ring_slots(target, nbuf, M, N):
    w = 32 if target.startswith("cuda:") else 64
    BM, BN = 32, 64
    x = torch.randn((M, N), device="cuda")
    y = torch.full((M, N), float("nan"), device="cuda")
    L = kl.BlockedLayout([1, 4], [w // 16, 16], [4, 1], [1, 0])
    LT = kl.BlockedLayout([4, 1], [16, w // 16], [1, 4], [0, 1])
    ring[(1,)](x, y, M, N, NBUF=nbuf, BM=BM, BN=BN, L=L, LT=LT,
               SH=kl.SwizzledSharedLayout(4, 1, 8, [1, 0]), num_warps=4)
    rows = min(M, nbuf * BM)
    torch.testing.assert_close(y[:rows], x[:rows], rtol=0, atol=0)
    assert torch.isnan(y[rows:]).all()


PADDED = [
    ([[64, 4]], None),                 # one row (64 elements) + 4
    ([[64, 1]], None),                 # odd padding: scalar accesses
    ([[128, 8], [32, 2]], None),       # two pairs, summed where both apply
    ([[256, 16]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32],  # rows interleaved
                   [2, 0], [4, 0], [8, 0], [16, 0], [1, 0]]),
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("padded", range(len(PADDED)))
@pytest.mark.parametrize("M,N", [(32, 64), (100, 37)])
def test_store_then_load_through_padded_layout(target, dtype, padded, M, N):
    """The same kernel as above through a PaddedSharedLayout (Gluon's), exact against torch."""
    w = 32 if target.startswith("cuda:") else 64
    tdt, kdt = DTYPES[dtype]
    x = torch.randn((M, N), device="cuda").to(tdt)
    y = torch.full((2 * M * N,), float("nan"), device="cuda", dtype=tdt)
    BM, BN = 32, 64
    pairs, bases = PADDED[padded]
    SH = (kl.PaddedSharedLayout.with_identity_for(pairs, [BM, BN], [1, 0]) if bases is None
          else kl.PaddedSharedLayout(pairs, bases, [], [BM, BN]))
    L = kl.BlockedLayout([1, 4], [w // 16, 16], [4, 1], [1, 0])
    LT = kl.BlockedLayout([4, 1], [16, w // 16], [1, 4], [0, 1])
    through_shared[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](
        x, y, M, N, DT=kdt, BM=BM, BN=BN, L=L, LT=LT, SH=SH, num_warps=4)
    torch.testing.assert_close(y[:M * N].view(M, N), x, rtol=0, atol=0)
    torch.testing.assert_close(y[M * N:].view(M, N), x, rtol=0, atol=0)
